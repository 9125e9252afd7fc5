// Tasks frozen by hand reach consumers through their published records alone: `abp freeze` writes one per task
// (freeze/published-tasks.ts), and the read-only API lists and describes them, with their signed statement, without a
// worker; beside the pipeline's tasks they are ordered by when they were published and win over a task of the same id.
// Real data directory, real store and signature, real sockets; the pipeline's tasks come from a fixed TaskSource, as in
// api.test.ts.
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskSchema, type AbpTask } from '@abp/protocol/schemas/abp-task';
import { createTaskBundleStatement } from '@abp/protocol/signing/statement';
import { BundleStore } from '../../src/freeze/bundle/store.js';
import type { PublishedTask } from '../../src/freeze/index.js';
import {
  listPublishedTasks,
  publishedTaskPath,
  publishFrozenTask,
  readPublishedTask,
} from '../../src/freeze/published-tasks.js';
import { PublicationError } from '../../src/registry/publication.js';
import { API_PREFIX, type TaskView } from '../../src/serve/api.js';
import { ServeError } from '../../src/serve/errors.js';
import { startServer, type RunningServer } from '../../src/serve/server.js';
import type { TaskEntry, TaskSource } from '../../src/serve/tasks.js';
import { signingPaths } from '../../src/signing/home.js';
import { createSigningKey } from '../../src/signing/keys.js';
import { createSigner } from '../../src/signing/signer.js';

const TASK_ID = 'gh-vercel-next.js-81234';

let root: string;
let home: string;
let publication: string;
let store: BundleStore;
let frozen: PublishedTask;
let signature: string;
let byHandOnly: RunningServer;
let withPipeline: RunningServer;
let workerDown = false;

/** A frozen task as freezeTask returns it, for the spec's example manifest and a bundle in the real store. */
async function frozenTask(bytes: string): Promise<PublishedTask> {
  const manifest: AbpTask = taskSchema.parse(
    JSON.parse(
      await readFile(
        new URL('../../../protocol/test/fixtures/documents/valid/task-spec-example.json', import.meta.url),
        'utf8',
      ),
    ),
  );
  const digest = await store.put(Buffer.from(bytes));
  return {
    status: 'frozen',
    taskId: TASK_ID,
    digest,
    heldOutDigest: `sha256:${'e'.repeat(64)}`,
    archivePath: store.path(digest),
    signaturePath: store.signaturePath(digest),
    goldenTrace: null,
    manifest,
    failToPass: ['a'],
    passToPass: ['b'],
    flaky: [],
    volatile: [],
    gold: { trials: 3 },
    timings: { freezeMs: 1, goldMs: 1, bundleMs: 1, signMs: 1 },
  };
}

