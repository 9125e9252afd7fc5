// A folder of files each kept under the sha256 of its bytes (`<root>/sha256/<hex><extension>`), as the data directory
// keeps bundles and golden traces: storing the same bytes again is a no-op, and a file is read back only when its bytes
// still hash to its name. Every write is a temporary file, fsync, rename, folder fsync: a crash leaves a file whole or
// absent.
import { mkdir, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { sha256Hex } from '@abp/protocol/bundle/digest';
import { BundleError } from '@abp/protocol/bundle/errors';
import { writeFileDurably } from '@abp/protocol/files/durable-files';

const DIGEST = /^sha256:([0-9a-f]{64})$/;

/** The file's bytes, or null when there is no file. */
export async function readIfPresent(path: string): Promise<Buffer | null> {
  return readFile(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
}

/** Replaces `path` with `bytes` so a crash leaves either the old file or the new one, both durable. */
export async function writeWhole(path: string, bytes: Buffer | string, mode: number): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFileDurably(path, bytes, { mode });
}

export interface ContentKind {
  /** What the files are, in messages: "bundle", "golden trace". */
  what: string;
  /** The file name's ending after the hex digest: ".tar", ".abp-trace.jsonl". */
  extension: string;
  /** What to do when a file is missing or damaged, in messages: "build or fetch it first". */
  remedy: string;
}

export class ContentStore {
  constructor(
    readonly root: string,
    private readonly kind: ContentKind,
  ) {}

  protected hexOf(digest: string): string {
    const hex = DIGEST.exec(digest)?.[1];
    if (hex === undefined)
      throw new BundleError(
        'invalid-digest',
        `${JSON.stringify(digest)} is not a ${this.kind.what} digest; expected "sha256:" followed by 64 lowercase hex digits`,
      );
    return hex;
  }

  /** Where the file with `digest` lives (whether or not it is stored). */
  path(digest: string): string {
    return join(this.root, 'sha256', `${this.hexOf(digest)}${this.kind.extension}`);
  }

  async has(digest: string): Promise<boolean> {
    return stat(this.path(digest)).then(
      (found) => found.isFile(),
      () => false,
    );
  }

  /** Stores `bytes` and returns their digest. Storing the same bytes again is a no-op. */
  async put(bytes: Buffer): Promise<string> {
    const digest = `sha256:${sha256Hex(bytes)}`;
    const path = this.path(digest);
    const existing = await readIfPresent(path);
    if (existing === null) await writeWhole(path, bytes, 0o444);
    else if (!existing.equals(bytes))
      throw new BundleError(
        'corrupt-store',
        `${path} holds other bytes than its name's digest; the ${this.kind.what} store is damaged: remove the file and ${this.kind.remedy}`,
      );
    return digest;
  }

  /** The file with `digest`, checked against it. */
  async get(digest: string): Promise<Buffer> {
    const path = this.path(digest);
    const bytes = await readIfPresent(path);
    if (bytes === null)
      throw new BundleError(
        'not-found',
        `no ${this.kind.what} ${digest} in the store at ${this.root}; ${this.kind.remedy}`,
      );
    if (`sha256:${sha256Hex(bytes)}` !== digest)
      throw new BundleError(
        'corrupt-store',
        `${path} holds bytes whose digest is not ${digest}; the ${this.kind.what} store is damaged: remove the file and ${this.kind.remedy}`,
      );
    return bytes;
  }
}
