// The local signing key: a private file (0600) written once and never overwritten, loaded only while private, and
// named by the sha256 of its SPKI public key, which openssl derives independently here.
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { inspect, promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSigningKey, loadSigningKey, SIGNING_KEY_FILE, type SigningKey } from '../../src/signing/keys.js';
import { codeOf } from './signing-error.js';

const run = promisify(execFile);

let root: string;
let keyDir: string;
let key: SigningKey;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'abp-signing-keys-'));
  keyDir = path.join(root, 'keys');
  key = await createSigningKey(keyDir);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('createSigningKey', () => {
  it('writes the private key with mode 0600 in a 0700 folder, and nothing else', async () => {
    const file = path.join(keyDir, SIGNING_KEY_FILE);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(keyDir)).mode & 0o777).toBe(0o700);
    expect(await readdir(keyDir)).toEqual([SIGNING_KEY_FILE]);
    expect(await readFile(file, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
  });

  it('names the key by the sha256 of its SPKI DER public key, as openssl computes it', async () => {
    const file = path.join(keyDir, SIGNING_KEY_FILE);
    const der = path.join(root, 'public.der');
    await run('openssl', ['pkey', '-in', file, '-pubout', '-outform', 'DER', '-out', der]);
    const { stdout } = await run('openssl', ['dgst', '-sha256', '-r', der]);
    expect(key.keyId).toBe(stdout.split(' ')[0]);
    const { stdout: curve } = await run('openssl', ['pkey', '-in', file, '-noout', '-text']);
    expect(curve).toContain('NIST CURVE: P-256');
  });

  it('refuses to overwrite an existing key and leaves it untouched', async () => {
    const file = path.join(keyDir, SIGNING_KEY_FILE);
    const before = await readFile(file);
    expect(await codeOf(createSigningKey(keyDir))).toBe('key-exists');
    expect(await readFile(file)).toEqual(before);
    expect(await readdir(keyDir)).toEqual([SIGNING_KEY_FILE]);
  });

  it('keeps the private key out of what inspection and JSON show', async () => {
    const pem = await readFile(path.join(keyDir, SIGNING_KEY_FILE), 'utf8');
    const body = pem.split('\n')[1] ?? '';
    expect(body.length).toBeGreaterThan(20);
    for (const shown of [inspect(key, { depth: 5 }), JSON.stringify(key)]) {
      expect(shown).not.toContain(body);
      expect(shown).not.toContain('PRIVATE KEY');
    }
  });
});

describe('loadSigningKey', () => {
  it('loads the key it created, with the same id and public key', async () => {
    const loaded = await loadSigningKey(keyDir);
    expect(loaded.keyId).toBe(key.keyId);
    expect(loaded.publicKeyPem).toBe(key.publicKeyPem);
  });

  it.each(['640', '604', '644'])('refuses a key file with mode %s', async (mode) => {
    const dir = path.join(root, `loose-${mode}`);
    await createSigningKey(dir);
    await chmod(path.join(dir, SIGNING_KEY_FILE), Number.parseInt(mode, 8));
    expect(await codeOf(loadSigningKey(dir))).toBe('key-permissions');
  });

  it('reports a missing key and a file that holds no key', async () => {
    expect(await codeOf(loadSigningKey(path.join(root, 'nowhere')))).toBe('key-missing');
    const dir = path.join(root, 'garbage');
    await createSigningKey(dir);
    await writeFile(path.join(dir, SIGNING_KEY_FILE), 'not a key\n', { mode: 0o600 });
    expect(await codeOf(loadSigningKey(dir))).toBe('key-invalid');
  });

  it('refuses a private key of another algorithm', async () => {
    const dir = path.join(root, 'ed25519');
    await createSigningKey(dir);
    const file = path.join(dir, SIGNING_KEY_FILE);
    await rm(file);
    await run('openssl', ['genpkey', '-algorithm', 'ed25519', '-out', file]);
    await chmod(file, 0o600);
    expect(await codeOf(loadSigningKey(dir))).toBe('key-invalid');
  });
});
