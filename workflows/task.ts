// One task's life, from its draw to the scored set (spec §4.2–4.4), as one workflow whose id is the task id. Signals
// queue in an inbox and are handled one at a time, each transition written to the task's event log before the
// workflow's own state moves. This stage knows the draw and the fix submission; tracking the pull request to its merge,
// the freeze and aging extend the same loop.
import { condition, defineQuery, defineSignal, log, proxyActivities, setHandler } from '@temporalio/workflow';
import type { createTaskActivities } from '../activities/tasks.js';
import type { FixSubmission, TaskLifecycleInput, TaskState, TaskStatus } from '../schemas/task-workflow.js';

type TaskActivities = ReturnType<typeof createTaskActivities>;

const { recordTaskDrawn, recordTaskTransition } = proxyActivities<TaskActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export const taskSignals = {
  /** A fix was opened upstream for the task's issue: by the bundled solver, another engine or a person. */
  fixSubmitted: defineSignal<[FixSubmission]>('fixSubmitted'),
} as const;

export const taskQueries = {
  status: defineQuery<TaskStatus>('taskStatus'),
} as const;

type InboxItem = { kind: 'fixSubmitted'; submission: FixSubmission };

export async function taskLifecycle(input: TaskLifecycleInput): Promise<TaskStatus> {
  const status: TaskStatus = { taskId: input.taskId, state: 'drawn', prUrl: null };
  const inbox: InboxItem[] = [];
  setHandler(taskQueries.status, () => ({ ...status }));
  setHandler(taskSignals.fixSubmitted, (submission) => void inbox.push({ kind: 'fixSubmitted', submission }));

  // A task that exists already (a workflow restarted by hand) continues from the state the database holds.
  status.state = (await recordTaskDrawn(input)).state;

  const move = async (to: TaskState, cause: string, detail: Record<string, string>, prUrl?: string) => {
    await recordTaskTransition({ taskId: input.taskId, from: status.state, to, cause, detail, ...(prUrl === undefined ? {} : { prUrl }) });
    status.state = to;
    if (prUrl !== undefined) status.prUrl = prUrl;
  };

  const terminal = (): boolean => status.state === 'withdrawn' || status.state === 'rejected' || status.state === 'practice';
  while (!terminal()) {
    await condition(() => inbox.length > 0);
    const item = inbox.shift() as InboxItem;
    if (item.kind === 'fixSubmitted' && (status.state === 'drawn' || status.state === 'solving')) {
      await move('tracking', 'fix-submitted', { prUrl: item.submission.prUrl }, item.submission.prUrl);
    } else {
      log.warn('signal ignored in this state', { taskId: input.taskId, state: status.state, signal: item.kind });
    }
  }
  return status;
}
