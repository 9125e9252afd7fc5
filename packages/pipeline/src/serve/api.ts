// The read-only distribution API of `abp serve`, versioned under /v1 (docs/api.md documents each route): registry
// versions, draws, frozen tasks (the pipeline's, through a TaskSource, and those frozen by hand, from their published
// records), bundles by digest with their signatures and golden traces, signed statements, the trust root and its
// versions, and the transparency log with its proofs. Nothing here verifies what it hands out: consumers verify
// against the trust root they pin (`abp pull`), so the server is trusted for availability only.
import { goldenTracePath } from '@abp/protocol/schemas/abp-task';
import { conforms, documentId } from '@abp/protocol/schemas/primitives';
import type { TaskState } from '../contracts/task-workflow.js';
import { drawSubjectName, taskBundleSubjectNames, trustRootSubjectName } from '@abp/protocol/signing/statement';
import { LOG_ENTRY_KINDS, type LogEntryKind } from '@abp/protocol/transparency/formats';
import { ServeError } from './errors.js';
import { checkpointPath, checkpointSizes, proveConsistency, proveInclusion, readLogSnapshot } from './log-reader.js';
import type { PublishedTaskRecord } from '../freeze/published-tasks.js';
import { openIfPresent, publishedFiles, readIfPresent, signedDigestsOf, type PublishedFiles } from './published.js';
import { sha256Etag } from './reply.js';
import type { Route, ServeReply, ServeRequest } from './router.js';
import { createFreshCache } from './fresh-cache.js';
import { createImmutableCache } from './immutable-cache.js';
import type { TaskEntry, TaskSource } from './tasks.js';

export const API_PREFIX = '/v1';

export interface ApiOptions {
  /** The data directory (`ABP_HOME`) whose published files, tasks frozen by hand among them, are served. */
  home: string;
  /** The pipeline's tasks (serve/tasks.ts); without it only the tasks frozen by hand are served. */
  tasks?: TaskSource;
  /**
   * How old a task listing or task view may be when served: one read of the tasks answers every request for that long
   * (TASK_ANSWER_MAX_AGE_MS by default; 0 reads for every request).
   */
  taskAnswerMaxAgeMs?: number;
  /** How many bytes of bundles and environment blobs are kept in memory (CONTENT_CACHE_BYTES by default; 0 keeps none). */
  contentCacheBytes?: number;
}

/** Bundles and blobs kept in memory: 128 MiB, each at most 8 MiB (a task bundle is tens of KiB; image layers stream). */
export const CONTENT_CACHE_BYTES = 128 * 1024 * 1024;
const CONTENT_CACHE_ENTRY_BYTES = 8 * 1024 * 1024;

/** Task answers are at most a second old: a burst of consumers costs one read of the tasks, not one each. */
export const TASK_ANSWER_MAX_AGE_MS = 1_000;
// Each kept answer is a few KiB; the listing has at most three states × MAX_LIMIT keys, task views one per id asked.
const TASK_ANSWERS_KEPT = 2_000;

/** The states a task is distributed in: frozen, and either still in the scored set or moved to practice. */
export const DISTRIBUTED_STATES = ['scored', 'practice'] as const satisfies readonly TaskState[];
export type DistributedState = (typeof DISTRIBUTED_STATES)[number];

/** A frozen task as the API describes it. Links are paths on this server. */
export interface TaskView {
  taskId: string;
  repo: string;
  issue: number;
  state: DistributedState;
  registryVersion: string;
  drawSeed: number;
  bundleDigest: string;
  /** Read from the stored signature without verifying it; null when the bundle has no signature. */
  heldOutDigest: string | null;
  /** The golden trace the stored signature names, read without verifying it; null when it names none. */
  goldenTraceDigest: string | null;
  mergedAt: string | null;
  scoredUntil: string | null;
  links: {
    self: string;
    bundle: string;
    signature: string;
    /** Where the golden trace is served: the manifest's `golden.trace` under /v1/; null when there is none. */
    goldenTrace: string | null;
    statements: { 'task-bundle': string; 'aging-transition': string | null };
  };
}

