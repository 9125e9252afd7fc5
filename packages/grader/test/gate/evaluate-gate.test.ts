// The gate's decision on real results folders: each reason to fail, each reason to refuse, and the passing cases.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gatedMetrics, type GatedMetric } from '@abp/protocol/schemas/abp-baseline';
import type { AbpRun } from '@abp/protocol/schemas/abp-run';
import type { AbpTrial } from '@abp/protocol/schemas/abp-trial';
import { createBaseline, evaluateGate, type GateReport } from '../../src/gate/index.js';
import { readRunResults, type RunResults } from '../../src/results/index.js';
import { defaultMetrics, makeRun, matrix, taskDigest, writeResultsFolder, type TrialSpec } from '../support/results.js';

const root = await mkdtemp(join(tmpdir(), 'abp-gate-'));
afterAll(() => rm(root, { recursive: true, force: true }));

const TASKS = Array.from({ length: 10 }, (_, index) => `task-${String(index).padStart(2, '0')}`);
const indexOf = (task: string) => TASKS.indexOf(task);

// Metrics that differ per task, so medians and bootstrap intervals have something to work on.
function metricsOf(task: string, scale: Partial<Record<GatedMetric, number>> = {}): AbpTrial['metrics'] {
  const spread = 1 + indexOf(task) / 10;
  const value = (metric: GatedMetric) => (defaultMetrics[metric] ?? 0) * spread * (scale[metric] ?? 1);
  // Counts stay whole numbers, as the trial schema requires; cost keeps its fraction.
  const whole = (metric: GatedMetric) => Math.round(value(metric));
  return {
    diffBytesNormalized: whole('diffBytesNormalized'),
    tokensTotal: whole('tokensTotal'),
    wallClockMs: whole('wallClockMs'),
    computedUsd: value('computedUsd'),
  };
}

let folders = 0;
async function resultsOf(
  run: AbpRun,
  spec: (task: string, engine: string, trial: number) => Partial<TrialSpec> = (task) => ({ metrics: metricsOf(task) }),
  tasks?: Array<{ id: string; digest: string }>,
): Promise<RunResults> {
  const parent = join(root, `case-${(folders += 1)}`);
  await mkdir(parent);
  const folder = await writeResultsFolder(parent, { run, trials: matrix(run, spec), ...(tasks ? { tasks } : {}) });
  return readRunResults(folder);
}

const runOf = (overrides: Partial<AbpRun> = {}) => makeRun({ id: 'run-pr', tasks: TASKS, trials: 2, ...overrides });
const baseline = createBaseline(await resultsOf(runOf({ id: 'run-main' })), 'oxagen');

/** Trials of task index < `resolvedTasks` resolve; the rest do not. */
const resolvingFirst = (resolvedTasks: number) => (task: string) => ({
  outcome: indexOf(task) < resolvedTasks ? ('resolved' as const) : ('unresolved' as const),
  metrics: metricsOf(task),
});

function statusOf(report: GateReport): Record<string, string> {
  return Object.fromEntries(report.checks.map((check) => [check.id, check.status]));
}

function refusalCodes(report: GateReport): string[] {
  expect(report.comparable).toBe(false);
  expect(report.passed).toBe(false);
  expect(report.checks).toEqual([]);
  expect(report.refusal).toBe(report.reasons.map((reason) => reason.message).join('; '));
  return report.reasons.map((reason) => reason.code);
}

