// The wiring check: one activity call, an optional durable timer, another activity call.
// It proves the worker runs workflows and activities, and that a long timer completes.
import { proxyActivities, sleep } from '@temporalio/workflow';
import type { createWiringActivities } from '../activities/wiring.js';
import type { WiringCheckInput, WiringCheckResult } from '../contracts/wiring.js';

const { reportWorker } = proxyActivities<ReturnType<typeof createWiringActivities>>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 3, initialInterval: '1 second' },
});

const dayMs = 24 * 60 * 60 * 1000;

export async function wiringCheck(input: WiringCheckInput): Promise<WiringCheckResult> {
  const startedAt = Date.now();
  const before = await reportWorker({ probe: input.probe });
  if (input.sleepDays > 0) await sleep(input.sleepDays * dayMs);
  const after = await reportWorker({ probe: input.probe });
  const finishedAt = Date.now();
  return {
    probe: input.probe,
    before,
    after,
    workflowStartedAt: new Date(startedAt).toISOString(),
    workflowFinishedAt: new Date(finishedAt).toISOString(),
    sleptMs: finishedAt - startedAt,
  };
}
