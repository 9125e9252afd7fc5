// The content-addressed bundle store in the data directory: <root>/sha256/<hex>.tar, each archive under the sha256 of its
// bytes, with a <hex>.sigstore.json slot beside it for its signature. Every write is a temp file, fsync, rename, dir fsync.
import { join } from 'node:path';
import { BundleError } from '@abp/protocol/bundle/errors';
import { ContentStore, readIfPresent, writeWhole } from '../content-store.js';

export class BundleStore extends ContentStore {
  constructor(root: string) {
    super(root, { what: 'bundle', extension: '.tar', remedy: 'build or fetch it again' });
  }

  signaturePath(digest: string): string {
    return join(this.root, 'sha256', `${this.hexOf(digest)}.sigstore.json`);
  }

  /** Stores the Sigstore bundle (JSON) that signs the archive `digest`, replacing an earlier signature of it. */
  async putSignature(digest: string, json: string): Promise<void> {
    if (!(await this.has(digest)))
      throw new BundleError(
        'not-found',
        `no bundle ${digest} in the store at ${this.root}; store the archive before its signature`,
      );
    await writeWhole(this.signaturePath(digest), json, 0o644);
  }

  /** The stored signature of `digest`, or null when it has none. */
  async getSignature(digest: string): Promise<string | null> {
    return (await readIfPresent(this.signaturePath(digest)))?.toString('utf8') ?? null;
  }
}