// Content-addressed: the bytes under a digest never change, so any cache may keep them for good.
const IMMUTABLE = 'public, max-age=31536000, immutable';
// Named documents and lists may change (a signature re-kept, a task aged, a log grown): revalidate with the ETag.
const REVALIDATE = 'no-cache';
const JSON_TYPE = 'application/json; charset=utf-8';
const TAR_TYPE = 'application/x-tar';
const JSONL_TYPE = 'application/jsonl; charset=utf-8';

const DIGEST = /^sha256:[0-9a-f]{64}$/;
const TRACE_FILE = /^(.+)\.abp-trace\.jsonl$/;
const QUARTER = /^\d{4}Q[1-4]$/;
const VERSION = /^[1-9]\d{0,8}$/;
const WHOLE = /^\d{1,15}$/;
const SUBJECT_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;
const MAX_LIMIT = 1_000;

const json = (body: unknown, status = 200): ServeReply => ({ status, body, headers: { 'cache-control': REVALIDATE } });
const problem = (status: number, error: string): ServeReply => ({ status, body: { error } });
const bytes = (content: Buffer, contentType: string): ServeReply => ({
  status: 200,
  content: { $case: 'bytes', bytes: content, contentType },
  headers: { 'cache-control': REVALIDATE },
});
/** A JSON answer rendered once, with its entity tag, to be sent many times from a cache. */
function rendered(reply: ServeReply): ServeReply {
  if ('content' in reply || reply.status !== 200) return reply;
  const body = Buffer.from(JSON.stringify(reply.body));
  return {
    status: 200,
    content: { $case: 'bytes', bytes: body, contentType: JSON_TYPE, etag: sha256Etag(body) },
    ...(reply.headers === undefined ? {} : { headers: reply.headers }),
  };
}
const orNotFound = (content: Buffer | null, contentType: string, missing: string): ServeReply =>
  content === null ? problem(404, missing) : bytes(content, contentType);

const urls = {
  registry: (quarter: string) => `${API_PREFIX}/registry/${quarter}`,
  draw: (id: string) => `${API_PREFIX}/draws/${id}`,
  task: (id: string) => `${API_PREFIX}/tasks/${id}`,
  bundle: (digest: string) => `${API_PREFIX}/bundles/${digest}`,
  signature: (digest: string) => `${API_PREFIX}/bundles/${digest}/signature`,
  // The manifest's golden.trace, resolved against the API root: a consumer needs no link to find it.
  goldenTrace: (taskId: string) => `${API_PREFIX}/${goldenTracePath(taskId)}`,
  statement: (kind: LogEntryKind, subject: string) => `${API_PREFIX}/statements/${kind}/${subject}`,
  trustRoot: (version: number) => `${API_PREFIX}/trust-roots/${version}`,
  trustRootStatement: (version: number) => `${API_PREFIX}/trust-roots/${version}/statement`,
  checkpoint: (size: number) => `${API_PREFIX}/log/checkpoints/${size}`,
};

function badDigest(digest: string): ServeReply {
  return problem(
    400,
    `${JSON.stringify(digest)} is not a bundle digest: expected "sha256:" followed by 64 lowercase hex digits, e.g. ${API_PREFIX}/bundles/sha256:${'0'.repeat(64)}`,
  );
}

/** A query parameter as a whole number: the value, undefined when absent, or the 400 naming the expected form. */
function wholeParam(request: ServeRequest, name: string): number | undefined | ServeReply {
  const raw = request.url.searchParams.get(name);
  if (raw === null) return undefined;
  if (!WHOLE.test(raw))
    return problem(400, `?${name}=${raw.slice(0, 40)} is not a whole number: give ${name} as digits, e.g. ?${name}=0`);
  return Number(raw);
}

const isReply = (value: unknown): value is ServeReply => typeof value === 'object' && value !== null;

function isDistributed(task: TaskEntry): task is DistributedTask {
  return (DISTRIBUTED_STATES as readonly string[]).includes(task.state) && task.bundleDigest !== null;
}

type DistributedTask = TaskEntry & { state: DistributedState; bundleDigest: string };

