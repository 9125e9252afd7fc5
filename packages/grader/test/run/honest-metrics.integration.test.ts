// Traces are data, not hazards, and metrics are honest: engines whose traces block, lie, overflow or name an unpriced
// model run through the real `abp run`. Each trial is scored as its diff deserves and flagged, its tokens and cost null
// where they are unknown, and the run still writes its verdict, its report and run-latest, which the gate can read.
import { readdir, readFile, readlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trialSchema, type AbpTrial } from '@abp/protocol/schemas/abp-trial';
import { verdictSchema } from '@abp/protocol/schemas/abp-verdict';
import { createBaseline, evaluateGate } from '../../src/gate/index.js';
import { readRunResults } from '../../src/results/index.js';
import { RunError } from '../../src/run/errors.js';
import { runMatrix, type RunOutcome } from '../../src/run/run-matrix.js';
import {
  buildRunFixture,
  enginePrelude,
  GREETING_TASK,
  type AdapterSpec,
  type RunFixture,
} from '../support/run-fixture.js';

const fix =
  "execFileSync('git', ['apply', join(tasksDir, input.task, 'held-out', 'golden.patch')], { cwd: input.workspace });";
const MAX = Number.MAX_SAFE_INTEGER;
// Each engine applies the task's fix, so each trial deserves to resolve: only its trace differs.
const scripts = {
  // The trace file is a FIFO no one writes: reading it the plain way blocks forever.
  fifo: `execFileSync('mkfifo', [input.traceFile]); ${fix}`,
  // A symlink to an endless device.
  zero: `symlinkSync('/dev/zero', input.traceFile); ${fix}`,
  // 900k-token calls, mostly cache reads ($0.687 each), and a line the grader must drop.
  garbled: `start(); emit({ kind: 'model.call', tokens: { input: 100000, output: 10000, cacheRead: 790000, cacheWrite: 0 } });
appendFileSync(input.traceFile, 'this line is not an event\\n');
emit({ kind: 'model.call', tokens: { input: 100000, output: 10000, cacheRead: 790000, cacheWrite: 0 } });
end(200000, 20000); ${fix}`,
  // The same dropped line, but what it did report already costs more than the $5 budget.
  overspent: `start(); call(800000, 100000); appendFileSync(input.traceFile, '{"kind":\\n'); call(800000, 100000); end(1600000, 200000); ${fix}`,
  // Counts at the edge of what a double holds exactly: their sum would not be a count.
  huge: `start(); call(${MAX}, 0); call(${MAX}, 0); end(${MAX}, 0); ${fix}`,
  // A model the price table does not know, beside the run's priced one.
  unpriced: `start(); call(1000, 100); emit({ kind: 'model.call', model: 'acme/unpriced-model', tokens: tokens(2000, 200) }); end(3000, 300); ${fix}`,
} as const;

async function fixtureWith(
  engines: Array<keyof typeof scripts | 'fix'>,
  options: { model?: string } = {},
): Promise<RunFixture> {
  const adapters: AdapterSpec[] = engines.map((engine) =>
    engine === 'fix'
      ? { engine: 'fixer', script: 'fix', ...(options.model === undefined ? {} : { model: options.model }) }
      : // Each applies the golden patch from the task folders, which its trusted-local adapter lists to see them.
        { engine, script: 'noop', scriptPath: `{repo}/engines/honest-${engine}.mjs`, program: ['{repo}/tasks'] },
  );
  const built = await buildRunFixture({ adapters, tasks: [GREETING_TASK], ...options });
  for (const engine of engines)
    if (engine !== 'fix')
      await writeFile(
        join(built.dir, 'engines', `honest-${engine}.mjs`),
        `${enginePrelude.replace('import { appendFileSync,', 'import { symlinkSync, appendFileSync,')}\n${scripts[engine]}\n`,
      );
  return built;
}

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

