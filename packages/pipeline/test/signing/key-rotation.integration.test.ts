// Key rotation through the real `abp` command: `abp init` publishes and logs trust root version 1 (and upgrades a data
// directory made before versions were published); `abp keys rotate` retires the signing key in a new version the old
// key signs, without invalidating what it signed before; a consumer pinned to version 1 walks forward; forged versions
// are refused; a running signer follows the new key; and a rotation cut short after any step is completed by a re-run.
import { createHash } from 'node:crypto';
import { chmod, mkdtemp, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrustRoot } from '@abp/protocol/schemas/abp-trust-root';
import { signingPaths } from '../../src/signing/home.js';
import {
  initSigning,
  readRotationRecord,
  retiredKeyPath,
  ROTATION_STEPS,
  rotationPaths,
  runRotationStep,
  type RotationResult,
} from '../../src/signing/key-rotation.js';
import {
  createSigningKey,
  loadSigningKey,
  loadSigningKeyFile,
  SIGNING_KEY_FILE,
  type SigningKey,
} from '../../src/signing/keys.js';
import { createSigner, keyedSigner, type SerializedBundle, type Signer } from '../../src/signing/signer.js';
import {
  AGING_TRANSITION_PREDICATE,
  createAgingTransitionStatement,
  signedAtOf,
  trustRootSubjectName,
  type Statement,
} from '@abp/protocol/signing/statement';
import { advanceTrustRoot, trustRootDigest, trustRootStatement, verifyNextTrustRoot } from '@abp/grader/trust';
import {
  publishedVersionFetcher,
  readTrustRootDocument,
  readTrustRootVersion,
  trustRootVersionPaths,
} from '../../src/signing/trust-root-versions.js';
import {
  createTrustRoot,
  findKey,
  loadTrustRoot,
  rotateKey,
  saveTrustRoot,
  trustRootText,
} from '@abp/protocol/signing/trust-root';
import { verifyStatementBundle } from '@abp/grader/trust';
import { writeFileOnce } from '@abp/protocol/files/durable-files';
import { auditLog } from '@abp/grader/audit';
import { parseEntries, readEntryLines } from '@abp/protocol/transparency/log';
import { runAbp, type CliResult } from '../support/cli.js';
import { codeOf } from './signing-error.js';

let root: string;
let homes = 0;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'abp-key-rotation-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const freshHome = () => path.join(root, `home-${++homes}`);

/** Runs the real command as a child process, as a user would: `abp <args>` with ABP_HOME=home. */
const abp = (home: string, args: string[]): Promise<CliResult> => runAbp(args, { ABP_HOME: home });

function parsed<T>(result: CliResult): T {
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as T;
}

/** A signed record other than a trust root: an aging transition, made at `signedAt`. */
function agingStatement(signedAt: string): Statement {
  return createAgingTransitionStatement({
    taskId: 'gh-acme-widgets-42',
    bundleDigest: `sha256:${createHash('sha256').update('bundle').digest('hex')}`,
    from: 'scored',
    to: 'practice',
    mergedAt: '2026-01-01T00:00:00Z',
    scoredUntil: '2026-06-30T00:00:00Z',
    signedAt,
  });
}

function verifyAging(bundle: SerializedBundle, trustRoot: TrustRoot) {
  return verifyStatementBundle(bundle, trustRoot, {
    subjects: [{ sha256: createHash('sha256').update('bundle').digest('hex') }],
    predicateType: AGING_TRANSITION_PREDICATE,
  });
}

const plusSeconds = (timestamp: string, seconds: number) =>
  signedAtOf(new Date(Date.parse(timestamp) + seconds * 1000));

async function logEntries(home: string) {
  return parseEntries((await readEntryLines(signingPaths(home).log)).lines);
}

async function audit(home: string, trustRoot: TrustRoot) {
  return auditLog(
    signingPaths(home).log,
    trustRoot.keys.map((key) => ({ publicKeyPem: key.publicKeyPem, keyId: key.keyId })),
  );
}