/**
 * A task frozen by hand, as the API describes every task: in the scored set, with no scored window, since no workflow
 * tracks its merge or ages it; ordered among the pipeline's tasks by when it was published.
 */
function entryOfPublished(record: PublishedTaskRecord): DistributedTask {
  const { taskId, registryVersion, drawSeed, repo, issue, bundleDigest } = record;
  return {
    taskId,
    registryVersion,
    drawSeed,
    repo,
    issue,
    state: 'scored',
    bundleDigest,
    // In the worker's spelling of an instant, so the two sources order together.
    createdAt: new Date(record.publishedAt).toISOString(),
    mergedAt: null,
    scoredUntil: null,
  };
}

async function viewOf(task: DistributedTask, files: PublishedFiles): Promise<TaskView> {
  const digest = task.bundleDigest;
  const subject = taskBundleSubjectNames(task.taskId).bundle;
  const signed = signedDigestsOf(await readIfPresent(files.store.signaturePath(digest)));
  return {
    taskId: task.taskId,
    repo: task.repo,
    issue: task.issue,
    state: task.state,
    registryVersion: task.registryVersion,
    drawSeed: task.drawSeed,
    bundleDigest: digest,
    heldOutDigest: signed.heldOut,
    goldenTraceDigest: signed.goldenTrace,
    mergedAt: task.mergedAt,
    scoredUntil: task.scoredUntil,
    links: {
      self: urls.task(task.taskId),
      bundle: urls.bundle(digest),
      signature: urls.signature(digest),
      goldenTrace: signed.goldenTrace === null ? null : urls.goldenTrace(task.taskId),
      statements: {
        'task-bundle': urls.statement('task-bundle', subject),
        'aging-transition': task.state === 'practice' ? urls.statement('aging-transition', subject) : null,
      },
    },
  };
}

/** Runs a task read, answering 503 when the worker that owns the tasks does not answer. */
async function readingTasks(read: () => Promise<ServeReply>): Promise<ServeReply> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof ServeError && error.code === 'unreachable')
      return { status: 503, body: { error: error.message }, headers: { 'retry-after': '5' } };
    throw error;
  }
}