describe('abp run with hostile and broken traces', () => {
  let built: RunFixture;
  let result: RunOutcome;
  const trialOf = (engine: string): AbpTrial => {
    const trial = result.trials.find((candidate) => candidate.engine === engine);
    if (trial === undefined) throw new Error(`no trial of ${engine}`);
    return trial;
  };

  beforeAll(async () => {
    built = await fixtureWith(['fix', 'fifo', 'zero', 'garbled', 'overspent', 'huge', 'unpriced']);
    cleanups.push(() => built.cleanup());
    result = await runMatrix({
      config: built.config,
      output: join(built.dir, 'out'),
      cacheDir: join(built.dir, 'cache'),
    });
  }, 180_000);

  it('writes verdict.json, report.html and run-latest, every trial a valid abp-trial/v1 record', async () => {
    const files = await readdir(result.runDir);
    expect(files).toEqual(expect.arrayContaining(['verdict.json', 'report.html', 'trials']) as unknown);
    expect(await readlink(join(built.dir, 'out', 'run-latest'))).toBe(result.runId);
    const trialFiles = await readdir(join(result.runDir, 'trials'));
    expect(trialFiles).toHaveLength(7);
    for (const name of trialFiles) {
      const parsed = trialSchema.safeParse(JSON.parse(await readFile(join(result.runDir, 'trials', name), 'utf8')));
      expect(parsed.success).toBe(true);
    }
    expect(
      verdictSchema.safeParse(JSON.parse(await readFile(join(result.runDir, 'verdict.json'), 'utf8'))).success,
    ).toBe(true);
  });

  it('reads no trace from a FIFO or a symlink, and grades the diff anyway', () => {
    for (const engine of ['fifo', 'zero']) {
      const trial = trialOf(engine);
      expect([trial.outcome, trial.reason]).toEqual(['resolved', null]);
      expect(trial.trace?.source).toBe('missing');
      expect(trial.trace?.flags).toEqual(
        expect.arrayContaining(['trace-not-a-file', 'tokens-unknown', 'budget-unchecked']) as unknown,
      );
      expect(trial.trace?.flags).not.toContain('zero-model-calls');
      expect(trial.metrics).toMatchObject({ tokensTotal: null, computedUsd: null });
      expect(trial.metrics.diffBytesNormalized).toBeGreaterThan(0);
    }
  });

  it('has unknown tokens and cost for a trace with a dropped line, keeping what was read', () => {
    const trial = trialOf('garbled');
    expect([trial.outcome, trial.reason]).toEqual(['resolved', null]);
    expect(trial.trace?.flags).toEqual(
      expect.arrayContaining(['invalid-lines', 'tokens-unknown', 'budget-unchecked']) as unknown,
    );
    expect(trial.metrics).toMatchObject({ tokensTotal: null, computedUsd: null });
    expect(trial.trace?.modelCalls).toBe(2);
    expect(trial.trace?.tokens).toEqual({ input: 200_000, output: 20_000, cacheRead: 1_580_000, cacheWrite: 0 });
  });

  it('still fails the budget on what a broken trace did report', () => {
    const trial = trialOf('overspent');
    expect([trial.outcome, trial.reason]).toEqual(['unresolved', 'budget-exceeded']);
    expect(trial.metrics).toMatchObject({ tokensTotal: null, computedUsd: null });
    expect(trial.trace?.flags).not.toContain('budget-unchecked');
  });

  it('flags counts out of range instead of failing the record', () => {
    const trial = trialOf('huge');
    expect([trial.outcome, trial.reason]).toEqual(['resolved', null]);
    expect(trial.trace?.flags).toEqual(expect.arrayContaining(['tokens-out-of-range', 'tokens-unknown']) as unknown);
    expect(trial.metrics).toMatchObject({ tokensTotal: null, computedUsd: null });
    for (const count of Object.values(trial.trace?.tokens ?? {})) expect(Number.isSafeInteger(count)).toBe(true);
  });

  it('has an unknown cost for an unpriced model, flags the unchecked budget, and names the model in the verdict', () => {
    const trial = trialOf('unpriced');
    expect([trial.outcome, trial.reason]).toEqual(['resolved', null]);
    expect(trial.metrics).toMatchObject({ tokensTotal: 3300, computedUsd: null });
    expect(trial.trace?.unpricedModels).toEqual(['acme/unpriced-model']);
    expect(trial.trace?.flags).toEqual(expect.arrayContaining(['unpriced-model', 'budget-unchecked']) as unknown);
    const named = (result.verdict.warnings ?? []).filter((warning) => warning.includes('acme/unpriced-model'));
    expect(named).toHaveLength(1);
    expect(named[0]?.startsWith('unpriced: ')).toBe(true);
  });

  it('ranks no engine on a figure it does not have', () => {
    const median = (engine: string) => result.verdict.perEngine.find((entry) => entry.engine === engine);
    expect(median('fixer')).toMatchObject({ medianTokensTotal: 1100 });
    expect(median('fixer')?.medianComputedUsd).toBeGreaterThan(0);
    for (const engine of ['fifo', 'zero', 'garbled', 'huge'])
      expect(median(engine)).toMatchObject({ resolvedTrials: 1, medianTokensTotal: null, medianComputedUsd: null });
    expect(median('unpriced')).toMatchObject({ medianTokensTotal: 3300, medianComputedUsd: null });
    const pair = result.verdict.pairwise.find((entry) => entry.a === 'fixer' && entry.b === 'garbled');
    expect(pair).toMatchObject({ tokensDelta: null, costDelta: null });
    expect(pair?.diffDelta).not.toBeNull();
  });

  it('leaves every engine gateable', async () => {
    const results = await readRunResults(join(built.dir, 'out', 'run-latest'));
    for (const engine of ['fixer', 'fifo', 'zero', 'garbled', 'overspent', 'huge', 'unpriced']) {
      const report = evaluateGate({ results, baseline: createBaseline(results, engine), requireSignificant: true });
      expect([engine, report.comparable, report.passed]).toEqual([engine, true, true]);
    }
  });
});

describe('a run whose model has no price', () => {
  it('is refused under --strict-comparison before any trial, and warned of otherwise', async () => {
    const built = await fixtureWith(['fix'], { model: 'acme/unpriced-model' });
    cleanups.push(() => built.cleanup());
    const strict = await runMatrix({
      config: built.config,
      output: join(built.dir, 'strict'),
      cacheDir: join(built.dir, 'cache'),
      strictComparison: true,
    }).catch((error: unknown) => error);
    expect(strict).toBeInstanceOf(RunError);
    expect((strict as RunError).code).toBe('strict-comparison');
    expect(await readdir(built.dir)).not.toContain('strict');

    const loose = await runMatrix({
      config: built.config,
      output: join(built.dir, 'loose'),
      cacheDir: join(built.dir, 'cache'),
    });
    expect(loose.verdict.matchedModels).toBe(true);
    const named = (loose.verdict.warnings ?? []).filter(
      (warning) => warning.includes('fixer') && warning.includes('acme/unpriced-model'),
    );
    // One from the run's configuration, before the first trial; one from what the trial's trace showed.
    expect(named).toHaveLength(2);
    const [trial] = loose.trials;
    expect(trial?.outcome).toBe('resolved');
    expect(trial?.metrics.computedUsd).toBeNull();
    expect(trial?.trace?.flags).toEqual(expect.arrayContaining(['unpriced-model', 'budget-unchecked']) as unknown);
  }, 120_000);
});
