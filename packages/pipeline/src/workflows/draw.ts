// A seeded draw (spec §4.1): snapshot the registry's backlog, select and record the picks, then start one task
// workflow per pick. A draw is named by its registry version, seed and count: asked for again, the recorded one is returned. A task's workflow id is its task id and an id is never reused, so drawing again creates no task twice.
import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy } from '@temporalio/common';
import { ParentClosePolicy, proxyActivities, startChild } from '@temporalio/workflow';
import type { createDrawActivities } from '../activities/draws.js';
import type { DrawTasksInput, DrawTasksResult } from '../contracts/draw-workflow.js';
import { taskLifecycle } from './task.js';

type DrawActivities = ReturnType<typeof createDrawActivities>;

const retry = { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '2 minutes', maximumAttempts: 8 };
const { snapshotBacklog } = proxyActivities<DrawActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '30 seconds',
  retry,
});
const { recordDraw, findDraw } = proxyActivities<DrawActivities>({ startToCloseTimeout: '5 minutes', retry });

/** The workflow's clock as a UTC timestamp at second precision, as snapshots and records spell instants. */
const nowSeconds = () => `${new Date().toISOString().slice(0, 19)}Z`;

export async function drawTasks(input: DrawTasksInput): Promise<DrawTasksResult> {
  // Drawing again (same registry version, seed and count) is the same draw: no new snapshot, no new record.
  let snapshot: DrawTasksResult['snapshot'] = null;
  let draw = await findDraw(input);
  if (draw === null) {
    snapshot = await snapshotBacklog({ registryVersion: input.registryVersion, takenAt: nowSeconds() });
    draw = await recordDraw({
      seed: input.seed,
      count: input.count,
      snapshotDigest: snapshot.digest,
      drawnAt: nowSeconds(),
    });
  }
  let tasksStarted = 0;
  let tasksExisting = 0;
  for (const pick of draw.picks) {
    try {
      await startChild(taskLifecycle, {
        workflowId: pick.taskId,
        args: [pick],
        // Tasks wait weeks for a merge: they outlive the draw.
        parentClosePolicy: ParentClosePolicy.ABANDON,
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      });
      tasksStarted += 1;
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      tasksExisting += 1;
    }
  }
  return { snapshot, draw, tasksStarted, tasksExisting };
}
