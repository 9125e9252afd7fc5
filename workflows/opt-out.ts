// `abp registry opt-out` as a workflow: the worker owns the database, so the request is carried to it; the activity
// is idempotent, so a retried or repeated request leaves one opt-out.
import { proxyActivities } from '@temporalio/workflow';
import type { createOptOutActivities } from '../activities/opt-outs.js';
import type { OptOutInput, OptOutResult } from '../schemas/rotation.js';

const { saveOptOut } = proxyActivities<ReturnType<typeof createOptOutActivities>>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumAttempts: 5 },
});

export async function recordOptOut(input: OptOutInput): Promise<OptOutResult> {
  return saveOptOut(input);
}
