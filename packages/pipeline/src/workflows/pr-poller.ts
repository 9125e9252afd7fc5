// The polling fallback behind webhooks (spec §4.2): one long-lived workflow that, on a durable timer, reads every
// tracked pull request a hundred at a time and nudges the tasks whose pull request changed. A missed webhook delays
// detection by at most one interval; a failed round waits longer (up to 4×) before the next, so an API outage is not
// hammered. The history is restarted (continueAsNew) long before it grows large.
import { continueAsNew, proxyActivities, sleep } from '@temporalio/workflow';
import type { createTrackingActivities, PollRound } from '../activities/tracking.js';

const { pollTrackedPulls } = proxyActivities<ReturnType<typeof createTrackingActivities>>({
  startToCloseTimeout: '10 minutes',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 3 },
});

export interface PullPollerInput {
  intervalSeconds: number;
  /** Rounds before the history is restarted. */
  roundsPerRun?: number;
  /** Carried over continueAsNew: the wait multiplier after failed rounds, and the totals so far. */
  backoff?: number;
  totals?: { rounds: number; points: number; requests: number; changed: number };
}

export const PULL_POLLER_ID = 'abp-pull-request-poller';

export async function pollPullRequests(input: PullPollerInput): Promise<never> {
  let backoff = input.backoff ?? 1;
  const totals = input.totals ?? { rounds: 0, points: 0, requests: 0, changed: 0 };
  const rounds = input.roundsPerRun ?? 200;
  for (let round = 0; round < rounds; round++) {
    await sleep(input.intervalSeconds * 1000 * backoff);
    let result: PollRound;
    try {
      result = await pollTrackedPulls();
    } catch {
      backoff = Math.min(backoff * 2, 4);
      continue;
    }
    backoff = 1;
    totals.rounds += 1;
    totals.points += result.cost.points;
    totals.requests += result.cost.requests;
    totals.changed += result.changed;
  }
  return continueAsNew<typeof pollPullRequests>({ ...input, backoff, totals });
}