const modeOf = async (file: string) => (await stat(file)).mode & 0o777;

describe('abp init', () => {
  it('publishes trust root version 1, signed by its own key, and logs it; a second run changes no byte', async () => {
    const home = freshHome();
    const paths = signingPaths(home);
    const init = parsed<{ keyId: string; created: boolean; trustRootVersion: number }>(
      await abp(home, ['init', '--json']),
    );
    expect(init).toMatchObject({ created: true, trustRootVersion: 1 });
    expect((await readdir(paths.trustRoots)).sort()).toEqual(['v1.json', 'v1.sigstore.json']);
    const published = await readTrustRootVersion(paths.trustRoots, 1);
    expect(published?.document.keys.map((key) => key.keyId)).toEqual([init.keyId]);
    expect(await readFile(paths.trustRoot, 'utf8')).toBe(published?.documentText);
    const signature = JSON.parse(published?.signatureText ?? '') as unknown;
    await expect(
      verifyStatementBundle(signature, await loadTrustRoot(paths.trustRoot), {
        subjects: [{ name: 'abp-trust-root/v1', sha256: trustRootDigest(published!.document).slice(7) }],
      }),
    ).resolves.toMatchObject({ keyId: init.keyId });
    const entries = await logEntries(home);
    expect(entries.map((entry) => [entry.kind, entry.subject])).toEqual([['trust-root', 'abp-trust-root/v1']]);
    expect(entries[0]?.digest).toBe(`sha256:${createHash('sha256').update(published!.signatureText).digest('hex')}`);

    const files = async () =>
      Promise.all(
        ['trust-root.json', 'trust-roots/v1.json', 'trust-roots/v1.sigstore.json', 'log/entries.jsonl'].map((name) =>
          readFile(path.join(home, name), 'utf8'),
        ),
      );
    const before = await files();
    expect(parsed(await abp(home, ['init', '--json']))).toMatchObject({
      keyId: init.keyId,
      created: false,
      trustRootVersion: 1,
    });
    expect(await files()).toEqual(before);
  });

  it('upgrades a data directory an older `abp init` made (a key and trust-root.json, no versions) without changing its trust root', async () => {
    const home = freshHome();
    const paths = signingPaths(home);
    // What `abp init` wrote before versions were published.
    const key = await createSigningKey(paths.keyDir);
    await saveTrustRoot(paths.trustRoot, createTrustRoot(key, '2026-01-01T00:00:00Z'));
    const before = await readFile(paths.trustRoot, 'utf8');
    parsed(await abp(home, ['init', '--json']));
    expect(await readFile(paths.trustRoot, 'utf8')).toBe(before);
    expect(await readFile(trustRootVersionPaths(paths.trustRoots, 1).document, 'utf8')).toBe(before);
    expect((await logEntries(home)).map((entry) => entry.subject)).toEqual(['abp-trust-root/v1']);
  });

  it('refuses to make a new key when the trust root lists one that is gone, rather than trust an unvouched key', async () => {
    const home = freshHome();
    parsed(await abp(home, ['init', '--json']));
    await rm(path.join(signingPaths(home).keyDir, SIGNING_KEY_FILE));
    const result = await abp(home, ['init', '--json']);
    expect(result.code).toBe(1);
    expect((JSON.parse(result.stdout) as { error: { code: string } }).error.code).toBe('key-missing');
    expect(await readdir(signingPaths(home).keyDir)).toEqual([]);
  });
});

