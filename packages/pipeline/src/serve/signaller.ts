// How a webhook reaches a task: one signal to the workflow whose id is the task id. The Temporal implementation answers
// 'unknown-task' for a workflow that does not exist or has finished: most pull requests on GitHub are not ours.
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Client } from '@temporalio/client';
import type { IssueChanged, PullRequestChanged, TASK_SIGNAL_NAMES } from '../contracts/task-workflow.js';
import { ServeError } from './errors.js';

export type TaskSignalPayloads = Record<typeof TASK_SIGNAL_NAMES.pullRequestChanged, PullRequestChanged> &
  Record<typeof TASK_SIGNAL_NAMES.issueChanged, IssueChanged>;
export type TaskSignalName = keyof TaskSignalPayloads;
export type SignalResult = 'delivered' | 'unknown-task';

export interface TaskSignaller {
  signal<N extends TaskSignalName>(taskId: string, name: N, payload: TaskSignalPayloads[N]): Promise<SignalResult>;
}

// GitHub gives a receiver 10 s to answer; a Temporal that is down must fail the delivery (so it can be redelivered)
// before that, not make GitHub time out.
const signalDeadlineMs = 5_000;

export function createTemporalSignaller(client: Client): TaskSignaller {
  return {
    async signal(taskId, name, payload) {
      try {
        await client.withDeadline(Date.now() + signalDeadlineMs, () =>
          client.workflow.getHandle(taskId).signal(name, payload),
        );
        return 'delivered';
      } catch (error) {
        // Temporal answers NotFound both for an id it never saw and for a workflow that already completed.
        if (error instanceof WorkflowNotFoundError) return 'unknown-task';
        throw new ServeError(
          'signal-failed',
          `Could not signal ${name} to task ${taskId}: ${(error as Error).message}; check that Temporal is reachable (abp dev status)`,
          { cause: error },
        );
      }
    },
  };
}
