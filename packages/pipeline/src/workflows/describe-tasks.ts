// `abp task list|show` and `abp tasks` read the database through the worker that owns it (PGlite allows one process): a
// short workflow around one read-only activity.
import { proxyActivities } from '@temporalio/workflow';
import type { createTaskActivities, TaskQuery, TaskRecord } from '../activities/tasks.js';

const { describeTasks: readTasks } = proxyActivities<ReturnType<typeof createTaskActivities>>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 3 },
});

export async function describeTasks(query: TaskQuery): Promise<TaskRecord[]> {
  return readTasks(query);
}
