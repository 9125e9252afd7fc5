// A stand-in for the task workflow in the serve tests: it handles exactly the task signals the webhook receiver sends,
// records each as it arrives, and answers a query with them. It runs until the test terminates it.
import { condition, defineQuery, defineSignal, setHandler } from '@temporalio/workflow';
import { TASK_SIGNAL_NAMES } from '../../src/contracts/task-workflow.js';
import type { IssueChanged, PullRequestChanged } from '../../src/contracts/task-workflow.js';

export type RecordedSignal =
  { name: 'pullRequestChanged'; payload: PullRequestChanged } | { name: 'issueChanged'; payload: IssueChanged };

export const recordedSignals = defineQuery<RecordedSignal[]>('recordedSignals');

export async function signalRecorder(): Promise<void> {
  const received: RecordedSignal[] = [];
  setHandler(
    defineSignal<[PullRequestChanged]>(TASK_SIGNAL_NAMES.pullRequestChanged),
    (payload) => void received.push({ name: 'pullRequestChanged', payload }),
  );
  setHandler(
    defineSignal<[IssueChanged]>(TASK_SIGNAL_NAMES.issueChanged),
    (payload) => void received.push({ name: 'issueChanged', payload }),
  );
  setHandler(recordedSignals, () => received);
  await condition(() => false);
}
