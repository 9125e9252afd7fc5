// The freeze of a merged fix, run as the task workflow's child: gather the inputs (a local clone at the merge, the
// issue's text, the registry's runner recipe, the draw's facts) and build the task on the freeze queue, then publish it
// on the main queue, where the one signing key, bundle store and transparency log are. Its own workflow, so its long
// activity and retries stay out of the task's history.
import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { createFreezeActivities, MergedFix } from '../activities/freeze.js';
import type { createPublishActivities, FreezeSummary } from '../activities/publish.js';
import { FREEZE_HANDOFF_LOST, taskQueues } from './shared.js';

// Every activity heartbeats: a worker that dies mid-activity is noticed within the heartbeat timeout, and another
// takes over. None gives up: what the task itself gets wrong is a rejection or a non-retryable failure, so whatever is
// left (a full disk, memory, a killed worker, GitHub or the database not answering) passes, and the freeze waits it out
// with backoff, shown to operators as stalled (the task's `freeze-stalled` events) rather than lost.
const untilItPasses = { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' };
type FreezeActivities = ReturnType<typeof createFreezeActivities>;
type PublishActivities = ReturnType<typeof createPublishActivities>;
// On the freeze queue, served by the workers sized for suite runs and environment builds (`abp worker --queues freeze`).
const { prepareFreeze } = proxyActivities<FreezeActivities>({
  taskQueue: taskQueues.freeze,
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '15 seconds',
  retry: untilItPasses,
});
const { buildFrozenTask } = proxyActivities<FreezeActivities>({
  taskQueue: taskQueues.freeze,
  // Six suite runs of up to 15 minutes each, two at a time, the gold proof, the bundle: well inside two hours.
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '15 seconds',
  retry: untilItPasses,
});
// On the main queue: reading an attached trace, and storing, signing and logging a bundle, are short.
const { stageGoldenTrace, publishFrozenTask } = proxyActivities<PublishActivities>({
  taskQueue: taskQueues.main,
  // Long enough to bring over an environment of a few GiB from the run store.
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '15 seconds',
  retry: untilItPasses,
});

/** How many times a task is staged and built when its hand-off is lost before it is published. */
const BUILDS = 3;

/** The failure of an activity that found its hand-off, or its staged trace, no longer whole in the run store. */
function handoffLost(error: unknown): boolean {
  return (
    error instanceof ActivityFailure &&
    error.cause instanceof ApplicationFailure &&
    error.cause.type === FREEZE_HANDOFF_LOST
  );
}

export async function freezeMergedTask(fix: MergedFix): Promise<FreezeSummary> {
  const input = await prepareFreeze(fix);
  let lost: string | undefined;
  for (let build = 1; ; build += 1) {
    try {
      // Staged in the loop: a run store that lost the hand-off may have lost the trace with it.
      const goldenTrace = await stageGoldenTrace(fix.taskId);
      const built = await buildFrozenTask({ input, goldenTrace, ...(lost === undefined ? {} : { lost }) });
      if (built.status === 'rejected') return built;
      lost = built.handoff;
      return await publishFrozenTask({ built, goldenTrace });
    } catch (error) {
      if (!handoffLost(error) || build >= BUILDS) throw error;
    }
  }
}
