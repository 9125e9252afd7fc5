// One graded run on the trials queue (`abp run --on temporal`): each engine preflighted once, then every pending trial
// an activity of its own, all handed to the queue in schedule order and run by as many workers as poll it. A trial
// that ended, whatever its outcome, is final: its activity returned a record, so nothing retries it. Only an attempt
// that produced no record (a worker killed or gone silent, a worker that cannot open the run) is retried, elsewhere
// if need be, because a harness failure is not the engine's. `abp run` reads the progress query as trials finish and
// journals them itself.
import { ActivityFailure, ApplicationFailure, defineQuery, proxyActivities, setHandler } from '@temporalio/workflow';
import type { GradedTrial, GradingActivities, RunOnWorkers } from '../grading/activities.js';
import type { PreflightResult } from '@abp/grader/run';
import { taskQueues } from './shared.js';

export interface GradeRunInput extends RunOnWorkers {
  /** The trials to grade, in schedule order. */
  trials: Array<{ trialId: string; engine: string }>;
  /** The engines to preflight first. */
  preflight: string[];
}

export interface GradeRunProgress {
  preflight: Record<string, PreflightResult>;
  graded: GradedTrial[];
  /** Trials whose every attempt failed without a record, with the last attempt's reason. */
  failed: Array<{ trialId: string; message: string }>;
}

export const gradeRunProgress = defineQuery<GradeRunProgress>('gradeRunProgress');

const activityOptions = {
  taskQueue: taskQueues.trials,
  // A trial is bounded by its adapter's timeout and its verification's; the heartbeat notices a dead worker long
  // before this does.
  startToCloseTimeout: '6 hours',
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 8 },
} as const;
const { preflightEngine, gradeTrial } = proxyActivities<GradingActivities>(activityOptions);

function reasonOf(error: unknown): string {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure) return `${cause.type ?? 'failed'}: ${cause.message}`;
  return cause instanceof Error ? cause.message : String(cause);
}

export async function gradeRun(input: GradeRunInput): Promise<GradeRunProgress> {
  const progress: GradeRunProgress = { preflight: {}, graded: [], failed: [] };
  setHandler(gradeRunProgress, () => progress);
  const run: RunOnWorkers = {
    runId: input.runId,
    fingerprint: input.fingerprint,
    run: input.run,
    inputs: input.inputs,
    runUnsupported: input.runUnsupported,
    decisive: input.decisive,
  };
  // A preflight no worker could run says nothing of the engine: its trials fail with the reason, never graded on it.
  const unpreflighted = new Map<string, string>();
  await Promise.all(
    input.preflight.map(async (engine) => {
      try {
        progress.preflight[engine] = await preflightEngine({ ...run, engine });
      } catch (error) {
        unpreflighted.set(engine, `no worker could preflight ${engine}: ${reasonOf(error)}`);
      }
    }),
  );
  const preflight = progress.preflight;
  await Promise.all(
    input.trials.map(async ({ trialId, engine }) => {
      const unready = unpreflighted.get(engine);
      if (unready !== undefined) {
        progress.failed.push({ trialId, message: unready });
        return;
      }
      try {
        progress.graded.push(await gradeTrial({ ...run, trialId, preflight }));
      } catch (error) {
        progress.failed.push({ trialId, message: reasonOf(error) });
      }
    }),
  );
  return progress;
}
