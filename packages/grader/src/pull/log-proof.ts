// What `abp pull` proves about a bundle's signature beyond the signature itself: that the registry logged these exact
// bytes in its transparency log, in a tree its newest checkpoint signs, and that this log extends the one the consumer
// saw before. A signature the registry showed this consumer without logging it (a split view), a log rewritten since the
// consumer last looked, and a retired key's signature that reached the log only after the key was retired are refused.
// Checkpoints count only when signed by a key of the consumer's (walked-forward) trust root.
import type { TrustRoot } from '@abp/protocol/schemas/abp-trust-root';
import { taskBundleSubjectNames } from '@abp/protocol/signing/statement';
import { findKey } from '@abp/protocol/signing/trust-root';
import { verifyConsistencyOf, verifyInclusionOf } from '../audit/log-audit.js';
import { TransparencyError } from '@abp/protocol/transparency/errors';
import {
  logEntrySchema,
  trustedKeys,
  verifyCheckpointSignature,
  type CheckpointVerifyingKey,
  type LogEntry,
  type SignedCheckpoint,
} from '@abp/protocol/transparency/formats';
import type { RegistryClient } from './client.js';
import { PullError } from './errors.js';

export interface LogProofInput {
  client: RegistryClient;
  /** The trust root walked forward from the consumer's pinned one: its keys are the only ones checkpoints may carry. */
  trustRoot: TrustRoot;
  taskId: string;
  /** sha256 (hex) of the signature's bytes exactly as downloaded: the digest the log must hold. */
  signatureSha256: string;
  /** The key that signed the bundle; null for a keyless signature (whose time Rekor vouches for). */
  keyId: string | null;
  /** The checkpoints the consumer kept from this registry earlier, smallest first. */
  kept: readonly SignedCheckpoint[];
}

export interface LoggedBundle {
  /** The log entry of the signature. */
  entry: LogEntry;
  /** The newest checkpoint, signed by a trusted key; the entry is proved included in its tree. */
  checkpoint: SignedCheckpoint;
  /** The size of the newest checkpoint kept before, proved consistent with `checkpoint`; null when none was kept. */
  keptSize: number | null;
  /** For a key the trust root retired: the first checkpoint covering the entry, signed no later than the retirement. */
  loggedBeforeRetirement: { size: number; timestamp: string } | null;
}

/** The trust root's keys as checkpoint verifiers: any key it lists, retired ones included (they signed the older heads). */
export function logKeysOf(trustRoot: TrustRoot): CheckpointVerifyingKey[] {
  return trustRoot.keys.map((key) => ({ publicKeyPem: key.publicKeyPem, keyId: key.keyId }));
}

function describe(signed: SignedCheckpoint): string {
  return `the checkpoint of size ${signed.checkpoint.size} signed at ${signed.checkpoint.timestamp}`;
}

/** Runs one check of transparency/, turning its refusal into the pull's code: a rewritten history, or a bad proof. */
function checked<T>(what: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof TransparencyError)) throw error;
    const code = error.code === 'inconsistent-checkpoints' ? 'log-inconsistent' : 'log-proof-invalid';
    throw new PullError(code, `${what} (${error.code}): ${error.message}`, { cause: error });
  }
}

