// Making a baseline from a run and its file on disk: what it keeps, when it refuses, and stable bytes.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultGateThresholds } from '@abp/protocol/schemas/abp-baseline';
import type { AbpRun } from '@abp/protocol/schemas/abp-run';
import { baselineText, createBaseline, GateError, readBaselineFile, writeBaselineFile } from '../../src/gate/index.js';
import { readRunResults, ResultsError, type RunResults } from '../../src/results/index.js';
import { makeRun, matrix, taskDigest, writeResultsFolder, type TrialSpec } from '../support/results.js';

const root = await mkdtemp(join(tmpdir(), 'abp-baseline-'));
afterAll(() => rm(root, { recursive: true, force: true }));

let folders = 0;
async function scratch(): Promise<string> {
  const parent = join(root, `case-${(folders += 1)}`);
  await mkdir(parent);
  return parent;
}

async function resultsOf(
  run: AbpRun,
  spec?: (task: string, engine: string, trial: number) => Partial<TrialSpec>,
): Promise<RunResults> {
  return readRunResults(await writeResultsFolder(await scratch(), { run, trials: matrix(run, spec) }));
}

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof GateError || error instanceof ResultsError ? error.code : `unexpected: ${String(error)}`;
  }
  return undefined;
}

async function asyncCodeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return error instanceof GateError ? error.code : `unexpected: ${String(error)}`;
  }
  return undefined;
}

const twoEngines = makeRun({
  id: 'run-main',
  tasks: ['task-b', 'task-a'],
  trials: 2,
  engines: [
    { name: 'oxagen', version: '1.4.2' },
    { name: 'claude-code', version: '2.1.0' },
  ],
});

describe('createBaseline', () => {
  it("keeps one engine's scored trials sorted by task and trial, with the run's task set and model", async () => {
    const outcomes: Record<string, TrialSpec['outcome']> = {
      'task-a/0': 'engine-error',
      'task-a/1': 'disqualified',
      'task-b/0': 'harness-error',
      'task-b/1': 'resolved',
    };
    const results = await resultsOf(twoEngines, (task, engine, trial) =>
      engine === 'oxagen' ? { outcome: outcomes[`${task}/${trial}`], metrics: { tokensTotal: 1000 + trial } } : {},
    );
    const baseline = createBaseline(results, 'oxagen', { thresholds: { tokensTotal: 0.05 }, alpha: 0.01 });
    expect(baseline).toMatchObject({
      schema: 'abp-baseline/v1',
      engine: 'oxagen',
      model: twoEngines.model,
      run: 'run-main',
      alpha: 0.01,
    });
    expect(baseline.tasks).toEqual([
      { id: 'task-a', digest: taskDigest('task-a') },
      { id: 'task-b', digest: taskDigest('task-b') },
    ]);
    expect(baseline.trials).toEqual([
      {
        task: 'task-a',
        trial: 1,
        resolved: false,
        diffBytesNormalized: 1000,
        tokensTotal: 1001,
        wallClockMs: 60_000,
        computedUsd: 0.5,
      },
      {
        task: 'task-b',
        trial: 1,
        resolved: true,
        diffBytesNormalized: 1000,
        tokensTotal: 1001,
        wallClockMs: 60_000,
        computedUsd: 0.5,
      },
    ]);
    expect(baseline.thresholds).toEqual({ ...defaultGateThresholds, tokensTotal: 0.05 });
  });

  it('refuses an engine the run does not have, mismatched models, an incomplete run and a run with nothing scored', async () => {
    const results = await resultsOf(twoEngines);
    expect(codeOf(() => createBaseline(results, 'hermes'))).toBe('engine-not-in-run');
    const mismatched = await resultsOf({
      ...twoEngines,
      matchedModels: false,
      engines: [{ name: 'oxagen', version: '1.4.2', model: 'openai/gpt-5.2' }],
    });
    expect(codeOf(() => createBaseline(mismatched, 'oxagen'))).toBe('models-not-matched');
    // A run in progress: every trial but one journaled, nothing sealed yet.
    const incomplete = await readRunResults(
      await writeResultsFolder(await scratch(), {
        run: twoEngines,
        trials: matrix(twoEngines).filter((trial) => trial.trialId !== 'task-a.oxagen.1'),
        finished: false,
      }),
    );
    expect(codeOf(() => createBaseline(incomplete, 'oxagen'))).toBe('incomplete-run');
    expect(codeOf(() => createBaseline(incomplete, 'claude-code'))).toBeUndefined(); // only the engine's own row must be complete
    const crashed = await resultsOf(twoEngines, (_task, engine) =>
      engine === 'oxagen' ? { outcome: 'engine-error' } : {},
    );
    expect(codeOf(() => createBaseline(crashed, 'oxagen'))).toBe('no-scored-trials');
  });

  it('refuses thresholds and an alpha the schema does not allow', async () => {
    const results = await resultsOf(twoEngines);
    expect(codeOf(() => createBaseline(results, 'oxagen', { thresholds: { wallClockMs: -0.1 } }))).toBe(
      'invalid-baseline',
    );
    expect(codeOf(() => createBaseline(results, 'oxagen', { alpha: 2 }))).toBe('invalid-baseline');
  });
});

describe('the baseline file', () => {
  it('writes sorted keys and stable bytes atomically, and reads back what it wrote', async () => {
    const parent = await scratch();
    const baseline = createBaseline(await resultsOf(twoEngines), 'oxagen');
    const file = join(parent, 'abp-baseline.json');
    await writeBaselineFile(file, baseline);
    const bytes = await readFile(file, 'utf8');
    expect(bytes).toBe(baselineText(baseline));
    expect(bytes.endsWith('}\n')).toBe(true);
    expect(Object.keys(JSON.parse(bytes) as object)).toEqual([
      'allTrials',
      'alpha',
      'engine',
      'model',
      'run',
      'schema',
      'tasks',
      'thresholds',
      'trials',
    ]);
    expect(bytes).toContain('\n  "alpha": 0.05,\n');
    expect(await readBaselineFile(file)).toEqual(baseline);

    await writeBaselineFile(file, createBaseline(await resultsOf(twoEngines), 'oxagen'));
    expect(await readFile(file, 'utf8')).toBe(bytes);
    expect(await readdir(parent)).toEqual(['abp-baseline.json']); // no temporary file left behind
  });

  it('says when the file is missing, not JSON, or not a baseline', async () => {
    const parent = await scratch();
    expect(await asyncCodeOf(readBaselineFile(join(parent, 'absent.json')))).toBe('missing-baseline');
    await writeFile(join(parent, 'broken.json'), '{"schema": "abp-baseline/v1",');
    expect(await asyncCodeOf(readBaselineFile(join(parent, 'broken.json')))).toBe('invalid-baseline');
    await writeFile(join(parent, 'run.json'), JSON.stringify(twoEngines));
    expect(await asyncCodeOf(readBaselineFile(join(parent, 'run.json')))).toBe('invalid-baseline');
  });
});
