// Handing a task its fix: the fixSubmitted signal to the task's workflow (workflow id = task id), as
// `abp task submit-fix` sends it, then a short wait until the task has taken it, so the caller can say what happened.
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { TaskStatus } from '@abp/pipeline/contracts/task-workflow';
import { taskQueries, taskSignals } from '@abp/pipeline/workflows/task';
import { SolverError } from './errors.js';

/** One method: give the task this pull request; resolves with the task's status once it follows it. */
export interface TaskHandOff {
  submit(taskId: string, prUrl: string): Promise<TaskStatus>;
}

export function temporalHandOff(client: Client, options: { waitMs?: number } = {}): TaskHandOff {
  const waitMs = options.waitMs ?? 15_000;
  return {
    async submit(taskId, prUrl) {
      const handle = client.workflow.getHandle(taskId);
      await handle.signal(taskSignals.fixSubmitted, { prUrl }).catch((error: unknown) => {
        if (error instanceof WorkflowNotFoundError)
          throw new SolverError(
            'hand-off-failed',
            `no running task ${taskId}: it was never drawn, or it has finished (\`abp task show ${taskId}\`)`,
            { cause: error },
          );
        throw error;
      });
      const deadline = Date.now() + waitMs;
      for (;;) {
        const status = await handle.query(taskQueries.status);
        if (status.prUrl === prUrl) return status;
        if (Date.now() > deadline) {
          throw new SolverError(
            'hand-off-failed',
            `${taskId} did not take ${prUrl} within ${waitMs / 1000} s (it is ${status.state}); a task takes a fix when drawn or solving — see the worker log`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
  };
}
