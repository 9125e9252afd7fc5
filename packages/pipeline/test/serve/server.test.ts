// The HTTP edge of `abp serve` over real sockets: routes, methods, content type, the 25 MB cap, signatures checked
// before anything else, ping, and start-up failures. No delivery here reaches a task, so its Temporal client, pointed
// at a port where nothing listens, is never used (test/serve/webhooks-temporal.test.ts signals for real).
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServeError } from '../../src/serve/errors.js';
import type { ServeLogRecord } from '../../src/serve/log.js';
import { startServer } from '../../src/serve/server.js';
import type { RunningServer } from '../../src/serve/server.js';
import { createTemporalSignaller } from '../../src/serve/signaller.js';
import { maxConcurrentDeliveries, maxWebhookBytes, WEBHOOK_PATH } from '../../src/serve/webhooks.js';
import { signWebhookBody } from '@abp/github-sim/webhooks/signing';

const secret = 'serve-edge-secret';
const log: ServeLogRecord[] = [];
let client: Client;
let server: RunningServer;
let deliveries = 0;

beforeAll(async () => {
  client = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
  server = await startServer({
    port: 0,
    host: '127.0.0.1',
    webhookSecret: secret,
    signaller: createTemporalSignaller(client),
    log: (record) => log.push(record),
  });
});
afterAll(async () => {
  await server?.close();
  await client?.connection.close();
});

interface Sent {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

async function post(body: string, headers: Record<string, string>, path = WEBHOOK_PATH): Promise<Sent> {
  const response = await fetch(`${server.url}${path}`, { method: 'POST', headers, body });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    headers: response.headers,
  };
}

/** Headers GitHub would send with `body`, signed with `secret` unless told otherwise. */
function github(event: string, body: string, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-github-event': event,
    'x-github-delivery': `edge-${++deliveries}`,
    'x-hub-signature-256': signWebhookBody(secret, body).sha256,
    ...overrides,
  };
}

function without(headers: Record<string, string>, name: string): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([key]) => key !== name));
}

const ping = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 });

describe('abp serve over HTTP', () => {
  it('answers a signed ping, and its redelivery as a duplicate', async () => {
    const headers = github('ping', ping);
    expect(await post(ping, headers)).toMatchObject({
      status: 200,
      body: { deliveryId: headers['x-github-delivery'], pong: true },
    });
    expect(await post(ping, headers)).toMatchObject({ status: 202, body: { ignored: 'duplicate' } });
    expect(
      log
        .filter((record) => 'deliveryId' in record && record.deliveryId === headers['x-github-delivery'])
        .map((record) => record.kind),
    ).toEqual(['delivery-ping', 'delivery-ignored']);
  });

  it('serves only POST on the webhook path', async () => {
    const get = await fetch(`${server.url}${WEBHOOK_PATH}`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect((await post(ping, github('ping', ping), '/webhooks/gitlab')).status).toBe(404);
    expect(
      log
        .filter((record) => record.kind === 'request-refused')
        .map((record) => [record.method, record.path, record.status]),
    ).toEqual(
      expect.arrayContaining([
        ['GET', WEBHOOK_PATH, 405],
        ['POST', '/webhooks/gitlab', 404],
      ]),
    );
  });

  it('refuses a signature that is missing, malformed, made with another secret or over another body', async () => {
    const before = log.length;
    expect(await post(ping, without(github('ping', ping), 'x-hub-signature-256'))).toMatchObject({
      status: 401,
      body: { error: expect.stringContaining('X-Hub-Signature-256 is missing') as string },
    });
    const refused = [
      github('ping', ping, { 'x-hub-signature-256': 'sha256=not-hex' }),
      github('ping', ping, { 'x-hub-signature-256': signWebhookBody('another secret', ping).sha256 }),
      github('ping', ping, { 'x-hub-signature-256': signWebhookBody(secret, `${ping} `).sha256 }),
      // GitHub's old SHA-1 signature alone is not enough.
      github('ping', ping, { 'x-hub-signature-256': signWebhookBody(secret, ping).sha1 }),
    ];
    for (const headers of refused) expect((await post(ping, headers)).status).toBe(401);
    expect((await post('', github('ping', ''))).status).toBe(401);
    const rejected = log.slice(before).filter((record) => record.kind === 'delivery-rejected');
    expect(rejected.map((record) => record.reason)).toEqual([
      'unsigned',
      'bad-signature',
      'bad-signature',
      'bad-signature',
      'bad-signature',
      'bad-signature',
    ]);
    expect(rejected[1]).toEqual({
      kind: 'delivery-rejected',
      reason: 'bad-signature',
      status: 401,
      event: 'ping',
      deliveryId: refused[0]?.['x-github-delivery'],
      remoteAddress: '127.0.0.1',
    });
    expect(JSON.stringify(log)).not.toContain(secret);
    expect(JSON.stringify(log)).not.toContain('logically awesome');
  });

  it('wants JSON, GitHub’s headers and a parseable body once the signature holds', async () => {
    const form = `payload=${encodeURIComponent(ping)}`;
    expect(
      await post(form, github('ping', form, { 'content-type': 'application/x-www-form-urlencoded' })),
    ).toMatchObject({ status: 415, body: { error: expect.stringContaining('application/json') as string } });
    expect((await post(ping, github('ping', ping, { 'content-type': 'application/json; charset=utf-8' }))).status).toBe(
      200,
    );
    expect((await post(ping, without(github('ping', ping), 'x-github-delivery'))).status).toBe(400);
    const broken = '{"action": "closed"';
    expect(await post(broken, github('issues', broken))).toMatchObject({
      status: 400,
      body: { error: 'the body is not valid JSON' },
    });
    const hollow = JSON.stringify({ action: 'closed', repository: { full_name: 'acme/widgets' } });
    expect(await post(hollow, github('issues', hollow))).toMatchObject({
      status: 400,
      body: { error: expect.stringContaining('issue') as string },
    });
  });

  it('ignores events and actions the task lifecycle does not follow, with 202', async () => {
    const push = JSON.stringify({ ref: 'refs/heads/main' });
    expect(await post(push, github('push', push))).toMatchObject({ status: 202, body: { ignored: 'event' } });
    const labeled = JSON.stringify({
      action: 'labeled',
      pull_request: { html_url: 'x', body: 'Fixes #1' },
      repository: { full_name: 'acme/widgets' },
    });
    expect(await post(labeled, github('pull_request', labeled))).toMatchObject({
      status: 202,
      body: { ignored: 'action' },
    });
    const mention = JSON.stringify({
      action: 'opened',
      pull_request: { html_url: 'x', body: 'See #1' },
      repository: { full_name: 'acme/widgets' },
    });
    expect(await post(mention, github('pull_request', mention))).toMatchObject({
      status: 202,
      body: { ignored: 'no-task' },
    });
    expect(
      log
        .filter((record) => record.kind === 'delivery-ignored' && record.reason !== 'duplicate')
        .map((record) => record.kind === 'delivery-ignored' && [record.event, record.action, record.reason]),
    ).toEqual([
      ['push', null, 'event'],
      ['pull_request', 'labeled', 'action'],
      ['pull_request', 'opened', 'no-task'],
    ]);
  });

  it('answers 413 to a body over 25 MB, declared or streamed, and stays usable', async () => {
    const declared = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(
        `${server.url}${WEBHOOK_PATH}`,
        { method: 'POST', headers: { 'content-length': String(maxWebhookBytes + 1), ...github('ping', ping) } },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
          request.destroy();
        },
      );
      request.once('error', reject);
      request.write('{');
    });
    expect(declared).toBe(413);

    // Chunked: no length up front, so the cap is found while reading.
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    const streamed = await fetch(`${server.url}${WEBHOOK_PATH}`, {
      method: 'POST',
      headers: github('ping', ping),
      duplex: 'half',
      body: new ReadableStream<Uint8Array>({
        start(controller) {
          for (let sent = 0; sent <= maxWebhookBytes; sent += chunk.length) controller.enqueue(chunk);
          controller.close();
        },
      }),
    });
    expect(streamed.status).toBe(413);
    expect(((await streamed.json()) as { error: string }).error).toContain(`${maxWebhookBytes} bytes`);
    expect((await post(ping, github('ping', ping))).status).toBe(200);
  });

  it('refuses to start without a secret or on a port in use', async () => {
    const signaller = createTemporalSignaller(client);
    await expect(
      startServer({ port: 0, host: '127.0.0.1', webhookSecret: ' ', signaller, log: () => undefined }),
    ).rejects.toMatchObject({ code: 'invalid-setting' } satisfies Partial<ServeError>);
    const port = Number(new URL(server.url).port);
    await expect(
      startServer({ port, host: '127.0.0.1', webhookSecret: secret, signaller, log: () => undefined }),
    ).rejects.toMatchObject({ code: 'port-in-use' } satisfies Partial<ServeError>);
  });
});

