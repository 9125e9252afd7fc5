// The dispatcher against real HTTP receivers on 127.0.0.1 that verify every delivery with
// @octokit/webhooks: ordering, retries with backoff, timeouts, seeded drops, redelivery, the log.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.js';
import type { WebhookDispatcherOptions } from '../../src/webhooks/dispatcher.js';
import type { WebhookError } from '../../src/webhooks/errors.js';
import { LiveTestWorld } from './live-world.js';
import { startReceiver } from './receiver.js';
import type { ReceiverBehaviour, TestReceiver } from './receiver.js';
import { loadWebhookSchemas } from './webhook-schemas.js';

const secret = 'It’s a Secret to Everybody';
const apiBaseUrl = 'http://127.0.0.1:40123';
const scenarioDeliveries = 12;

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'abp-webhooks-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const receivers: TestReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

async function receiver(behaviour: ReceiverBehaviour = {}, receiverSecret = secret): Promise<TestReceiver> {
  const started = await startReceiver(receiverSecret, behaviour);
  receivers.push(started);
  return started;
}

interface Harness {
  world: LiveTestWorld;
  dispatcher: WebhookDispatcher;
  /** Every backoff the dispatcher asked to sleep, in ms. */
  waits: number[];
}

function harness(url: string, options: Partial<WebhookDispatcherOptions> = {}, seed = 42): Harness {
  const world = new LiveTestWorld(seed);
  const waits: number[] = [];
  const dispatcher = new WebhookDispatcher({
    world,
    apiBaseUrl,
    url,
    secret,
    now: () => Date.parse('2025-06-02T00:00:00Z'),
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
    ...options,
  });
  dispatcher.attach(world);
  return { world, dispatcher, waits };
}

const eventOf = (body: string): string => {
  const payload = JSON.parse(body) as {
    action: string;
    number?: number;
    issue?: { number: number };
    check_run?: unknown;
    check_suite?: unknown;
  };
  return `${payload.action}#${payload.number ?? payload.issue?.number ?? (payload.check_run ? 'run' : 'suite')}`;
};

