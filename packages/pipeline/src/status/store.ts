// What the data directory holds of the signed material `abp status` summarizes: the content-addressed bundle store
// (freeze/bundle/store.ts) and the transparency log (transparency/log.ts). Reads only; the worker may be writing to
// both meanwhile, so a half-written temporary file or an append in progress is passed over, not reported as damage.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { TrustRoot } from '@abp/protocol/schemas/abp-trust-root';
import { TransparencyError } from '@abp/protocol/transparency/errors';
import { parseSignedCheckpoint, trustedKeys, verifyCheckpointSignature } from '@abp/protocol/transparency/formats';
import { CHECKPOINTS_DIR, ENTRIES_FILE } from '@abp/protocol/transparency/log';
import { leafHash, rootOf } from '@abp/protocol/transparency/merkle';
import { absent, found, messageOf, type Part } from './part.js';
import type { TrustRootState } from './signatures.js';

export interface BundleFacts {
  root: string;
  count: number;
  totalBytes: number;
  /** Bundles with their signature (`<hex>.sigstore.json`) beside them. */
  signed: number;
}

export interface LogFacts {
  dir: string;
  /** Complete entries. */
  size: number;
  /** The last line has no newline yet: an append is in progress (or was cut short; `abp audit log` tells which). */
  appendInProgress: boolean;
  checkpoints: number;
  latestCheckpoint: {
    size: number;
    timestamp: string;
    rootHash: string;
    keyId: string;
    path: string;
    check: CheckpointCheck;
  } | null;
}

/** The newest checkpoint alone, checked as a consumer holding it would: its signature, and its root over the entries. */
export type CheckpointCheck =
  { $case: 'verified' } | { $case: 'unverified'; detail: string } | { $case: 'invalid'; detail: string };

const BUNDLE_FILE = /^([0-9a-f]{64})\.tar$/;
const SIGNATURE_FILE = /^([0-9a-f]{64})\.sigstore\.json$/;
const CHECKPOINT_FILE = /^([1-9][0-9]*)\.json$/;
// Enough stats at once to keep the disk busy, few enough to stay far below the open-file limit.
const STAT_BATCH = 64;
const NEWLINE = 0x0a;

async function namesIn(dir: string): Promise<string[] | null> {
  return readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
}

export async function bundleFacts(root: string): Promise<Part<BundleFacts>> {
  const names = await namesIn(join(root, 'sha256'));
  const archives = (names ?? []).flatMap((name) => BUNDLE_FILE.exec(name)?.[1] ?? []);
  if (archives.length === 0)
    return absent(
      'no bundles yet: a task is frozen into a signed bundle when its fix is merged (`abp freeze` freezes one by hand)',
    );
  const signatures = new Set((names ?? []).flatMap((name) => SIGNATURE_FILE.exec(name)?.[1] ?? []));
  let totalBytes = 0;
  for (let start = 0; start < archives.length; start += STAT_BATCH) {
    const sizes = await Promise.all(
      archives
        .slice(start, start + STAT_BATCH)
        .map(async (hex) => (await stat(join(root, 'sha256', `${hex}.tar`))).size),
    );
    totalBytes += sizes.reduce((sum, size) => sum + size, 0);
  }
  return found({
    root,
    count: archives.length,
    totalBytes,
    signed: archives.filter((hex) => signatures.has(hex)).length,
  });
}

/** The leaf hashes of the complete lines of entries.jsonl, and whether a last line is still being written. */
async function readLeaves(dir: string): Promise<{ leafHashes: Buffer[]; appendInProgress: boolean } | null> {
  let content: Buffer;
  try {
    content = await readFile(join(dir, ENTRIES_FILE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const leafHashes: Buffer[] = [];
  let start = 0;
  for (let end = content.indexOf(NEWLINE); end !== -1; end = content.indexOf(NEWLINE, start)) {
    leafHashes.push(leafHash(content.subarray(start, end)));
    start = end + 1;
  }
  return { leafHashes, appendInProgress: start < content.length };
}

function checkCheckpoint(
  signed: ReturnType<typeof parseSignedCheckpoint>,
  path: string,
  leafHashes: readonly Buffer[],
  trustRoot: TrustRootState,
): CheckpointCheck {
  const { size, rootHash } = signed.checkpoint;
  if (size > leafHashes.length)
    return {
      $case: 'invalid',
      detail: `${path} covers ${size} entries, but ${ENTRIES_FILE} holds ${leafHashes.length}: entries were removed (run \`abp audit log\`)`,
    };
  if (rootOf(leafHashes.slice(0, size)).toString('base64') !== rootHash) {
    return {
      $case: 'invalid',
      detail: `${path} no longer matches entries 0..${size - 1}: at least one was changed after it was signed (run \`abp audit log\`)`,
    };
  }
  if (trustRoot.$case !== 'loaded')
    return {
      $case: 'unverified',
      detail: `its root matches the entries, but its signature is unchecked: ${trustRoot.detail}`,
    };
  try {
    verifyCheckpointSignature(signed, checkpointKeys(trustRoot.trustRoot), path);
  } catch (error) {
    if (error instanceof TransparencyError) return { $case: 'invalid', detail: error.message };
    throw error;
  }
  return { $case: 'verified' };
}

/** Checkpoints are signed with the operator's signing keys; a retired key's old checkpoints stay valid. */
function checkpointKeys(trustRoot: TrustRoot) {
  return trustedKeys(trustRoot.keys.map(({ keyId, publicKeyPem }) => ({ keyId, publicKeyPem })));
}

export async function logFacts(dir: string, trustRoot: TrustRootState): Promise<Part<LogFacts>> {
  const leaves = await readLeaves(dir);
  if (leaves === null || (leaves.leafHashes.length === 0 && !leaves.appendInProgress)) {
    return absent(
      'the transparency log is empty: every signed statement (registry version, draw, bundle) is appended to it',
    );
  }
  // Only the newest checkpoint is read: a log checkpoints after every append, so there may be thousands.
  const sizes = ((await namesIn(join(dir, CHECKPOINTS_DIR))) ?? []).flatMap((name) => {
    const size = CHECKPOINT_FILE.exec(name)?.[1];
    return size === undefined ? [] : [Number(size)];
  });
  const newest = sizes.length === 0 ? null : Math.max(...sizes);
  let latestCheckpoint: LogFacts['latestCheckpoint'] = null;
  if (newest !== null) {
    const path = join(dir, CHECKPOINTS_DIR, `${newest}.json`);
    let signed: ReturnType<typeof parseSignedCheckpoint>;
    try {
      signed = parseSignedCheckpoint(JSON.parse(await readFile(path, 'utf8')), path);
    } catch (error) {
      throw new Error(`${path} cannot be read as a signed checkpoint (${messageOf(error)}); run \`abp audit log\``);
    }
    if (signed.checkpoint.size !== newest)
      throw new Error(
        `${path} holds the checkpoint of size ${signed.checkpoint.size}, not ${newest}; run \`abp audit log\``,
      );
    const { size, timestamp, rootHash } = signed.checkpoint;
    latestCheckpoint = {
      size,
      timestamp,
      rootHash,
      keyId: signed.keyId,
      path,
      check: checkCheckpoint(signed, path, leaves.leafHashes, trustRoot),
    };
  }
  return found({
    dir,
    size: leaves.leafHashes.length,
    appendInProgress: leaves.appendInProgress,
    checkpoints: sizes.length,
    latestCheckpoint,
  });
}
