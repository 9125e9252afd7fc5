// The freeze of a merged fix, run as the task workflow's child: prepare the inputs (a local clone at the merge, the
// issue's text, the registry's runner recipe, the draw's facts), then freeze, publish and record. Its own workflow, so
// its long activity and retries stay out of the task's history.
import { proxyActivities } from '@temporalio/workflow';
import type { createFreezeActivities, FreezeSummary, MergedFix } from '../activities/freeze.js';
import { taskQueues } from './shared.js';

// Both heartbeat: a worker that dies mid-activity is noticed within the heartbeat timeout, and another takes over.
// Neither gives up: what the task itself gets wrong is a rejection or a non-retryable failure, so whatever is left (a
// full disk, memory, a killed worker, GitHub or the database not answering) passes, and the freeze waits it out with
// backoff, shown to operators as stalled (the task's `freeze-stalled` events) rather than lost.
const untilItPasses = { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' };
// On the freeze queue, served by the workers sized for suite runs and environment builds (`abp worker --queues freeze`).
const { prepareFreeze } = proxyActivities<ReturnType<typeof createFreezeActivities>>({
  taskQueue: taskQueues.freeze,
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '15 seconds',
  retry: untilItPasses,
});
const { freezeMergedFix } = proxyActivities<ReturnType<typeof createFreezeActivities>>({
  taskQueue: taskQueues.freeze,
  // Six suite runs of up to 15 minutes each, two at a time, plus the bundle: well inside two hours.
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '15 seconds',
  retry: untilItPasses,
});

export async function freezeMergedTask(fix: MergedFix): Promise<FreezeSummary> {
  return freezeMergedFix(await prepareFreeze(fix));
}
