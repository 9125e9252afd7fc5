// Hand-made results folders for the results, gate and report tests: abp-trial/v1 records built from a few fields and
// written the way `abp run` lays a run out (run.json, tasks.json, trials/, verdict.json, results/run-latest).
import { createHash } from 'node:crypto';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AbpRun } from '@abp/protocol/schemas/abp-run';
import type { AbpTrial, TrialOutcome } from '@abp/protocol/schemas/abp-trial';
import type { AbpVerdict } from '@abp/protocol/schemas/abp-verdict';

export const MODEL = 'anthropic/claude-sonnet-5';

/** A stable digest per task (and version of it), as tasks.json and trials carry. */
export function taskDigest(task: string, version = 1): string {
  return `sha256:${createHash('sha256').update(`${task}@${version}`).digest('hex')}`;
}

export function makeRun(overrides: Partial<AbpRun> = {}): AbpRun {
  return {
    schema: 'abp-run/v1',
    id: 'run-current',
    engines: [{ name: 'oxagen', version: '1.4.2' }],
    model: MODEL,
    matchedModels: true,
    budgetUsd: 5,
    timeoutSeconds: 1200,
    trials: 1,
    ordering: 'sequential',
    seed: 20260718,
    tasks: ['task-a', 'task-b'],
    host: { os: 'linux', arch: 'x64', containerized: true },
    reproduce: 'abp run --config run.json',
    ...overrides,
  };
}

export interface TrialSpec {
  task: string;
  engine?: string | undefined;
  trial?: number | undefined;
  order?: number | undefined;
  outcome?: TrialOutcome | undefined;
  reason?: string | null | undefined;
  detail?: string | null | undefined;
  metrics?: Partial<AbpTrial['metrics']> | undefined;
  taskDigest?: string | undefined;
}

export const defaultMetrics: AbpTrial['metrics'] = {
  diffBytesNormalized: 1000,
  tokensTotal: 50_000,
  wallClockMs: 60_000,
  computedUsd: 0.5,
};

export function makeTrial(spec: TrialSpec): AbpTrial {
  const engine = spec.engine ?? 'oxagen';
  const trial = spec.trial ?? 0;
  const trialId = `${spec.task}.${engine}.${trial}`;
  return {
    schema: 'abp-trial/v1',
    trialId,
    task: spec.task,
    taskDigest: spec.taskDigest ?? taskDigest(spec.task),
    engine,
    trial,
    order: spec.order ?? 0,
    outcome: spec.outcome ?? 'resolved',
    reason: spec.reason ?? null,
    detail: spec.detail ?? null,
    engineProcess: {
      exitCode: 0,
      signal: null,
      timedOut: false,
      durationMs: 1000,
      stdoutBytes: 10,
      stderrBytes: 0,
      truncated: false,
      sandboxed: true,
      isolated: true,
      environment: null,
    },
    diff: null,
    verification: null,
    metrics: { ...defaultMetrics, ...spec.metrics },
    trace: null,
    receipts: {
      stdout: `transcripts/${trialId}.stdout.txt`,
      stderr: `transcripts/${trialId}.stderr.txt`,
      diff: `diffs/${trialId}.patch`,
      trace: null,
      verificationLog: `transcripts/${trialId}.verification.txt`,
    },
    timing: { startedAt: '2026-07-18T10:00:00Z', finishedAt: '2026-07-18T10:01:00Z', harnessOverheadMs: 100 },
  };
}

/** Every (task, engine, trial) of a run, in sequential order; `spec` shapes each one. */
export function matrix(
  run: AbpRun,
  spec: (task: string, engine: string, trial: number) => Partial<TrialSpec> = () => ({}),
): AbpTrial[] {
  const trials: AbpTrial[] = [];
  for (const engine of run.engines) {
    for (const task of run.tasks) {
      for (let trial = 0; trial < run.trials; trial += 1) {
        trials.push(
          makeTrial({ task, engine: engine.name, trial, order: trials.length, ...spec(task, engine.name, trial) }),
        );
      }
    }
  }
  return trials;
}

export function makeVerdict(run: AbpRun, overrides: Partial<AbpVerdict> = {}): AbpVerdict {
  return {
    schema: 'abp-verdict/v1',
    run: run.id ?? 'run-current',
    perEngine: run.engines.map((engine) => ({
      engine: engine.name,
      scoredTrials: 2,
      excludedEngineErrors: 0,
      resolveRate: { point: 0.5, wilson95: [0.09, 0.91] },
      medianDiffBytesNormalized: 1000,
      medianTokensTotal: 50_000,
      medianWallClockMs: 60_000,
      medianComputedUsd: 0.5,
    })),
    pairwise: [],
    receipts: { trials: 'trials/', transcripts: 'transcripts/', diffs: 'diffs/' },
    ...overrides,
  };
}

export interface ResultsSpec {
  run: AbpRun;
  trials: AbpTrial[];
  /** Defaults to run.tasks with taskDigest of each. */
  tasks?: Array<{ id: string; digest: string }>;
  verdict?: AbpVerdict;
}

/** Writes <parent>/<run id>/ and points <parent>/run-latest at it; returns the run folder. */
export async function writeResultsFolder(parent: string, spec: ResultsSpec): Promise<string> {
  const runId = spec.run.id ?? 'run-current';
  const folder = join(parent, runId);
  await mkdir(join(folder, 'trials'), { recursive: true });
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  await writeFile(join(folder, 'run.json'), json(spec.run));
  const tasks = spec.tasks ?? [...spec.run.tasks].sort().map((id) => ({ id, digest: taskDigest(id) }));
  await writeFile(join(folder, 'tasks.json'), json(tasks));
  for (const trial of spec.trials) await writeFile(join(folder, 'trials', `${trial.trialId}.json`), json(trial));
  if (spec.verdict) await writeFile(join(folder, 'verdict.json'), json(spec.verdict));
  await symlink(runId, join(parent, 'run-latest'));
  return folder;
}
