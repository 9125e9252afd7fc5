// Arguments, signals and query answers of the task workflow (one per task, workflow id = task id).
import { z } from 'zod';
import { drawnTask } from './draw-workflow.js';

export const taskStates = ['drawn', 'solving', 'tracking', 'freezing', 'scored', 'practice', 'withdrawn', 'rejected'] as const;
export type TaskState = (typeof taskStates)[number];

export const taskLifecycleInput = drawnTask;
export type TaskLifecycleInput = z.infer<typeof taskLifecycleInput>;

export const fixSubmission = z.strictObject({ prUrl: z.url({ protocol: /^https?$/ }) });
export type FixSubmission = z.infer<typeof fixSubmission>;

export const taskTransition = z.strictObject({
  taskId: z.string().min(1),
  from: z.enum(taskStates),
  to: z.enum(taskStates),
  /** What caused it, e.g. `fix-submitted`; written to the task's event log. */
  cause: z.string().regex(/^[a-z][a-z0-9-]*$/),
  detail: z.record(z.string(), z.string()),
  prUrl: z.string().optional(),
});
export type TaskTransition = z.infer<typeof taskTransition>;

export interface TaskStatus {
  taskId: string;
  state: TaskState;
  prUrl: string | null;
}
