// Webhooks to task signals end to end: the simulator's dispatcher sends real signed deliveries over HTTP to the real
// server, which signals workflows on a real Temporal dev server; a recorder workflow stands in for the task workflow.
// Also the signaller alone, a signal Temporal refuses, and `abp serve` as a process, with and without the webhook secret.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, WorkflowNotFoundError } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TASK_SIGNAL_NAMES } from '../../src/contracts/task-workflow.js';
import type { ServeLogRecord } from '../../src/serve/log.js';
import { startServer } from '../../src/serve/server.js';
import type { RunningServer } from '../../src/serve/server.js';
import { createTemporalSignaller } from '../../src/serve/signaller.js';
import { WEBHOOK_PATH } from '../../src/serve/webhooks.js';
import { WebhookDispatcher } from '@abp/github-sim/webhooks/dispatcher';
import { LiveTestWorld } from '../../../github-sim/test/webhooks/live-world.js';
import { startDevServer } from '../support/temporal.js';
import { recordedSignals, signalRecorder } from './recorder-workflow.js';
import type { RecordedSignal } from './recorder-workflow.js';

const secret = 'serve-temporal-secret';
const taskQueue = `serve-${randomUUID()}`;
const log: ServeLogRecord[] = [];
let env: TestWorkflowEnvironment;
let worker: Worker;
let workerRun: Promise<void>;
let server: RunningServer;

beforeAll(async () => {
  env = await startDevServer();
  worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowsPath: fileURLToPath(new URL('./recorder-workflow.ts', import.meta.url)),
  });
  workerRun = worker.run();
  server = await startServer({
    port: 0,
    host: '127.0.0.1',
    webhookSecret: secret,
    signaller: createTemporalSignaller(env.client),
    log: (record) => log.push(record),
  });
});
afterAll(async () => {
  await server?.close();
  worker?.shutdown();
  await workerRun;
  await env?.teardown();
});

const recorders: WorkflowHandle[] = [];
const dispatchers: WebhookDispatcher[] = [];
afterEach(async () => {
  await Promise.all(dispatchers.splice(0).map((dispatcher) => dispatcher.close()));
  // Every test's world names its first issue #1: the next test starts a fresh recorder under the same task id.
  await Promise.all(
    recorders.splice(0).map((handle) =>
      handle.terminate('test over').catch((error: unknown) => {
        // A test may have ended its recorder itself.
        if (!(error instanceof WorkflowNotFoundError)) throw error;
      }),
    ),
  );
});

async function startRecorder(taskId: string): Promise<WorkflowHandle<typeof signalRecorder>> {
  const handle = await env.client.workflow.start(signalRecorder, { taskQueue, workflowId: taskId });
  recorders.push(handle);
  return handle;
}

// Each hook gets its own seed: delivery ids derive from it, and the server remembers ids across tests.
let seed = 100;

/**
 * A repository hook pointing at `url`, signing with `hookSecret` (null: unsigned, as a hook without a secret sends).
 * GitHub does not retry a failed delivery, and neither does this one.
 */
function hook(
  world: LiveTestWorld,
  url = `${server.url}${WEBHOOK_PATH}`,
  hookSecret: string | null = secret,
): WebhookDispatcher {
  const dispatcher = new WebhookDispatcher({
    world,
    apiBaseUrl: 'http://127.0.0.1:40123',
    url,
    ...(hookSecret === null ? {} : { secret: hookSecret }),
    seed: seed++,
    retry: { attempts: 1 },
  });
  dispatcher.attach(world);
  dispatchers.push(dispatcher);
  return dispatcher;
}

/**
 * Every signal the recorder has received, once all signals sent before this call are handled: a barrier signal goes
 * last, and Temporal hands a workflow its signals in the order they were sent.
 */
