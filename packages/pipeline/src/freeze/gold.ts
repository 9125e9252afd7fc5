// Owns proving a task before it is signed: the bundle, unpacked as a consumer would unpack it, graded by the grader's
// own trials in the task's environment. The golden patch (the bundled reference engine) must resolve in every trial
// and the empty patch (the no-op engine) in none; otherwise the task is rejected, naming the tests. A task its own fix
// cannot resolve, or that resolves without one, would grade every engine wrongly.
import { mkdtemp, rm } from 'node:fs/promises';
import { scratchPrefix } from './scratch.js';
import { join } from 'node:path';
import type { AbpTrial } from '@abp/protocol/schemas/abp-trial';
import { unpackBundle } from '@abp/grader/bundle';
import { writeOracleRun } from '@abp/grader/engines';
import type { EnvironmentStore } from '@abp/grader/environments';
import { runMatrix } from '@abp/grader/run';

export type GoldRejection = 'golden-fails-verification' | 'empty-patch-resolves';

export interface GoldProof {
  proven: true;
  /** Trials of each patch, all as expected. */
  trials: number;
  ms: number;
}

export interface GoldFailure {
  proven: false;
  reason: GoldRejection;
  detail: string;
}

// Enough ids for a person to start from.
const LISTED = 5;

export async function proveWithGold(input: {
  archive: Buffer;
  taskId: string;
  /** The freeze's scratch folder: the proof makes (and removes) its own subfolder there. */
  workDir: string;
  trials: number;
  timeoutSeconds: number;
  /** The store holding the task's environment; absent when the suites ran on the host's toolchains. */
  environments?: EnvironmentStore;
}): Promise<GoldProof | GoldFailure> {
  const started = performance.now();
  const dir = await mkdtemp(join(input.workDir, scratchPrefix('gold')));
  try {
    const tasksDir = join(dir, 'tasks');
    await unpackBundle(input.archive, { taskDir: join(tasksDir, input.taskId) });
    const config = join(dir, 'abp-run.json');
    const adapters = join(dir, 'abp-adapters.json');
    await writeOracleRun({
      config,
      adapters,
      tasksDir,
      tasks: [input.taskId],
      trials: input.trials,
      seed: 1,
      timeoutSeconds: input.timeoutSeconds,
    });
    const outcome = await runMatrix({
      config,
      adapters,
      tasks: tasksDir,
      output: join(dir, 'results'),
      cacheDir: join(dir, 'cache'),
      concurrency: 2,
      // A trial is decided at its first failed command: the empty patch's trials need only the FAIL_TO_PASS command.
      decisive: true,
      ...(input.environments === undefined ? {} : { environments: input.environments.root }),
    });
    const golden = outcome.trials.filter((trial) => trial.engine === 'reference');
    const empty = outcome.trials.filter((trial) => trial.engine === 'noop');
    const unresolved = golden.filter((trial) => trial.outcome !== 'resolved');
    if (unresolved.length > 0 || golden.length !== input.trials)
      return {
        proven: false,
        reason: 'golden-fails-verification',
        detail: `the golden patch did not resolve ${unresolved.length} of ${golden.length} trials: ${describe(unresolved)}`,
      };
    const resolved = empty.filter((trial) => trial.outcome === 'resolved');
    if (resolved.length > 0 || empty.length !== input.trials)
      return {
        proven: false,
        reason: 'empty-patch-resolves',
        detail: `the empty patch resolved ${resolved.length} of ${empty.length} trials: the held-out tests cannot tell no change from the fix`,
      };
    return { proven: true, trials: input.trials, ms: Math.round(performance.now() - started) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The first failing trial's outcome and the frozen tests it did not pass. */
function describe(trials: readonly AbpTrial[]): string {
  const first = trials[0];
  if (first === undefined) return 'no trial ran';
  const judged = first.verification?.judged;
  const problems = judged
    ? [...judged.failToPass.problems, ...judged.passToPass.problems]
        .slice(0, LISTED)
        .map((problem) => `${problem.id} (${problem.status})`)
    : [];
  return [
    `${first.outcome} (${first.reason ?? 'no reason'})`,
    first.detail,
    problems.length > 0 && `tests: ${problems.join(', ')}`,
  ]
    .filter(Boolean)
    .join('; ');
}
