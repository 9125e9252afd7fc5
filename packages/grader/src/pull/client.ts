// The consumer's client of a registry's read-only API (docs/api.md): the routes `abp pull` and `abp audit log --from`
// need, each answer checked for the shape the API documents and each HTTP failure turned into a PullError. It trusts
// nothing it reads; distribution/pull.ts and distribution/log-proof.ts verify.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import type { FetchedTrustRootVersion } from '../trust/trust-root-chain.js';
import {
  signedCheckpointSchema,
  type ConsistencyProof,
  type InclusionProof,
  type SignedCheckpoint,
} from '@abp/protocol/transparency/formats';
import { refuseDuplicateKeys } from '@abp/protocol/signing/trust-root';
import { readCappedBody } from './capped-body.js';
import { PullError } from './errors.js';

// The API version this client speaks; the server mounts it at /v1 (serve/api.ts API_PREFIX).
const API_PATH = 'v1';
const DIGEST = /^sha256:[0-9a-f]{64}$/;
// A JSON answer is small; one that takes this long is not coming. Bundle downloads have no overall deadline.
const jsonTimeoutMs = 30_000;

const remoteTaskSchema = z.object({
  taskId: z.string(),
  repo: z.string(),
  issue: z.number().int(),
  state: z.enum(['scored', 'practice']),
  bundleDigest: z.string().regex(DIGEST),
  heldOutDigest: z.string().regex(DIGEST).nullable(),
  mergedAt: z.string().nullable(),
  scoredUntil: z.string().nullable(),
});
/** A frozen task as the server advertises it: unverified until its bundle is. */
export type RemoteTask = z.infer<typeof remoteTaskSchema>;

const count = z.number().int().nonnegative();
const base64Path = z.array(z.string());
// Entries are left unparsed here: the log checks judge them (a consumer's inclusion check, an audit's re-hashing).
const entriesPageSchema = z.object({ size: count, start: count, entries: z.array(z.unknown()) });
const lookupSchema = z.object({ digest: z.string(), entries: z.array(z.unknown()) });
const checkpointListSchema = z.object({ checkpoints: z.array(z.object({ size: count })) });
const inclusionSchema = z.object({
  entry: z.unknown(),
  proof: z.object({ index: count, size: count, path: base64Path }),
});
const consistencySchema = z.object({ proof: z.object({ oldSize: count, newSize: count, path: base64Path }) });

/** A signature as downloaded: its bytes' digest (what the log records) and its parsed JSON. */
export interface FetchedSignature {
  /** sha256 of the bytes as served, lowercase hex. */
  sha256: string;
  value: unknown;
}

/** A page of the log's entries, each as served (unverified). */
export interface EntriesPage {
  /** The number of entries the log had when the page was read. */
  size: number;
  start: number;
  entries: unknown[];
}

/** An inclusion proof with the entry it is for, as served (unverified). */
export interface ServedInclusion {
  entry: unknown;
  proof: InclusionProof;
}

/** The server's answer to a consistency proof request: the proof, or why it refused (a size it does not hold). */
export type ServedConsistency = { $case: 'proof'; proof: ConsistencyProof } | { $case: 'refused'; problem: string };

export interface Download {
  /** sha256 of the bytes written, lowercase hex. */
  sha256: string;
  bytes: number;
}

export interface RegistryClient {
  /** The server's base URL, as given. */
  readonly baseUrl: string;
  task(taskId: string): Promise<RemoteTask>;
  /** A trust root version with its signed statement (null when absent); null when the server has no such version. */
  trustRootVersion(version: number): Promise<FetchedTrustRootVersion | null>;
  /** The Sigstore bundle that signs the archive `digest`: its bytes' digest, and parsed. */
  bundleSignature(digest: string): Promise<FetchedSignature>;
  /** Streams the archive `digest` into a new file at `path`, hashing as it goes. */
  downloadBundle(digest: string, path: string): Promise<Download>;
  /** Streams a blob of a task's environment (its manifest, config or a layer) into a new file, hashing as it goes. */
  downloadEnvironmentBlob(digest: string, path: string): Promise<Download>;
  /**
   * Streams a task's golden trace, at `tracePath` under the API root (the manifest's golden.trace), into a new file,
   * hashing as it goes; at most `maxBytes`, the most a freeze publishes.
   */
  downloadGoldenTrace(tracePath: string, path: string, maxBytes: number): Promise<Download>;
  /** The log's signed checkpoint of the largest size; null before the first. Its signature is the caller's to check. */
  latestCheckpoint(): Promise<SignedCheckpoint | null>;
  /** The log's signed checkpoint of `size`; null when it has none of that size. */
  checkpoint(size: number): Promise<SignedCheckpoint | null>;
  /** The sizes the log has signed checkpoints for, smallest first. */
  checkpointSizes(): Promise<number[]>;
  /** Up to `limit` entries from `start`. */
  logEntries(start: number, limit: number): Promise<EntriesPage>;
  /** The entries logged with this statement digest (`sha256:<hex>`), as served. */
  lookupLogEntries(digest: string): Promise<unknown[]>;
  /** The proof that entry `index` is in the tree of the first `size` entries. */
  inclusionProof(index: number, size: number): Promise<ServedInclusion>;
  /** The proof that the tree of `oldSize` entries is a prefix of the tree of `newSize`. */
  consistencyProof(oldSize: number, newSize: number): Promise<ServedConsistency>;
}

