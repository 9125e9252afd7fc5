// The pull request poller (workflows/pr-poller.ts) is a singleton: started once per namespace, and left running when it
// is there already, so `abp dev up` can ensure it every time.
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { pollPullRequests } from '../workflows/pr-poller.js';
import { PULL_POLLER_ID } from '../workflows/pr-poller.js';
import { taskQueues } from '../workflows/shared.js';

/**
 * Fifteen minutes: 2,000 tracked pull requests cost 20 points a round, 80 points an hour, under the 100 an hour the
 * pipeline allows itself; a missed webhook is noticed within the interval.
 */
export const DEFAULT_POLL_SECONDS = 900;

export async function ensurePullPoller(
  client: Client,
  intervalSeconds = DEFAULT_POLL_SECONDS,
): Promise<'started' | 'running'> {
  try {
    await client.workflow.start<typeof pollPullRequests>('pollPullRequests', {
      taskQueue: taskQueues.main,
      workflowId: PULL_POLLER_ID,
      args: [{ intervalSeconds }],
    });
    return 'started';
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return 'running';
    throw error;
  }
}
