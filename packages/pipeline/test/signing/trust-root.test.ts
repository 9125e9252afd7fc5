// The trust root: created and extended with rising versions, saved and loaded byte-stable, and refused when its
// fields are wrong or a key id does not name its own key.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRUST_ROOT_SCHEMA_ID, type TrustRoot } from '@abp/protocol/schemas/abp-trust-root';
import { validateDocumentText } from '@abp/protocol/schemas/documents';
import { SigningError } from '@abp/protocol/signing/errors';
import { createSigningKey, type SigningKey } from '../../src/signing/keys.js';
import {
  addKey,
  createTrustRoot,
  keyValidAt,
  loadTrustRoot,
  parseTrustRoot,
  saveTrustRoot,
} from '@abp/protocol/signing/trust-root';

let root: string;
let first: SigningKey;
let second: SigningKey;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'abp-signing-trust-root-'));
  first = await createSigningKey(path.join(root, 'first'));
  second = await createSigningKey(path.join(root, 'second'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function codeOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(SigningError);
    return (error as SigningError).code;
  }
  throw new Error('expected a SigningError');
}

describe('createTrustRoot and addKey', () => {
  it('start at version 1 and raise the version with each key, keeping the earlier keys', () => {
    const one = createTrustRoot(first, '2026-01-01T00:00:00Z');
    expect(one).toEqual({
      schema: TRUST_ROOT_SCHEMA_ID,
      version: 1,
      keys: [
        {
          keyId: first.keyId,
          publicKeyPem: first.publicKeyPem,
          algorithm: 'ecdsa-p256-sha256',
          validFrom: '2026-01-01T00:00:00Z',
          validUntil: null,
        },
      ],
      keyless: [],
    });
    const two = addKey(one, second, '2026-04-01T00:00:00Z');
    expect(two.version).toBe(2);
    expect(two.keys.map((key) => key.keyId)).toEqual([first.keyId, second.keyId]);
    expect(one.keys).toHaveLength(1);
  });

  it('refuses to add a key twice', () => {
    const one = createTrustRoot(first, '2026-01-01T00:00:00Z');
    expect(codeOf(() => addKey(one, first, '2026-02-01T00:00:00Z'))).toBe('key-already-trusted');
  });

  it('refuses a validFrom that is not a UTC timestamp', () => {
    expect(codeOf(() => createTrustRoot(first, '2026-01-01 00:00'))).toBe('trust-root-invalid');
  });
});

describe('saveTrustRoot and loadTrustRoot', () => {
  it('round-trip the document through a 2-space JSON file, leaving no temporary file', async () => {
    const file = path.join(root, 'roots', 'trust-root.json');
    const trustRoot = addKey(createTrustRoot(first, '2026-01-01T00:00:00Z'), second, '2026-04-01T00:00:00Z');
    await saveTrustRoot(file, trustRoot);
    expect(await loadTrustRoot(file)).toEqual(trustRoot);
    const text = await readFile(file, 'utf8');
    expect(text).toBe(`${JSON.stringify(trustRoot, null, 2)}\n`);
    expect(await readdir(path.dirname(file))).toEqual(['trust-root.json']);
    expect(validateDocumentText(text, 'trust-root.json')).toEqual({
      schema: TRUST_ROOT_SCHEMA_ID,
      valid: true,
      errors: [],
    });
  });

  it('report a missing file and a file that is not JSON', async () => {
    await expect(loadTrustRoot(path.join(root, 'absent.json'))).rejects.toMatchObject({ code: 'trust-root-missing' });
    const file = path.join(root, 'broken.json');
    await writeFile(file, '{ "schema": ');
    await expect(loadTrustRoot(file)).rejects.toMatchObject({ code: 'trust-root-invalid' });
  });

  it('refuse a trust root that names a member twice, which JSON.parse would resolve silently', async () => {
    const saved = path.join(root, 'saved.json');
    await saveTrustRoot(saved, createTrustRoot(first, '2026-01-01T00:00:00Z'));
    const text = await readFile(saved, 'utf8');
    // The second "keyless" wins for JSON.parse; a reader that took the first would see another document.
    const doubled = path.join(root, 'doubled.json');
    await writeFile(doubled, text.replace('"keyless": []', '"keyless": [], "keyless": []'));
    await expect(loadTrustRoot(doubled)).rejects.toMatchObject({
      code: 'trust-root-invalid',
      message: expect.stringContaining('$ names "keyless" twice') as string,
    });
  });
});