/** Writes `head` (and nothing more) on a fresh connection; resolves with what the server answers before closing. */
function rawExchange(head: string, waitMs = 5_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const url = new URL(server.url);
    const socket = connect(Number(url.port), url.hostname, () => socket.write(head));
    let answer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(answer);
    }, waitMs);
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(answer);
    });
    socket.once('error', reject);
  });
}

describe('the edge, bounded', () => {
  it('answers a method Node does not know with 501, as the API documents, not 400', async () => {
    const answer = await rawExchange('BREW /v1 HTTP/1.1\r\nhost: x\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 501 Not Implemented\r\n/);
    expect(answer).toContain('not one abp serve implements');
  });

  it('refuses an unsigned delivery before reading its body: the answer comes with the body still unsent', async () => {
    const before = log.length;
    // 20 MB announced, none sent: a server that read the body first would wait for it.
    const answer = await rawExchange(
      `POST ${WEBHOOK_PATH} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 20000000\r\nx-github-event: ping\r\nx-github-delivery: unsigned-early\r\n\r\n`,
      3_000,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
    expect(answer).toContain('X-Hub-Signature-256 is missing');
    expect(log.slice(before)).toContainEqual(
      expect.objectContaining({ kind: 'delivery-rejected', reason: 'unsigned', deliveryId: 'unsigned-early' }),
    );
  });

  it(`reads at most ${maxConcurrentDeliveries} deliveries at once; one more is 503 with Retry-After`, async () => {
    const url = new URL(server.url);
    // Signed deliveries whose bodies never finish: each holds a place while the server waits for it.
    const holders = Array.from({ length: maxConcurrentDeliveries }, () => {
      const socket = connect(Number(url.port), url.hostname);
      socket.write(
        `POST ${WEBHOOK_PATH} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\nx-hub-signature-256: sha256=${'0'.repeat(64)}\r\n\r\n{`,
      );
      return socket;
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const body = '{"zen":"x"}';
      const refused = await post(body, github('ping', body));
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
    } finally {
      for (const socket of holders) socket.destroy();
    }
    // Once they are gone, deliveries are read again.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const body = '{"zen":"y"}';
    expect((await post(body, github('ping', body))).status).toBe(200);
  });
});
