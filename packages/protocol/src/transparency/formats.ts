// The log's two record formats, entries and signed checkpoints, with their byte forms: an entry's leaf bytes are its
// canonical JSON line, and a checkpoint is signed over its canonical JSON text (ECDSA P-256, SHA-256, DER signature).
import { createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson } from '../schemas/canonical-json.js';
import { nonNegativeInt, positiveInt, sha256Digest, utcTimestamp } from '../schemas/primitives.js';
import { keyIdOf } from '../signing/key-id.js';
import { describeIssues, TransparencyError } from './errors.js';
import { HASH_SIZE, leafHash } from './merkle.js';

/** What the log records: one kind per signed statement abp makes, plus the trust root document itself. */
/** The origin line of a registry's transparency log: checkpoints name it, so two logs cannot be confused. */
export const LOG_ORIGIN = 'abp-log/registry';

export const LOG_ENTRY_KINDS = [
  'task-bundle',
  'registry-version',
  'draw-record',
  'aging-transition',
  'trust-root',
] as const;
export type LogEntryKind = (typeof LOG_ENTRY_KINDS)[number];

// `abp-log/<name>`: the name keeps to a portable alphabet because it ends up in URLs and file names.
const ORIGIN = /^abp-log\/[a-z0-9][a-z0-9._-]{0,99}$/;

export const logEntrySchema = z.strictObject({
  index: nonNegativeInt,
  kind: z.enum(LOG_ENTRY_KINDS),
  subject: z.string().min(1),
  /** Of the signed statement bundle the entry stands for. */
  digest: sha256Digest,
  appendedAt: utcTimestamp,
});
export type LogEntry = z.infer<typeof logEntrySchema>;

const base64Hash = z
  .string()
  .regex(/^[A-Za-z0-9+/]{43}=$/, { error: 'must be a base64 SHA-256 hash' })
  .refine((text) => Buffer.from(text, 'base64').length === HASH_SIZE, { error: 'must be a base64 SHA-256 hash' });

export const checkpointSchema = z.strictObject({
  origin: z.string().regex(ORIGIN, { error: 'must be "abp-log/<name>"' }),
  size: positiveInt,
  rootHash: base64Hash,
  timestamp: utcTimestamp,
});
export type Checkpoint = z.infer<typeof checkpointSchema>;

export const signedCheckpointSchema = z.strictObject({
  checkpoint: checkpointSchema,
  /** Lowercase hex sha256 of the signing public key's SPKI DER: the same key id as the signing keys' in signing/. */
  keyId: z.string().regex(/^[0-9a-f]{64}$/, { error: 'must be 64 lowercase hex digits' }),
  /** Base64 of the DER ECDSA signature over the checkpoint's canonical JSON. */
  signature: z.base64().min(1),
});
export type SignedCheckpoint = z.infer<typeof signedCheckpointSchema>;

/** Proofs as the log hands them out: plain JSON, hashes in base64, ordered leaf to root as RFC 9162 lists them. */
export interface InclusionProof {
  index: number;
  size: number;
  path: string[];
}

export interface ConsistencyProof {
  oldSize: number;
  newSize: number;
  path: string[];
}

/** The private half of the key checkpoints are signed with, and its key id. */
export interface CheckpointSigningKey {
  privateKey: KeyObject;
  keyId: string;
}

/** A public key a verifier trusts to sign checkpoints. */
export interface CheckpointVerifyingKey {
  publicKeyPem: string;
  keyId: string;
}

export function isOrigin(text: string): boolean {
  return ORIGIN.test(text);
}

/** An entry's line in entries.jsonl without its newline: the bytes its leaf hash is taken over. */
export function entryLine(entry: LogEntry): string {
  return canonicalJson(entry);
}

export function entryLeafHash(entry: LogEntry): Buffer {
  return leafHash(Buffer.from(entryLine(entry), 'utf8'));
}

/** Parses one line of entries.jsonl; `position` is its zero-based line number, for the message. */
export function parseEntryLine(line: string, position: number): LogEntry {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    throw new TransparencyError(
      'malformed-entry',
      `line ${position + 1} of entries.jsonl is not JSON: ${(error as Error).message}`,
      { cause: error },
    );
  }
  const parsed = logEntrySchema.safeParse(value);
  if (!parsed.success)
    throw new TransparencyError(
      'malformed-entry',
      `line ${position + 1} of entries.jsonl is not a log entry: ${describeIssues(parsed.error.issues)}`,
    );
  return parsed.data;
}

