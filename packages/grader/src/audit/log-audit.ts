// Checking the log without trusting its operator: `auditLog` re-derives the whole tree from entries.jsonl and holds
// every signed checkpoint (stored ones, and ones the auditor saw earlier) against it; `verifyInclusionOf` and
// `verifyConsistencyOf` are the checks of a consumer who holds one entry or two checkpoints and no log.
import { TransparencyError } from '@abp/protocol/transparency/errors';
import {
  entryLeafHash,
  logEntrySchema,
  parseSignedCheckpoint,
  trustedKeyFromPem,
  trustedKeys,
  verifyCheckpointSignature,
  type CheckpointVerifyingKey,
  type ConsistencyProof,
  type InclusionProof,
  type LogEntry,
  type SignedCheckpoint,
} from '@abp/protocol/transparency/formats';
import { parseEntries, readCheckpoints, readEntryLines } from '@abp/protocol/transparency/log';
import { consistencyProof, rootOf, verifyConsistency, verifyInclusion } from '@abp/protocol/transparency/merkle';

export interface AuditOptions {
  /**
   * Checkpoints the auditor kept from earlier (from `abp pull` or an earlier audit). Stored checkpoints alone cannot
   * catch an operator who rewrites entries and re-signs every checkpoint; ones held outside the log can.
   */
  knownCheckpoints?: readonly SignedCheckpoint[];
}

export interface AuditSummary {
  origin: string | null;
  size: number;
  /** Base64 tree head of all entries. */
  rootHash: string;
  checkpointSizes: number[];
}

/** What a consumer pins: one public key (PEM), or the trust root's keys with their ids. */
export type PinnedKeys = string | readonly CheckpointVerifyingKey[];

function pinned(keys: PinnedKeys) {
  return typeof keys === 'string' ? trustedKeyFromPem(keys) : trustedKeys(keys);
}

function rootBytes(signed: SignedCheckpoint): Buffer {
  return Buffer.from(signed.checkpoint.rootHash, 'base64');
}

function describe(signed: SignedCheckpoint): string {
  return `the checkpoint of size ${signed.checkpoint.size} signed at ${signed.checkpoint.timestamp}`;
}

/**
 * Audits the log in `dir` against the trusted checkpoint keys (more than one across a key rotation) and throws a
 * TransparencyError naming the first problem, checked in this order: `torn-entry`, `malformed-checkpoint`,
 * `checkpoint-forged`, `inconsistent-checkpoints` (two heads for one size, or of two origins), `entry-dropped`,
 * `entry-rewritten`, `inconsistent-checkpoints` (a consistency proof between neighbours fails), `malformed-entry`.
 */
export async function auditLog(
  dir: string,
  keys: CheckpointVerifyingKey | readonly CheckpointVerifyingKey[],
  options: AuditOptions = {},
): Promise<AuditSummary> {
  const trusted = trustedKeys(keys);
  const { lines, leafHashes } = await readEntryLines(dir);

  const stored = await readCheckpoints(dir);
  const known = (options.knownCheckpoints ?? []).map((value, position) =>
    parseSignedCheckpoint(value, `known checkpoint ${position + 1}`),
  );
  for (const signed of stored) verifyCheckpointSignature(signed, trusted, `${dir}: ${describe(signed)}`);
  for (const [position, signed] of known.entries())
    verifyCheckpointSignature(signed, trusted, `known checkpoint ${position + 1}`);

  // Signed heads first, entries second: two signed heads that disagree convict the log whatever its entries say now.
  const bySize = new Map<number, SignedCheckpoint>();
  const origin = stored[0]?.checkpoint.origin ?? known[0]?.checkpoint.origin ?? null;
  for (const signed of [...stored, ...known]) {
    if (signed.checkpoint.origin !== origin) {
      throw new TransparencyError(
        'inconsistent-checkpoints',
        `${describe(signed)} is of ${signed.checkpoint.origin}, but the others are of ${origin}`,
      );
    }
    const other = bySize.get(signed.checkpoint.size);
    if (other !== undefined && other.checkpoint.rootHash !== signed.checkpoint.rootHash) {
      throw new TransparencyError(
        'inconsistent-checkpoints',
        `two signed checkpoints of size ${signed.checkpoint.size} have different roots: the log showed two histories`,
      );
    }
    bySize.set(signed.checkpoint.size, signed);
  }
  const checkpoints = [...bySize.values()].sort((a, b) => a.checkpoint.size - b.checkpoint.size);

  // A line whose index runs ahead of its position names the first missing entry exactly.
  for (const [position, line] of lines.entries()) {
    const index = indexOf(line);
    if (index !== null && index > position) {
      throw new TransparencyError(
        'entry-dropped',
        `line ${position + 1} of entries.jsonl holds entry ${index}: entries ${position}..${index - 1} were removed`,
      );
    }
  }
  const largest = checkpoints.at(-1);
  if (largest !== undefined && largest.checkpoint.size > lines.length) {
    throw new TransparencyError(
      'entry-dropped',
      `${describe(largest)} covers ${largest.checkpoint.size} entries, but entries.jsonl holds ${lines.length}: entries were removed`,
    );
  }
  for (const signed of checkpoints) {
    if (!rootOf(leafHashes.slice(0, signed.checkpoint.size)).equals(rootBytes(signed))) {
      throw new TransparencyError(
        'entry-rewritten',
        `${describe(signed)} no longer matches entries 0..${signed.checkpoint.size - 1}: at least one of them was changed after it was signed`,
      );
    }
  }
  // Implied by the root checks above for the entries held here; run anyway because these are the very proofs the log
  // serves, so a fault in producing them shows up in an audit rather than at a consumer.
  for (const [position, newer] of checkpoints.entries()) {
    const older = checkpoints[position - 1];
    if (older === undefined) continue;
    const proof = consistencyProof(leafHashes.slice(0, newer.checkpoint.size), older.checkpoint.size);
    if (!verifyConsistency(older.checkpoint.size, newer.checkpoint.size, rootBytes(older), rootBytes(newer), proof)) {
      throw new TransparencyError(
        'inconsistent-checkpoints',
        `${describe(older)} is not a prefix of ${describe(newer)}`,
      );
    }
  }
  parseEntries(lines);

  return {
    origin,
    size: lines.length,
    rootHash: rootOf(leafHashes).toString('base64'),
    checkpointSizes: checkpoints.map((signed) => signed.checkpoint.size),
  };
}

