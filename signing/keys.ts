// The local ECDSA P-256 signing key: created once (private key file mode 0600, never overwritten), loaded with a
// permission check, and identified by the sha256 of its public key. Key material never enters a message or a log.
import { createHash, createPrivateKey, createPublicKey, generateKeyPair, randomUUID, type KeyObject } from 'node:crypto';
import { link, mkdir, open, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SigningError } from './errors.js';

export const SIGNING_KEY_FILE = 'signing-key.pem';

export interface SigningKey {
  /** Lowercase hex sha256 of the public key's SPKI DER encoding: the hint a bundle names its key by. */
  keyId: string;
  publicKeyPem: string;
  privateKey: KeyObject;
}

const generateEcKeyPair = promisify(generateKeyPair);

/** The key id of a public key. */
export function keyIdOf(publicKey: KeyObject): string {
  return createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('hex');
}

function toSigningKey(privateKey: KeyObject): SigningKey {
  const publicKey = createPublicKey(privateKey);
  return { keyId: keyIdOf(publicKey), publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(), privateKey };
}

/**
 * Creates a new P-256 key pair and writes the private key (PKCS#8 PEM, mode 0600) to `<dir>/signing-key.pem`.
 * Refuses when a key is already there: a replaced key cannot be recovered, and what it signed would lose its signer.
 */
export async function createSigningKey(dir: string): Promise<SigningKey> {
  const { privateKey } = await generateEcKeyPair('ec', { namedCurve: 'P-256' });
  const path = join(dir, SIGNING_KEY_FILE);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const temporary = join(dir, `.${SIGNING_KEY_FILE}.${randomUUID()}.tmp`);
  try {
    const handle = await open(temporary, 'wx', 0o600);
    try {
      await handle.chmod(0o600); // the umask only narrows the mode given to open; state it exactly
      await handle.writeFile(privateKey.export({ type: 'pkcs8', format: 'pem' }));
      await handle.sync();
    } finally {
      await handle.close();
    }
    // link, not rename: rename would silently replace a key written meanwhile, link fails with EEXIST.
    await link(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new SigningError('key-exists', `${path} already holds a signing key, and abp never overwrites one; keep using it, or move it away first to create a new key`);
    }
    throw error;
  } finally {
    await rm(temporary, { force: true });
  }
  const folder = await open(dir, 'r');
  try {
    await folder.sync(); // the new directory entry survives a crash too
  } finally {
    await folder.close();
  }
  return toSigningKey(privateKey);
}

/** Loads `<dir>/signing-key.pem`, refusing a file that group or others may read. */
export async function loadSigningKey(dir: string): Promise<SigningKey> {
  const path = join(dir, SIGNING_KEY_FILE);
  let mode: number;
  try {
    mode = (await stat(path)).mode;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new SigningError('key-missing', `${path} does not exist: create the signing key with \`abp init\``, { cause: error });
    }
    throw error;
  }
  if ((mode & 0o077) !== 0) {
    const octal = (mode & 0o777).toString(8).padStart(4, '0');
    throw new SigningError('key-permissions', `${path} has mode ${octal}, so group or others may read the private key: run \`chmod 600 ${path}\``);
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(await readFile(path));
  } catch {
    // The parser's own message could quote the file; name the problem without it.
    throw new SigningError('key-invalid', `${path} is not a PEM private key: restore it from your backup, or create a new key with \`abp init\` after moving it away`);
  }
  if (privateKey.asymmetricKeyType !== 'ec' || privateKey.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new SigningError('key-invalid', `${path} holds a ${privateKey.asymmetricKeyType ?? 'unknown'} key, but abp signs with ECDSA P-256 only: create one with \`abp init\``);
  }
  return toSigningKey(privateKey);
}