describe('parseTrustRoot', () => {
  const valid = (): TrustRoot => createTrustRoot(first, '2026-01-01T00:00:00Z');

  it('accepts a keyless identity with its certificate authorities and logs', () => {
    const withKeyless = {
      ...valid(),
      keyless: [
        {
          issuer: 'https://token.actions.githubusercontent.com',
          identity: 'https://github.com/acme/abp-registry/.github/workflows/freeze.yml@refs/heads/main',
          transparencyLogs: [
            {
              baseUrl: 'https://rekor.sigstore.dev',
              publicKeyPem: second.publicKeyPem,
              validFrom: '2026-01-01T00:00:00Z',
              validUntil: null,
            },
          ],
        },
      ],
    };
    expect(parseTrustRoot(withKeyless, 'trust-root.json').keyless).toHaveLength(1);
  });

  it.each([
    [
      'a key id that is not the hash of its key',
      (root: TrustRoot) => ({ ...root, keys: [{ ...root.keys[0], keyId: second.keyId }] }),
    ],
    [
      'a window that ends before it starts',
      (root: TrustRoot) => ({ ...root, keys: [{ ...root.keys[0], validUntil: '2025-12-31T00:00:00Z' }] }),
    ],
    [
      'a retirement before the window starts',
      (root: TrustRoot) => ({ ...root, keys: [{ ...root.keys[0], retiredAt: '2025-12-31T00:00:00Z' }] }),
    ],
    ['the same key twice', (root: TrustRoot) => ({ ...root, keys: [root.keys[0], root.keys[0]] })],
    ['another algorithm', (root: TrustRoot) => ({ ...root, keys: [{ ...root.keys[0], algorithm: 'ed25519' }] })],
    [
      'a public key that is not PEM',
      (root: TrustRoot) => ({
        ...root,
        keys: [{ ...root.keys[0], publicKeyPem: 'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE' }],
      }),
    ],
    ['a version 0', (root: TrustRoot) => ({ ...root, version: 0 })],
    ['an unknown field', (root: TrustRoot) => ({ ...root, owner: 'acme' })],
    [
      'a keyless issuer that is not a URL',
      (root: TrustRoot) => ({ ...root, keyless: [{ issuer: 'github', identity: 'x' }] }),
    ],
  ])('refuses %s', (_label, change) => {
    expect(codeOf(() => parseTrustRoot(change(valid()), 'trust-root.json'))).toBe('trust-root-invalid');
  });
});

describe('keyValidAt', () => {
  it('holds from validFrom to the earlier of validUntil and retiredAt, both ends included', () => {
    const [key] = createTrustRoot(first, '2026-01-01T00:00:00Z').keys;
    if (!key) throw new Error('no key');
    const bounded = { ...key, validUntil: '2026-12-31T00:00:00Z', retiredAt: '2026-06-30T00:00:00Z' };
    expect(keyValidAt(bounded, new Date('2025-12-31T23:59:59Z'))).toBe(false);
    expect(keyValidAt(bounded, new Date('2026-01-01T00:00:00Z'))).toBe(true);
    expect(keyValidAt(bounded, new Date('2026-06-30T00:00:00Z'))).toBe(true);
    expect(keyValidAt(bounded, new Date('2026-07-01T00:00:00Z'))).toBe(false);
    expect(keyValidAt(key, new Date('2099-01-01T00:00:00Z'))).toBe(true);
  });
});
