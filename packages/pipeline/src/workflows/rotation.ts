// The quarterly registry rotation: search once, fetch the candidates' facts batch by batch, publish the version.
// Batches run one at a time and their facts stay in the database, so the history holds counts only and a crashed
// worker leaves at most one batch to repeat.
import { proxyActivities } from '@temporalio/workflow';
import type { createRotationActivities } from '../activities/rotation.js';
import type { RotateRegistryInput, RotationResult } from '../contracts/rotation.js';

type RotationActivities = ReturnType<typeof createRotationActivities>;

// A failure of a permanent kind is thrown non-retryable by the activities; these retry everything else.
const retry = { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '2 minutes', maximumAttempts: 8 };

const { discoverRotationCandidates } = proxyActivities<RotationActivities>({
  // A search of 3,000 repositories is about 40 pages at GitHub's one GraphQL call a second.
  startToCloseTimeout: '15 minutes',
  retry,
});

const { fetchRotationBatch } = proxyActivities<RotationActivities>({
  startToCloseTimeout: '10 minutes',
  // The batch heartbeats every few seconds; a worker that stops is noticed after this, and the batch retried elsewhere.
  heartbeatTimeout: '30 seconds',
  retry,
});

const { publishRegistryVersion } = proxyActivities<RotationActivities>({ startToCloseTimeout: '5 minutes', retry });

export async function rotateRegistry(input: RotateRegistryInput): Promise<RotationResult> {
  const discovered = await discoverRotationCandidates(input);
  let batchesFromStore = 0;
  for (let index = 0; index < discovered.batches; index++) {
    const batch = await fetchRotationBatch({ rotation: discovered.rotation, index });
    if (batch.fromStore) batchesFromStore += 1;
  }
  const published = await publishRegistryVersion({ rotation: discovered.rotation });
  return { ...published, candidates: discovered.candidates, batches: discovered.batches, batchesFromStore };
}