/** The `index` of a line that is JSON with a numeric index, else null: a tolerant read for locating gaps only. */
function indexOf(line: Buffer): number | null {
  try {
    const value: unknown = JSON.parse(line.toString('utf8'));
    if (typeof value === 'object' && value !== null && 'index' in value && Number.isSafeInteger(value.index))
      return value.index as number;
  } catch {
    // A line that is not JSON has no index to compare; the root checks judge it.
  }
  return null;
}

function hashes(path: readonly string[]): Buffer[] {
  return path.map((hash) => Buffer.from(hash, 'base64'));
}

/**
 * A consumer's check that `entry` is in the log: the checkpoint is signed by the key of `publicKeyPem`, and `proof`
 * leads from the entry's leaf to the checkpoint's root (with several keys pinned, by the one its key id names). Throws `checkpoint-forged`, `malformed-entry` or
 * `inclusion-failed`.
 */
export function verifyInclusionOf(
  entry: LogEntry,
  proof: InclusionProof,
  checkpoint: SignedCheckpoint,
  keys: PinnedKeys,
): void {
  verifyCheckpointSignature(parseSignedCheckpoint(checkpoint, 'the checkpoint'), pinned(keys), 'the checkpoint');
  const parsed = logEntrySchema.safeParse(entry);
  if (!parsed.success) throw new TransparencyError('malformed-entry', 'the entry is not a log entry');
  const { size, rootHash } = checkpoint.checkpoint;
  if (proof.index !== parsed.data.index || proof.size !== size) {
    throw new TransparencyError(
      'inclusion-failed',
      `the proof is for entry ${proof.index} in a tree of ${proof.size}, not entry ${parsed.data.index} in the checkpoint's tree of ${size}`,
    );
  }
  if (
    !verifyInclusion(entryLeafHash(parsed.data), proof.index, size, hashes(proof.path), Buffer.from(rootHash, 'base64'))
  ) {
    throw new TransparencyError(
      'inclusion-failed',
      `entry ${parsed.data.index} (${parsed.data.kind} ${parsed.data.subject}) is not in the log at the checkpoint of size ${size}`,
    );
  }
}

/**
 * A consumer's check that the log only grew between two checkpoints it holds, each signed by a pinned key (two keys
 * across a rotation). Throws `checkpoint-forged` or `inconsistent-checkpoints`.
 */
export function verifyConsistencyOf(
  proof: ConsistencyProof,
  older: SignedCheckpoint,
  newer: SignedCheckpoint,
  keys: PinnedKeys,
): void {
  const trusted = pinned(keys);
  for (const [name, signed] of [
    ['the older checkpoint', older],
    ['the newer checkpoint', newer],
  ] as const) {
    verifyCheckpointSignature(parseSignedCheckpoint(signed, name), trusted, name);
  }
  if (older.checkpoint.origin !== newer.checkpoint.origin) {
    throw new TransparencyError(
      'inconsistent-checkpoints',
      `the checkpoints are of two logs, ${older.checkpoint.origin} and ${newer.checkpoint.origin}`,
    );
  }
  if (proof.oldSize !== older.checkpoint.size || proof.newSize !== newer.checkpoint.size) {
    throw new TransparencyError(
      'inconsistent-checkpoints',
      `the proof is from size ${proof.oldSize} to ${proof.newSize}, not ${older.checkpoint.size} to ${newer.checkpoint.size}`,
    );
  }
  if (!verifyConsistency(proof.oldSize, proof.newSize, rootBytes(older), rootBytes(newer), hashes(proof.path))) {
    throw new TransparencyError(
      'inconsistent-checkpoints',
      `${describe(older)} is not a prefix of ${describe(newer)}: the log rewrote its history`,
    );
  }
}