describe('abp keys rotate', () => {
  let home: string;
  let paths: ReturnType<typeof signingPaths>;
  let firstKey: SigningKey;
  let runningSigner: Signer;
  let signedBefore: SerializedBundle;
  let rotated: RotationResult;
  let v2: TrustRoot;

  beforeAll(async () => {
    home = freshHome();
    paths = signingPaths(home);
    parsed(await abp(home, ['init', '--json']));
    firstKey = await loadSigningKey(paths.keyDir);
    // The worker's signer: created once, kept across the rotation.
    runningSigner = await createSigner({ keyDir: paths.keyDir });
    signedBefore = await runningSigner.sign(agingStatement(signedAtOf(new Date())));
    rotated = parsed<RotationResult>(await abp(home, ['keys', 'rotate', '--json']));
    v2 = await loadTrustRoot(paths.trustRoot);
  });

  it('swaps in a new key, keeps the old one under keys/retired/ (0600), and publishes version 2 with both windows', async () => {
    expect(rotated).toMatchObject({
      from: firstKey.keyId,
      version: 2,
      resumed: false,
      retiredKey: retiredKeyPath(home, firstKey.keyId),
    });
    const active = await loadSigningKey(paths.keyDir);
    expect(active.keyId).toBe(rotated.to);
    expect(rotated.to).not.toBe(firstKey.keyId);
    expect((await loadSigningKeyFile(rotated.retiredKey)).keyId).toBe(firstKey.keyId);
    expect(await modeOf(rotated.retiredKey)).toBe(0o600);
    expect(await modeOf(path.join(paths.keyDir, SIGNING_KEY_FILE))).toBe(0o600);
    expect(await modeOf(path.dirname(rotated.retiredKey))).toBe(0o700);
    expect((await readdir(paths.keyDir)).sort()).toEqual(['retired', SIGNING_KEY_FILE]);

    expect(v2.version).toBe(2);
    expect(findKey(v2, firstKey.keyId)).toMatchObject({ retiredAt: rotated.retiredAt });
    expect(findKey(v2, rotated.to)).toEqual(
      expect.objectContaining({ validFrom: rotated.validFrom, validUntil: null }),
    );
    expect(findKey(v2, rotated.to)?.retiredAt).toBeUndefined();
    expect(Date.parse(rotated.validFrom)).toBeLessThanOrEqual(Date.parse(rotated.retiredAt));
    expect(await readFile(paths.trustRoot, 'utf8')).toBe(
      await readFile(trustRootVersionPaths(paths.trustRoots, 2).document, 'utf8'),
    );
    expect(await readRotationRecord(home)).toBeNull();
  });

  it('keeps valid what the old key signed before it retired', async () => {
    await expect(verifyAging(signedBefore, v2)).resolves.toMatchObject({ keyId: firstKey.keyId });
  });

  it('refuses what the old key signs after it retired: key-retired', async () => {
    const old = keyedSigner(await loadSigningKeyFile(rotated.retiredKey));
    const late = await old.sign(agingStatement(plusSeconds(rotated.retiredAt, 1)));
    expect(await codeOf(verifyAging(late, v2))).toBe('key-retired');
    const atRetirement = await old.sign(agingStatement(rotated.retiredAt));
    await expect(verifyAging(atRetirement, v2)).resolves.toMatchObject({ keyId: firstKey.keyId });
  });

  it('has a running signer sign with the new key without a restart, and say so in keyId', async () => {
    expect(runningSigner.keyId).toBe(rotated.to);
    const bundle = await runningSigner.sign(agingStatement(signedAtOf(new Date())));
    expect(bundle.verificationMaterial.publicKey?.hint).toBe(rotated.to);
    await expect(verifyAging(bundle, v2)).resolves.toMatchObject({ keyId: rotated.to });
    // Version 1 does not know the new key: a consumer must advance first.
    expect(await codeOf(verifyAging(bundle, createTrustRoot(firstKey, '2026-01-01T00:00:00Z')))).toBe('unknown-key');
  });

  it('lets a consumer pinned to version 1 walk forward to version 3, verifying each step', async () => {
    const third = parsed<RotationResult>(await abp(home, ['keys', 'rotate', '--json']));
    expect(third).toMatchObject({ from: rotated.to, version: 3, resumed: false });
    const pinned = await readTrustRootDocument(paths.trustRoots, 1);
    if (pinned === null) throw new Error('version 1 is published');
    const visited: number[] = [];
    const fetcher = publishedVersionFetcher(paths.trustRoots);
    const newest = await advanceTrustRoot(pinned, (version) => {
      visited.push(version);
      return fetcher(version);
    });
    expect(visited).toEqual([2, 3, 4]);
    expect(newest).toEqual(await loadTrustRoot(paths.trustRoot));
    expect(newest.keys.map((key) => [key.keyId, key.retiredAt !== undefined])).toEqual([
      [firstKey.keyId, true],
      [rotated.to, true],
      [third.to, false],
    ]);
    // What each key signed while it was the signing key still verifies against the newest version.
    await expect(verifyAging(signedBefore, newest)).resolves.toMatchObject({ keyId: firstKey.keyId });
  });

  it('refuses a forged version 2: signed by a key version 1 does not trust, by the new key itself, or edited after signing', async () => {
    const v1 = await readTrustRootDocument(paths.trustRoots, 1);
    const genuine = await readTrustRootVersion(paths.trustRoots, 2);
    if (v1 === null || genuine === null) throw new Error('versions 1 and 2 are published');
    const stranger = await createSigningKey(path.join(root, 'stranger'));
    const forged = rotateKey(v1, firstKey.keyId, stranger, {
      validFrom: rotated.validFrom,
      retiredAt: rotated.retiredAt,
    });
    const byStranger = await keyedSigner(stranger).sign(trustRootStatement(forged, new Date(rotated.retiredAt)));
    expect(await codeOf(verifyNextTrustRoot(v1, { document: forged, signature: byStranger }))).toBe(
      'trust-root-unverified',
    );
    const serveForged = (version: number) =>
      Promise.resolve(version === 2 ? { document: forged, signature: byStranger } : null);
    expect(await codeOf(advanceTrustRoot(v1, serveForged))).toBe('trust-root-unverified');

    const newKey = await loadSigningKeyFile(path.join(paths.keyDir, 'retired', `${rotated.to}.pem`));
    const bySelf = await keyedSigner(newKey).sign(trustRootStatement(genuine.document, new Date(rotated.retiredAt)));
    expect(await codeOf(verifyNextTrustRoot(v1, { document: genuine.document, signature: bySelf }))).toBe(
      'trust-root-unverified',
    );

    const signature = JSON.parse(genuine.signatureText) as unknown;
    const edited = {
      ...genuine.document,
      keys: genuine.document.keys.map((key) =>
        key.keyId === firstKey.keyId ? { ...key, retiredAt: plusSeconds(rotated.retiredAt, 3600) } : key,
      ),
    };
    expect(await codeOf(verifyNextTrustRoot(v1, { document: edited, signature }))).toBe('trust-root-unverified');
    await expect(
      verifyNextTrustRoot(v1, { document: JSON.parse(genuine.documentText) as unknown, signature }),
    ).resolves.toEqual(genuine.document);
  });

  it('keeps `abp audit log` passing, with every version in the log and checkpoints by each key in turn', async () => {
    const audited = parsed<{ size: number; checkpointSizes: number[] }>(await abp(home, ['audit', 'log', '--json']));
    const entries = await logEntries(home);
    expect(entries.filter((entry) => entry.kind === 'trust-root').map((entry) => entry.subject)).toEqual(
      [1, 2, 3].map(trustRootSubjectName),
    );
    expect(audited.size).toBe(entries.length);
    const checkpoints = await readdir(path.join(paths.log, 'checkpoints'));
    const signers = new Set(
      await Promise.all(
        checkpoints.map(
          async (name) =>
            (JSON.parse(await readFile(path.join(paths.log, 'checkpoints', name), 'utf8')) as { keyId: string }).keyId,
        ),
      ),
    );
    expect(signers.size).toBeGreaterThanOrEqual(2);
  });

  it('lists every key with its window and state', async () => {
    const listed = parsed<{
      version: number;
      keys: Array<{
        keyId: string;
        state: string;
        signing: boolean;
        privateKey: string | null;
        retiredAt: string | null;
      }>;
    }>(await abp(home, ['keys', 'list', '--json']));
    expect(listed.version).toBe(3);
    expect(listed.keys.map((key) => [key.state, key.signing])).toEqual([
      ['retired', false],
      ['retired', false],
      ['active', true],
    ]);
    expect(listed.keys[0]).toMatchObject({
      keyId: firstKey.keyId,
      retiredAt: rotated.retiredAt,
      privateKey: rotated.retiredKey,
    });
    const text = await abp(home, ['keys', 'list']);
    expect(text.stdout).toContain(`${firstKey.keyId}  retired`);
    expect(text.stdout).toContain('destroy it or move it offline');
  });
});