export async function proveBundleLogged(input: LogProofInput): Promise<LoggedBundle> {
  const { client, trustRoot, taskId } = input;
  const keys = logKeysOf(input.trustRoot);
  const digest = `sha256:${input.signatureSha256}`;
  const subject = taskBundleSubjectNames(taskId).bundle;
  const from = client.baseUrl;

  if (keys.length === 0) {
    throw new PullError(
      'log-proof-invalid',
      `trust root version ${trustRoot.version} lists no keys, so no checkpoint of ${from}'s transparency log can verify: a registry that signs keyless still signs its log checkpoints with its operator key, which the trust root must list`,
    );
  }
  const newest = await client.latestCheckpoint();
  if (newest === null)
    throw new PullError(
      'not-logged',
      `${from} has no signed checkpoint of its transparency log: nothing it signed is provably logged, so task ${taskId} is not unpacked`,
    );
  checked(`${from}'s newest log checkpoint does not verify against trust root version ${trustRoot.version}`, () =>
    verifyCheckpointSignature(newest, trustedKeys(keys), `${describe(newest)}`),
  );

  // The log the consumer saw before must be a prefix of this one (or this one of it, from a mirror lagging behind).
  const kept = input.kept.at(-1);
  if (kept !== undefined) await proveExtends(client, kept, newest, keys);

  const entry = await findEntry(client, digest, subject, taskId);
  if (entry.index >= newest.checkpoint.size) {
    throw new PullError(
      'not-logged',
      `the signature of task ${taskId} is logged at index ${entry.index}, but ${describe(newest)} covers entries 0 to ${newest.checkpoint.size - 1} only: nothing signed covers it yet; pull again once the registry checkpoints its log`,
    );
  }
  await proveIncluded(client, entry, newest, keys, taskId);

  const retiredAt = input.keyId === null ? undefined : findKey(trustRoot, input.keyId)?.retiredAt;
  const loggedBeforeRetirement =
    retiredAt === undefined
      ? null
      : await proveLoggedBy(client, entry, newest, keys, {
          keyId: input.keyId ?? '',
          retiredAt,
          taskId,
          trustRootVersion: trustRoot.version,
        });
  return { entry, checkpoint: newest, keptSize: kept?.checkpoint.size ?? null, loggedBeforeRetirement };
}

/** Proves `older` and `newer` (in either order of size) are two heads of one growing log. */
async function proveExtends(
  client: RegistryClient,
  kept: SignedCheckpoint,
  newest: SignedCheckpoint,
  keys: readonly CheckpointVerifyingKey[],
): Promise<void> {
  const what = `${client.baseUrl}'s log does not extend ${describe(kept)} you kept from it before`;
  if (kept.checkpoint.origin !== newest.checkpoint.origin) {
    throw new PullError(
      'log-inconsistent',
      `${what}: the kept one is of ${kept.checkpoint.origin}, the log now is ${newest.checkpoint.origin}`,
    );
  }
  if (kept.checkpoint.size === newest.checkpoint.size) {
    // Same size: no proof to ask for; both signed heads must be the same head.
    checked(`the checkpoint you kept from ${client.baseUrl} does not verify against the trust root`, () =>
      verifyCheckpointSignature(kept, trustedKeys(keys), describe(kept)),
    );
    if (kept.checkpoint.rootHash !== newest.checkpoint.rootHash) {
      throw new PullError(
        'log-inconsistent',
        `${what}: two signed checkpoints of size ${kept.checkpoint.size} have different roots, so the log showed two histories`,
      );
    }
    return;
  }
  const [older, newer] = kept.checkpoint.size < newest.checkpoint.size ? [kept, newest] : [newest, kept];
  const served = await client.consistencyProof(older.checkpoint.size, newer.checkpoint.size);
  if (served.$case === 'refused') {
    throw new PullError(
      'log-inconsistent',
      `${what}: asked to prove size ${older.checkpoint.size} a prefix of size ${newer.checkpoint.size}, it answered: ${served.problem}`,
    );
  }
  checked(what, () => verifyConsistencyOf(served.proof, older, newer, keys));
}

/** The entry of this signature under the task's bundle subject, lowest index first; `not-logged` when there is none. */
async function findEntry(client: RegistryClient, digest: string, subject: string, taskId: string): Promise<LogEntry> {
  const served = await client.lookupLogEntries(digest);
  const entries = served.flatMap((value) => {
    const parsed = logEntrySchema.safeParse(value);
    return parsed.success && parsed.data.digest === digest ? [parsed.data] : [];
  });
  const entry = entries
    .filter((candidate) => candidate.kind === 'task-bundle' && candidate.subject === subject)
    .sort((a, b) => a.index - b.index)[0];
  if (entry !== undefined) return entry;
  const elsewhere = entries.map((candidate) => `${candidate.kind} ${candidate.subject} (entry ${candidate.index})`);
  throw new PullError(
    'not-logged',
    `${client.baseUrl}'s transparency log has no task-bundle entry ${subject} with digest ${digest}, the sha256 of the signature it served${elsewhere.length > 0 ? ` (it logs that digest only as ${elsewhere.join(', ')})` : ''}: ` +
      `a signature the registry did not log may be shown to you alone, so task ${taskId} is not unpacked`,
  );
}

