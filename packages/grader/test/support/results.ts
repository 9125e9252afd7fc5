// Hand-made results folders for the results, gate and report tests: abp-trial/v1 records built from a few fields and
// written the way `abp run` lays a run out and seals it (run.json, tasks.json, trials/, receipts, verdict.json,
// report.html, progress.jsonl through the grader's own journal, results/run-latest).
import { createHash } from 'node:crypto';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { AbpRun } from '@abp/protocol/schemas/abp-run';
import type { AbpTrial, TrialOutcome } from '@abp/protocol/schemas/abp-trial';
import type { AbpVerdict } from '@abp/protocol/schemas/abp-verdict';
import { createJournal, receiptsOf, trialFileOf } from '../../src/run/journal.js';
import { sha256Of } from '../../src/run/seal.js';

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
      egress: null,
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
  /** Written and journaled in this order; a record may break the schema on purpose (it is written as given). */
  trials: AbpTrial[];
  /** Defaults to run.tasks with taskDigest of each. */
  tasks?: Array<{ id: string; digest: string }>;
  /** Sealed with report.html when the run is finished; defaults to makeVerdict(run). */
  verdict?: AbpVerdict;
  /** A finished run (the default) seals verdict.json and report.html; a run in progress has neither. */
  finished?: boolean;
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** Writes a file of the run folder and returns its digest, as `abp run` records it. */
async function put(folder: string, file: string, text: string): Promise<string> {
  await mkdir(dirname(join(folder, file)), { recursive: true });
  await writeFile(join(folder, file), text);
  return sha256Of(text);
}

/** Writes <parent>/<run id>/ and points <parent>/run-latest at it; returns the run folder. */
export async function writeResultsFolder(parent: string, spec: ResultsSpec): Promise<string> {
  const runId = spec.run.id ?? 'run-current';
  const folder = join(parent, runId);
  await mkdir(join(folder, 'trials'), { recursive: true });
  const journal = await createJournal(join(folder, 'progress.jsonl'), {
    runId,
    fingerprint: sha256Of(runId),
    trials: spec.trials.length,
  });
  const tasks = spec.tasks ?? [...spec.run.tasks].sort().map((id) => ({ id, digest: taskDigest(id) }));
  await journal.recordManifest({
    'run.json': await put(folder, 'run.json', json(spec.run)),
    'tasks.json': await put(folder, 'tasks.json', json(tasks)),
    'reproduce.txt': await put(folder, 'reproduce.txt', `${spec.run.reproduce}\n`),
  });
  for (const trial of spec.trials) {
    const files: Record<string, string> = {};
    for (const receipt of receiptsOf(trial)) files[receipt] = await put(folder, receipt, `${receipt} of the run\n`);
    files[trialFileOf(trial.trialId)] = await put(folder, trialFileOf(trial.trialId), json(trial));
    await journal.append(trial, files);
  }
  if (spec.finished ?? true)
    await journal.seal({
      'verdict.json': await put(folder, 'verdict.json', json(spec.verdict ?? makeVerdict(spec.run))),
      'report.html': await put(folder, 'report.html', '<!doctype html>\n'),
    });
  await journal.close();
  await symlink(runId, join(parent, 'run-latest'));
  return folder;
}

/**
 * Replaces a file of a sealed folder and its digest in the journal, as a grader that wrote it so would have: the
 * folder still matches its journal, so what a reader then refuses is the content, not the seal.
 */
export async function rewriteSealed(folder: string, file: string, text: string): Promise<void> {
  const journalPath = join(folder, 'progress.jsonl');
  const before = sha256Of(await readFile(join(folder, file)));
  const journal = await readFile(journalPath, 'utf8');
  if (!journal.includes(`"${file}":"${before}"`)) throw new Error(`${file} is not sealed in ${journalPath}`);
  await writeFile(join(folder, file), text);
  await writeFile(journalPath, journal.replace(`"${file}":"${before}"`, `"${file}":"${sha256Of(text)}"`));
}
