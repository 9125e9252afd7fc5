// The content-addressed bundle store in the data directory: <root>/sha256/<hex>.tar, each archive under the sha256 of its
// bytes, with a <hex>.sigstore.json slot beside it for its signature. Every write is a temp file, fsync, rename, dir fsync.
import { mkdir, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeFileDurably } from '@abp/protocol/files/durable-files';
import { sha256Hex } from '@abp/protocol/bundle/digest';
import { BundleError } from '@abp/protocol/bundle/errors';

const DIGEST = /^sha256:([0-9a-f]{64})$/;

function hexOf(digest: string): string {
  const hex = DIGEST.exec(digest)?.[1];
  if (hex === undefined)
    throw new BundleError(
      'invalid-digest',
      `${JSON.stringify(digest)} is not a bundle digest; expected "sha256:" followed by 64 lowercase hex digits`,
    );
  return hex;
}

async function readIfPresent(path: string): Promise<Buffer | null> {
  return readFile(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
}

/** Replaces `path` with `bytes` so a crash leaves either the old file or the new one, both durable. */
async function writeAtomically(path: string, bytes: Buffer, mode: number): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFileDurably(path, bytes, { mode });
}

export class BundleStore {
  constructor(readonly root: string) {}

  /** Where the archive with `digest` lives (whether or not it is stored). */
  path(digest: string): string {
    return join(this.root, 'sha256', `${hexOf(digest)}.tar`);
  }

  signaturePath(digest: string): string {
    return join(this.root, 'sha256', `${hexOf(digest)}.sigstore.json`);
  }

  async has(digest: string): Promise<boolean> {
    return stat(this.path(digest)).then(
      (found) => found.isFile(),
      () => false,
    );
  }

  /** Stores `archive` and returns its digest. Storing the same bytes again is a no-op. */
  async put(archive: Buffer): Promise<string> {
    const digest = `sha256:${sha256Hex(archive)}`;
    const path = this.path(digest);
    const existing = await readIfPresent(path);
    if (existing === null) await writeAtomically(path, archive, 0o444);
    else if (!existing.equals(archive))
      throw new BundleError(
        'corrupt-store',
        `${path} holds other bytes than its name's digest; the store is damaged: remove the file and store the bundle again`,
      );
    return digest;
  }

  /** The archive with `digest`, checked against it. */
  async get(digest: string): Promise<Buffer> {
    const path = this.path(digest);
    const archive = await readIfPresent(path);
    if (archive === null)
      throw new BundleError('not-found', `no bundle ${digest} in the store at ${this.root}; build or fetch it first`);
    if (`sha256:${sha256Hex(archive)}` !== digest)
      throw new BundleError(
        'corrupt-store',
        `${path} holds bytes whose digest is not ${digest}; the store is damaged: remove the file and store the bundle again`,
      );
    return archive;
  }

  /** Stores the Sigstore bundle (JSON) that signs the archive `digest`, replacing an earlier signature of it. */
  async putSignature(digest: string, json: string): Promise<void> {
    if (!(await this.has(digest)))
      throw new BundleError(
        'not-found',
        `no bundle ${digest} in the store at ${this.root}; store the archive before its signature`,
      );
    await writeAtomically(this.signaturePath(digest), Buffer.from(json, 'utf8'), 0o644);
  }

  /** The stored signature of `digest`, or null when it has none. */
  async getSignature(digest: string): Promise<string | null> {
    return (await readIfPresent(this.signaturePath(digest)))?.toString('utf8') ?? null;
  }
}
