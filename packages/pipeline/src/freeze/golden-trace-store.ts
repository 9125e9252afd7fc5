// Golden traces in the data directory (`<ABP_HOME>/traces`): each kept under the sha256 of its bytes, as bundles are
// (`sha256/<hex>.abp-trace.jsonl`), and, for a task the pipeline tracks, the trace an operator attached to it before its
// freeze (`attached/<task id>.json`, naming a stored trace by digest), which the freeze activity takes. Every write is a
// temporary file, fsync, rename, folder fsync: a crash leaves a file whole or absent.
import { mkdir, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { sha256Hex } from '@abp/protocol/bundle/digest';
import { BundleError } from '@abp/protocol/bundle/errors';
import { writeFileDurably } from '@abp/protocol/files/durable-files';
import { conforms, documentId, sha256Digest } from '@abp/protocol/schemas/primitives';
import { FreezeError } from './errors.js';

const DIGEST = /^sha256:([0-9a-f]{64})$/;

const attachmentSchema = z.strictObject({ taskId: documentId, goldenTrace: sha256Digest });

function hexOf(digest: string): string {
  const hex = DIGEST.exec(digest)?.[1];
  if (hex === undefined)
    throw new BundleError(
      'invalid-digest',
      `${JSON.stringify(digest)} is not a trace digest; expected "sha256:" followed by 64 lowercase hex digits`,
    );
  return hex;
}

async function readIfPresent(path: string): Promise<Buffer | null> {
  return readFile(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
}

function jsonOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

async function writeWhole(path: string, bytes: Buffer | string, mode: number): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFileDurably(path, bytes, { mode });
}

export class GoldenTraceStore {
  constructor(readonly root: string) {}

  /** Where the trace with `digest` lives (whether or not it is stored). */
  path(digest: string): string {
    return join(this.root, 'sha256', `${hexOf(digest)}.abp-trace.jsonl`);
  }

  async has(digest: string): Promise<boolean> {
    return stat(this.path(digest)).then(
      (found) => found.isFile(),
      () => false,
    );
  }

  /** Stores `trace` and returns its digest. Storing the same bytes again is a no-op. */
  async put(trace: Buffer): Promise<string> {
    const digest = `sha256:${sha256Hex(trace)}`;
    const path = this.path(digest);
    const existing = await readIfPresent(path);
    if (existing === null) await writeWhole(path, trace, 0o444);
    else if (!existing.equals(trace))
      throw new BundleError(
        'corrupt-store',
        `${path} holds other bytes than its name's digest; the trace store is damaged: remove the file and freeze again`,
      );
    return digest;
  }

  /** The trace with `digest`, checked against it. */
  async get(digest: string): Promise<Buffer> {
    const path = this.path(digest);
    const trace = await readIfPresent(path);
    if (trace === null)
      throw new BundleError('not-found', `no golden trace ${digest} in the store at ${this.root}; freeze again`);
    if (`sha256:${sha256Hex(trace)}` !== digest)
      throw new BundleError(
        'corrupt-store',
        `${path} holds bytes whose digest is not ${digest}; the trace store is damaged: remove the file and freeze again`,
      );
    return trace;
  }

  private attachmentPath(taskId: string): string {
    if (!conforms(documentId, taskId))
      throw new FreezeError('invalid-input', `${JSON.stringify(taskId)} is not a task id, e.g. gh-owner-name-42`);
    return join(this.root, 'attached', `${taskId}.json`);
  }

  /** Records that the stored trace `digest` is `taskId`'s golden trace, replacing one attached before; returns the record's path. */
  async attach(taskId: string, digest: string): Promise<string> {
    if (!(await this.has(digest)))
      throw new BundleError('not-found', `no golden trace ${digest} in the store at ${this.root}; store it first`);
    const path = this.attachmentPath(taskId);
    await writeWhole(path, `${JSON.stringify({ taskId, goldenTrace: digest })}\n`, 0o644);
    return path;
  }

  /** The digest of the trace attached to `taskId`, or null when none is. */
  async attached(taskId: string): Promise<string | null> {
    const path = this.attachmentPath(taskId);
    const text = (await readIfPresent(path))?.toString('utf8') ?? null;
    if (text === null) return null;
    const parsed = attachmentSchema.safeParse(jsonOrNull(text));
    if (!parsed.success || parsed.data.taskId !== taskId)
      throw new BundleError(
        'corrupt-store',
        `${path} is not the record of ${taskId}'s golden trace: remove it and attach the trace again (abp task attach-trace)`,
      );
    return parsed.data.goldenTrace;
  }
}