/** The API root under `from`; a server mounted under a path prefix (`https://host/abp/`) keeps it. */
function apiRoot(from: string): URL {
  let url: URL;
  try {
    url = new URL(from);
  } catch {
    throw new PullError(
      'invalid-setting',
      `--from ${JSON.stringify(from)} is not a URL: give the registry's abp serve address, e.g. --from https://registry.example.org`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new PullError('invalid-setting', `--from ${from} is a ${url.protocol} URL: abp serve speaks http or https`);
  }
  if (url.search !== '' || url.hash !== '')
    throw new PullError(
      'invalid-setting',
      `--from ${from} has a query or fragment: give the server's base address only`,
    );
  if (!url.pathname.endsWith('/')) url.pathname = `${url.pathname}/`;
  return new URL(`${API_PATH}/`, url);
}

async function problemOf(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const error = (JSON.parse(text) as { error?: unknown }).error;
    if (typeof error === 'string') return error;
  } catch {
    // Not the API's JSON error: show the start of what came.
  }
  return text.slice(0, 200) || response.statusText;
}

/** How much one download may take, in bytes and time: a hostile or broken server must not fill the disk or hang. */
export interface DownloadLimits {
  /** The most bytes one bundle or environment blob may have; refused before reading when the server announces more. */
  maxBytes: number;
  /** No byte for this long ends the download. */
  idleMs: number;
  /** The whole download must end within this. */
  deadlineMs: number;
}

export const DEFAULT_DOWNLOAD_LIMITS: DownloadLimits = {
  // A task bundle is tens of KiB; an environment's layer (a toolchain with a project's dependencies) can be gigabytes.
  maxBytes: 8 * 1024 ** 3,
  idleMs: 60_000,
  deadlineMs: 2 * 60 * 60_000,
};

/** The most any JSON answer (a task, a signature, a checkpoint, a page of the log) may have. */
export const MAX_JSON_BYTES = 16 * 1024 * 1024;

