// The published trust root versions: written once and never replaced, the first signed by its own key and each next one
// by the version before, a signature checked before it is written, a gap or a forgery in the chain refused.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSigningKey, type SigningKey } from '../../src/signing/keys.js';
import { keyedSigner } from '../../src/signing/signer.js';
import { advanceTrustRoot, trustRootDigest, trustRootStatement, verifyNextTrustRoot } from '@abp/grader/trust';
import {
  latestTrustRootVersion,
  listTrustRootVersions,
  publishedVersionFetcher,
  publishTrustRootVersion,
  readTrustRootDocument,
  readTrustRootVersion,
  trustRootVersionPaths,
  verifyPublishedChain,
} from '../../src/signing/trust-root-versions.js';
import { addKey, createTrustRoot, rotateKey, trustRootText } from '@abp/protocol/signing/trust-root';
import { writeFileOnce } from '@abp/protocol/files/durable-files';
import { codeOf } from './signing-error.js';

let root: string;
let first: SigningKey;
let second: SigningKey;
let stranger: SigningKey;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'abp-trust-root-versions-'));
  const keyIn = (name: string) => createSigningKey(path.join(root, 'keys', name));
  first = await keyIn('first');
  second = await keyIn('second');
  stranger = await keyIn('stranger');
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

let folders = 0;
const freshFolder = () => path.join(root, `versions-${++folders}`);

const v1 = () => createTrustRoot(first, '2026-01-01T00:00:00Z');
const v2 = () =>
  rotateKey(v1(), first.keyId, second, { validFrom: '2026-04-01T00:00:00Z', retiredAt: '2026-04-01T00:00:05Z' });

async function publishTwo(dir: string) {
  const one = await publishTrustRootVersion(dir, v1(), {
    signer: keyedSigner(first),
    signedAt: new Date('2026-01-01T00:00:00Z'),
    vouchedBy: 'self',
  });
  const two = await publishTrustRootVersion(dir, v2(), {
    signer: keyedSigner(first),
    signedAt: new Date('2026-04-01T00:00:05Z'),
    vouchedBy: v1(),
  });
  return { one, two };
}

describe('rotateKey', () => {
  it('raises the version, retires the old key and trusts the new one from its validFrom, keyless identities unchanged', () => {
    const next = v2();
    expect(next.version).toBe(2);
    expect(next.keys).toEqual([
      { ...v1().keys[0], retiredAt: '2026-04-01T00:00:05Z' },
      {
        keyId: second.keyId,
        publicKeyPem: second.publicKeyPem,
        algorithm: 'ecdsa-p256-sha256',
        validFrom: '2026-04-01T00:00:00Z',
        validUntil: null,
      },
    ]);
    expect(next.keyless).toEqual([]);
  });

  it('refuses to retire a key the trust root does not list, or one retired already', () => {
    expect(() =>
      rotateKey(v1(), stranger.keyId, second, { validFrom: '2026-04-01T00:00:00Z', retiredAt: '2026-04-01T00:00:00Z' }),
    ).toThrow(expect.objectContaining({ code: 'unknown-key' }));
    expect(() =>
      rotateKey(v2(), first.keyId, stranger, { validFrom: '2026-05-01T00:00:00Z', retiredAt: '2026-05-01T00:00:00Z' }),
    ).toThrow(expect.objectContaining({ code: 'key-retired' }));
  });
});