describe('evaluateGate: passing', () => {
  it('passes a run that matches its baseline, with a paired interval per metric', async () => {
    const results = await resultsOf(runOf());
    const report = evaluateGate({ results, baseline, requireSignificant: true });
    expect(report).toMatchObject({
      engine: 'oxagen',
      run: 'run-pr',
      baselineRun: 'run-main',
      comparable: true,
      refusal: null,
      passed: true,
    });
    expect(report.checks.map((check) => check.id)).toEqual([
      'resolve-rate',
      'resolve-rate-all-trials',
      ...gatedMetrics,
    ]);
    expect(statusOf(report)).toEqual({
      'resolve-rate': 'pass',
      'resolve-rate-all-trials': 'pass',
      diffBytesNormalized: 'pass',
      tokensTotal: 'pass',
      wallClockMs: 'pass',
      computedUsd: 'pass',
    });
    const [rate, , ...metrics] = report.checks;
    expect(rate).toMatchObject({ baseline: 1, current: 1, change: 0, pValue: 1, threshold: baseline.alpha });
    for (const check of metrics) {
      expect(check.change).toBe(0);
      expect(check.interval).toEqual([0, 0]);
      expect(check.threshold).toBe(baseline.thresholds[check.id as GatedMetric]);
    }
  });

  it('passes a better run, and growth up to the threshold', async () => {
    const gateOf = (scale: Partial<Record<GatedMetric, number>>) => async () =>
      evaluateGate({
        results: await resultsOf(runOf(), (task) => ({ metrics: metricsOf(task, scale) })),
        baseline,
        requireSignificant: false,
      });
    const smaller = await gateOf({ diffBytesNormalized: 0.5, tokensTotal: 0.5, wallClockMs: 0.5, computedUsd: 0.5 })();
    expect(smaller.passed).toBe(true);
    expect(smaller.checks[2]?.change).toBeCloseTo(-0.5, 2);
    const justUnder = await gateOf(
      Object.fromEntries(gatedMetrics.map((metric) => [metric, 1 + baseline.thresholds[metric] - 0.02])),
    )();
    expect(justUnder.passed).toBe(true);
  });

  it('gates another engine name of the run against the baseline when asked (--engine)', async () => {
    const run = runOf({ engines: [{ name: 'oxagen-next', version: '1.5.0' }] });
    const report = evaluateGate({
      results: await resultsOf(run),
      baseline,
      engine: 'oxagen-next',
      requireSignificant: false,
    });
    expect(report.engine).toBe('oxagen-next');
    expect(report.passed).toBe(true);
  });

  it('is deterministic: the same input gives the same report', async () => {
    const results = await resultsOf(runOf(), (task, _engine, trial) => ({
      metrics: metricsOf(task, { tokensTotal: trial === 0 ? 1.1 : 0.95 }),
    }));
    const first = evaluateGate({ results, baseline, requireSignificant: true });
    const again = evaluateGate({
      results: await resultsOf(runOf(), (task, _engine, trial) => ({
        metrics: metricsOf(task, { tokensTotal: trial === 0 ? 1.1 : 0.95 }),
      })),
      baseline,
      requireSignificant: true,
    });
    expect(again).toEqual(first);
    const tokens = first.checks.find((check) => check.id === 'tokensTotal');
    expect(tokens?.interval?.[0]).toBeLessThan(tokens?.interval?.[1] ?? -Infinity);
  });
  it('reduces a seed past 32 bits the way the run does, instead of dropping the interval', async () => {
    const varied = (task: string, _engine: string, trial: number) => ({
      metrics: metricsOf(task, { tokensTotal: trial === 0 ? 1.1 : 0.95 }),
    });
    const small = evaluateGate({
      results: await resultsOf(runOf({ seed: 5 }), varied),
      baseline,
      requireSignificant: true,
    });
    const large = evaluateGate({
      results: await resultsOf(runOf({ seed: 2 ** 32 + 5 }), varied),
      baseline,
      requireSignificant: true,
    });
    const intervals = (report: GateReport) => report.checks.map((check) => check.interval);
    expect(intervals(large)).toEqual(intervals(small));
    expect(large.checks.find((check) => check.id === 'tokensTotal')?.summary).toContain(`seed ${2 ** 32 + 5}`);
  });
});

