// The pull stage: the main job turns consumer. Every scored task of the draw is pulled from `abp serve` as anyone would
// pull it (distribution/pull.ts: digest, signed statement and key checked against the pinned trust root, the part an
// agent sees and the held-out part unpacked apart), into a fresh folder of this run. The data directory's own trust
// root is the pinned one, as a consumer pins the trust root the registry publishes. The grader reads the pulled folders
// as they are (grader/tasks/task-directory.ts).
import { join } from 'node:path';
import { PULLED_HELD_OUT_DIR, PULLED_TASK_DIR, pullTask, type PulledTask } from '@abp/grader/pull';
import type { StageReport } from './stage.js';

export async function pullScoredTasks(
  input: { taskIds: readonly string[]; from: string; trustRoot: string; pulledDir: string; checkpointsDir: string },
  report: StageReport,
): Promise<{ value: PulledTask[]; summary: string }> {
  const pulled: PulledTask[] = [];
  report.progress(0, input.taskIds.length, 'tasks');
  for (const taskId of input.taskIds) {
    const task = await pullTask({
      taskId,
      from: input.from,
      trustRootPath: input.trustRoot,
      outputDir: input.pulledDir,
      checkpointsDir: input.checkpointsDir,
    });
    pulled.push(task);
    const signer = task.signer.kind === 'keyed' ? `key ${task.keyId?.slice(0, 16) ?? '?'}…` : `${task.signer.identity}`;
    report.note(
      `${taskId}: ${task.digest} verified (signed by ${signer} at ${task.signedAt}); ${PULLED_TASK_DIR}/ and ${PULLED_HELD_OUT_DIR}/ in ${join(input.pulledDir, taskId)}`,
    );
    report.progress(pulled.length, input.taskIds.length, 'tasks');
  }
  return {
    value: pulled,
    summary: `${pulled.length} tasks pulled from ${input.from} and verified against ${input.trustRoot}`,
  };
}