/** Proves `entry` is in the tree `checkpoint` signs, with the proof the server hands out for it. */
async function proveIncluded(
  client: RegistryClient,
  entry: LogEntry,
  checkpoint: SignedCheckpoint,
  keys: readonly CheckpointVerifyingKey[],
  taskId: string,
): Promise<void> {
  const served = await client.inclusionProof(entry.index, checkpoint.checkpoint.size);
  // The proof must be for the very entry looked up: the same line, so the same leaf.
  const proved = logEntrySchema.safeParse(served.entry);
  if (!proved.success || JSON.stringify(proved.data) !== JSON.stringify(entry)) {
    throw new PullError(
      'log-proof-invalid',
      `${client.baseUrl} proves entry ${entry.index} to be something other than what its lookup returned for task ${taskId}'s signature: the log answers two ways`,
    );
  }
  checked(
    `the signature of task ${taskId} is not proved included in ${describe(checkpoint)} of ${client.baseUrl}`,
    () => verifyInclusionOf(entry, served.proof, checkpoint, keys),
  );
}

/**
 * A retired key's signatures count only if they were logged before the retirement. The statement's `signedAt` is the
 * signer's own claim, so a stolen retired key could backdate one; the log's checkpoint time is not the signer's. The
 * first checkpoint covering the entry must be signed no later than `retiredAt`, include the entry, and be a prefix of
 * the newest checkpoint.
 */
async function proveLoggedBy(
  client: RegistryClient,
  entry: LogEntry,
  newest: SignedCheckpoint,
  keys: readonly CheckpointVerifyingKey[],
  retired: { keyId: string; retiredAt: string; taskId: string; trustRootVersion: number },
): Promise<{ size: number; timestamp: string }> {
  const sizes = (await client.checkpointSizes()).sort((a, b) => a - b);
  const coveringSize =
    sizes.find((size) => size > entry.index && size <= newest.checkpoint.size) ?? newest.checkpoint.size;
  const covering = coveringSize === newest.checkpoint.size ? newest : await client.checkpoint(coveringSize);
  if (covering === null)
    throw new PullError(
      'server-error',
      `${client.baseUrl} lists a log checkpoint of size ${coveringSize} but does not serve it`,
    );
  if (covering !== newest) {
    await proveIncluded(client, entry, covering, keys, retired.taskId);
    const served = await client.consistencyProof(covering.checkpoint.size, newest.checkpoint.size);
    if (served.$case === 'refused')
      throw new PullError(
        'log-inconsistent',
        `${client.baseUrl} cannot prove ${describe(covering)} a prefix of ${describe(newest)}: ${served.problem}`,
      );
    checked(`${describe(covering)} is not a prefix of ${describe(newest)}`, () =>
      verifyConsistencyOf(served.proof, covering, newest, keys),
    );
  }
  const { timestamp } = covering.checkpoint;
  if (Date.parse(timestamp) > Date.parse(retired.retiredAt)) {
    throw new PullError(
      'key-retired',
      `key ${retired.keyId} was retired at ${retired.retiredAt} (trust root version ${retired.trustRootVersion}), and the signature of task ${retired.taskId} (log entry ${entry.index}) is first covered by ${describe(covering)}: ` +
        'it reached the log only after the key was retired, so its signing time cannot be trusted',
    );
  }
  return { size: covering.checkpoint.size, timestamp };
}
