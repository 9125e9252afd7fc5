// Reading, writing and extending the trust root (abp-trust-root/v1): schema-checked, every key id checked against its
// key, saved atomically, and changed only by functions that raise its version (addKey, rotateKey). Publishing and
// signing each version is signing/trust-root-versions.ts.
import { createPublicKey } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  KEY_ALGORITHM,
  TRUST_ROOT_SCHEMA_ID,
  trustRootSchema,
  type TrustedKey,
  type TrustRoot,
} from '../schemas/abp-trust-root.js';
import { writeFileDurably } from '../files/durable-files.js';
import { describeIssues, plainWordsParseOptions } from '../schemas/issues.js';
import { SigningError } from './errors.js';
import { MiB, readBoundedFile } from '../files/bounded-read.js';
import { firstDuplicateKey } from '../schemas/duplicate-keys.js';
import { keyIdOf } from './key-id.js';

/** The public half of a signing key, as a trust root lists it. */
export interface PublicSigningKey {
  keyId: string;
  publicKeyPem: string;
}

/** Validates a parsed trust root; `source` names where it came from (a file path) in the error. */
export function parseTrustRoot(value: unknown, source: string): TrustRoot {
  const parsed = trustRootSchema.safeParse(value, plainWordsParseOptions);
  if (!parsed.success)
    throw new SigningError(
      'trust-root-invalid',
      `${source} is not a valid ${TRUST_ROOT_SCHEMA_ID} document: ${describeIssues(parsed.error.issues)}`,
    );
  parsed.data.keys.forEach((key, index) => {
    let actual: string;
    let curve: string | undefined;
    try {
      const publicKey = createPublicKey(key.publicKeyPem);
      actual = keyIdOf(publicKey);
      curve = publicKey.asymmetricKeyDetails?.namedCurve;
    } catch (error) {
      throw new SigningError(
        'trust-root-invalid',
        `${source}: keys[${index}].publicKeyPem is not a readable public key; copy it again from the key's owner`,
        { cause: error },
      );
    }
    if (curve !== 'prime256v1') {
      throw new SigningError(
        'trust-root-invalid',
        `${source}: keys[${index}].publicKeyPem is not an ECDSA P-256 key, but its algorithm is ${KEY_ALGORITHM}`,
      );
    }
    if (actual !== key.keyId) {
      throw new SigningError(
        'trust-root-invalid',
        `${source}: keys[${index}].keyId is ${key.keyId}, but the sha256 of its public key is ${actual}; a key id must name its own key`,
      );
    }
  });
  return parsed.data;
}

export async function loadTrustRoot(path: string): Promise<TrustRoot> {
  let text: string;
  try {
    // A trust root lists a few keys: a few KiB. Anything else (a device, a huge file) is refused before it is read.
    text = (await readBoundedFile(path, { maxBytes: MiB, what: 'a trust root' })).toString('utf8');
  } catch (error) {
    if ((error as { cause?: NodeJS.ErrnoException }).cause?.code === 'ENOENT') {
      throw new SigningError(
        'trust-root-missing',
        `${path} does not exist: \`abp init\` writes the trust root beside the signing key, and a consumer pins the registry's published one`,
        { cause: error },
      );
    }
    throw error;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new SigningError('trust-root-invalid', `${path} is not JSON: ${(error as Error).message}`, { cause: error });
  }
  refuseDuplicateKeys(text, path);
  return parseTrustRoot(value, path);
}

/** A trust root that names a member twice means what its last writer wanted: refused, naming the member. */
export function refuseDuplicateKeys(text: string, source: string): void {
  const duplicate = firstDuplicateKey(text);
  if (duplicate !== null)
    throw new SigningError(
      'trust-root-invalid',
      `${source}: ${duplicate.path} names "${duplicate.key}" twice; a trust root must mean one thing: keep one of them`,
    );
}

/** The text a trust root document is stored as: in trust-root.json and in each published `trust-roots/v<N>.json`. */
export function trustRootText(trustRoot: TrustRoot): string {
  return `${JSON.stringify(trustRoot, null, 2)}\n`;
}