describe('WebhookDispatcher', () => {
  it('delivers every event, signed, in order, with GitHub’s headers', async () => {
    const target = await receiver();
    const merges: boolean[] = [];
    target.webhooks.on('pull_request.closed', ({ payload }) => {
      merges.push(payload.pull_request.merged === true);
    });
    const { world, dispatcher } = harness(target.url);
    world.playScenario();
    await dispatcher.idle();

    expect(target.received).toHaveLength(scenarioDeliveries);
    expect(target.received.every((delivery) => delivery.verified)).toBe(true);
    expect(target.received.map((delivery) => delivery.body)).toEqual(
      dispatcher.deliveries().map((delivery) => delivery.body),
    );
    expect(merges).toEqual([true, false]);
    expect(dispatcher.deliveries().every((delivery) => delivery.status === 'delivered')).toBe(true);

    const first = target.received[0]?.headers ?? {};
    expect(first['x-github-event']).toBe('pull_request');
    expect(first['x-github-delivery']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(first['x-github-hook-id']).toBe(String(dispatcher.hookId));
    expect(first['user-agent']).toMatch(/^GitHub-Hookshot\/[0-9a-f]{7}$/);
    expect(first['content-type']).toBe('application/json');
    expect(first['x-hub-signature']).toMatch(/^sha1=[0-9a-f]{40}$/);
    expect(first['x-hub-signature-256']).toMatch(/^sha256=[0-9a-f]{64}$/);
    // Every header GitHub documents for the event arrives.
    for (const name of loadWebhookSchemas().documentedHeaders('pull_request', 'opened'))
      expect(first, name).toHaveProperty(name);
    // Delivery ids name events: all distinct.
    expect(new Set(target.received.map((delivery) => delivery.headers['x-github-delivery'])).size).toBe(
      scenarioDeliveries,
    );
  });

  it('retries a failing receiver with exponential backoff until it accepts', async () => {
    const target = await receiver({ failFirst: 3 });
    const retry = { attempts: 5, initialDelayMs: 100, factor: 2, maxDelayMs: 10_000, jitter: 0.5 };
    const { world, dispatcher, waits } = harness(target.url, { retry });
    world.openPull(world.openIssue('x').number);
    await dispatcher.idle();

    const attempts = dispatcher.log.attempts();
    expect(attempts.map((attempt) => [attempt.attempt, attempt.result, attempt.statusCode])).toEqual([
      [1, 'http-error', 500],
      [2, 'http-error', 500],
      [3, 'http-error', 500],
      [4, 'delivered', 202],
    ]);
    expect(new Set(target.received.map((delivery) => delivery.headers['x-github-delivery'])).size).toBe(1);
    expect(waits).toHaveLength(3);
    expect(waits).toEqual(attempts.slice(0, 3).map((attempt) => attempt.retryInMs));
    waits.forEach((wait, index) => {
      const base = 100 * 2 ** index;
      expect(wait).toBeGreaterThanOrEqual(base * 0.5);
      expect(wait).toBeLessThanOrEqual(base);
    });
    expect(dispatcher.deliveries()[0]?.status).toBe('delivered');
  });

  it('gives up after the last attempt and redelivers on request with the same id and body', async () => {
    const target = await receiver({ failFirst: 2 });
    const { world, dispatcher, waits } = harness(target.url, { retry: { attempts: 2 } });
    world.openPull(world.openIssue('x').number);
    await dispatcher.idle();
    const [delivery] = dispatcher.deliveries();
    expect(delivery?.status).toBe('failed');
    expect(waits).toHaveLength(1);
    expect(dispatcher.log.attempts().at(-1)?.retryInMs).toBeNull();

    await expect(dispatcher.redeliver(delivery?.deliveryId ?? '')).resolves.toBe('delivered');
    expect(dispatcher.delivery(delivery?.deliveryId ?? '')).toMatchObject({ status: 'delivered', redeliveries: 1 });
    expect(target.accepted()).toHaveLength(1);
    expect(target.accepted()[0]?.body).toBe(delivery?.body);
    expect(target.accepted()[0]?.headers['x-github-delivery']).toBe(delivery?.deliveryId);
    expect(dispatcher.log.attempts().map((attempt) => [attempt.round, attempt.attempt, attempt.result])).toEqual([
      [0, 1, 'http-error'],
      [0, 2, 'http-error'],
      [1, 1, 'delivered'],
    ]);
    await expect(dispatcher.redeliver('00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({
      code: 'unknown-delivery',
    });
  });

  it('records a receiver that hangs as a timeout and retries', async () => {
    const target = await receiver({ hangFirst: 1 });
    const { world, dispatcher } = harness(target.url, { timeoutMs: 250, retry: { attempts: 3 } });
    world.openPull(world.openIssue('x').number);
    await dispatcher.idle();
    const attempts = dispatcher.log.attempts();
    expect(attempts.map((attempt) => [attempt.result, attempt.statusCode])).toEqual([
      ['timeout', null],
      ['delivered', 202],
    ]);
    expect(attempts[0]?.error).toContain('250 ms');
    expect(attempts[0]?.durationMs).toBeGreaterThanOrEqual(200);
    expect(target.accepted()).toHaveLength(1);
  });

  it('records a refused connection as a failed attempt', async () => {
    const closed = await receiver();
    const url = closed.url;
    await closed.close();
    receivers.splice(receivers.indexOf(closed), 1);
    const { world, dispatcher } = harness(url, { retry: { attempts: 2 } });
    world.openPull(world.openIssue('x').number);
    await dispatcher.idle();
    expect(dispatcher.log.attempts().map((attempt) => attempt.result)).toEqual([
      'connection-error',
      'connection-error',
    ]);
    expect(dispatcher.log.attempts()[0]?.error).toMatch(/ECONNREFUSED/);
    expect(dispatcher.deliveries()[0]?.status).toBe('failed');
  });

  it('keeps events in order while an earlier delivery is being retried', async () => {
    const target = await receiver({ failFirst: 2 });
    const { world, dispatcher } = harness(target.url);
    world.playScenario();
    await dispatcher.idle();
    expect(target.accepted().map((delivery) => eventOf(delivery.body))).toEqual(
      dispatcher.deliveries().map((delivery) => eventOf(delivery.body)),
    );
    expect(target.accepted().map((delivery) => delivery.headers['x-github-delivery'])).toEqual(
      dispatcher.deliveries().map((delivery) => delivery.deliveryId),
    );
  });

  it('drops the same deliveries for the same seed, and none at rate 0', async () => {
    const target = await receiver();
    const dropsOf = async (dropRate: number, seed = 42): Promise<number[]> => {
      const { world, dispatcher } = harness(target.url, { dropRate }, seed);
      world.playScenario();
      world.playScenario();
      await dispatcher.idle();
      const dropped = dispatcher.log.attempts({ result: 'dropped' });
      expect(dropped.every((attempt) => attempt.dropped && attempt.statusCode === null)).toBe(true);
      return dropped.map((attempt) => attempt.sequence);
    };
    const before = target.received.length;
    const first = await dropsOf(0.3);
    const second = await dropsOf(0.3);
    expect(first.length).toBeGreaterThan(0);
    expect(first.length).toBeLessThan(2 * scenarioDeliveries);
    expect(second).toEqual(first);
    // Dropped deliveries never reach the receiver.
    expect(target.received.length - before).toBe(2 * (2 * scenarioDeliveries - first.length));
    expect(await dropsOf(0)).toEqual([]);
    expect(await dropsOf(1)).toHaveLength(2 * scenarioDeliveries);
    expect(await dropsOf(0.3, 7)).not.toEqual(first);
  });

  it('redelivers a dropped delivery', async () => {
    const target = await receiver();
    const { world, dispatcher } = harness(target.url, { dropRate: 1 });
    world.openPull(world.openIssue('x').number);
    await dispatcher.idle();
    expect(target.received).toHaveLength(0);
    const [delivery] = dispatcher.deliveries();
    expect(delivery?.status).toBe('dropped');
    await expect(dispatcher.redeliver(delivery?.deliveryId ?? '')).resolves.toBe('delivered');
    expect(target.accepted()).toHaveLength(1);
  });

  it('gives byte-identical bodies and ids for the same scenario and seed', async () => {
    const [a, b] = [await receiver(), await receiver()];
    const run = async (url: string, seed: number): Promise<TestReceiver['received']> => {
      const { world, dispatcher } = harness(url, {}, seed);
      world.playScenario();
      await dispatcher.idle();
      return dispatcher
        .deliveries()
        .map((delivery) => ({ headers: delivery.headers, body: delivery.body, verified: true, status: null }));
    };
    const first = await run(a.url, 42);
    const second = await run(b.url, 42);
    expect(second).toEqual(first);
    expect(b.received.map((delivery) => delivery.body)).toEqual(a.received.map((delivery) => delivery.body));
    expect(b.received.map((delivery) => delivery.headers['x-github-delivery'])).toEqual(
      a.received.map((delivery) => delivery.headers['x-github-delivery']),
    );
    const other = await run(a.url, 43);
    expect(other.map((delivery) => delivery.headers['x-github-delivery'])).not.toEqual(
      first.map((delivery) => delivery.headers['x-github-delivery']),
    );
  });

  it('fails verification in a receiver holding another secret', async () => {
    const target = await receiver({}, 'not the secret');
    const { world, dispatcher } = harness(target.url, { retry: { attempts: 1 } });
    world.openPull(world.openIssue('x').number);
    await dispatcher.idle();
    expect(target.received.map((delivery) => [delivery.verified, delivery.status])).toEqual([[false, 401]]);
    expect(dispatcher.log.attempts().map((attempt) => [attempt.result, attempt.statusCode])).toEqual([
      ['http-error', 401],
    ]);
  });

  it('sends only subscribed events, with the ids they would have had anyway', async () => {
    const target = await receiver();
    const all = harness(target.url);
    all.world.playScenario();
    await all.dispatcher.idle();
    const some = harness(target.url, { events: ['pull_request'] });
    some.world.playScenario();
    await some.dispatcher.idle();
    const expected = all.dispatcher.deliveries().filter((delivery) => delivery.event === 'pull_request');
    expect(some.dispatcher.deliveries().map((delivery) => [delivery.deliveryId, delivery.body])).toEqual(
      expected.map((delivery) => [delivery.deliveryId, delivery.body]),
    );
  });

  it('appends every attempt to a JSONL log that never holds the secret', async () => {
    const target = await receiver({ failFirst: 1 });
    const logPath = join(tmp, 'nested', 'deliveries.jsonl');
    const first = harness(target.url, { logPath, dropRate: 0.3 });
    first.world.playScenario();
    await first.dispatcher.close();
    const second = harness(target.url, { logPath });
    second.world.openPull(second.world.openIssue('x').number);
    await second.dispatcher.close();

    const text = await readFile(logPath, 'utf8');
    const lines = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toEqual([...first.dispatcher.log.attempts(), ...second.dispatcher.log.attempts()]);
    expect(lines.some((line) => line['dropped'] === true)).toBe(true);
    expect(Object.keys(lines[0] ?? {}).sort()).toEqual(
      [
        'action',
        'at',
        'attempt',
        'deliveryId',
        'dropped',
        'durationMs',
        'error',
        'event',
        'hookId',
        'repository',
        'result',
        'retryInMs',
        'round',
        'sequence',
        'statusCode',
      ].sort(),
    );
    expect(text).not.toContain(secret);
    expect(text).not.toContain('sha256=');
  });

  it('reports a world event it cannot build through idle(), without failing the world change', async () => {
    const target = await receiver();
    const { dispatcher } = harness(target.url);
    const world = new LiveTestWorld();
    const listeners: ((event: Parameters<Parameters<LiveTestWorld['onEvent']>[0]>[0]) => void)[] = [];
    dispatcher.attach({ onEvent: (listener) => (listeners.push(listener), () => undefined) });
    expect(() =>
      listeners[0]?.({ type: 'issues', action: 'closed', repoId: world.repo.id, number: 404, at: world.generatedAt }),
    ).not.toThrow();
    await expect(dispatcher.idle()).rejects.toMatchObject({ code: 'unknown-record' });
    await expect(dispatcher.idle()).resolves.toBeUndefined();
  });

  it('stops taking events once closed', async () => {
    const target = await receiver();
    const { world, dispatcher } = harness(target.url);
    await dispatcher.close();
    world.openPull(world.openIssue('x').number);
    expect(target.received).toHaveLength(0);
    expect(() =>
      dispatcher.dispatch({ type: 'issues', action: 'closed', repoId: 7, number: 1, at: world.generatedAt }),
    ).toThrow(expect.objectContaining({ code: 'closed' }) as WebhookError);
  });

  it('rejects configuration that cannot work, with an example', () => {
    const world = new LiveTestWorld();
    const make = (options: Partial<WebhookDispatcherOptions>): unknown =>
      new WebhookDispatcher({ world, apiBaseUrl, url: 'http://127.0.0.1:1/hook', ...options });
    for (const options of [
      { url: 'ftp://example.com' },
      { url: 'not a url' },
      { dropRate: 1.5 },
      { timeoutMs: 0 },
      { retry: { attempts: 0 } },
      { retry: { jitter: 2 } },
    ]) {
      expect(() => make(options), JSON.stringify(options)).toThrow(
        expect.objectContaining({
          code: 'invalid-config',
          message: expect.stringMatching(/e\.g\.|such as/) as string,
        }) as WebhookError,
      );
    }
  });
});
