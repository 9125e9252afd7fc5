// `abp task list|show` read the database through the worker that owns it (PGlite allows one process): a short workflow
// around one read-only activity.
import { proxyActivities } from '@temporalio/workflow';
import type { createTaskActivities, TaskRecord } from '../activities/tasks.js';
import type { TaskState } from '../schemas/task-workflow.js';

const { describeTasks: readTasks } = proxyActivities<ReturnType<typeof createTaskActivities>>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 3 } });

export async function describeTasks(query: { taskId?: string; state?: TaskState; limit?: number }): Promise<TaskRecord[]> {
  return readTasks(query);
}