describe('a keyed signer over a key folder', () => {
  it('follows a key renamed over its file, in keyId before any signature and in the next signature', async () => {
    const keyDir = path.join(root, 'follow', 'keys');
    const first = await createSigningKey(keyDir);
    const signer = await createSigner({ keyDir });
    expect(signer.keyId).toBe(first.keyId);
    const replacement = await createSigningKey(path.join(root, 'follow', 'next'));
    await rename(path.join(root, 'follow', 'next', SIGNING_KEY_FILE), path.join(keyDir, SIGNING_KEY_FILE));
    expect(signer.keyId).toBe(replacement.keyId);
    const bundle = await signer.sign(agingStatement('2026-07-01T00:00:00Z'));
    expect(bundle.verificationMaterial.publicKey?.hint).toBe(replacement.keyId);
    await expect(verifyAging(bundle, createTrustRoot(replacement, '2026-01-01T00:00:00Z'))).resolves.toMatchObject({
      keyId: replacement.keyId,
    });
  });

  it('checks a replaced key file as it checked the first: one others may read signs nothing', async () => {
    const keyDir = path.join(root, 'loose', 'keys');
    await createSigningKey(keyDir);
    const signer = await createSigner({ keyDir });
    await createSigningKey(path.join(root, 'loose', 'next'));
    await chmod(path.join(root, 'loose', 'next', SIGNING_KEY_FILE), 0o644);
    await rename(path.join(root, 'loose', 'next', SIGNING_KEY_FILE), path.join(keyDir, SIGNING_KEY_FILE));
    expect(await codeOf(signer.sign(agingStatement('2026-07-01T00:00:00Z')))).toBe('key-permissions');
  });
});