export function apiRoutes(options: ApiOptions): Route[] {
  const files = publishedFiles(options.home);
  const { tasks } = options;
  const immutable = createImmutableCache({
    maxBytes: options.contentCacheBytes ?? CONTENT_CACHE_BYTES,
    maxEntryBytes: CONTENT_CACHE_ENTRY_BYTES,
  });
  /**
   * The file named by `digest`: from memory when kept, else read once and kept when small enough, else streamed. The
   * digest names the bytes: it is their strong entity tag, and they never change.
   */
  const contentAddressed = async (
    path: string,
    digest: string,
    contentType: string,
    missing: string,
    // A route named by something other than the digest (a task's golden trace) may come to name other bytes.
    cacheControl: string = IMMUTABLE,
  ): Promise<ServeReply> => {
    const headers = { 'cache-control': cacheControl };
    const etag = `"${digest}"`;
    const kept = immutable.lookup(digest);
    if (kept !== undefined)
      return { status: 200, content: { $case: 'bytes', bytes: kept, contentType, etag }, headers };
    const opened = await openIfPresent(path);
    if (opened === null) return problem(404, missing);
    if (!immutable.fits(opened.size))
      return { status: 200, content: { $case: 'file', ...opened, contentType, etag }, headers };
    let bytes: Buffer;
    try {
      bytes = await opened.file.readFile();
    } finally {
      await opened.file.close();
    }
    immutable.keep(digest, bytes);
    return { status: 200, content: { $case: 'bytes', bytes, contentType, etag }, headers };
  };
  const taskAnswers = createFreshCache<ServeReply>({
    maxAgeMs: options.taskAnswerMaxAgeMs ?? TASK_ANSWER_MAX_AGE_MS,
    maxEntries: TASK_ANSWERS_KEPT,
  });
  // A task frozen by hand is found in its published record, without asking the worker; its record wins over a task of
  // the same id in the pipeline's database, as the operator's latest word on it.
  const taskById = async (taskId: string): Promise<TaskEntry | null> => {
    const record = await files.publishedTask(taskId);
    if (record !== null) return entryOfPublished(record);
    return tasks === undefined ? null : tasks.get(taskId);
  };
  const get = (path: string, handle: Route['handle']): Route => ({
    method: 'GET',
    path: `${API_PREFIX}${path}`,
    maxBodyBytes: 0,
    handle,
  });

  const routes: Route[] = [
    get('/registry', async () =>
      json({
        versions: (await files.registryQuarters()).map((quarter) => ({
          version: `abp-registry/${quarter}`,
          url: urls.registry(quarter),
          statement: urls.statement('registry-version', `abp-registry/${quarter}`),
        })),
      }),
    ),
    get('/registry/:quarter', async ({ params }) => {
      const quarter = params.quarter ?? '';
      if (!QUARTER.test(quarter))
        return problem(
          400,
          `${JSON.stringify(quarter)} is not a registry quarter: expected YYYYQn with n from 1 to 4, e.g. ${API_PREFIX}/registry/2026Q3`,
        );
      return orNotFound(
        await files.registry(quarter),
        JSON_TYPE,
        `registry version abp-registry/${quarter} is not published here; ${API_PREFIX}/registry lists those that are`,
      );
    }),

    get('/draws', async () =>
      json({
        draws: (await files.drawIds()).map((id) => ({
          id,
          url: urls.draw(id),
          statement: urls.statement('draw-record', drawSubjectName(id)),
        })),
      }),
    ),
    get('/draws/:id', async ({ params }) => {
      const id = params.id ?? '';
      if (!conforms(documentId, id))
        return problem(
          400,
          `${JSON.stringify(id.slice(0, 200))} is not a draw id: letters, digits, ".", "_" and "-", starting with a letter or digit`,
        );
      return orNotFound(
        await files.draw(id),
        JSON_TYPE,
        `no draw ${id} is published here; ${API_PREFIX}/draws lists those that are`,
      );
    }),

    get('/tasks', (request) => {
      const state = request.url.searchParams.get('state');
      if (state !== null && !(DISTRIBUTED_STATES as readonly string[]).includes(state)) {
        return Promise.resolve(
          problem(
            400,
            `?state=${state.slice(0, 40)} is not a distributed state: use ?state=scored or ?state=practice, or leave it out for both`,
          ),
        );
      }
      const limit = wholeParam(request, 'limit');
      if (isReply(limit)) return Promise.resolve(limit);
      if (limit !== undefined && (limit < 1 || limit > MAX_LIMIT))
        return Promise.resolve(problem(400, `?limit=${limit} is out of range: give 1 to ${MAX_LIMIT}`));
      const wanted = limit ?? MAX_LIMIT;
      const states: readonly string[] = state === null ? DISTRIBUTED_STATES : [state];
      return readingTasks(() =>
        taskAnswers.get(`list ${states.join(',')} ${wanted}`, async () => {
          const published = (await files.publishedTasks()).map(entryOfPublished);
          const byHand = new Set(published.map((task) => task.taskId));
          const tracked =
            tasks === undefined
              ? []
              : (
                  await Promise.all(
                    states.map((one) => tasks.list({ state: one as DistributedState, limit: wanted + byHand.size })),
                  )
                )
                  .flat()
                  .filter((task) => !byHand.has(task.taskId));
          const found = [...published.filter((task) => states.includes(task.state)), ...tracked];
          // Oldest first across both states and both sources, as the worker orders each.
          found.sort((a, b) =>
            a.createdAt === b.createdAt ? (a.taskId < b.taskId ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1,
          );
          const views = await Promise.all(
            found
              .filter(isDistributed)
              .slice(0, wanted)
              .map((task) => viewOf(task, files)),
          );
          return rendered(json({ tasks: views }));
        }),
      );
    }),
    get('/tasks/:id', ({ params }) => {
      const id = params.id ?? '';
      if (!conforms(documentId, id))
        return Promise.resolve(
          problem(400, `${JSON.stringify(id.slice(0, 200))} is not a task id: e.g. gh-<owner>-<name>-<issue>`),
        );
      return readingTasks(() =>
        taskAnswers.get(`task ${id}`, async () => {
          const task = await taskById(id);
          if (task === null) return problem(404, `no task ${id} here; ${API_PREFIX}/tasks lists the frozen ones`);
          if (!isDistributed(task))
            return problem(404, `task ${id} is ${task.state}: only frozen tasks (scored or practice) are distributed`);
          return rendered(json(await viewOf(task, files)));
        }),
      );
    }),

    get('/bundles/:digest', async ({ params }) => {
      const digest = params.digest ?? '';
      if (!DIGEST.test(digest)) return badDigest(digest);
      return contentAddressed(files.store.path(digest), digest, TAR_TYPE, `no bundle ${digest} here`);
    }),
    get('/environments/blobs/:digest', async ({ params }) => {
      const digest = params.digest ?? '';
      if (!DIGEST.test(digest)) return badDigest(digest);
      // An image manifest, a config or a layer: named by its digest like a bundle, and as immutable.
      return contentAddressed(
        files.environments.blobPath(digest),
        digest,
        'application/octet-stream',
        `no environment blob ${digest} here`,
      );
    }),
    // Beside the bundle, where the manifest's relative golden.trace points: the file the task's signed statement names.
    get('/traces/:file', ({ params }) => {
      const file = params.file ?? '';
      const taskId = TRACE_FILE.exec(file)?.[1] ?? '';
      if (!conforms(documentId, taskId))
        return Promise.resolve(
          problem(
            400,
            `${JSON.stringify(file.slice(0, 200))} is not a golden trace's name: <task id>.abp-trace.jsonl, e.g. ${urls.goldenTrace('gh-owner-name-42')}`,
          ),
        );
      return readingTasks(async () => {
        const task = await taskById(taskId);
        if (task === null || !isDistributed(task))
          return problem(404, `no frozen task ${taskId} here; ${API_PREFIX}/tasks lists those there are`);
        const { goldenTrace } = signedDigestsOf(await readIfPresent(files.store.signaturePath(task.bundleDigest)));
        if (goldenTrace === null)
          return problem(
            404,
            `task ${taskId} has no golden trace: its freeze was given none, so its manifest names none`,
          );
        return contentAddressed(
          files.goldenTraces.path(goldenTrace),
          goldenTrace,
          JSONL_TYPE,
          `the golden trace ${goldenTrace} of task ${taskId} is not here`,
          REVALIDATE,
        );
      });
    }),
    get('/bundles/:digest/signature', async ({ params }) => {
      const digest = params.digest ?? '';
      if (!DIGEST.test(digest)) return badDigest(digest);
      return orNotFound(
        await readIfPresent(files.store.signaturePath(digest)),
        JSON_TYPE,
        `bundle ${digest} has no signature here`,
      );
    }),

    get('/statements/:kind/*subject', ({ params }) =>
      readingTasks(async () => {
        const kind = params.kind ?? '';
        const subject = params.subject ?? '';
        if (!(LOG_ENTRY_KINDS as readonly string[]).includes(kind))
          return problem(
            400,
            `${JSON.stringify(kind.slice(0, 40))} is not a statement kind: use one of ${LOG_ENTRY_KINDS.join(', ')}`,
          );
        if (subject.length > 500 || !subject.split('/').every((segment) => SUBJECT_SEGMENT.test(segment))) {
          return problem(
            400,
            `${JSON.stringify(subject.slice(0, 200))} is not a statement subject: segments of letters, digits, ".", "_" and "-", e.g. ${urls.statement('draw-record', 'draw/<draw id>')}`,
          );
        }
        const found = await statementOf(kind as LogEntryKind, subject, files, taskById);
        return orNotFound(found, JSON_TYPE, `no signed ${kind} statement for ${subject} here`);
      }),
    ),

    get('/trust-root', async () =>
      orNotFound(
        await files.currentTrustRoot(),
        JSON_TYPE,
        'this registry has no trust root yet: its operator runs `abp init`',
      ),
    ),
    get('/trust-roots', async () =>
      json({
        versions: (await files.trustRootVersions()).map((version) => ({
          version,
          url: urls.trustRoot(version),
          statement: urls.trustRootStatement(version),
        })),
      }),
    ),
    get('/trust-roots/:version', async ({ params }) => {
      const version = params.version ?? '';
      if (!VERSION.test(version))
        return problem(
          400,
          `${JSON.stringify(version.slice(0, 40))} is not a trust root version: a whole number from 1, e.g. ${urls.trustRoot(2)}`,
        );
      return orNotFound(
        await files.trustRootVersion(Number(version)),
        JSON_TYPE,
        `trust root version ${version} is not published here`,
      );
    }),
    get('/trust-roots/:version/statement', async ({ params }) => {
      const version = params.version ?? '';
      if (!VERSION.test(version))
        return problem(
          400,
          `${JSON.stringify(version.slice(0, 40))} is not a trust root version: a whole number from 1, e.g. ${urls.trustRootStatement(2)}`,
        );
      return orNotFound(
        await files.trustRootStatement(Number(version)),
        JSON_TYPE,
        `trust root version ${version} has no signed statement here`,
      );
    }),

    get('/log/checkpoints', async () => {
      const sizes = await checkpointSizes(files.logDir);
      const latest = sizes.at(-1);
      return json({
        latest: latest === undefined ? null : urls.checkpoint(latest),
        checkpoints: sizes.map((size) => ({ size, url: urls.checkpoint(size) })),
      });
    }),
    get('/log/checkpoints/latest', async () => {
      const latest = (await checkpointSizes(files.logDir)).at(-1);
      if (latest === undefined) return problem(404, 'the log has no checkpoint yet: nothing has been signed');
      return orNotFound(
        await readIfPresent(checkpointPath(files.logDir, latest)),
        JSON_TYPE,
        `checkpoint ${latest} disappeared; ask again`,
      );
    }),
    get('/log/checkpoints/:size', async ({ params }) => {
      const size = params.size ?? '';
      if (!/^[1-9]\d{0,15}$/.test(size))
        return problem(
          400,
          `${JSON.stringify(size.slice(0, 40))} is not a checkpoint size: a whole number from 1, or "latest"`,
        );
      return orNotFound(
        await readIfPresent(checkpointPath(files.logDir, Number(size))),
        JSON_TYPE,
        `the log has no checkpoint of size ${size}; ${API_PREFIX}/log/checkpoints lists those it has`,
      );
    }),
    get('/log/entries', async (request) => {
      const start = wholeParam(request, 'start');
      if (isReply(start)) return start;
      const limit = wholeParam(request, 'limit');
      if (isReply(limit)) return limit;
      if (limit !== undefined && (limit < 1 || limit > MAX_LIMIT))
        return problem(400, `?limit=${limit} is out of range: give 1 to ${MAX_LIMIT}`);
      const { entries } = await readLogSnapshot(files.logDir);
      const from = start ?? 0;
      return json({ size: entries.length, start: from, entries: entries.slice(from, from + (limit ?? MAX_LIMIT)) });
    }),
    // A consumer holding a signed statement finds its entry by the statement's digest, without reading the whole log.
    get('/log/lookup', async (request) => {
      const digest = request.url.searchParams.get('digest');
      if (digest === null)
        return problem(
          400,
          'give the digest with ?digest=sha256:<64 hex>: the sha256 of a signed statement bundle as served',
        );
      if (!DIGEST.test(digest))
        return problem(
          400,
          `?digest=${digest.slice(0, 80)} is not a digest: expected "sha256:" followed by 64 lowercase hex digits`,
        );
      const { entries } = await readLogSnapshot(files.logDir);
      return json({ digest, entries: entries.filter((entry) => entry.digest === digest) });
    }),
    get('/log/entries/:index', async ({ params }) => {
      const index = params.index ?? '';
      if (!WHOLE.test(index))
        return problem(400, `${JSON.stringify(index.slice(0, 40))} is not an entry index: a whole number from 0`);
      const { entries } = await readLogSnapshot(files.logDir);
      const entry = entries[Number(index)];
      return entry === undefined
        ? problem(404, `the log has ${entries.length} entries; there is no entry ${index}`)
        : json(entry);
    }),
    get('/log/proofs/inclusion', async (request) => {
      const index = wholeParam(request, 'index');
      if (isReply(index)) return index;
      if (index === undefined)
        return problem(
          400,
          'give the entry with ?index=<n>, and optionally the tree size with &size=<n> (default: the latest checkpoint)',
        );
      const size = wholeParam(request, 'size');
      if (isReply(size)) return size;
      const [snapshot, sizes] = await Promise.all([readLogSnapshot(files.logDir), checkpointSizes(files.logDir)]);
      const treeSize = size ?? sizes.at(-1);
      if (treeSize === undefined) return problem(404, 'the log has no checkpoint yet to prove inclusion against');
      if (treeSize < 1 || treeSize > snapshot.entries.length)
        return problem(400, `?size=${treeSize} is out of range: the log has ${snapshot.entries.length} entries`);
      if (index >= treeSize)
        return problem(
          400,
          `?index=${index} is out of range: a tree of ${treeSize} entries holds indices 0 to ${treeSize - 1}`,
        );
      return json({
        entry: snapshot.entries[index],
        proof: proveInclusion(snapshot, index, treeSize),
        checkpoint: sizes.includes(treeSize) ? urls.checkpoint(treeSize) : null,
      });
    }),
    get('/log/proofs/consistency', async (request) => {
      const from = wholeParam(request, 'from');
      if (isReply(from)) return from;
      if (from === undefined)
        return problem(
          400,
          'give the older tree size with ?from=<n>, and optionally the newer with &to=<n> (default: the latest checkpoint)',
        );
      const to = wholeParam(request, 'to');
      if (isReply(to)) return to;
      const [snapshot, sizes] = await Promise.all([readLogSnapshot(files.logDir), checkpointSizes(files.logDir)]);
      const newSize = to ?? sizes.at(-1);
      if (newSize === undefined) return problem(404, 'the log has no checkpoint yet to prove consistency with');
      if (newSize > snapshot.entries.length)
        return problem(400, `?to=${newSize} is out of range: the log has ${snapshot.entries.length} entries`);
      if (from < 1 || from > newSize) return problem(400, `?from=${from} is out of range: give 1 to ${newSize}`);
      const checkpoint = (size: number) => (sizes.includes(size) ? urls.checkpoint(size) : null);
      return json({
        proof: proveConsistency(snapshot, from, newSize),
        checkpoints: { from: checkpoint(from), to: checkpoint(newSize) },
      });
    }),
  ];

  const index = routes.map((route) => route.path);
  return [
    get('', () => Promise.resolve(json({ api: 'abp/v1', documentation: 'docs/api.md', routes: index }))),
    ...routes,
  ];
}

/**
 * The signed statement of (kind, subject): the attestor's file, else where its kind keeps it. A task bundle's signature
 * lives beside the archive in the bundle store, found through the task's digest; a trust root version's lives beside
 * the version.
 */
async function statementOf(
  kind: LogEntryKind,
  subject: string,
  files: PublishedFiles,
  taskById: (taskId: string) => Promise<TaskEntry | null>,
): Promise<Buffer | null> {
  const kept = await files.statement(kind, subject);
  if (kept !== null) return kept;
  switch (kind) {
    case 'task-bundle': {
      const taskId = /^task\/([^/]+)\/(?:bundle|held-out|golden-trace)$/.exec(subject)?.[1];
      if (taskId === undefined) return null;
      const task = await taskById(taskId);
      return task !== null && isDistributed(task) ? readIfPresent(files.store.signaturePath(task.bundleDigest)) : null;
    }
    case 'trust-root': {
      const version = /^abp-trust-root\/v([1-9]\d{0,8})$/.exec(subject)?.[1];
      return version === undefined || subject !== trustRootSubjectName(Number(version))
        ? null
        : files.trustRootStatement(Number(version));
    }
    case 'registry-version':
    case 'draw-record':
    case 'aging-transition':
      return null;
  }
}
