// The draw stage: a seeded draw from the registry version's backlog (snapshot, record, one task workflow per pick), on
// the worker. Drawing again with the same version, seed and count returns the recorded draw and starts no task twice.
import type { Client } from '@temporalio/client';
import { drawTasksInput, type DrawTasksResult } from '@abp/pipeline/contracts/draw-workflow';
import type { drawTasks } from '@abp/pipeline/workflows/draw';
import { taskQueues } from '@abp/pipeline/workflows/shared';
import { PipelineError } from './errors.js';
import type { StageReport } from './stage.js';
import { activityProgress, retryReporter, startOrJoin } from './temporal.js';

export interface Draw extends DrawTasksResult {
  /** The exact command that re-derives the record offline from the published files. */
  auditCommand: string;
}

export async function drawWithSeed(
  client: Client,
  input: { seed: number; count: number; registryVersion: string; workerLog: string },
  report: StageReport,
): Promise<{ value: Draw; summary: string }> {
  const parsed = drawTasksInput.parse({ seed: input.seed, count: input.count, registryVersion: input.registryVersion });
  const workflowId = `draw-${input.registryVersion.replace(/^abp-registry\//, '')}-${parsed.seed}-${parsed.count}`;
  report.note(`seed ${parsed.seed}: ${parsed.count} tasks from ${input.registryVersion} (workflow ${workflowId})`);
  const retries = retryReporter((message) => report.note(message));
  const result = await startOrJoin<DrawTasksResult>(
    client,
    workflowId,
    () =>
      client.workflow.start<typeof drawTasks>('drawTasks', { taskQueue: taskQueues.main, workflowId, args: [parsed] }),
    async (handle) => {
      const { pending, retrying } = await activityProgress(handle);
      retries(retrying);
      const label = pending.includes('snapshotBacklog')
        ? 'backlog snapshot'
        : pending.includes('recordDraw')
          ? 'recording the draw'
          : pending.includes('findDraw')
            ? 'looking for the same draw'
            : null;
      if (label !== null) report.progress(0, null, 'steps', label);
    },
  );
  const { draw, snapshot } = result;
  if (snapshot !== null) {
    report.note(
      `backlog snapshot ${snapshot.digest} (${snapshot.mode}): ${snapshot.issues} open issues in ${snapshot.repos} repositories, ${snapshot.eligible} eligible; ${snapshot.cost.points} points in ${snapshot.cost.requests} requests`,
    );
  }
  if (draw.picks.length === 0)
    throw new PipelineError(
      'draw',
      `draw ${draw.drawId} picked nothing: the backlog of ${input.registryVersion} has no eligible issue (${draw.recordPath})`,
      input.workerLog,
    );
  for (const pick of draw.picks) report.note(`picked ${pick.taskId}`);
  const auditCommand = `abp audit draw ${draw.recordPath} --snapshot ${draw.snapshotPath} --opt-outs ${draw.optOutsPath}`;
  const how = draw.created ? 'recorded' : 'reused (drawn before with this seed and count)';
  return {
    value: { ...result, auditCommand },
    summary: `${draw.drawId}: ${draw.picks.length} picks, ${how}; digest ${draw.digest}`,
  };
}
