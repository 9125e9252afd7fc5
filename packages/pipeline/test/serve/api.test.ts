// The read-only API of `abp serve` over real sockets, on a real data directory: documents published by the registry's
// own functions, a bundle in the real store with a real signature, statements signed and logged by the real attestor,
// trust root versions, the transparency log with its proofs checked by the consumer's functions. The HTTP semantics
// are the subject here (ETag/304, ranges, HEAD, 404/400/405, traversal), so tasks come from a fixed in-memory
// TaskSource; test/distribution/pull.test.ts reads them through a real Temporal worker.
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BundleStore } from '../../src/freeze/bundle/store.js';
import { GoldenTraceStore } from '../../src/freeze/golden-trace-store.js';
import { goldenTraceText } from '../support/golden-trace.js';
import { documentText, publicationPaths, publishRegistry } from '../../src/registry/publication.js';
import { drawSchema, type AbpDraw } from '@abp/protocol/schemas/abp-draw';
import { registrySchema, type AbpRegistry } from '@abp/protocol/schemas/abp-registry';
import { API_PREFIX, type TaskView } from '../../src/serve/api.js';
import { ServeError } from '../../src/serve/errors.js';
import type { ServeLogRecord } from '../../src/serve/log.js';
import { startServer, type RunningServer } from '../../src/serve/server.js';
import type { TaskEntry, TaskSource } from '../../src/serve/tasks.js';
import { createAttestor, statementPath } from '../../src/signing/attestor.js';
import { LOG_ORIGIN } from '@abp/protocol/transparency/formats';
import { signingPaths } from '../../src/signing/home.js';
import { createSigningKey, type SigningKey } from '../../src/signing/keys.js';
import { createSigner } from '../../src/signing/signer.js';
import {
  createDrawRecordStatement,
  createRegistryVersionStatement,
  createTaskBundleStatement,
  drawSubjectName,
} from '@abp/protocol/signing/statement';
import { trustRootStatement } from '@abp/grader/trust';
import { createTrustRoot, saveTrustRoot } from '@abp/protocol/signing/trust-root';
import { verifyConsistencyOf, verifyInclusionOf } from '@abp/grader/audit';
import type { ConsistencyProof, InclusionProof, LogEntry, SignedCheckpoint } from '@abp/protocol/transparency/formats';
import { WEBHOOK_PATH } from '../../src/serve/webhooks.js';

const log: ServeLogRecord[] = [];
let root: string;
let home: string;
let key: SigningKey;
let server: RunningServer;
let registry: AbpRegistry;
let draw: AbpDraw;
/** A 5 MiB archive: larger than any stream buffer, so streaming and ranges are exercised for real. */
let archive: Buffer;
let digest: string;
let practiceDigest: string;
let heldOutDigest: string;
/** The scored task's golden trace, kept in the real trace store and signed with its bundle. */
let goldenTrace: Buffer;
let goldenTraceDigest: string;
let tasksDown = false;

const hexOf = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

function entry(taskId: string, state: TaskEntry['state'], bundleDigest: string | null, createdAt: string): TaskEntry {
  return {
    taskId,
    registryVersion: 'abp-registry/2026Q3',
    drawSeed: 424242,
    repo: `acme/${taskId}`,
    issue: 7,
    state,
    bundleDigest,
    createdAt,
    mergedAt: bundleDigest === null ? null : '2026-07-10T00:00:00.000Z',
    scoredUntil: bundleDigest === null ? null : '2027-01-06T00:00:00.000Z',
  };
}

