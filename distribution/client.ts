// The consumer's client of a registry's read-only API (docs/api.md): the few routes `abp pull` needs, each answer
// checked for the shape the API documents and each HTTP failure turned into a PullError. It trusts nothing it reads;
// distribution/pull.ts verifies.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import type { FetchedTrustRootVersion } from '../signing/trust-root-chain.js';
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
  /** The Sigstore bundle that signs the archive `digest`, parsed. */
  bundleSignature(digest: string): Promise<unknown>;
  /** Streams the archive `digest` into a new file at `path`, hashing as it goes. */
  downloadBundle(digest: string, path: string): Promise<Download>;
}

/** The API root under `from`; a server mounted under a path prefix (`https://host/abp/`) keeps it. */
function apiRoot(from: string): URL {
  let url: URL;
  try {
    url = new URL(from);
  } catch {
    throw new PullError('invalid-setting', `--from ${JSON.stringify(from)} is not a URL: give the registry's abp serve address, e.g. --from https://registry.example.org`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new PullError('invalid-setting', `--from ${from} is a ${url.protocol} URL: abp serve speaks http or https`);
  }
  if (url.search !== '' || url.hash !== '') throw new PullError('invalid-setting', `--from ${from} has a query or fragment: give the server's base address only`);
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

export function createRegistryClient(from: string): RegistryClient {
  const root = apiRoot(from);
  const urlOf = (path: string) => new URL(path, root);

  const request = async (url: URL, timeoutMs: number | null): Promise<Response> => {
    try {
      return await fetch(url, { redirect: 'follow', ...(timeoutMs === null ? {} : { signal: AbortSignal.timeout(timeoutMs) }) });
    } catch (error) {
      const cause = (error as { cause?: { code?: unknown } }).cause?.code;
      const reason = typeof cause === 'string' ? cause : (error as Error).message;
      throw new PullError('unreachable', `${url.href} did not answer (${reason}): check --from, and that abp serve runs there`, { cause: error });
    }
  };

  /** The parsed JSON at `path`, or null on 404 when `missing` is 'null'; a 404 is `missing`'s PullError otherwise. */
  const getJson = async (path: string, onMissing: (problem: string) => PullError | null): Promise<unknown> => {
    const url = urlOf(path);
    const response = await request(url, jsonTimeoutMs);
    if (response.status === 404) {
      const refused = onMissing(await problemOf(response));
      if (refused === null) return null;
      throw refused;
    }
    if (!response.ok) throw new PullError('server-error', `${url.href} answered ${response.status}: ${await problemOf(response)}`);
    try {
      return await response.json();
    } catch (error) {
      throw new PullError('server-error', `${url.href} did not answer JSON: ${(error as Error).message}`, { cause: error });
    }
  };

  return {
    baseUrl: from,
    async task(taskId) {
      const value = await getJson(`tasks/${encodeURIComponent(taskId)}`, (problem) => new PullError('not-found', `${from} has no frozen task ${taskId}: ${problem}`));
      const parsed = remoteTaskSchema.safeParse(value);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new PullError('server-error', `${from} described task ${taskId} without what the API documents: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`);
      }
      if (parsed.data.taskId !== taskId) throw new PullError('server-error', `${from} answered the request for task ${taskId} with task ${parsed.data.taskId}`);
      return parsed.data;
    },
    async trustRootVersion(version) {
      const document = await getJson(`trust-roots/${version}`, () => null);
      if (document === null) return null;
      // A version without its statement is offered unsigned: the chain check refuses it, naming the version.
      const signature = await getJson(`trust-roots/${version}/statement`, () => null);
      return { document, signature };
    },
    async bundleSignature(digest) {
      return getJson(`bundles/${digest}/signature`, (problem) => new PullError('unsigned', `${from} has no signature for bundle ${digest} (${problem}): an unsigned bundle is never unpacked`));
    },
    async downloadBundle(digest, path) {
      const url = urlOf(`bundles/${digest}`);
      const response = await request(url, null);
      if (response.status === 404) throw new PullError('not-found', `${from} advertises bundle ${digest} but does not have it: ${await problemOf(response)}`);
      if (response.status !== 200 || response.body === null) throw new PullError('server-error', `${url.href} answered ${response.status}: ${await problemOf(response)}`);
      const hash = createHash('sha256');
      let bytes = 0;
      try {
        await pipeline(
          Readable.fromWeb(response.body),
          async function* (source: AsyncIterable<Buffer>) {
            for await (const chunk of source) {
              hash.update(chunk);
              bytes += chunk.length;
              yield chunk;
            }
          },
          // wx: the file is new, so nothing else's bytes can be mixed in.
          createWriteStream(path, { flags: 'wx' }),
        );
      } catch (error) {
        if (error instanceof PullError) throw error;
        const code = (error as NodeJS.ErrnoException).code;
        // Local write failures are the consumer's to fix; anything else broke the transfer.
        if (code !== undefined && ['ENOSPC', 'EACCES', 'EEXIST', 'EROFS', 'EDQUOT'].includes(code)) throw error;
        throw new PullError('unreachable', `the download of ${url.href} broke off after ${bytes} bytes: ${(error as Error).message}`, { cause: error });
      }
      return { sha256: hash.digest('hex'), bytes };
    },
  };
}
