// The wiring check on the real Temporal dev server (the official CLI), and replay of its saved history.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../activities/index.js';
import { createWorker, workflowsPath } from '../../stack/worker.js';
import { wiringCheck } from '../../workflows/wiring.js';
import { startDevServer } from '../support/temporal.js';

const savedHistory = new URL('../fixtures/histories/wiring-check.json', import.meta.url);

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
      env.client.workflow.execute(wiringCheck, { taskQueue, workflowId, args: [{ probe: 'dev-server', sleepDays: 0 }] }),
    );
    expect(result.probe).toBe('dev-server');
    expect(result.before.workerIdentity).toMatch(new RegExp(`^${process.pid}@`));

    // The server kept the history: activity completions are in it, and it replays under today's code.
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    const completed = history.events?.filter((event) => event.activityTaskCompletedEventAttributes) ?? [];
    expect(completed).toHaveLength(2);
    await Worker.runReplayHistory({ workflowsPath }, history, workflowId);
  });

  it('replays the committed history of an earlier run (catches non-deterministic changes)', async () => {
    const history: unknown = JSON.parse(await readFile(savedHistory, 'utf8'));
    await expect(Worker.runReplayHistory({ workflowsPath }, history, 'saved-wiring-check')).resolves.toBeUndefined();
  });
});
