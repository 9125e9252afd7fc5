// The local ECDSA P-256 signing key: created once (private key file mode 0600, never overwritten), loaded with a
// permission check, and identified by the sha256 of its public key. Key material never enters a message or a log.
// A key rotation (signing/key-rotation.ts) replaces the key file by renaming a new one over it, so a reader that holds
// the file's identity (device, inode, size, times) can tell that the key changed without reading the key again.
import { createPrivateKey, createPublicKey, generateKeyPair, type KeyObject } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync, statSync, type Stats } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { writeFileOnce } from '@abp/protocol/files/durable-files';
import { keyIdOf } from '@abp/protocol/signing/key-id';
import { SigningError } from '@abp/protocol/signing/errors';

export const SIGNING_KEY_FILE = 'signing-key.pem';

export interface SigningKey {
  /** Lowercase hex sha256 of the public key's SPKI DER encoding: the hint a bundle names its key by. */
  keyId: string;
  publicKeyPem: string;
  privateKey: KeyObject;
}

/** A key as read from its file, with the identity of the file it was read from. */
export interface SigningKeyFile {
  key: SigningKey;
  /** Changes whenever the file is replaced or rewritten: see keyFileIdentity. */
  identity: string;
}

const generateEcKeyPair = promisify(generateKeyPair);

function toSigningKey(privateKey: KeyObject): SigningKey {
  const publicKey = createPublicKey(privateKey);
  return {
    keyId: keyIdOf(publicKey),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privateKey,
  };
}

/**
 * Creates a new P-256 key pair and writes the private key (PKCS#8 PEM, mode 0600) to `<dir>/signing-key.pem`.
 * Refuses when a key is already there: a replaced key cannot be recovered, and what it signed would lose its signer.
 */
export async function createSigningKey(dir: string): Promise<SigningKey> {
  const { privateKey } = await generateEcKeyPair('ec', { namedCurve: 'P-256' });
  const path = join(dir, SIGNING_KEY_FILE);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // Written once, mode 0600 whatever the umask: a replaced key cannot be recovered, so one already there is never touched.
  const written = await writeFileOnce(path, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  if (!written.created) {
    throw new SigningError(
      'key-exists',
      `${path} already holds a signing key, and abp never overwrites one; keep using it, or move it away first to create a new key`,
    );
  }
  return toSigningKey(privateKey);
}

/**
 * The identity of a key file as `stat` reports it. A rotation renames a new file over the key (a new inode); an edit in
 * place changes the size or the modification and change times. Equal identities mean the same key bytes.
 */
export function keyFileIdentity(stats: Stats): string {
  return [stats.dev, stats.ino, stats.size, stats.mtimeMs, stats.ctimeMs].join(':');
}

/** The identity of the key file at `path` now; SigningError key-missing when there is none. */
export function currentKeyFileIdentity(path: string): string {
  try {
    return keyFileIdentity(statSync(path));
  } catch (error) {
    throw missingOrThrow(error, path);
  }
}

function missingOrThrow(error: unknown, path: string): unknown {
  if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
    return new SigningError('key-missing', `${path} does not exist: create the signing key with \`abp init\``, {
      cause: error,
    });
  }
  return error;
}

function checkPrivate(path: string, mode: number): void {
  if ((mode & 0o077) !== 0) {
    const octal = (mode & 0o777).toString(8).padStart(4, '0');
    throw new SigningError(
      'key-permissions',
      `${path} has mode ${octal}, so group or others may read the private key: run \`chmod 600 ${path}\``,
    );
  }
}

function parsePrivateKey(path: string, pem: Buffer): SigningKey {
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(pem);
  } catch {
    // The parser's own message could quote the file; name the problem without it.
    throw new SigningError(
      'key-invalid',
      `${path} is not a PEM private key: restore it from your backup, or create a new key with \`abp init\` after moving it away`,
    );
  }
  if (privateKey.asymmetricKeyType !== 'ec' || privateKey.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new SigningError(
      'key-invalid',
      `${path} holds a ${privateKey.asymmetricKeyType ?? 'unknown'} key, but abp signs with ECDSA P-256 only: create one with \`abp init\``,
    );
  }
  return toSigningKey(privateKey);
}

/**
 * Reads the private key file at `path`, refusing one that group or others may read. Synchronous, so a signer can check
 * for a replaced key inside a property read; the file is a few hundred bytes. Its mode, identity and bytes are all
 * taken from one open descriptor, so a key renamed over the file meanwhile cannot mix the two.
 */
export function readSigningKeyFile(path: string): SigningKeyFile {
  let descriptor: number;
  try {
    descriptor = openSync(path, 'r');
  } catch (error) {
    throw missingOrThrow(error, path);
  }
  try {
    const stats = fstatSync(descriptor);
    checkPrivate(path, stats.mode);
    return { key: parsePrivateKey(path, readFileSync(descriptor)), identity: keyFileIdentity(stats) };
  } finally {
    closeSync(descriptor);
  }
}

/** Loads the private key file at `path` (e.g. a retired key, `keys/retired/<keyId>.pem`), refusing one others may read. */
export function loadSigningKeyFile(path: string): Promise<SigningKey> {
  return new Promise((resolve) => resolve(readSigningKeyFile(path).key));
}

/** Loads `<dir>/signing-key.pem`, refusing a file that group or others may read. */
export function loadSigningKey(dir: string): Promise<SigningKey> {
  return loadSigningKeyFile(join(dir, SIGNING_KEY_FILE));
}