/** Writes the trust root (validated first) through a flushed temporary file renamed over `path`. */
export async function saveTrustRoot(path: string, trustRoot: TrustRoot): Promise<void> {
  const checked = parseTrustRoot(trustRoot, 'the trust root to save');
  await mkdir(dirname(path), { recursive: true });
  await writeFileDurably(path, trustRootText(checked));
}

function trustedKey(key: PublicSigningKey, validFrom: string): TrustedKey {
  return { keyId: key.keyId, publicKeyPem: key.publicKeyPem, algorithm: KEY_ALGORITHM, validFrom, validUntil: null };
}

/** The first trust root: version 1, trusting `key` from `validFrom` on with an open end. */
export function createTrustRoot(key: PublicSigningKey, validFrom: string): TrustRoot {
  return parseTrustRoot(
    { schema: TRUST_ROOT_SCHEMA_ID, version: 1, keys: [trustedKey(key, validFrom)], keyless: [] },
    'the new trust root',
  );
}

/** The next version of `trustRoot`, also trusting `key` from `validFrom` on. */
export function addKey(trustRoot: TrustRoot, key: PublicSigningKey, validFrom: string): TrustRoot {
  if (findKey(trustRoot, key.keyId)) {
    throw new SigningError(
      'key-already-trusted',
      `key ${key.keyId} is already in the trust root (version ${trustRoot.version}); a key is added once, with one window`,
    );
  }
  return parseTrustRoot(
    { ...trustRoot, version: trustRoot.version + 1, keys: [...trustRoot.keys, trustedKey(key, validFrom)] },
    'the extended trust root',
  );
}

/**
 * The next version of `trustRoot` after a key rotation: the key `retiring` gets `retiredAt` (what it signed until then
 * stays valid), and `next` is trusted from `validFrom` with an open end. The keyless identities carry over unchanged.
 */
export function rotateKey(
  trustRoot: TrustRoot,
  retiring: string,
  next: PublicSigningKey,
  times: { validFrom: string; retiredAt: string },
): TrustRoot {
  const old = findKey(trustRoot, retiring);
  if (!old)
    throw new SigningError(
      'unknown-key',
      `key ${retiring} is not in trust root version ${trustRoot.version}, so it cannot be retired; the signing key must be one the trust root lists`,
    );
  if (old.retiredAt !== undefined)
    throw new SigningError(
      'key-retired',
      `key ${retiring} was retired at ${old.retiredAt} already (trust root version ${trustRoot.version})`,
    );
  const extended = addKey(trustRoot, next, times.validFrom);
  const keys = extended.keys.map((key) => (key.keyId === retiring ? { ...key, retiredAt: times.retiredAt } : key));
  return parseTrustRoot({ ...extended, keys }, `trust root version ${extended.version}`);
}

export type KeyState = 'pending' | 'active' | 'retired' | 'expired';

/**
 * A key's state at `at`: retired once a rotation replaced it (whenever its retiredAt falls), expired after its
 * validUntil, pending before its validFrom, active otherwise.
 */
export function keyStateAt(key: TrustedKey, at: Date): KeyState {
  if (key.retiredAt !== undefined) return 'retired';
  if (key.validUntil !== null && at.getTime() > Date.parse(key.validUntil)) return 'expired';
  if (at.getTime() < Date.parse(key.validFrom)) return 'pending';
  return 'active';
}

export function findKey(trustRoot: TrustRoot, keyId: string): TrustedKey | undefined {
  return trustRoot.keys.find((key) => key.keyId === keyId);
}

/** The last instant the key may sign: the earlier of validUntil and retiredAt, or null while neither is set. */
export function keyWindowEnd(key: TrustedKey): string | null {
  const ends = [key.validUntil, key.retiredAt].filter((end): end is string => end !== null && end !== undefined);
  return ends.length === 0 ? null : ends.reduce((a, b) => (Date.parse(a) <= Date.parse(b) ? a : b));
}

/** Whether a signature made at `at` falls inside the key's window (both ends inclusive, as in Sigstore's trusted roots). */
export function keyValidAt(key: TrustedKey, at: Date): boolean {
  const end = keyWindowEnd(key);
  return Date.parse(key.validFrom) <= at.getTime() && (end === null || at.getTime() <= Date.parse(end));
}