describe('publishTrustRootVersion', () => {
  it('writes the document and its signed statement, which read back, list and verify as a chain', async () => {
    const dir = freshFolder();
    const { one, two } = await publishTwo(dir);
    expect([one.created, two.created]).toEqual([true, true]);
    expect(await listTrustRootVersions(dir)).toEqual([1, 2]);
    expect((await readdir(dir)).sort()).toEqual(['v1.json', 'v1.sigstore.json', 'v2.json', 'v2.sigstore.json']);
    const paths = trustRootVersionPaths(dir, 2);
    expect(await readFile(paths.document, 'utf8')).toBe(trustRootText(v2()));
    expect(await readTrustRootVersion(dir, 2)).toEqual({
      version: 2,
      document: v2(),
      documentText: trustRootText(v2()),
      signatureText: await readFile(paths.signature, 'utf8'),
    });
    expect((await latestTrustRootVersion(dir))?.version).toBe(2);
    expect((await verifyPublishedChain(dir)).map((published) => trustRootDigest(published.document))).toEqual([
      trustRootDigest(v1()),
      trustRootDigest(v2()),
    ]);
    expect(await advanceTrustRoot(v1(), publishedVersionFetcher(dir))).toEqual(v2());
  });

  it('is idempotent: publishing a version again changes no byte', async () => {
    const dir = freshFolder();
    await publishTwo(dir);
    const before = await readFile(trustRootVersionPaths(dir, 2).signature);
    const again = await publishTrustRootVersion(dir, v2(), {
      signer: keyedSigner(first),
      signedAt: new Date('2026-04-02T00:00:00Z'),
      vouchedBy: v1(),
    });
    expect(again.created).toBe(false);
    expect((await readFile(trustRootVersionPaths(dir, 2).signature)).equals(before)).toBe(true);
  });

  it('never replaces a published version with another document', async () => {
    const dir = freshFolder();
    await publishTwo(dir);
    const other = rotateKey(v1(), first.keyId, stranger, {
      validFrom: '2026-04-01T00:00:00Z',
      retiredAt: '2026-04-01T00:00:05Z',
    });
    expect(
      await codeOf(
        publishTrustRootVersion(dir, other, {
          signer: keyedSigner(first),
          signedAt: new Date('2026-04-01T00:00:05Z'),
          vouchedBy: v1(),
        }),
      ),
    ).toBe('trust-root-invalid');
    expect(await readTrustRootDocument(dir, 2)).toEqual(v2());
  });

  it('signs a document a crash left unsigned, and does not count it as published before', async () => {
    const dir = freshFolder();
    await publishTrustRootVersion(dir, v1(), {
      signer: keyedSigner(first),
      signedAt: new Date('2026-01-01T00:00:00Z'),
      vouchedBy: 'self',
    });
    await writeFileOnce(trustRootVersionPaths(dir, 2).document, trustRootText(v2()));
    expect(await listTrustRootVersions(dir)).toEqual([1]);
    expect(await readTrustRootVersion(dir, 2)).toBeNull();
    expect(await readTrustRootDocument(dir, 2)).toEqual(v2());
    const completed = await publishTrustRootVersion(dir, v2(), {
      signer: keyedSigner(first),
      signedAt: new Date('2026-04-01T00:00:05Z'),
      vouchedBy: v1(),
    });
    expect(completed.created).toBe(true);
    expect(await listTrustRootVersions(dir)).toEqual([1, 2]);
  });

  it('writes no signature that does not verify: a first version its key is not in, a next one its predecessor does not trust', async () => {
    const dir = freshFolder();
    expect(
      await codeOf(
        publishTrustRootVersion(dir, v1(), {
          signer: keyedSigner(stranger),
          signedAt: new Date('2026-01-01T00:00:00Z'),
          vouchedBy: 'self',
        }),
      ),
    ).toBe('trust-root-unverified');
    expect(await readdir(dir)).toEqual(['v1.json']);
    await publishTrustRootVersion(dir, v1(), {
      signer: keyedSigner(first),
      signedAt: new Date('2026-01-01T00:00:00Z'),
      vouchedBy: 'self',
    });
    // The new key signing its own introduction: version 1 does not trust it.
    expect(
      await codeOf(
        publishTrustRootVersion(dir, v2(), {
          signer: keyedSigner(second),
          signedAt: new Date('2026-04-01T00:00:05Z'),
          vouchedBy: v1(),
        }),
      ),
    ).toBe('trust-root-unverified');
    expect(await listTrustRootVersions(dir)).toEqual([1]);
  });
});

describe('verifyPublishedChain', () => {
  it('refuses a chain with a version missing in between', async () => {
    const dir = freshFolder();
    await publishTwo(dir);
    const v3 = rotateKey(v2(), second.keyId, stranger, {
      validFrom: '2026-07-01T00:00:00Z',
      retiredAt: '2026-07-01T00:00:01Z',
    });
    await publishTrustRootVersion(dir, v3, {
      signer: keyedSigner(second),
      signedAt: new Date('2026-07-01T00:00:01Z'),
      vouchedBy: v2(),
    });
    await rm(trustRootVersionPaths(dir, 2).document);
    await rm(trustRootVersionPaths(dir, 2).signature);
    expect(await codeOf(verifyPublishedChain(dir))).toBe('trust-root-invalid');
  });

  it('refuses a first version whose signature is not its own key', async () => {
    const dir = freshFolder();
    const { two } = await publishTwo(dir);
    // Version 1's signature swapped for version 2's: valid, by a trusted key, but over another document.
    await writeFile(trustRootVersionPaths(dir, 1).signature, two.published.signatureText);
    expect(await codeOf(verifyPublishedChain(dir))).toBe('trust-root-unverified');
  });

  it('is empty for a folder that does not exist yet', async () => {
    expect(await verifyPublishedChain(path.join(root, 'absent'))).toEqual([]);
    expect(await latestTrustRootVersion(path.join(root, 'absent'))).toBeNull();
  });
});

describe('verifyNextTrustRoot', () => {
  it('refuses a next version signed by a key the current version retired, even with a signedAt inside its old window', async () => {
    const dir = freshFolder();
    await publishTwo(dir);
    // The retired first key leaked: it signs a version 3 that trusts a stranger, backdated to before its retirement.
    const forged = addKey(v2(), stranger, '2026-04-01T00:00:00Z');
    const backdated = await keyedSigner(first).sign(trustRootStatement(forged, new Date('2026-04-01T00:00:01Z')));
    expect(await codeOf(verifyNextTrustRoot(v2(), { document: forged, signature: backdated }))).toBe(
      'trust-root-unverified',
    );
    // The same document signed by the key version 2 holds active is accepted.
    const genuine = await keyedSigner(second).sign(trustRootStatement(forged, new Date('2026-04-01T00:00:01Z')));
    await expect(verifyNextTrustRoot(v2(), { document: forged, signature: genuine })).resolves.toEqual(forged);
  });
});
