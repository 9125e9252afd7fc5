// Where the machine that starts `abp run --on temporal` and the workers that run its trials exchange files: the run's
// inputs (config, adapters folder, task folders, environment archives) and each trial's record and receipts, every
// one kept under the sha256 of its bytes and checked against it when read back. Two kinds (open.ts picks
// one): a folder every machine mounts, here, or an S3-compatible bucket (s3.ts).
import { copyFile, link, mkdir, rename, rm, utimes } from 'node:fs/promises';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { dirname } from 'node:path';
import { ContentStore } from '../freeze/content-store.js';
import { BundleError } from '@abp/protocol/bundle/errors';

export interface RunStore {
  /** Where it is, for messages and `abp status`: a folder or an s3:// address. */
  readonly location: string;
  put(bytes: Buffer): Promise<string>;
  /**
   * Stores the file at `path` without holding it in memory; returns its digest. `immutable`: the file is a
   * content-addressed blob that never changes, so a store on the same file system may share it instead of copying.
   */
  putFile(path: string, options?: { immutable?: boolean }): Promise<string>;
  /**
   * The bytes with `digest`, checked against it. An entry found damaged is removed before the `corrupt-store` error,
   * so that whoever stores those bytes next stores them afresh rather than finding the damaged copy "already there".
   */
  get(digest: string): Promise<Buffer>;
  /** Writes the bytes with `digest` to `path` (checked, whole or not at all; a damaged entry removed, as for get). */
  getFile(digest: string, path: string): Promise<void>;
  has(digest: string): Promise<boolean>;
}

/** The sha256 of a file, read as a stream. */
export async function fileDigest(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return `sha256:${hash.digest('hex')}`;
}

/** Copies `source` to `target` through a temporary file renamed into place only when its bytes hash to `digest`. */
async function copyChecked(source: string, target: string, digest: string, mismatch: () => Error): Promise<void> {
  await mkdir(dirname(target), { recursive: true });
  const temporary = `${target}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    await copyFile(source, temporary);
    if ((await fileDigest(temporary)) !== digest) throw mismatch();
    await rename(temporary, target);
  } finally {
    await rm(temporary, { force: true });
  }
}

/** Links `source` at `target`; false where the file systems differ or links are refused, so the caller copies. */
async function linkInto(source: string, target: string): Promise<boolean> {
  await mkdir(dirname(target), { recursive: true });
  try {
    await link(source, target);
    // Stamped as stored now: a store expired by age (`find -mtime`) must not take a fresh entry for an old one.
    const now = new Date();
    await utimes(target, now, now);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return true; // another process stored the same bytes first
    if (code === 'EXDEV' || code === 'EPERM' || code === 'EMLINK' || code === 'ENOTSUP') return false;
    throw error;
  }
}

const STORE_KIND = { what: 'run file', extension: '', remedy: 'start the run again' };

/** A folder of content-addressed files (`<root>/sha256/<hex>`), local or on storage every worker mounts. */
export class FolderRunStore implements RunStore {
  private readonly files: ContentStore;

  constructor(readonly location: string) {
    this.files = new ContentStore(location, STORE_KIND);
  }

  put(bytes: Buffer): Promise<string> {
    return this.files.put(bytes);
  }

  async putFile(path: string, options: { immutable?: boolean } = {}): Promise<string> {
    const digest = await fileDigest(path);
    if (await this.files.has(digest)) return digest;
    // A hard link costs no space: on one machine an environment of hundreds of MiB is not stored twice. Every read
    // still checks the digest, so a source changed after all would be found, never served.
    if (options.immutable === true && (await linkInto(path, this.files.path(digest)))) return digest;
    // Checked again after the copy: a file changed while it was copied must not be stored under the old digest.
    await copyChecked(
      path,
      this.files.path(digest),
      digest,
      () =>
        new BundleError(
          'corrupt-store',
          `${path} changed while it was stored in the run store ${this.location}: store it again once nothing writes it`,
        ),
    );
    return digest;
  }

  async get(digest: string): Promise<Buffer> {
    return this.files.get(digest).catch(async (error: unknown) => {
      if (error instanceof BundleError && error.code === 'corrupt-store') await this.drop(digest);
      throw error;
    });
  }

  /** A damaged entry is removed when found, so that the next put of those bytes stores them afresh. */
  private async drop(digest: string): Promise<void> {
    await rm(this.files.path(digest), { force: true });
  }

  async getFile(digest: string, path: string): Promise<void> {
    const source = this.files.path(digest);
    if (!(await this.files.has(digest)))
      throw new BundleError('not-found', `${digest} is not in the run store ${this.location}; start the run again`);
    await copyChecked(
      source,
      path,
      digest,
      () =>
        new BundleError(
          'corrupt-store',
          `${source} in the run store did not hash to its name ${digest}: the store was damaged, and the file is removed; start the run again`,
        ),
    ).catch(async (error: unknown) => {
      if (error instanceof BundleError && error.code === 'corrupt-store') await this.drop(digest);
      throw error;
    });
  }

  has(digest: string): Promise<boolean> {
    return this.files.has(digest);
  }
}