/** Tasks as the worker would describe them; `tasksDown` makes every read fail as an unreachable worker does. */
const fixedTasks = (): TaskEntry[] => [
  entry('gh-acme-widgets-7', 'scored', digest, '2026-07-01T00:00:00.000Z'),
  entry('gh-acme-gadgets-3', 'practice', practiceDigest, '2026-06-01T00:00:00.000Z'),
  entry('gh-acme-gizmos-9', 'tracking', null, '2026-07-02T00:00:00.000Z'),
];
const taskSource: TaskSource = {
  list({ state, limit }) {
    if (tasksDown) return Promise.reject(new ServeError('unreachable', 'the abp worker did not answer'));
    return Promise.resolve(
      fixedTasks()
        .filter((task) => task.state === state)
        .slice(0, limit),
    );
  },
  get(taskId) {
    if (tasksDown) return Promise.reject(new ServeError('unreachable', 'the abp worker did not answer'));
    return Promise.resolve(fixedTasks().find((task) => task.taskId === taskId) ?? null);
  },
};

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-serve-api-'));
  home = join(root, 'home');
  const paths = signingPaths(home);
  key = await createSigningKey(paths.keyDir);
  const signer = await createSigner({ keyDir: paths.keyDir });
  const attestor = createAttestor({
    signer,
    statementsDir: paths.statements,
    log: {
      dir: paths.log,
      origin: LOG_ORIGIN,
      key: () => Promise.resolve({ privateKey: key.privateKey, keyId: key.keyId }),
    },
  });

  // Published documents and their signed statements, each logged (entries 0 and 1, checkpoints 1 and 2).
  registry = registrySchema.parse(
    JSON.parse(
      await readFile(
        new URL('../../../protocol/test/fixtures/documents/valid/registry-2026Q3.json', import.meta.url),
        'utf8',
      ),
    ),
  );
  draw = drawSchema.parse(
    JSON.parse(
      await readFile(
        new URL('../../../protocol/test/fixtures/documents/valid/draw-2026Q3-424242.json', import.meta.url),
        'utf8',
      ),
    ),
  );
  const published = join(home, 'published');
  await publishRegistry(published, registry);
  await mkdir(join(published, 'draws'), { recursive: true });
  await writeFile(publicationPaths(published).draw(draw.id), documentText(draw));
  await attestor.attest(
    'registry-version',
    createRegistryVersionStatement({
      version: registry.version,
      digest: registry.digest,
      previous: registry.previous,
      criteriaVersion: registry.criteriaVersion,
      repositories: registry.entries.length,
      signedAt: '2026-06-28T09:00:00Z',
    }),
  );
  await attestor.attest(
    'draw-record',
    createDrawRecordStatement({
      drawId: draw.id,
      digest: draw.digest,
      registryVersion: draw.registryVersion,
      seed: draw.seed,
      picks: draw.picks.length,
      backlogSnapshot: draw.backlogSnapshot.digest,
      signedAt: '2026-07-02T14:11:09Z',
    }),
  );

  // Two archives in the real store; the scored task's is signed (entry 2, checkpoint 3), the practice one's is not.
  archive = Buffer.alloc(5 * 1024 * 1024);
  for (let index = 0; index < archive.length; index++) archive[index] = (index * 31 + (index >> 10)) & 0xff;
  const store = new BundleStore(paths.bundles);
  digest = await store.put(archive);
  practiceDigest = await store.put(Buffer.from('a practice bundle'));
  heldOutDigest = `sha256:${hexOf(Buffer.from('held-out part'))}`;
  goldenTrace = Buffer.from(goldenTraceText('gh-acme-widgets-7'));
  goldenTraceDigest = await new GoldenTraceStore(paths.goldenTraces).put(goldenTrace);
  const statement = createTaskBundleStatement({
    taskId: 'gh-acme-widgets-7',
    bundleDigest: digest,
    heldOutDigest,
    goldenTraceDigest,
    signedAt: '2026-07-10T01:00:00Z',
    freeze: {
      repo: 'acme/widgets',
      baseCommit: 'a'.repeat(40),
      mergedPr: 'https://github.com/acme/widgets/pull/8',
      failToPass: 1,
      passToPass: 3,
      flaky: 0,
      builder: 'abp/0.1.0',
    },
  });
  const signature = JSON.stringify(await signer.sign(statement), null, 2);
  await store.putSignature(digest, signature);
  await attestor.logSignature('task-bundle', 'task/gh-acme-widgets-7/bundle', signature);

  // Trust root version 1, published with its statement; version 2's document alone, as a crash mid-publication leaves it.
  const trustRoot = createTrustRoot(key, '2026-01-01T00:00:00Z');
  await saveTrustRoot(paths.trustRoot, trustRoot);
  await saveTrustRoot(join(paths.trustRoots, 'v1.json'), trustRoot);
  await writeFile(
    join(paths.trustRoots, 'v1.sigstore.json'),
    JSON.stringify(await signer.sign(trustRootStatement(trustRoot, new Date('2026-01-01T00:00:00Z')))),
  );
  await saveTrustRoot(join(paths.trustRoots, 'v2.json'), { ...trustRoot, version: 2 });

  server = await startServer({
    port: 0,
    host: '127.0.0.1',
    // Every request reads the source, so a test that takes the worker down sees it at once; the cache has its own test.
    api: { home, tasks: taskSource, taskAnswerMaxAgeMs: 0 },
    log: (record) => log.push(record),
  });
});
afterAll(async () => {
  await server?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

const api = (path: string, init?: RequestInit) => fetch(`${server.url}${API_PREFIX}${path}`, init);

async function getJson<T>(path: string, status = 200): Promise<T> {
  const response = await api(path);
  expect(response.status, `${path}: ${await response.clone().text()}`).toBe(status);
  return (await response.json()) as T;
}

/** A request with the target sent exactly as written: fetch would normalise `..` and `%2e%2e` away first. */
function raw(target: string, method = 'GET'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(server.url);
    const request = httpRequest({ host: url.hostname, port: url.port, path: target, method }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.once('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.once('error', reject);
    request.end();
  });
}

describe('the read-only API: documents', () => {
  it('lists its routes at /v1', async () => {
    const index = await getJson<{ api: string; routes: string[] }>('');
    expect(index.api).toBe('abp/v1');
    expect(index.routes).toEqual(
      expect.arrayContaining([
        '/v1/bundles/:digest',
        '/v1/tasks/:id',
        '/v1/statements/:kind/*subject',
        '/v1/log/proofs/inclusion',
      ]),
    );
  });

  it('serves registry versions and draws as published, byte for byte', async () => {
    expect(await getJson('/registry')).toEqual({
      versions: [
        {
          version: 'abp-registry/2026Q3',
          url: '/v1/registry/2026Q3',
          statement: '/v1/statements/registry-version/abp-registry/2026Q3',
        },
      ],
    });
    const document = await api('/registry/2026Q3');
    expect(document.headers.get('content-type')).toMatch(/^application\/json/);
    expect(
      Buffer.from(await document.arrayBuffer()).equals(
        await readFile(publicationPaths(join(home, 'published')).registry(registry.version)),
      ),
    ).toBe(true);
    expect(await getJson('/draws')).toEqual({
      draws: [
        {
          id: draw.id,
          url: `/v1/draws/${draw.id}`,
          statement: `/v1/statements/draw-record/${drawSubjectName(draw.id)}`,
        },
      ],
    });
    expect(await getJson<AbpDraw>(`/draws/${draw.id}`)).toEqual(draw);

    expect((await getJson<{ error: string }>('/registry/2026Q5', 400)).error).toContain('YYYYQn');
    expect((await getJson<{ error: string }>('/registry/2025Q1', 404)).error).toContain('not published');
    expect((await getJson<{ error: string }>('/draws/no-such-draw', 404)).error).toContain('no draw no-such-draw');
    expect((await getJson<{ error: string }>('/draws/-leading-dash', 400)).error).toContain('not a draw id');
  });

  it('tags every read with a strong ETag and answers If-None-Match with 304 and no body', async () => {
    const first = await api('/registry/2026Q3');
    const etag = first.headers.get('etag') ?? '';
    const bytes = Buffer.from(await first.arrayBuffer());
    expect(etag).toBe(`"sha256:${hexOf(bytes)}"`);
    expect(first.headers.get('cache-control')).toBe('no-cache');
    const again = await api('/registry/2026Q3', { headers: { 'if-none-match': `"other", ${etag}` } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    // JSON answers too: the tag is the digest of the bytes sent.
    const list = await api('/draws');
    const listTag = list.headers.get('etag') ?? '';
    expect(listTag).toBe(`"sha256:${hexOf(Buffer.from(await list.arrayBuffer()))}"`);
    expect((await api('/draws', { headers: { 'if-none-match': `W/${listTag}` } })).status).toBe(304);
    expect((await api('/draws', { headers: { 'if-none-match': '"sha256:stale"' } })).status).toBe(200);
  });
});

describe('the read-only API: tasks', () => {
  it('lists the frozen tasks, oldest first, filtered by state', async () => {
    const all = await getJson<{ tasks: TaskView[] }>('/tasks');
    expect(all.tasks.map((task) => [task.taskId, task.state])).toEqual([
      ['gh-acme-gadgets-3', 'practice'],
      ['gh-acme-widgets-7', 'scored'],
    ]);
    expect((await getJson<{ tasks: TaskView[] }>('/tasks?state=scored')).tasks.map((task) => task.taskId)).toEqual([
      'gh-acme-widgets-7',
    ]);
    expect(
      (await getJson<{ tasks: TaskView[] }>('/tasks?state=practice&limit=1')).tasks.map((task) => task.taskId),
    ).toEqual(['gh-acme-gadgets-3']);
    expect((await getJson<{ tasks: TaskView[] }>('/tasks?limit=1')).tasks.map((task) => task.taskId)).toEqual([
      'gh-acme-gadgets-3',
    ]);
    expect((await getJson<{ error: string }>('/tasks?state=tracking', 400)).error).toContain(
      '?state=scored or ?state=practice',
    );
    expect((await getJson<{ error: string }>('/tasks?limit=0', 400)).error).toContain('1 to 1000');
    expect((await getJson<{ error: string }>('/tasks?limit=ten', 400)).error).toContain('not a whole number');
  });

  it('describes one task with its digests and the URLs of its bundle and statements', async () => {
    expect(await getJson<TaskView>('/tasks/gh-acme-widgets-7')).toEqual({
      taskId: 'gh-acme-widgets-7',
      repo: 'acme/gh-acme-widgets-7',
      issue: 7,
      state: 'scored',
      registryVersion: 'abp-registry/2026Q3',
      drawSeed: 424242,
      bundleDigest: digest,
      heldOutDigest,
      goldenTraceDigest,
      mergedAt: '2026-07-10T00:00:00.000Z',
      scoredUntil: '2027-01-06T00:00:00.000Z',
      links: {
        self: '/v1/tasks/gh-acme-widgets-7',
        bundle: `/v1/bundles/${digest}`,
        signature: `/v1/bundles/${digest}/signature`,
        goldenTrace: '/v1/traces/gh-acme-widgets-7.abp-trace.jsonl',
        statements: {
          'task-bundle': '/v1/statements/task-bundle/task/gh-acme-widgets-7/bundle',
          'aging-transition': null,
        },
      },
    });
    // A practice task links its aging transition; an unsigned bundle has no known held-out digest or golden trace.
    expect(await getJson<TaskView>('/tasks/gh-acme-gadgets-3')).toMatchObject({
      state: 'practice',
      heldOutDigest: null,
      goldenTraceDigest: null,
      links: {
        goldenTrace: null,
        statements: { 'aging-transition': '/v1/statements/aging-transition/task/gh-acme-gadgets-3/bundle' },
      },
    });
    expect((await getJson<{ error: string }>('/tasks/gh-acme-gizmos-9', 404)).error).toContain(
      'is tracking: only frozen tasks',
    );
    expect((await getJson<{ error: string }>('/tasks/gh-nobody-1', 404)).error).toContain('no task gh-nobody-1');
  });

  it('answers 503 with Retry-After while the worker that owns the tasks does not answer', async () => {
    tasksDown = true;
    try {
      const response = await api('/tasks');
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect(((await response.json()) as { error: string }).error).toContain('did not answer');
    } finally {
      tasksDown = false;
    }
  });
});

describe('the read-only API: task answers kept for a moment', () => {
  it('reads the tasks once for a burst of requests, again once the answer is older than its age, and never keeps a failure', async () => {
    let reads = 0;
    let down = false;
    const counted: TaskSource = {
      list(query) {
        reads += 1;
        return down
          ? Promise.reject(new ServeError('unreachable', 'the abp worker did not answer'))
          : taskSource.list(query);
      },
      get(taskId) {
        reads += 1;
        return taskSource.get(taskId);
      },
    };
    // Long enough that a burst on a loaded machine falls inside one answer's life.
    const maxAgeMs = 1_000;
    const cached = await startServer({
      port: 0,
      host: '127.0.0.1',
      api: { home, tasks: counted, taskAnswerMaxAgeMs: maxAgeMs },
      log: () => undefined,
    });
    try {
      const list = () => fetch(`${cached.url}${API_PREFIX}/tasks`);
      const burst = await Promise.all(Array.from({ length: 20 }, list));
      const bodies = await Promise.all(burst.map((response) => response.text()));
      expect(burst.map((response) => response.status)).toEqual(Array(20).fill(200));
      expect(new Set(bodies).size).toBe(1);
      expect(new Set(burst.map((response) => response.headers.get('etag'))).size).toBe(1);
      // One listing of both distributed states: two reads of the source, however many requests.
      expect(reads).toBe(2);
      const etag = burst[0]?.headers.get('etag') ?? '';
      expect((await fetch(`${cached.url}${API_PREFIX}/tasks`, { headers: { 'if-none-match': etag } })).status).toBe(
        304,
      );
      expect(reads).toBe(2);

      await new Promise((resolve) => setTimeout(resolve, maxAgeMs + 50));
      expect((await list()).status).toBe(200);
      expect(reads).toBe(4);

      await new Promise((resolve) => setTimeout(resolve, maxAgeMs + 50));
      down = true;
      expect((await list()).status).toBe(503);
      down = false;
      // The failure was not kept: the next request reads again at once.
      expect((await list()).status).toBe(200);
    } finally {
      await cached.close();
    }
  });
});

describe('the read-only API: golden traces', () => {
  const tracePath = '/traces/gh-acme-widgets-7.abp-trace.jsonl';

  it('serves a task’s golden trace where its manifest’s golden.trace points, byte for byte, tagged by its digest', async () => {
    const response = await api(tracePath);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/jsonl; charset=utf-8');
    expect(response.headers.get('etag')).toBe(`"${goldenTraceDigest}"`);
    // Named by the task, not the digest: a freeze given another trace would serve other bytes here.
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(Buffer.from(await response.arrayBuffer()).equals(goldenTrace)).toBe(true);
    expect((await api(tracePath, { headers: { 'if-none-match': `"${goldenTraceDigest}"` } })).status).toBe(304);
    // The statement it is signed in is found under its own subject too.
    const statement = await api('/statements/task-bundle/task/gh-acme-widgets-7/golden-trace');
    expect(await statement.text()).toBe(await (await api(`/bundles/${digest}/signature`)).text());
  });

  it('answers 404 for a task without one, and 400 for a name that is not <task id>.abp-trace.jsonl', async () => {
    expect((await getJson<{ error: string }>('/traces/gh-acme-gadgets-3.abp-trace.jsonl', 404)).error).toContain(
      'has no golden trace',
    );
    expect((await getJson<{ error: string }>('/traces/gh-acme-gizmos-9.abp-trace.jsonl', 404)).error).toContain(
      'no frozen task gh-acme-gizmos-9',
    );
    expect((await getJson<{ error: string }>('/traces/gh-acme-widgets-7.jsonl', 400)).error).toContain(
      '<task id>.abp-trace.jsonl',
    );
  });
});

describe('the read-only API: bundles', () => {
  const bundlePath = () => `/bundles/${digest}`;

  it('streams a bundle whole, tagged by its digest, cacheable for good', async () => {
    const response = await api(bundlePath());
    expect(response.status).toBe(200);
    expect(
      Object.fromEntries(
        ['etag', 'cache-control', 'accept-ranges', 'content-length', 'content-type'].map((name) => [
          name,
          response.headers.get(name),
        ]),
      ),
    ).toEqual({
      etag: `"${digest}"`,
      'cache-control': 'public, max-age=31536000, immutable',
      'accept-ranges': 'bytes',
      'content-length': String(archive.length),
      'content-type': 'application/x-tar',
    });
    expect(`sha256:${hexOf(Buffer.from(await response.arrayBuffer()))}`).toBe(digest);
    const revalidated = await api(bundlePath(), { headers: { 'if-none-match': `"${digest}"` } });
    expect(revalidated.status).toBe(304);
    expect(await revalidated.text()).toBe('');
  });

  it('answers a single range with 206 and Content-Range, and an unsatisfiable one with 416', async () => {
    const size = archive.length;
    const cases: Array<[string, number, number]> = [
      ['bytes=0-99', 0, 99],
      ['bytes=1048570-1048580', 1_048_570, 1_048_580],
      ['bytes=5242000-', 5_242_000, size - 1],
      ['bytes=-100', size - 100, size - 1],
      ['bytes=10-99999999', 10, size - 1],
    ];
    for (const [range, start, end] of cases) {
      const response = await api(bundlePath(), { headers: { range } });
      expect(response.status, range).toBe(206);
      expect(response.headers.get('content-range'), range).toBe(`bytes ${start}-${end}/${size}`);
      expect(response.headers.get('content-length'), range).toBe(String(end - start + 1));
      expect(Buffer.from(await response.arrayBuffer()).equals(archive.subarray(start, end + 1)), range).toBe(true);
    }
    for (const range of [`bytes=${size}-`, `bytes=${size + 10}-${size + 20}`, 'bytes=-0']) {
      const response = await api(bundlePath(), { headers: { range } });
      expect(response.status, range).toBe(416);
      expect(response.headers.get('content-range'), range).toBe(`bytes */${size}`);
      expect(((await response.json()) as { error: string }).error).toContain('lies outside');
    }
    // Several ranges, another unit, or garbage: the whole bundle (a server may ignore Range).
    for (const range of ['bytes=0-9,20-29', 'items=0-9', 'bytes=9-0', 'bytes=x-y']) {
      const response = await api(bundlePath(), { headers: { range } });
      expect(response.status, range).toBe(200);
      expect(Number((await response.arrayBuffer()).byteLength), range).toBe(size);
    }
  });

  it('honours If-Range only for the current ETag', async () => {
    const current = await api(bundlePath(), { headers: { range: 'bytes=0-9', 'if-range': `"${digest}"` } });
    expect(current.status).toBe(206);
    expect((await current.arrayBuffer()).byteLength).toBe(10);
    const stale = await api(bundlePath(), { headers: { range: 'bytes=0-9', 'if-range': '"sha256:stale"' } });
    expect(stale.status).toBe(200);
    expect((await stale.arrayBuffer()).byteLength).toBe(archive.length);
  });

  it('answers HEAD with the headers GET would send and no body', async () => {
    const head = await raw(`${API_PREFIX}${bundlePath()}`, 'HEAD');
    expect(head).toEqual({ status: 200, body: '' });
    const response = await api(bundlePath(), { method: 'HEAD' });
    expect(response.headers.get('content-length')).toBe(String(archive.length));
    expect(response.headers.get('etag')).toBe(`"${digest}"`);
    const part = await api(bundlePath(), { method: 'HEAD', headers: { range: 'bytes=-5' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(
      `bytes ${archive.length - 5}-${archive.length - 1}/${archive.length}`,
    );
    expect((await api('/tasks/gh-acme-widgets-7', { method: 'HEAD' })).headers.get('content-type')).toMatch(
      /^application\/json/,
    );
  });

  it('serves the signature beside the bundle, and 404s a digest it does not hold', async () => {
    const signature = await api(`${bundlePath()}/signature`);
    expect(signature.status).toBe(200);
    expect(await signature.text()).toBe(await new BundleStore(signingPaths(home).bundles).getSignature(digest));
    expect((await getJson<{ error: string }>(`/bundles/sha256:${'0'.repeat(64)}`, 404)).error).toContain('no bundle');
    expect((await getJson<{ error: string }>(`/bundles/${practiceDigest}/signature`, 404)).error).toContain(
      'has no signature',
    );
  });

  it('refuses a malformed digest with 400 naming the expected form', async () => {
    for (const bad of [
      digest.slice(0, -1),
      digest.toUpperCase().replace('SHA256', 'sha256'),
      digest.slice('sha256:'.length),
      `sha512:${'0'.repeat(64)}`,
    ]) {
      const { error } = await getJson<{ error: string }>(`/bundles/${bad}`, 400);
      expect(error).toContain('expected "sha256:" followed by 64 lowercase hex digits');
    }
    // A percent-encoded colon is still the same digest.
    expect((await raw(`${API_PREFIX}/bundles/${digest.replace(':', '%3A')}`, 'HEAD')).status).toBe(200);
  });
});

describe('the read-only API: requests that climb out, and wrong methods', () => {
  it('refuses path traversal, encoded or not, with 400 before any route sees it', async () => {
    for (const target of [
      `${API_PREFIX}/bundles/../../../etc/passwd`,
      `${API_PREFIX}/bundles/%2e%2e/%2E%2E/etc/passwd`,
      `${API_PREFIX}/statements/draw-record/..%2F..%2Fkeys%2Fsigning-key.pem`,
      `${API_PREFIX}/draws/.`,
      `${API_PREFIX}/draws/a%5C..%5Cb`,
      `${API_PREFIX}/draws/x%00`,
      `${API_PREFIX}/draws/%zz`,
    ]) {
      const answer = await raw(target);
      expect(answer.status, target).toBe(400);
      expect((JSON.parse(answer.body) as { error: string }).error, target).toMatch(
        /"\.\." segment|encodes "\/"|percent-encoded/,
      );
    }
    const refused = log.filter(
      (record) => record.kind === 'request-refused' && record.status === 400 && record.path.includes('etc/passwd'),
    );
    expect(refused.length).toBeGreaterThan(0);
  });

  it('answers 404 off the API, 405 with Allow for other methods, and has no webhook route without a secret', async () => {
    expect((await getJson<{ error: string }>('/nothing-here', 404)).error).toContain(
      'nothing is served at /v1/nothing-here',
    );
    const post = await api('/tasks', { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect(
      (
        await fetch(`${server.url}${WEBHOOK_PATH}`, {
          method: 'POST',
          body: '{}',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
    ).toBe(404);
    expect((await raw('/v1/trust-root', 'PUT')).status).toBe(405);
    expect((await raw('/v1/trust-root', 'PROPFIND')).status).toBe(501);
  });

  it('logs each read as one record, served or refused', async () => {
    const before = log.length;
    await api('/trust-root');
    await api('/draws/no-such-draw');
    expect(log.slice(before)).toMatchObject([
      { kind: 'request-served', method: 'GET', path: '/v1/trust-root', status: 200 },
      { kind: 'request-refused', method: 'GET', path: '/v1/draws/no-such-draw', status: 404 },
    ]);
  });
});

describe('the read-only API: statements and trust roots', () => {
  it('serves each kind of signed statement by kind and subject', async () => {
    const paths = signingPaths(home);
    const text = async (path: string) => (await api(path)).text();
    expect(await text('/statements/registry-version/abp-registry/2026Q3')).toBe(
      await readFile(statementPath(paths.statements, 'registry-version', 'abp-registry/2026Q3'), 'utf8'),
    );
    expect(await text(`/statements/draw-record/draw/${draw.id}`)).toBe(
      await readFile(statementPath(paths.statements, 'draw-record', `draw/${draw.id}`), 'utf8'),
    );
    // A task bundle's statement is its signature in the store, found through the task.
    const bundleSignature = await readFile(new BundleStore(paths.bundles).signaturePath(digest), 'utf8');
    expect(await text('/statements/task-bundle/task/gh-acme-widgets-7/bundle')).toBe(bundleSignature);
    expect(await text('/statements/task-bundle/task/gh-acme-widgets-7/held-out')).toBe(bundleSignature);
    expect(await text('/statements/trust-root/abp-trust-root/v1')).toBe(
      await readFile(join(paths.trustRoots, 'v1.sigstore.json'), 'utf8'),
    );

    expect(
      (await getJson<{ error: string }>('/statements/task-bundle/task/gh-acme-gizmos-9/bundle', 404)).error,
    ).toContain('no signed task-bundle statement');
    expect(
      (await getJson<{ error: string }>('/statements/aging-transition/task/gh-acme-gadgets-3/bundle', 404)).error,
    ).toContain('no signed aging-transition statement');
    expect((await getJson<{ error: string }>('/statements/secrets/key', 400)).error).toContain(
      'use one of task-bundle, registry-version',
    );
    expect((await getJson<{ error: string }>('/statements/draw-record/draw/-x', 400)).error).toContain(
      'not a statement subject',
    );
  });

  it('serves the current trust root and each fully published version with its statement', async () => {
    const paths = signingPaths(home);
    expect(await (await api('/trust-root')).text()).toBe(await readFile(paths.trustRoot, 'utf8'));
    // Version 2 has no statement yet: it is not published, so it is neither listed nor served.
    expect(await getJson('/trust-roots')).toEqual({
      versions: [{ version: 1, url: '/v1/trust-roots/1', statement: '/v1/trust-roots/1/statement' }],
    });
    expect(await (await api('/trust-roots/1')).text()).toBe(await readFile(join(paths.trustRoots, 'v1.json'), 'utf8'));
    expect(await (await api('/trust-roots/1/statement')).text()).toBe(
      await readFile(join(paths.trustRoots, 'v1.sigstore.json'), 'utf8'),
    );
    expect((await getJson<{ error: string }>('/trust-roots/2', 404)).error).toContain('not published');
    expect((await getJson<{ error: string }>('/trust-roots/0', 400)).error).toContain('whole number from 1');
    expect((await getJson<{ error: string }>('/trust-roots/v1', 400)).error).toContain('not a trust root version');
  });
});

describe('the read-only API: the transparency log', () => {
  it('lists checkpoints and serves each, the latest too', async () => {
    expect(await getJson('/log/checkpoints')).toEqual({
      latest: '/v1/log/checkpoints/3',
      checkpoints: [1, 2, 3].map((size) => ({ size, url: `/v1/log/checkpoints/${size}` })),
    });
    const latest = await getJson<SignedCheckpoint>('/log/checkpoints/latest');
    expect(latest.checkpoint).toMatchObject({ origin: LOG_ORIGIN, size: 3 });
    expect(await getJson('/log/checkpoints/3')).toEqual(latest);
    expect((await getJson<{ error: string }>('/log/checkpoints/4', 404)).error).toContain('no checkpoint of size 4');
    expect((await getJson<{ error: string }>('/log/checkpoints/0', 400)).error).toContain('whole number from 1');
  });

  it('serves entries, whole or paged, and one by index', async () => {
    const all = await getJson<{ size: number; entries: LogEntry[] }>('/log/entries');
    expect(all.size).toBe(3);
    expect(all.entries.map((logged) => [logged.index, logged.kind, logged.subject])).toEqual([
      [0, 'registry-version', 'abp-registry/2026Q3'],
      [1, 'draw-record', `draw/${draw.id}`],
      [2, 'task-bundle', 'task/gh-acme-widgets-7/bundle'],
    ]);
    expect((await getJson<{ entries: LogEntry[] }>('/log/entries?start=1&limit=1')).entries).toEqual([all.entries[1]]);
    expect(await getJson('/log/entries/2')).toEqual(all.entries[2]);
    expect((await getJson<{ error: string }>('/log/entries/3', 404)).error).toContain('has 3 entries');
    expect((await getJson<{ error: string }>('/log/entries?start=-1', 400)).error).toContain('not a whole number');
  });

  it('hands out inclusion and consistency proofs that verify against the signed checkpoints', async () => {
    const checkpoint = (size: number) => getJson<SignedCheckpoint>(`/log/checkpoints/${size}`);
    for (const [index, size] of [
      [0, 3],
      [2, 3],
      [1, 2],
      [0, 1],
    ] as const) {
      const answer = await getJson<{ entry: LogEntry; proof: InclusionProof; checkpoint: string }>(
        `/log/proofs/inclusion?index=${index}&size=${size}`,
      );
      expect(answer.checkpoint).toBe(`/v1/log/checkpoints/${size}`);
      verifyInclusionOf(answer.entry, answer.proof, await checkpoint(size), key.publicKeyPem);
    }
    // Without a size: against the latest checkpoint.
    expect((await getJson<{ proof: InclusionProof }>('/log/proofs/inclusion?index=1')).proof.size).toBe(3);
    for (const [from, to] of [
      [1, 3],
      [2, 3],
      [1, 2],
      [3, 3],
    ] as const) {
      const answer = await getJson<{ proof: ConsistencyProof }>(`/log/proofs/consistency?from=${from}&to=${to}`);
      verifyConsistencyOf(answer.proof, await checkpoint(from), await checkpoint(to), key.publicKeyPem);
    }
    // The checks are real: the proof of another entry, or against another tree, does not verify.
    const proven = await getJson<{ entry: LogEntry; proof: InclusionProof }>('/log/proofs/inclusion?index=0&size=3');
    let refused: unknown;
    try {
      verifyInclusionOf(
        { ...proven.entry, subject: 'abp-registry/2026Q4' },
        proven.proof,
        await checkpoint(3),
        key.publicKeyPem,
      );
    } catch (error) {
      refused = error;
    }
    expect(refused).toMatchObject({ code: 'inclusion-failed' });

    expect((await getJson<{ error: string }>('/log/proofs/inclusion', 400)).error).toContain('?index=<n>');
    expect((await getJson<{ error: string }>('/log/proofs/inclusion?index=3&size=3', 400)).error).toContain(
      'indices 0 to 2',
    );
    expect((await getJson<{ error: string }>('/log/proofs/inclusion?index=0&size=4', 400)).error).toContain(
      'the log has 3 entries',
    );
    expect((await getJson<{ error: string }>('/log/proofs/consistency?from=0&to=3', 400)).error).toContain(
      'give 1 to 3',
    );
    expect((await getJson<{ error: string }>('/log/proofs/consistency', 400)).error).toContain('?from=<n>');
  });
});
