// A stand-in for the task workflow in the solver test: it takes a fix the way a drawn task does (the fixSubmitted
// signal) and answers the task's status query, so the solver's hand-off runs against a real Temporal server.
import { condition, defineQuery, defineSignal, setHandler, workflowInfo } from '@temporalio/workflow';
import { TASK_SIGNAL_NAMES, type FixSubmission, type TaskStatus } from '@abp/pipeline/contracts/task-workflow';

export async function fixTaker(): Promise<void> {
  let status: TaskStatus = {
    taskId: workflowInfo().workflowId,
    state: 'drawn',
    prUrl: null,
    failedAttempts: 0,
    recent: [],
  };
  setHandler(defineSignal<[FixSubmission]>(TASK_SIGNAL_NAMES.fixSubmitted), ({ prUrl }) => {
    status = { ...status, state: 'tracking', prUrl };
  });
  setHandler(defineQuery<TaskStatus>('taskStatus'), () => status);
  await condition(() => false);
}