describe('evaluateGate: the resolve rate', () => {
  it('fails a significant drop with and without --require-significant', async () => {
    // 20 pairs: 8 resolved now against 20 before, 12 newly unresolved, p = 2^-11.
    const results = await resultsOf(runOf(), resolvingFirst(4));
    for (const requireSignificant of [true, false]) {
      const report = evaluateGate({ results, baseline, requireSignificant });
      const rate = report.checks[0];
      expect(rate).toMatchObject({ id: 'resolve-rate', status: 'fail', baseline: 1, current: 0.4 });
      expect(rate?.change).toBeCloseTo(-0.6, 10);
      expect(rate?.pValue).toBeCloseTo(2 ** -11, 12);
      expect(report.passed).toBe(false);
    }
  });

  it('fails a drop that is not significant only without --require-significant', async () => {
    // 2 of 20 pairs lost: p = 0.5.
    const results = await resultsOf(runOf(), resolvingFirst(9));
    const lenient = evaluateGate({ results, baseline, requireSignificant: true });
    expect(lenient.checks[0]).toMatchObject({ status: 'pass', pValue: 0.5, threshold: 0.05 });
    expect(lenient.passed).toBe(true);
    const strict = evaluateGate({ results, baseline, requireSignificant: false });
    expect(strict.checks[0]).toMatchObject({ status: 'fail', threshold: 0 });
    expect(strict.passed).toBe(false);
  });

  it('holds the drop to the alpha the baseline commits', async () => {
    const results = await resultsOf(runOf(), resolvingFirst(7)); // 6 of 20 lost: p = 2^-5 = 0.03125
    const strictAlpha = createBaseline(await resultsOf(runOf({ id: 'run-main' })), 'oxagen', { alpha: 0.01 });
    expect(evaluateGate({ results, baseline, requireSignificant: true }).checks[0]?.status).toBe('fail');
    expect(evaluateGate({ results, baseline: strictAlpha, requireSignificant: true }).checks[0]?.status).toBe('pass');
  });

  it('passes a rise, and counts disqualified trials as scored, not resolved', async () => {
    const weaker = createBaseline(await resultsOf(runOf({ id: 'run-main' }), resolvingFirst(8)), 'oxagen');
    const better = evaluateGate({ results: await resultsOf(runOf()), baseline: weaker, requireSignificant: false });
    expect(better.checks[0]).toMatchObject({ status: 'pass', baseline: 0.8, current: 1 });
    const disqualified = await resultsOf(runOf(), (task) => ({
      outcome: indexOf(task) < 8 ? 'resolved' : 'disqualified',
      metrics: metricsOf(task),
    }));
    expect(
      evaluateGate({ results: disqualified, baseline: weaker, requireSignificant: false }).checks[0],
    ).toMatchObject({ status: 'pass', current: 0.8, change: 0 });
    expect(evaluateGate({ results: disqualified, baseline, requireSignificant: false }).checks[0]?.status).toBe('fail');
  });

  it('leaves engine and harness errors out of the rate instead of counting them as losses', async () => {
    const results = await resultsOf(runOf(), (task, _engine, trial) => ({
      outcome: indexOf(task) < 3 && trial === 1 ? 'engine-error' : 'resolved',
      metrics: metricsOf(task),
    }));
    const report = evaluateGate({ results, baseline, requireSignificant: false });
    expect(report.checks[0]).toMatchObject({ status: 'pass', current: 1 });
    expect(report.checks[0]?.summary).toContain('(17/17)');
    // The excluded three still count over all trials: leaving the denominator cannot raise that rate.
    expect(report.checks[1]).toMatchObject({ id: 'resolve-rate-all-trials', status: 'fail', current: 17 / 20 });
  });

  it('fails an engine that ducks the tasks it cannot solve by crashing, whatever its executed rate', async () => {
    // Resolved 1 of 20 and excluded the rest: the executed rate is 1/1 against a baseline that resolved all 20.
    const results = await resultsOf(runOf(), (task, _engine, trial) => ({
      outcome: indexOf(task) === 0 && trial === 0 ? 'resolved' : 'engine-error',
      metrics: metricsOf(task),
    }));
    const report = evaluateGate({ results, baseline, requireSignificant: true });
    expect(report.checks[0]).toMatchObject({ id: 'resolve-rate', status: 'pass', current: 1 });
    expect(report.checks[1]).toMatchObject({ id: 'resolve-rate-all-trials', status: 'fail', current: 1 / 20 });
    expect(report.passed).toBe(false);
  });
});