export function parseSignedCheckpoint(value: unknown, source: string): SignedCheckpoint {
  const parsed = signedCheckpointSchema.safeParse(value);
  if (!parsed.success)
    throw new TransparencyError(
      'malformed-checkpoint',
      `${source} is not a signed checkpoint: ${describeIssues(parsed.error.issues)}`,
    );
  return parsed.data;
}

function isP256(key: KeyObject): boolean {
  return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1';
}

/** Checks a signing key: ECDSA P-256, and its key id names it. */
export function checkSigningKey(key: CheckpointSigningKey): void {
  if (key.privateKey.type !== 'private' || !isP256(key.privateKey)) {
    throw new TransparencyError(
      'invalid-key',
      'checkpoints are signed with an ECDSA P-256 private key; pass the signing key abp init created',
    );
  }
  const actual = keyIdOf(createPublicKey(key.privateKey));
  if (actual !== key.keyId)
    throw new TransparencyError('invalid-key', `the key id given is ${key.keyId}, but the signing key's is ${actual}`);
}

/** Reads a trusted public key, refusing one whose key id does not name it. */
export function readVerifyingKey(key: CheckpointVerifyingKey): KeyObject {
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey(key.publicKeyPem);
  } catch (error) {
    throw new TransparencyError('invalid-key', `the public key for ${key.keyId} is not a readable PEM public key`, {
      cause: error,
    });
  }
  if (!isP256(publicKey))
    throw new TransparencyError('invalid-key', `the public key for ${key.keyId} is not an ECDSA P-256 key`);
  const actual = keyIdOf(publicKey);
  if (actual !== key.keyId)
    throw new TransparencyError(
      'invalid-key',
      `the key id given is ${key.keyId}, but the sha256 of its public key is ${actual}`,
    );
  return publicKey;
}

export function signCheckpoint(checkpoint: Checkpoint, key: CheckpointSigningKey): SignedCheckpoint {
  const signature = sign('sha256', Buffer.from(canonicalJson(checkpoint), 'utf8'), key.privateKey);
  return { checkpoint, keyId: key.keyId, signature: signature.toString('base64') };
}

/**
 * Throws `checkpoint-forged` unless one of the trusted keys, named by the checkpoint's key id, signed exactly this
 * checkpoint. `source` names the checkpoint in the message.
 */
export function verifyCheckpointSignature(
  signed: SignedCheckpoint,
  trusted: ReadonlyMap<string, KeyObject>,
  source: string,
): void {
  const publicKey = trusted.get(signed.keyId);
  if (publicKey === undefined)
    throw new TransparencyError(
      'checkpoint-forged',
      `${source} is signed by key ${signed.keyId}, which is not a trusted log key`,
    );
  const valid = verify(
    'sha256',
    Buffer.from(canonicalJson(signed.checkpoint), 'utf8'),
    publicKey,
    Buffer.from(signed.signature, 'base64'),
  );
  if (!valid)
    throw new TransparencyError(
      'checkpoint-forged',
      `${source}: the signature does not match the checkpoint; it was altered or made without key ${signed.keyId}`,
    );
}

/** The one trusted key of a consumer who pins a public key, named by its own key id. */
export function trustedKeyFromPem(publicKeyPem: string): Map<string, KeyObject> {
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey(publicKeyPem);
  } catch (error) {
    throw new TransparencyError('invalid-key', 'the pinned public key is not a readable PEM public key', {
      cause: error,
    });
  }
  return trustedKeys({ publicKeyPem, keyId: keyIdOf(publicKey) });
}

/** Trusted keys by key id, each checked to be what its id says. */
export function trustedKeys(keys: CheckpointVerifyingKey | readonly CheckpointVerifyingKey[]): Map<string, KeyObject> {
  const list: readonly CheckpointVerifyingKey[] = Array.isArray(keys) ? keys : [keys as CheckpointVerifyingKey];
  return new Map(list.map((key) => [key.keyId, readVerifyingKey(key)] as const));
}
