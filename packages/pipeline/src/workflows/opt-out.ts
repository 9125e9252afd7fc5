// `abp registry opt-out` as a workflow: the worker owns the database, so the request is carried to it; then the
// repository's live tasks are told to withdraw. Both activities are idempotent, so a repeated request changes nothing.
import { proxyActivities } from '@temporalio/workflow';
import type { createOptOutActivities } from '../activities/opt-outs.js';
import type { createTaskActivities } from '../activities/tasks.js';
import type { OptOutInput, OptOutResult } from '../contracts/rotation.js';

const options = { startToCloseTimeout: '1 minute', retry: { initialInterval: '1 second', maximumAttempts: 5 } };
const { saveOptOut } = proxyActivities<ReturnType<typeof createOptOutActivities>>(options);
const { withdrawRepositoryTasks } = proxyActivities<ReturnType<typeof createTaskActivities>>(options);

export async function recordOptOut(input: OptOutInput): Promise<OptOutResult & { tasksWithdrawn: number }> {
  const result = await saveOptOut(input);
  const { signalled } = await withdrawRepositoryTasks({
    repo: input.repo,
    withdrawal: { cause: 'repository-opted-out', detail: input.reason },
  });
  return { ...result, tasksWithdrawn: signalled };
}