describe('evaluateGate: efficiency medians', () => {
  it.each(gatedMetrics)('fails when the median %s grows past its threshold, and only that check', async (metric) => {
    const growth = baseline.thresholds[metric] + 0.1;
    const results = await resultsOf(runOf(), (task) => ({ metrics: metricsOf(task, { [metric]: 1 + growth }) }));
    const report = evaluateGate({ results, baseline, requireSignificant: true });
    expect(report.passed).toBe(false);
    const failed = report.checks.filter((check) => check.status === 'fail');
    expect(failed.map((check) => check.id)).toEqual([metric]);
    expect(failed[0]?.change).toBeCloseTo(growth, 2);
    expect(failed[0]?.interval?.[0]).toBeCloseTo(growth, 2);
  });

  it('skips a metric whose baseline median is missing or zero', async () => {
    const zeroCost = createBaseline(
      await resultsOf(runOf({ id: 'run-main' }), (task) => ({
        metrics: { ...metricsOf(task), computedUsd: 0, wallClockMs: null },
      })),
      'oxagen',
    );
    const results = await resultsOf(runOf(), (task) => ({ metrics: { ...metricsOf(task), wallClockMs: null } }));
    const report = evaluateGate({ results, baseline: zeroCost, requireSignificant: false });
    expect(statusOf(report)).toEqual({
      'resolve-rate': 'pass',
      'resolve-rate-all-trials': 'pass',
      diffBytesNormalized: 'pass',
      tokensTotal: 'pass',
      wallClockMs: 'skipped',
      computedUsd: 'skipped',
    });
    expect(report.checks.find((check) => check.id === 'computedUsd')).toMatchObject({ baseline: 0, change: null });
    expect(report.checks.find((check) => check.id === 'wallClockMs')).toMatchObject({ baseline: null, change: null });
    expect(report.passed).toBe(true);
  });

  it('fails a metric the run leaves unknown on more resolved trials than the baseline did, whatever the rest say', async () => {
    // One unreadable trace line per trial makes the tokens unknown: a median over the others would let the engine
    // choose which of its trials are measured.
    const results = await resultsOf(runOf(), (task) => ({
      metrics: {
        ...metricsOf(task, { tokensTotal: 0.5 }),
        tokensTotal: indexOf(task) < 3 ? null : metricsOf(task).tokensTotal,
      },
    }));
    const report = evaluateGate({ results, baseline, requireSignificant: false });
    expect(statusOf(report)['tokensTotal']).toBe('fail');
    expect(report.checks.find((check) => check.id === 'tokensTotal')).toMatchObject({ change: null });
    expect(report.passed).toBe(false);
    // All unknown on both sides is no drift: skipped, as a metric nobody measured.
    const unmeasured = createBaseline(
      await resultsOf(runOf({ id: 'run-main' }), (task) => ({ metrics: { ...metricsOf(task), computedUsd: null } })),
      'oxagen',
    );
    const alsoUnmeasured = await resultsOf(runOf(), (task) => ({ metrics: { ...metricsOf(task), computedUsd: null } }));
    expect(
      statusOf(evaluateGate({ results: alsoUnmeasured, baseline: unmeasured, requireSignificant: false }))[
        'computedUsd'
      ],
    ).toBe('skipped');
  });

  it('gives no interval with fewer than two trials resolved in both', async () => {
    const results = await resultsOf(runOf(), (task, _engine, trial) => ({
      outcome: indexOf(task) === 0 && trial === 0 ? 'resolved' : 'unresolved',
      metrics: metricsOf(task),
    }));
    const report = evaluateGate({ results, baseline, requireSignificant: true });
    const diff = report.checks.find((check) => check.id === 'diffBytesNormalized');
    expect(diff?.status).toBe('pass');
    expect(diff?.interval).toBeUndefined();
  });
});