/** The pipeline's tasks as the worker would describe them, one sharing the hand-frozen task's id. */
const tracked = (): TaskEntry[] => [
  {
    taskId: 'gh-acme-widgets-7',
    registryVersion: 'abp-registry/2026Q3',
    drawSeed: 1,
    repo: 'acme/widgets',
    issue: 7,
    state: 'practice',
    bundleDigest: `sha256:${'1'.repeat(64)}`,
    createdAt: '2026-06-01T00:00:00.000Z',
    mergedAt: '2026-06-10T00:00:00.000Z',
    scoredUntil: '2026-12-07T00:00:00.000Z',
  },
  {
    taskId: TASK_ID,
    registryVersion: 'abp-registry/2026Q3',
    drawSeed: 2,
    repo: 'vercel/next.js',
    issue: 81234,
    state: 'practice',
    bundleDigest: `sha256:${'2'.repeat(64)}`,
    createdAt: '2026-05-01T00:00:00.000Z',
    mergedAt: '2026-05-10T00:00:00.000Z',
    scoredUntil: '2026-11-06T00:00:00.000Z',
  },
];
const pipeline: TaskSource = {
  list: ({ state, limit }) =>
    workerDown
      ? Promise.reject(new ServeError('unreachable', 'the abp worker did not answer'))
      : Promise.resolve(
          tracked()
            .filter((task) => task.state === state)
            .slice(0, limit),
        ),
  get: (taskId) =>
    workerDown
      ? Promise.reject(new ServeError('unreachable', 'the abp worker did not answer'))
      : Promise.resolve(tracked().find((task) => task.taskId === taskId) ?? null),
};

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-published-tasks-'));
  home = join(root, 'home');
  publication = join(home, 'published');
  const paths = signingPaths(home);
  await createSigningKey(paths.keyDir);
  const signer = await createSigner({ keyDir: paths.keyDir });
  store = new BundleStore(paths.bundles);
  frozen = await frozenTask('a bundle frozen by hand');
  signature = JSON.stringify(
    await signer.sign(
      createTaskBundleStatement({
        taskId: TASK_ID,
        bundleDigest: frozen.digest,
        heldOutDigest: frozen.heldOutDigest,
        signedAt: '2026-07-10T01:00:00Z',
        freeze: {
          repo: 'vercel/next.js',
          baseCommit: 'a'.repeat(40),
          mergedPr: 'https://github.com/vercel/next.js/pull/81301',
          failToPass: 1,
          passToPass: 1,
          flaky: 0,
          builder: 'abp/0.1.0',
        },
      }),
    ),
  );
  await store.putSignature(frozen.digest, signature);
  byHandOnly = await startServer({ port: 0, host: '127.0.0.1', api: { home }, log: () => undefined });
  withPipeline = await startServer({
    port: 0,
    host: '127.0.0.1',
    api: { home, tasks: pipeline, taskAnswerMaxAgeMs: 0 },
    log: () => undefined,
  });
});
afterAll(async () => {
  await byHandOnly?.close();
  await withPipeline?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

async function getJson<T>(server: RunningServer, path: string, status = 200): Promise<T> {
  const response = await fetch(`${server.url}${API_PREFIX}${path}`);
  expect(response.status, `${path}: ${await response.clone().text()}`).toBe(status);
  return (await response.json()) as T;
}

describe('the published record of a task frozen by hand', () => {
  it('is written once per bundle, whole, with the provenance of its manifest', async () => {
    const first = await publishFrozenTask(publication, frozen, () => new Date('2026-07-10T02:00:00.500Z'));
    expect(first.created).toBe(true);
    expect(first.path).toBe(publishedTaskPath(publication, TASK_ID));
    expect(first.record).toEqual({
      schema: 'abp-published-task/1',
      taskId: TASK_ID,
      repo: 'vercel/next.js',
      issue: 81234,
      registryVersion: 'abp-registry/2026Q3',
      drawSeed: 424242,
      sourcedAt: '2026-07-02T14:11:09Z',
      cutoffsVerified: ['claude-sonnet-5:2026-01', 'gpt-5.2:2026-03'],
      bundleDigest: frozen.digest,
      heldOutDigest: frozen.heldOutDigest,
      mergedPr: 'https://github.com/vercel/next.js/pull/81301',
      publishedAt: '2026-07-10T02:00:00Z',
    });
    const bytes = await readFile(first.path);
    // Publishing the same bundle again keeps the record, its first publication time included.
    const again = await publishFrozenTask(publication, frozen, () => new Date('2027-01-01T00:00:00Z'));
    expect(again.created).toBe(false);
    expect((await readFile(first.path)).equals(bytes)).toBe(true);
    // Written through a temporary file renamed into place: nothing else is left in the folder.
    expect(await readdir(join(publication, 'tasks'))).toEqual([`${TASK_ID}.json`]);
    expect(await listPublishedTasks(publication)).toEqual([first.record]);
  });

  it('names the file of a damaged record, and a new freeze replaces it', async () => {
    const path = publishedTaskPath(publication, TASK_ID);
    const good = await readFile(path);
    await writeFile(path, JSON.stringify({ ...JSON.parse(good.toString('utf8')), cutoffsVerified: [] }));
    const error = await readPublishedTask(publication, TASK_ID).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(PublicationError);
    expect((error as PublicationError).code).toBe('invalid-document');
    expect((error as PublicationError).message).toContain(path);
    expect((error as PublicationError).message).toContain('cutoffsVerified');
    const replaced = await publishFrozenTask(publication, frozen, () => new Date('2026-07-10T02:00:00Z'));
    expect(replaced.created).toBe(true);
    expect((await readFile(path)).equals(good)).toBe(true);
  });

  it('carries the golden trace’s digest; another trace of the same bundle replaces it, keeping its publication time', async () => {
    const before = await readPublishedTask(publication, TASK_ID);
    const goldenTraceDigest = `sha256:${'7'.repeat(64)}`;
    const withTrace: PublishedTask = {
      ...frozen,
      goldenTrace: { digest: goldenTraceDigest, path: join(root, 'trace') },
    };
    const traced = await publishFrozenTask(publication, withTrace, () => new Date('2027-01-01T00:00:00Z'));
    expect(traced.created).toBe(true);
    expect(traced.record).toEqual({ ...before, goldenTraceDigest });
    expect((await publishFrozenTask(publication, withTrace)).created).toBe(false);
    // Frozen again without one: the record names none, as its manifest and signature do.
    const untraced = await publishFrozenTask(publication, frozen, () => new Date('2027-01-02T00:00:00Z'));
    expect(untraced.record).toEqual(before);
  });
});

describe('abp serve and the tasks frozen by hand', () => {
  it('lists and describes them without a worker, as scored with no scored window', async () => {
    const expected: TaskView = {
      taskId: TASK_ID,
      repo: 'vercel/next.js',
      issue: 81234,
      state: 'scored',
      registryVersion: 'abp-registry/2026Q3',
      drawSeed: 424242,
      bundleDigest: frozen.digest,
      heldOutDigest: frozen.heldOutDigest,
      goldenTraceDigest: null,
      mergedAt: null,
      scoredUntil: null,
      links: {
        self: `/v1/tasks/${TASK_ID}`,
        bundle: `/v1/bundles/${frozen.digest}`,
        signature: `/v1/bundles/${frozen.digest}/signature`,
        goldenTrace: null,
        statements: { 'task-bundle': `/v1/statements/task-bundle/task/${TASK_ID}/bundle`, 'aging-transition': null },
      },
    };
    expect(await getJson(byHandOnly, '/tasks')).toEqual({ tasks: [expected] });
    expect(await getJson(byHandOnly, '/tasks?state=practice')).toEqual({ tasks: [] });
    expect(await getJson(byHandOnly, `/tasks/${TASK_ID}`)).toEqual(expected);
    const statement = await fetch(`${byHandOnly.url}${expected.links.statements['task-bundle']}`);
    expect(await statement.text()).toBe(signature);
    expect((await getJson<{ error: string }>(byHandOnly, '/tasks/gh-acme-widgets-7', 404)).error).toContain(
      'no task gh-acme-widgets-7',
    );
  });

  it('lists them among the pipeline’s tasks by publication time, winning over a task of the same id', async () => {
    const listed = await getJson<{ tasks: TaskView[] }>(withPipeline, '/tasks');
    expect(listed.tasks.map((task) => [task.taskId, task.state, task.bundleDigest])).toEqual([
      ['gh-acme-widgets-7', 'practice', `sha256:${'1'.repeat(64)}`],
      [TASK_ID, 'scored', frozen.digest],
    ]);
    expect(
      (await getJson<{ tasks: TaskView[] }>(withPipeline, '/tasks?state=practice')).tasks.map((task) => task.taskId),
    ).toEqual(['gh-acme-widgets-7']);
    expect((await getJson<TaskView>(withPipeline, `/tasks/${TASK_ID}`)).bundleDigest).toBe(frozen.digest);
  });

  it('describes one while the worker does not answer; the listing, which needs the worker, is 503', async () => {
    workerDown = true;
    try {
      expect((await getJson<TaskView>(withPipeline, `/tasks/${TASK_ID}`)).bundleDigest).toBe(frozen.digest);
      await getJson(withPipeline, '/tasks', 503);
      await getJson(withPipeline, '/tasks/gh-acme-widgets-7', 503);
    } finally {
      workerDown = false;
    }
  });
});