export function createRegistryClient(from: string, limits: DownloadLimits = DEFAULT_DOWNLOAD_LIMITS): RegistryClient {
  const root = apiRoot(from);
  const urlOf = (path: string) => new URL(path, root);

  const request = async (url: URL, signal: AbortSignal | null): Promise<Response> => {
    try {
      return await fetch(url, { redirect: 'follow', ...(signal === null ? {} : { signal }) });
    } catch (error) {
      const cause = (error as { cause?: { code?: unknown } }).cause?.code;
      const reason = typeof cause === 'string' ? cause : (error as Error).message;
      throw new PullError(
        'unreachable',
        `${url.href} did not answer (${reason}): check --from, and that abp serve runs there`,
        { cause: error },
      );
    }
  };

  /** The body at `path`, or null on 404 when `onMissing` says null; a 404 is `onMissing`'s PullError otherwise. */
  const getBytes = async (
    path: string,
    onMissing: (problem: string) => PullError | null,
  ): Promise<{ url: URL; bytes: Buffer } | null> => {
    const url = urlOf(path);
    const response = await request(url, AbortSignal.timeout(jsonTimeoutMs));
    if (response.status === 404) {
      const refused = onMissing(await problemOf(response));
      if (refused === null) return null;
      throw refused;
    }
    if (!response.ok)
      throw new PullError('server-error', `${url.href} answered ${response.status}: ${await problemOf(response)}`);
    const tooLarge = () =>
      new PullError(
        'download-too-large',
        `${url.href} answered more than ${MAX_JSON_BYTES} bytes, where the API answers a small JSON document: refused`,
      );
    try {
      return { url, bytes: await readCappedBody(response, MAX_JSON_BYTES, tooLarge) };
    } catch (error) {
      if (error instanceof PullError) throw error;
      throw new PullError('unreachable', `the answer of ${url.href} broke off: ${(error as Error).message}`, {
        cause: error,
      });
    }
  };

  const parseJson = (url: URL, bytes: Buffer): unknown => {
    try {
      return JSON.parse(bytes.toString('utf8'));
    } catch (error) {
      throw new PullError('server-error', `${url.href} did not answer JSON: ${(error as Error).message}`, {
        cause: error,
      });
    }
  };

  /** The parsed JSON at `path`, or null on 404 when `onMissing` says null; a 404 is `onMissing`'s PullError otherwise. */
  const getJson = async (path: string, onMissing: (problem: string) => PullError | null): Promise<unknown> => {
    const answer = await getBytes(path, onMissing);
    return answer === null ? null : parseJson(answer.url, answer.bytes);
  };

  /** The JSON at `path` in the shape `schema` documents; a 404 is a server error (the route or the thing asked is missing). */
  const getShaped = async <T>(path: string, schema: z.ZodType<T>, what: string): Promise<T> => {
    const value = await getJson(
      path,
      (problem) =>
        new PullError(
          'server-error',
          `${from} answered 404 for ${what} (${problem}): it does not serve what docs/api.md documents`,
        ),
    );
    return shaped(schema, value, what);
  };

  const shaped = <T>(schema: z.ZodType<T>, value: unknown, what: string): T => {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    throw new PullError(
      'server-error',
      `${from} answered ${what} without what the API documents: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`,
    );
  };

  /**
   * Streams `path` of the API into a new file, hashing as it goes; 404 is `not-found` naming `what`. Bounded by `limits`:
   * more bytes than allowed (or than the server announced), a silence longer than the idle time, or a transfer past the
   * deadline ends it with its own code.
   */
  const download = async (
    apiPath: string,
    what: string,
    path: string,
    maxBytes = limits.maxBytes,
  ): Promise<Download> => {
    const url = urlOf(apiPath);
    // Past a bound of the kind's own (a golden trace's), the flag that sets the general one is not the fix.
    const bound = maxBytes === limits.maxBytes ? ' (--max-bytes)' : '';
    const stop = new AbortController();
    const abort = (reason: PullError) => stop.abort(reason);
    const deadline = setTimeout(
      () =>
        abort(
          new PullError(
            'download-timeout',
            `the download of ${url.href} did not end within ${Math.round(limits.deadlineMs / 1000)} s: refused`,
          ),
        ),
      limits.deadlineMs,
    );
    let idle: NodeJS.Timeout | undefined;
    const quiet = () => {
      clearTimeout(idle);
      idle = setTimeout(
        () =>
          abort(
            new PullError(
              'download-timeout',
              `${url.href} sent nothing for ${Math.round(limits.idleMs / 1000)} s: the download was given up`,
            ),
          ),
        limits.idleMs,
      );
    };
    const hash = createHash('sha256');
    let bytes = 0;
    try {
      quiet();
      const response = await request(url, stop.signal);
      if (response.status === 404)
        throw new PullError(
          'not-found',
          `${from} advertises ${what} but does not have it: ${await problemOf(response)}`,
        );
      if (response.status !== 200 || response.body === null)
        throw new PullError('server-error', `${url.href} answered ${response.status}: ${await problemOf(response)}`);
      const header = response.headers.get('content-length');
      const announced = header === null ? null : Number(header);
      if (announced !== null && announced > maxBytes) {
        await response.body.cancel();
        throw new PullError(
          'download-too-large',
          `${url.href} announces ${announced} bytes for ${what}, more than the ${maxBytes} allowed${bound}: refused before reading`,
        );
      }
      await pipeline(
        Readable.fromWeb(response.body),
        async function* (source: AsyncIterable<Buffer>) {
          for await (const chunk of source) {
            quiet();
            hash.update(chunk);
            bytes += chunk.length;
            if (bytes > maxBytes)
              throw new PullError(
                'download-too-large',
                `${url.href} sent more than the ${maxBytes} bytes allowed for ${what}${bound}: refused`,
              );
            if (announced !== null && bytes > announced)
              throw new PullError('server-error', `${url.href} sent more than the ${announced} bytes it announced`);
            yield chunk;
          }
        },
        // wx: the file is new, so nothing else's bytes can be mixed in.
        createWriteStream(path, { flags: 'wx' }),
      );
    } catch (error) {
      if (stop.signal.reason instanceof PullError) throw stop.signal.reason;
      if (error instanceof PullError) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      // Local write failures are the consumer's to fix; anything else broke the transfer.
      if (code !== undefined && ['ENOSPC', 'EACCES', 'EEXIST', 'EROFS', 'EDQUOT'].includes(code)) throw error;
      throw new PullError(
        'unreachable',
        `the download of ${url.href} broke off after ${bytes} bytes: ${(error as Error).message}`,
        { cause: error },
      );
    } finally {
      clearTimeout(deadline);
      clearTimeout(idle);
    }
    return { sha256: hash.digest('hex'), bytes };
  };

  return {
    baseUrl: from,
    async task(taskId) {
      const value = await getJson(
        `tasks/${encodeURIComponent(taskId)}`,
        (problem) => new PullError('not-found', `${from} has no frozen task ${taskId}: ${problem}`),
      );
      const parsed = remoteTaskSchema.safeParse(value);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new PullError(
          'server-error',
          `${from} described task ${taskId} without what the API documents: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`,
        );
      }
      if (parsed.data.taskId !== taskId)
        throw new PullError(
          'server-error',
          `${from} answered the request for task ${taskId} with task ${parsed.data.taskId}`,
        );
      return parsed.data;
    },
    async trustRootVersion(version) {
      const answer = await getBytes(`trust-roots/${version}`, () => null);
      if (answer === null) return null;
      const document = parseJson(answer.url, answer.bytes);
      try {
        refuseDuplicateKeys(answer.bytes.toString('utf8'), answer.url.href);
      } catch (error) {
        throw new PullError('trust-root-unverified', (error as Error).message, { cause: error });
      }
      // A version without its statement is offered unsigned: the chain check refuses it, naming the version.
      const signature = await getJson(`trust-roots/${version}/statement`, () => null);
      return { document, signature };
    },
    async bundleSignature(digest) {
      const answer = await getBytes(
        `bundles/${digest}/signature`,
        (problem) =>
          new PullError(
            'unsigned',
            `${from} has no signature for bundle ${digest} (${problem}): an unsigned bundle is never unpacked`,
          ),
      );
      if (answer === null) throw new PullError('unsigned', `${from} has no signature for bundle ${digest}`);
      // The digest is of the bytes as they came: the log records the signature's text exactly as the registry keeps it.
      return {
        sha256: createHash('sha256').update(answer.bytes).digest('hex'),
        value: parseJson(answer.url, answer.bytes),
      };
    },
    downloadBundle: (digest, path) => download(`bundles/${digest}`, `bundle ${digest}`, path),
    downloadEnvironmentBlob: (digest, path) =>
      download(`environments/blobs/${digest}`, `environment blob ${digest}`, path),
    downloadGoldenTrace: (tracePath, path, maxBytes) =>
      download(tracePath, `golden trace ${tracePath}`, path, Math.min(maxBytes, limits.maxBytes)),
    async latestCheckpoint() {
      const value = await getJson('log/checkpoints/latest', () => null);
      return value === null ? null : shaped(signedCheckpointSchema, value, 'the latest log checkpoint');
    },
    async checkpoint(size) {
      const value = await getJson(`log/checkpoints/${size}`, () => null);
      return value === null ? null : shaped(signedCheckpointSchema, value, `the log checkpoint of size ${size}`);
    },
    async checkpointSizes() {
      const list = await getShaped('log/checkpoints', checkpointListSchema, 'the list of log checkpoints');
      return list.checkpoints.map((checkpoint) => checkpoint.size);
    },
    async logEntries(start, limit) {
      return getShaped(`log/entries?start=${start}&limit=${limit}`, entriesPageSchema, `the log entries from ${start}`);
    },
    async lookupLogEntries(digest) {
      const answer = await getShaped(
        `log/lookup?digest=${encodeURIComponent(digest)}`,
        lookupSchema,
        `the log lookup of ${digest}`,
      );
      return answer.entries;
    },
    async inclusionProof(index, size) {
      return getShaped(
        `log/proofs/inclusion?index=${index}&size=${size}`,
        inclusionSchema,
        `the inclusion proof of entry ${index} in the tree of ${size}`,
      );
    },
    async consistencyProof(oldSize, newSize) {
      const url = urlOf(`log/proofs/consistency?from=${oldSize}&to=${newSize}`);
      const response = await request(url, AbortSignal.timeout(jsonTimeoutMs));
      // 400 is the server saying it does not hold one of the sizes: for a size it signed, that is the log's problem.
      if (response.status === 400) return { $case: 'refused', problem: await problemOf(response) };
      if (!response.ok)
        throw new PullError('server-error', `${url.href} answered ${response.status}: ${await problemOf(response)}`);
      let value: unknown;
      try {
        value = await response.json();
      } catch (error) {
        throw new PullError('server-error', `${url.href} did not answer JSON: ${(error as Error).message}`, {
          cause: error,
        });
      }
      return {
        $case: 'proof',
        proof: shaped(consistencySchema, value, `the consistency proof from ${oldSize} to ${newSize}`).proof,
      };
    },
  };
}

/** A stable name of the registry at `from`: its host and path, without scheme, query or trailing slash. */
export function registryName(from: string): string {
  const url = apiRoot(from);
  const base = new URL('..', url);
  return `${base.host}${base.pathname.replace(/\/+$/, '')}`;
}