async function settledSignals(handle: WorkflowHandle<typeof signalRecorder>): Promise<RecordedSignal[]> {
  const barrier = `barrier-${randomUUID()}`;
  await handle.signal(TASK_SIGNAL_NAMES.issueChanged, { action: 'reopened', by: null, deliveryId: barrier });
  const recorded = await until(async () => {
    const signals = await handle.query(recordedSignals);
    return signals.some((signal) => signal.payload.deliveryId === barrier) ? signals : undefined;
  });
  return recorded.filter((signal) => signal.payload.deliveryId !== barrier);
}

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`nothing after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function pullUrlOf(body: string): string {
  return (JSON.parse(body) as { pull_request: { html_url: string } }).pull_request.html_url;
}

describe('webhook deliveries to task workflows', () => {
  it('signals a merge to its task on delivery', async () => {
    const world = new LiveTestWorld();
    const dispatcher = hook(world);
    const issue = world.openIssue('Widget explodes');
    const recorder = await startRecorder('gh-acme-widgets-1');
    const pull = world.openPull(issue.number);
    world.setChecks(pull.number, 'SUCCESS');
    await dispatcher.idle();

    world.merge(pull.number);
    const merged = await until(async () =>
      (await recorder.query(recordedSignals)).find((signal) => signal.payload.action === 'closed'),
    );

    const [opened, , , closed] = dispatcher.deliveries();
    expect(dispatcher.deliveries().map((delivery) => [delivery.event, delivery.action])).toEqual([
      ['pull_request', 'opened'],
      ['check_run', 'completed'],
      ['check_suite', 'completed'],
      ['pull_request', 'closed'],
    ]);
    const prUrl = pullUrlOf(closed?.body ?? '{}');
    expect(prUrl).toMatch(/\/acme\/widgets\/pull\/2$/);
    expect(merged).toEqual({
      name: 'pullRequestChanged',
      payload: { prUrl, action: 'closed', deliveryId: closed?.deliveryId },
    });
    expect(await recorder.query(recordedSignals)).toEqual([
      { name: 'pullRequestChanged', payload: { prUrl, action: 'opened', deliveryId: opened?.deliveryId } },
      merged,
    ]);
    // Checks concern no task: accepted and ignored.
    expect(dispatcher.log.attempts().map((attempt) => attempt.statusCode)).toEqual([200, 202, 202, 200]);
    expect(
      log.filter(
        (record) => record.kind === 'delivery-ignored' && record.deliveryId === dispatcher.deliveries()[1]?.deliveryId,
      ),
    ).toMatchObject([{ event: 'check_run', reason: 'event' }]);
    expect(
      log.find((record) => record.kind === 'delivery-signalled' && record.deliveryId === closed?.deliveryId),
    ).toMatchObject({
      event: 'pull_request',
      action: 'closed',
      remoteAddress: '127.0.0.1',
      signals: [{ taskId: 'gh-acme-widgets-1', signal: 'pullRequestChanged', result: 'delivered' }],
    });
  });

  it('signals an issue closed and reopened upstream to its task', async () => {
    const world = new LiveTestWorld();
    const dispatcher = hook(world);
    const issue = world.openIssue('Widget is blue');
    const recorder = await startRecorder('gh-acme-widgets-1');
    world.closeIssue(issue.number, 'NOT_PLANNED');
    world.reopenIssue(issue.number);
    await dispatcher.idle();
    const [closed, reopened] = dispatcher.deliveries();
    const signals = await until(async () => {
      const recorded = await recorder.query(recordedSignals);
      return recorded.length === 2 ? recorded : undefined;
    });
    expect(signals).toEqual([
      { name: 'issueChanged', payload: { action: 'closed', by: 'reporter', deliveryId: closed?.deliveryId } },
      { name: 'issueChanged', payload: { action: 'reopened', by: 'reporter', deliveryId: reopened?.deliveryId } },
    ]);
  });

  it('signals a redelivered event once', async () => {
    const world = new LiveTestWorld();
    const dispatcher = hook(world);
    const recorder = await startRecorder('gh-acme-widgets-1');
    world.openPull(world.openIssue('Widget explodes').number);
    await dispatcher.idle();
    const [delivery] = dispatcher.deliveries();
    await expect(dispatcher.redeliver(delivery?.deliveryId ?? '')).resolves.toBe('delivered');
    await expect(dispatcher.redeliver(delivery?.deliveryId ?? '')).resolves.toBe('delivered');

    expect(dispatcher.log.attempts().map((attempt) => [attempt.round, attempt.statusCode])).toEqual([
      [0, 200],
      [1, 202],
      [2, 202],
    ]);
    expect(await settledSignals(recorder)).toEqual([
      { name: 'pullRequestChanged', payload: expect.objectContaining({ deliveryId: delivery?.deliveryId }) as object },
    ]);
    expect(
      log.filter((record) => record.kind === 'delivery-ignored' && record.deliveryId === delivery?.deliveryId),
    ).toHaveLength(2);
  });

  it('refuses unsigned and badly signed deliveries with 401, logs them and signals nothing', async () => {
    const world = new LiveTestWorld();
    const badlySigned = hook(world, undefined, 'not the secret');
    const unsigned = hook(world, undefined, null);
    const recorder = await startRecorder('gh-acme-widgets-1');
    const pull = world.openPull(world.openIssue('Widget explodes').number);
    world.merge(pull.number);
    await Promise.all([badlySigned.idle(), unsigned.idle()]);

    for (const dispatcher of [badlySigned, unsigned]) {
      expect(dispatcher.log.attempts().map((attempt) => [attempt.result, attempt.statusCode])).toEqual([
        ['http-error', 401],
        ['http-error', 401],
      ]);
    }
    expect(await settledSignals(recorder)).toEqual([]);
    const refused = (dispatcher: WebhookDispatcher) =>
      dispatcher.deliveries().map((delivery) => ({
        kind: 'delivery-rejected',
        event: 'pull_request',
        deliveryId: delivery.deliveryId,
        remoteAddress: '127.0.0.1',
        status: 401,
      }));
    const rejected = log.filter((record) => record.kind === 'delivery-rejected');
    expect(rejected).toEqual(
      expect.arrayContaining(refused(badlySigned).map((record) => ({ ...record, reason: 'bad-signature' }))),
    );
    expect(rejected).toEqual(
      expect.arrayContaining(refused(unsigned).map((record) => ({ ...record, reason: 'unsigned' }))),
    );
    // Neither the secret nor anything of the bodies reaches the log.
    expect(JSON.stringify(log)).not.toContain(secret);
    expect(JSON.stringify(log)).not.toContain('Fixes #1');
  });

  it('answers a pull request for a task nobody tracks as handled, naming the unknown task', async () => {
    const world = new LiveTestWorld();
    const dispatcher = hook(world);
    world.openPull(world.openIssue('Widget explodes').number);
    await dispatcher.idle();
    const [delivery] = dispatcher.deliveries();
    expect(dispatcher.log.attempts().map((attempt) => attempt.statusCode)).toEqual([200]);
    expect(
      log.find((record) => record.kind === 'delivery-signalled' && record.deliveryId === delivery?.deliveryId),
    ).toMatchObject({
      signals: [{ taskId: 'gh-acme-widgets-1', signal: 'pullRequestChanged', result: 'unknown-task' }],
    });
  });

  it('fails a delivery Temporal refuses to signal with 503, and acts on its redelivery', async () => {
    const refusing: ServeLogRecord[] = [];
    // A namespace the server does not have: Temporal refuses every signal at once.
    const client = new Client({ connection: env.connection, namespace: `missing-${randomUUID()}` });
    const failing = await startServer({
      port: 0,
      host: '127.0.0.1',
      webhookSecret: secret,
      signaller: createTemporalSignaller(client),
      log: (record) => refusing.push(record),
    });
    try {
      const world = new LiveTestWorld();
      const dispatcher = hook(world, `${failing.url}${WEBHOOK_PATH}`);
      world.openPull(world.openIssue('Widget explodes').number);
      await dispatcher.idle();
      const [delivery] = dispatcher.deliveries();
      await expect(dispatcher.redeliver(delivery?.deliveryId ?? '')).resolves.toBe('failed');
      expect(dispatcher.log.attempts().map((attempt) => attempt.statusCode)).toEqual([503, 503]);
      expect(refusing.map((record) => record.kind)).toEqual(['delivery-failed', 'delivery-failed']);
      expect(refusing[0]).toMatchObject({
        deliveryId: delivery?.deliveryId,
        action: 'opened',
        error: expect.stringContaining('gh-acme-widgets-1') as string,
      });
    } finally {
      await failing.close();
    }
  });
});

describe('createTemporalSignaller', () => {
  it('delivers to a running task workflow and names a missing or finished one unknown', async () => {
    const signaller = createTemporalSignaller(env.client);
    const taskId = `gh-acme-widgets-${Date.now()}`;
    const recorder = await startRecorder(taskId);
    const payload = { action: 'closed' as const, by: 'maria', deliveryId: null };
    await expect(signaller.signal(taskId, 'issueChanged', payload)).resolves.toBe('delivered');
    expect(await until(async () => (await recorder.query(recordedSignals))[0])).toEqual({
      name: 'issueChanged',
      payload,
    });

    await expect(signaller.signal(`gh-nobody-nothing-${randomUUID()}`, 'issueChanged', payload)).resolves.toBe(
      'unknown-task',
    );
    await recorder.terminate('finished');
    await expect(
      signaller.signal(taskId, 'pullRequestChanged', {
        prUrl: 'https://github.com/acme/widgets/pull/2',
        action: 'closed',
        deliveryId: null,
      }),
    ).resolves.toBe('unknown-task');
  });
});

describe('abp serve as a process', () => {
  const abpBin = fileURLToPath(new URL('../../bin/abp.js', import.meta.url));

  const children: ChildProcess[] = [];
  afterEach(() => {
    // A failed test must not leave its server running.
    for (const child of children.splice(0))
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });

  function serve(extraEnv: Record<string, string | undefined>) {
    const child = spawn(process.execPath, [abpBin, 'serve', '--port', '0'], {
      env: { ...process.env, TEMPORAL_ADDRESS: env.address, ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const output = { stdout: '', stderr: '' };
    child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    return { child, output, exited };
  }

  it('serves the read-only API alone without ABP_WEBHOOK_SECRET, with no webhook route, and says so', async () => {
    const home = await mkdtemp(join(tmpdir(), 'abp-serve-api-only-'));
    try {
      const { child, output, exited } = serve({ ABP_WEBHOOK_SECRET: undefined, ABP_HOME: home });
      const base = await until(async () => {
        if (child.exitCode !== null) throw new Error(`abp serve exited early: ${output.stderr}`);
        return Promise.resolve(/read-only API at (\S+)\/v1 /.exec(output.stdout)?.[1]);
      }, 30_000);
      expect(output.stdout).toContain('no webhook route (ABP_WEBHOOK_SECRET is not set)');
      expect(await (await fetch(`${base}/v1/trust-roots`)).json()).toEqual({ versions: [] });
      expect(
        (
          await fetch(`${base}${WEBHOOK_PATH}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{}',
          })
        ).status,
      ).toBe(404);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      const records = output.stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as ServeLogRecord);
      expect(records.map((record) => [record.kind, 'path' in record ? record.path : null])).toEqual([
        ['request-served', '/v1/trust-roots'],
        ['request-refused', WEBHOOK_PATH],
      ]);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('refuses to start with ABP_WEBHOOK_SECRET set but blank', async () => {
    const { output, exited } = serve({ ABP_WEBHOOK_SECRET: '  ' });
    expect(await exited).toBe(2);
    expect(output.stderr).toContain('ABP_WEBHOOK_SECRET is set but blank');
  });

  it('prints its URL, signals tasks from webhooks, logs each delivery and stops cleanly on SIGTERM', async () => {
    const { child, output, exited } = serve({ ABP_WEBHOOK_SECRET: secret });
    const url = await until(async () => {
      if (child.exitCode !== null) throw new Error(`abp serve exited early: ${output.stderr}`);
      return Promise.resolve(/webhooks at (\S+)/.exec(output.stdout)?.[1]);
    }, 30_000);
    const world = new LiveTestWorld();
    const dispatcher = hook(world, url);
    const recorder = await startRecorder('gh-acme-widgets-1');
    world.openPull(world.openIssue('Widget explodes').number);
    await dispatcher.idle();
    expect(await until(async () => (await recorder.query(recordedSignals))[0])).toMatchObject({
      name: 'pullRequestChanged',
      payload: { action: 'opened' },
    });

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const records = output.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as ServeLogRecord & { at: string });
    expect(records).toMatchObject([
      {
        kind: 'delivery-signalled',
        event: 'pull_request',
        signals: [{ taskId: 'gh-acme-widgets-1', result: 'delivered' }],
      },
    ]);
  });
});