describe('evaluateGate: refusals', () => {
  it('refuses a different task set and names the differing ids', async () => {
    const swapped = [...TASKS.slice(1), 'task-new'];
    const report = evaluateGate({
      results: await resultsOf(runOf({ tasks: swapped })),
      baseline,
      requireSignificant: true,
    });
    expect(refusalCodes(report)).toEqual(['task-set-differs']);
    expect(report.refusal).toContain('task-new');
    expect(report.refusal).toContain('task-00');
  });

  it('refuses a task whose digest changed', async () => {
    const tasks = TASKS.map((id) => ({ id, digest: taskDigest(id, id === 'task-03' ? 2 : 1) }));
    const results = await resultsOf(
      runOf(),
      (task) => ({ taskDigest: tasks[indexOf(task)]?.digest ?? '', metrics: metricsOf(task) }),
      tasks,
    );
    const report = evaluateGate({ results, baseline, requireSignificant: true });
    expect(refusalCodes(report)).toEqual(['task-set-differs']);
    expect(report.refusal).toContain('task-03');
  });

  it('refuses another model, and a run with mismatched models', async () => {
    expect(
      refusalCodes(
        evaluateGate({
          results: await resultsOf(runOf({ model: 'openai/gpt-5.2' })),
          baseline,
          requireSignificant: true,
        }),
      ),
    ).toEqual(['model-differs']);
    const mismatched = runOf({
      matchedModels: false,
      engines: [{ name: 'oxagen', version: '1.4.2', model: 'openai/gpt-5.2' }],
    });
    expect(
      refusalCodes(evaluateGate({ results: await resultsOf(mismatched), baseline, requireSignificant: true })),
    ).toEqual(['models-not-matched']);
  });

  it('refuses an engine the run does not have, or has no trials of', async () => {
    const results = await resultsOf(runOf());
    expect(refusalCodes(evaluateGate({ results, baseline, engine: 'claude-code', requireSignificant: true }))).toEqual([
      'engine-not-in-run',
    ]);
    const twoEngines = runOf({
      engines: [
        { name: 'oxagen', version: '1.4.2' },
        { name: 'claude-code', version: '2.1.0' },
      ],
    });
    const onlyOther = await resultsOf(twoEngines);
    const report = evaluateGate({
      results: { ...onlyOther, trials: onlyOther.trials.filter((trial) => trial.engine !== 'oxagen') },
      baseline,
      requireSignificant: true,
    });
    expect(refusalCodes(report)).toEqual(['no-trials']);
  });

  it('refuses an incomplete run and names the missing trial', async () => {
    // A run in progress: its journal holds every trial but this one, and nothing is sealed yet.
    const run = runOf();
    const parent = join(root, `case-${(folders += 1)}`);
    await mkdir(parent);
    const trials = matrix(run, (task) => ({ metrics: metricsOf(task) })).filter(
      (trial) => trial.trialId !== 'task-07.oxagen.1',
    );
    const results = await readRunResults(await writeResultsFolder(parent, { run, trials, finished: false }));
    const report = evaluateGate({ results, baseline, requireSignificant: true });
    expect(refusalCodes(report)).toEqual(['incomplete-run']);
    expect(report.refusal).toContain('task-07');
  });

  it('refuses a run where every trial of the engine was excluded', async () => {
    const results = await resultsOf(runOf(), () => ({ outcome: 'engine-error', reason: 'could-not-invoke' }));
    expect(refusalCodes(evaluateGate({ results, baseline, requireSignificant: true }))).toEqual(['no-scored-trials']);
  });

  it('gives every reason at once', async () => {
    const results = await resultsOf(runOf({ model: 'openai/gpt-5.2', tasks: TASKS.slice(0, 5) }));
    expect(refusalCodes(evaluateGate({ results, baseline, requireSignificant: false }))).toEqual([
      'model-differs',
      'task-set-differs',
    ]);
  });
});
