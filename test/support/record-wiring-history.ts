// Records the history of one wiring check (with a one-day timer, under the time-skipping server)
// into test/fixtures/histories/wiring-check.json. The replay test holds today's workflow code to it;
// re-record only for a deliberate, versioned change to the workflow.
import { randomUUID } from 'node:crypto';
import { renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { createActivities } from '../../activities/index.js';
import { createWorker } from '../../stack/worker.js';
import { startTimeSkippingServer } from './temporal.js';
import { wiringCheck } from '../../workflows/wiring.js';

const target = fileURLToPath(new URL('../fixtures/histories/wiring-check.json', import.meta.url));
const env = await startTimeSkippingServer();
try {
  const taskQueue = `record-${randomUUID()}`;
  const worker = await createWorker({ connection: env.nativeConnection, namespace: 'default', taskQueue, activities: createActivities({ now: () => new Date() }) });
  const workflowId = 'saved-wiring-check';
  await worker.runUntil(env.client.workflow.execute(wiringCheck, { taskQueue, workflowId, args: [{ probe: 'recorded', sleepDays: 1 }] }));
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  writeFileSync(`${target}.partial`, `${historyToJSON(history)}\n`);
  renameSync(`${target}.partial`, target);
  console.log(`wrote ${target} (${history.events?.length ?? 0} events)`);
} finally {
  await env.teardown();
}
