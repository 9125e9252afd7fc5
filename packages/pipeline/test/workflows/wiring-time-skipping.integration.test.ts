// A 180-day durable timer completes in seconds under the real time-skipping test server. Its history is the wiring
// check's committed one (support/histories.ts).
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../src/activities/index.js';
import { createWorker } from '../../src/worker/worker.js';
import { wiringCheck } from '../../src/workflows/wiring.js';
import { keepHistory } from '../support/histories.js';
import { startTimeSkippingServer } from '../support/temporal.js';

const dayMs = 24 * 60 * 60 * 1000;

describe('wiring check under the time-skipping server', () => {
  let env: TestWorkflowEnvironment;
  beforeAll(async () => {
    env = await startTimeSkippingServer();
  });
  afterAll(async () => {
    await env?.teardown();
  });

  it('completes a 180-day durable timer (the test timeout bounds the wall time)', async () => {
    const taskQueue = `wiring-${randomUUID()}`;
    const worker = await createWorker({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      activities: createActivities({ now: () => new Date() }),
    });
    const workflowId = `wiring-180d-${randomUUID()}`;
    const result = await worker.runUntil(
      env.client.workflow.execute(wiringCheck, {
        taskQueue,
        workflowId,
        args: [{ probe: 'aging-180d', sleepDays: 180 }],
      }),
    );
    await keepHistory(env.client, 'wiring-check', workflowId);

    expect(result.probe).toBe('aging-180d');
    expect(result.sleptMs).toBeGreaterThanOrEqual(180 * dayMs);
    expect(result.sleptMs).toBeLessThan(181 * dayMs);
    // The activities ran in this process's worker, before and after the timer.
    expect(result.before.workerIdentity).toMatch(new RegExp(`^${process.pid}@`));
    expect(result.after.workerIdentity).toBe(result.before.workerIdentity);
  });
});
