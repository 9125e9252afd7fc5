// The task-queue part of `abp status` against a real Temporal dev server: a real worker polling `abp-trials` only, a
// workflow waiting on `abp-main` with nobody to run it, and `abp-freeze` untouched. The part names the worker on its
// queue, says "no worker" on the others with the command that starts one, shows the backlog the server reports, and
// degrades with a reason when Temporal is down, does not answer, or not within the deadline.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../src/dev-stack/processes.js';
import type { QueueFacts, QueuesFacts } from '../../src/status/queues.js';
import { gatherStatus, type OperatorStatus } from '../../src/status/status.js';
import { statusLines } from '../../src/status/status-text.js';
import { resolveStackConfig, type StackConfig } from '../../src/worker/config.js';
import { taskQueues } from '../../src/workflows/shared.js';
import { startDevServer } from '../support/temporal.js';

const root = await mkdtemp(join(tmpdir(), 'abp-status-queues-'));
const home = join(root, 'home');
let closedPort: number;

beforeAll(async () => {
  closedPort = await freePort();
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** The stack as `abp status` resolves it: embedded on a port nothing listens on, nothing started. */
function configOf(env: Record<string, string> = {}): StackConfig {
  return resolveStackConfig({ ABP_HOME: home, ABP_TEMPORAL_PORT: String(closedPort), ...env }, root);
}

const line = (label: string, text: string) => `${label.padEnd(16)}${text}`;

function queuesOf(status: OperatorStatus): QueuesFacts {
  expect(status.queues.$case, JSON.stringify(status.queues)).toBe('found');
  return (status.queues as { value: QueuesFacts }).value;
}

const queue = (facts: QueuesFacts, name: string): QueueFacts | undefined =>
  facts.queues.find((each) => each.name === name);

describe('abp status without Temporal', () => {
  it('says the queues are unavailable, and why, when the embedded server is not running', async () => {
    const status = await gatherStatus({ config: configOf() });
    expect(status.queues).toEqual({
      $case: 'unavailable',
      detail: 'the Temporal dev server is not running: `abp dev up` starts the stack',
    });
    expect(statusLines(status)).toContain(
      line('queues', 'unavailable: the Temporal dev server is not running: `abp dev up` starts the stack'),
    );
  });

  it('says so when the configured Temporal does not answer within the deadline', async () => {
    const status = await gatherStatus({
      config: configOf({ TEMPORAL_ADDRESS: `127.0.0.1:${closedPort}` }),
      timeoutMs: 1_500,
    });
    expect(status.queues).toEqual({
      $case: 'unavailable',
      detail: expect.stringMatching(new RegExp(`^Temporal at 127\\.0\\.0\\.1:${closedPort} does not answer`)) as string,
    });
  });
});

describe('abp status with workers on some queues', () => {
  const identity = '77@trials-host';
  let env: TestWorkflowEnvironment;
  let worker: Worker;
  let workerRun: Promise<void>;

  beforeAll(async () => {
    env = await startDevServer();
    // A worker of `abp worker --queues trials`: activities only, so it polls activity tasks only.
    worker = await Worker.create({
      connection: env.nativeConnection,
      namespace: 'default',
      taskQueue: taskQueues.trials,
      identity,
      activities: { ping: () => Promise.resolve('pong') },
    });
    workerRun = worker.run();
    // A workflow nobody runs: its first workflow task waits in `abp-main`'s backlog.
    await env.client.workflow.start('backlogProbe', {
      taskQueue: taskQueues.main,
      workflowId: 'status-queues-backlog',
    });
  });
  afterAll(async () => {
    worker?.shutdown();
    await workerRun;
    await env?.teardown();
  });

  const statusNow = (options: { timeoutMs?: number } = {}) =>
    gatherStatus({ config: configOf(), client: env.client, ...options });

  it('names the worker on its queue, "no worker" on the others, and the backlog with its oldest task', async () => {
    // The server lists a worker once its first poll arrives, and counts a backlog a moment after the task is added.
    const facts = await vi.waitFor(
      async () => {
        const current = queuesOf(await statusNow());
        expect(queue(current, taskQueues.trials)?.workers).toHaveLength(1);
        expect(queue(current, taskQueues.main)?.backlog.workflow).toMatchObject({ $case: 'reported', count: 1 });
        return current;
      },
      { timeout: 30_000, interval: 250 },
    );

    expect(facts.queues.map((each) => each.name)).toEqual(['abp-main', 'abp-freeze', 'abp-trials']);
    const trials = queue(facts, taskQueues.trials);
    expect(trials?.workers).toEqual([{ identity, polls: ['activity'], lastAccessAt: expect.any(String) as string }]);
    const lastAccess = Date.parse(trials?.workers[0]?.lastAccessAt ?? '');
    expect(Math.abs(Date.parse(facts.describedAt) - lastAccess)).toBeLessThan(120_000);
    expect(trials?.backlog).toEqual({
      workflow: { $case: 'reported', count: 0, oldestAgeMs: 0 },
      activity: { $case: 'reported', count: 0, oldestAgeMs: 0 },
    });
    expect(queue(facts, taskQueues.main)?.workers).toEqual([]);
    expect(queue(facts, taskQueues.main)?.backlog.activity).toEqual({ $case: 'reported', count: 0, oldestAgeMs: 0 });
    expect(queue(facts, taskQueues.freeze)).toEqual({
      kind: 'freeze',
      name: 'abp-freeze',
      workers: [],
      backlog: {
        workflow: { $case: 'reported', count: 0, oldestAgeMs: 0 },
        activity: { $case: 'reported', count: 0, oldestAgeMs: 0 },
      },
    });

    const status = await statusNow();
    const lines = statusLines(status);
    const at = lines.findIndex((text) => text.startsWith('queues '));
    expect(lines.slice(at, at + 3)).toEqual([
      expect.stringMatching(
        /^queues {10}abp-main {5}no worker polls: start one with `abp worker --queues main`; backlog 1, oldest (<1s|\d+s)$/,
      ) as string,
      line('', 'abp-freeze   no worker polls: start one with `abp worker --queues freeze`; backlog 0'),
      line('', `abp-trials   1 worker (${identity}), backlog 0`),
    ]);
    // --json prints the part as it is: it must survive JSON whole.
    expect(JSON.parse(JSON.stringify(status.queues))).toEqual(status.queues);
  });

  it('says which queue could not be described when a call misses its deadline', async () => {
    // A deadline already passed: every DescribeTaskQueue fails at once, as one would after 3 s on a stuck server.
    const status = await statusNow({ timeoutMs: 0 });
    expect(status.queues).toEqual({
      $case: 'unavailable',
      detail: expect.stringMatching(/^task queue abp-main could not be described: .*deadline/i) as string,
    });
  });
});
