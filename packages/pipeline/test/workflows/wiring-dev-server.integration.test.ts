// The wiring check on the real Temporal dev server (the official CLI), replayed under the workflow code it ran; the
// committed histories replay in workflows/histories.test.ts.
import { randomUUID } from 'node:crypto';
import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../src/activities/index.js';
import { createWorker, workflowsPath } from '../../src/worker/worker.js';
import { wiringCheck } from '../../src/workflows/wiring.js';
import { startDevServer } from '../support/temporal.js';

describe('wiring check on the dev server', () => {
  let env: TestWorkflowEnvironment;
  beforeAll(async () => {
    env = await startDevServer();
  });
  afterAll(async () => {
    await env?.teardown();
  });

  it('runs the workflow and its activities through a real worker', async () => {
    const taskQueue = `wiring-${randomUUID()}`;
    const worker = await createWorker({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      activities: createActivities({ now: () => new Date() }),
    });
    const workflowId = `wiring-${randomUUID()}`;
    const result = await worker.runUntil(
      env.client.workflow.execute(wiringCheck, {
        taskQueue,
        workflowId,
        args: [{ probe: 'dev-server', sleepDays: 0 }],
      }),
    );
    expect(result.probe).toBe('dev-server');
    expect(result.before.workerIdentity).toMatch(new RegExp(`^${process.pid}@`));

    // The server kept the history: activity completions are in it, and it replays under today's code.
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    const completed = history.events?.filter((event) => event.activityTaskCompletedEventAttributes) ?? [];
    expect(completed).toHaveLength(2);
    await Worker.runReplayHistory({ workflowsPath }, history, workflowId);
  });
});
