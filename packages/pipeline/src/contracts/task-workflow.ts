// Arguments, signals and query answers of the task workflow (one per task, workflow id = task id).
import { z } from 'zod';
import { drawnTask } from './draw-workflow.js';

export const taskStates = [
  'drawn',
  'solving',
  'tracking',
  'freezing',
  'scored',
  'practice',
  'withdrawn',
  'rejected',
] as const;
export type TaskState = (typeof taskStates)[number];

export const taskLifecycleInput = drawnTask;
export type TaskLifecycleInput = z.infer<typeof taskLifecycleInput>;

export const fixSubmission = z.strictObject({ prUrl: z.url({ protocol: /^https?$/ }) });
export type FixSubmission = z.infer<typeof fixSubmission>;

export const taskTransition = z.strictObject({
  taskId: z.string().min(1),
  from: z.enum(taskStates),
  /** Equal to `from` for an observation that changes no state (a force-push followed): logged, state kept. */
  to: z.enum(taskStates),
  /** What caused it, e.g. `fix-submitted`; written to the task's event log. */
  cause: z.string().regex(/^[a-z][a-z0-9-]*$/),
  detail: z.record(z.string(), z.string()),
  /** Columns the new state needs (the table's checks say which): the pull request, the merge, the scored window. */
  set: z
    .strictObject({
      prUrl: z.string().nullable().optional(),
      prNodeId: z.string().nullable().optional(),
      /** The pull request's updatedAt as the task last read it, so the poller does not nudge it for what it knows. */
      prSeenUpdatedAt: z.string().nullable().optional(),
      mergeCommit: z.string().optional(),
      mergedAt: z.string().optional(),
      scoredUntil: z.string().optional(),
    })
    .optional(),
});
export type TaskTransition = z.infer<typeof taskTransition>;

export interface TaskStatus {
  taskId: string;
  state: TaskState;
  prUrl: string | null;
  /** Fixes closed without a merge so far; at the policy's limit the task is withdrawn. */
  failedAttempts: number;
  /** The last transitions, newest last (the full log is in the database). */
  recent: Array<{ at: string; from: TaskState | null; to: TaskState; cause: string }>;
}

/** When a task gives up: after this many fixes closed unmerged, or this long without a fix. */
export const taskPolicy = z.strictObject({
  maxFailedAttempts: z.int().min(1).max(20),
  abandonAfterDays: z.int().min(1).max(365),
  /** How long a task stays scored after its fix became public (spec §4.4). */
  scoredDays: z.int().min(1),
});
export type TaskPolicy = z.infer<typeof taskPolicy>;

/** Asks a task to stop: its repository opted out or was archived. */
export const withdrawal = z.strictObject({
  cause: z.enum(['repository-opted-out', 'repository-archived']),
  detail: z.string(),
});
export type Withdrawal = z.infer<typeof withdrawal>;

/**
 * Something happened to a pull request that may carry a task's fix (a webhook, or the poller seeing it change). The
 * task workflow re-reads the pull request before acting: a signal says "look again", never "it was merged".
 */
export const pullRequestChanged = z.strictObject({
  prUrl: z.string().min(1),
  /** The webhook's action (`closed`, `reopened`, `synchronize`, …) or `polled`. */
  action: z.string().min(1),
  /** X-GitHub-Delivery, or null when the poller noticed the change. */
  deliveryId: z.string().nullable(),
});
export type PullRequestChanged = z.infer<typeof pullRequestChanged>;

/** The task's issue was closed or reopened upstream. */
export const issueChanged = z.strictObject({
  action: z.enum(['closed', 'reopened']),
  /** Who closed it, when known. */
  by: z.string().nullable(),
  deliveryId: z.string().nullable(),
});
export type IssueChanged = z.infer<typeof issueChanged>;

export { DEFAULT_TASK_POLICY, TASK_SIGNAL_NAMES } from './task-names.js';
