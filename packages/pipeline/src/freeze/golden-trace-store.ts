// Golden traces in the data directory (`<ABP_HOME>/traces`): each kept under the sha256 of its bytes, as bundles are
// (`sha256/<hex>.abp-trace.jsonl`), and, for a task the pipeline tracks, the trace an operator attached to it before its
// freeze (`attached/<task id>.json`, naming a stored trace by digest), which the freeze activity takes. Every write is a
// temporary file, fsync, rename, folder fsync: a crash leaves a file whole or absent.
import { join } from 'node:path';
import { z } from 'zod';
import { BundleError } from '@abp/protocol/bundle/errors';
import { conforms, documentId, sha256Digest } from '@abp/protocol/schemas/primitives';
import { ContentStore, readIfPresent, writeWhole } from './content-store.js';
import { FreezeError } from './errors.js';

const attachmentSchema = z.strictObject({ taskId: documentId, goldenTrace: sha256Digest });

function jsonOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export class GoldenTraceStore extends ContentStore {
  constructor(root: string) {
    super(root, { what: 'golden trace', extension: '.abp-trace.jsonl', remedy: 'freeze again' });
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