describe('a rotation cut short', () => {
  /** A data directory with version 1 published, a statement signed by its key, and a rotation run up to `steps`. */
  async function cutShort(steps: number) {
    const home = freshHome();
    const paths = signingPaths(home);
    await initSigning(home);
    const firstKey = await loadSigningKey(paths.keyDir);
    const signer = await createSigner({ keyDir: paths.keyDir });
    const signedBefore = await signer.sign(agingStatement(signedAtOf(new Date())));
    for (const step of ROTATION_STEPS.slice(0, steps)) await runRotationStep(home, step);
    return { home, paths, firstKey, signer, signedBefore, record: await readRotationRecord(home) };
  }

  /** The state every completed rotation from version 1 leaves, whichever run completed it. */
  async function expectCompleted(home: string, firstKey: SigningKey, newKeyId: string | null) {
    const paths = signingPaths(home);
    expect((await readdir(paths.trustRoots)).sort()).toEqual([
      'v1.json',
      'v1.sigstore.json',
      'v2.json',
      'v2.sigstore.json',
    ]);
    const v2 = await advanceTrustRoot(
      (await readTrustRootDocument(paths.trustRoots, 1))!,
      publishedVersionFetcher(paths.trustRoots),
    );
    expect(v2.version).toBe(2);
    expect(await loadTrustRoot(paths.trustRoot)).toEqual(v2);
    const active = await loadSigningKey(paths.keyDir);
    if (newKeyId !== null) expect(active.keyId).toBe(newKeyId);
    expect(findKey(v2, firstKey.keyId)?.retiredAt).toBeDefined();
    expect(findKey(v2, active.keyId)).toMatchObject({ validUntil: null });
    expect((await loadSigningKeyFile(retiredKeyPath(home, firstKey.keyId))).keyId).toBe(firstKey.keyId);
    expect((await readdir(paths.keyDir)).sort()).toEqual(['retired', SIGNING_KEY_FILE]);
    expect(
      (await logEntries(home)).filter((entry) => entry.kind === 'trust-root').map((entry) => entry.subject),
    ).toEqual(['abp-trust-root/v1', 'abp-trust-root/v2']);
    await audit(home, v2);
    return v2;
  }

  it.each(ROTATION_STEPS.slice(0, -1).map((step, index) => [step, index + 1] as const))(
    'after %s is completed by `abp keys rotate`, which starts no second rotation',
    async (_step, steps) => {
      const { home, firstKey, signedBefore, record } = await cutShort(steps);
      expect(record).not.toBeNull();
      const completed = parsed<RotationResult>(await abp(home, ['keys', 'rotate', '--json']));
      expect(completed).toMatchObject({
        from: firstKey.keyId,
        to: record?.to,
        version: 2,
        resumed: true,
        validFrom: record?.validFrom,
      });
      const v2 = await expectCompleted(home, firstKey, record?.to ?? null);
      await expect(verifyAging(signedBefore, v2)).resolves.toMatchObject({ keyId: firstKey.keyId });
    },
  );

  it.each([
    ['stage', 1],
    ['swap', 3],
    ['publish', 4],
  ] as const)('after %s is completed by `abp init`', async (_step, steps) => {
    const { home, firstKey, record } = await cutShort(steps);
    const init = parsed<{ trustRootVersion: number; completedRotation: RotationResult | null }>(
      await abp(home, ['init', '--json']),
    );
    expect(init).toMatchObject({ trustRootVersion: 2, completedRotation: { to: record?.to, resumed: true } });
    await expectCompleted(home, firstKey, record?.to ?? null);
  });

  it('signs and completes a version 2 whose document a crash wrote without its signature', async () => {
    const { home, paths, firstKey, record } = await cutShort(3);
    if (record === null) throw new Error('a rotation is in progress');
    const v1 = (await readTrustRootDocument(paths.trustRoots, 1))!;
    const newKey = await loadSigningKey(paths.keyDir);
    const document = rotateKey(v1, firstKey.keyId, newKey, {
      validFrom: record.validFrom,
      retiredAt: record.validFrom,
    });
    await writeFileOnce(trustRootVersionPaths(paths.trustRoots, 2).document, trustRootText(document));
    parsed(await abp(home, ['keys', 'rotate', '--json']));
    const v2 = await expectCompleted(home, firstKey, record.to);
    expect(trustRootDigest(v2)).toBe(trustRootDigest(document));
  });

  it('uses a key a crash left staged before the plan was written, and trusts no other', async () => {
    const { home, firstKey, record } = await cutShort(0);
    expect(record).toBeNull();
    const staged = await createSigningKey(rotationPaths(home).staging);
    const completed = parsed<RotationResult>(await abp(home, ['keys', 'rotate', '--json']));
    expect(completed).toMatchObject({ from: firstKey.keyId, to: staged.keyId, resumed: false });
    await expectCompleted(home, firstKey, staged.keyId);
  });

  it('makes what the new key signed between the swap and the publication valid once the version is out', async () => {
    const { home, signer, firstKey, record } = await cutShort(3);
    // The worker keeps signing while the rotation is stopped: with the new key, which no published version lists yet.
    const signedMeanwhile = await signer.sign(agingStatement(signedAtOf(new Date())));
    expect(signedMeanwhile.verificationMaterial.publicKey?.hint).toBe(record?.to);
    expect(await codeOf(verifyAging(signedMeanwhile, await loadTrustRoot(signingPaths(home).trustRoot)))).toBe(
      'unknown-key',
    );
    parsed(await abp(home, ['keys', 'rotate', '--json']));
    const v2 = await expectCompleted(home, firstKey, record?.to ?? null);
    await expect(verifyAging(signedMeanwhile, v2)).resolves.toMatchObject({ keyId: record?.to });
  });
});
