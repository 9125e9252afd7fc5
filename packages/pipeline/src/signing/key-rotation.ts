// Rotating the operator's signing key (`abp keys rotate`) and keeping the published trust root chain whole (`abp init`).
// A rotation is a fixed sequence of idempotent steps, each of which reads the state it needs from disk, so a crash
// between any two leaves a state the next `abp keys rotate` or `abp init` completes; no step ever deletes a key that is
// not also kept elsewhere, and a published version is written once, so no crash publishes two different versions N+1.
//
// The steps, and why in this order:
//   stage    the new key is created in keys/next/ and the rotation's plan (old key, new key, version N, the new key's
//            validFrom) in keys/next/rotation.json; nothing anyone reads has changed yet.
//   retire   the old key is hard-linked to keys/retired/<keyId>.pem (mode 0600): from here it is kept twice.
//   swap     the new key is renamed over keys/signing-key.pem: one atomic rename, so the file always holds a key, and a
//            running worker (a keyed signer follows its file) signs with the new key from its next signature on.
//   publish  trust root N+1 (the old key retiredAt now, the new key valid from the staging time) is signed by the old
//            key, from its retired copy, and published to trust-roots/.
//   adopt    trust-root.json becomes version N+1.
//   log      every published version's statement is in the transparency log (a checkpoint signed by the new key).
//   finish   keys/next/ is removed: the rotation is over.
// The swap comes before publish on purpose: the other order leaves a window (long, if the process dies in it) in which
// the old key still signs after the retiredAt that N+1 gives it, which are signatures no verifier will ever accept.
// In this order the new key may sign before N+1 is out, and those signatures verify once it is, since its window opens
// at the staging time, before the swap. The old key's last signatures fall before retiredAt, which is taken after the swap.
import { link, mkdir, readFile, rename, rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { TrustRoot } from '@abp/protocol/schemas/abp-trust-root';
import { plainWordsParseOptions } from '@abp/protocol/schemas/issues';
import { positiveInt, utcTimestamp } from '@abp/protocol/schemas/primitives';
import { syncFolder, writeFileOnce } from '@abp/protocol/files/durable-files';
import { describeIssues } from '@abp/protocol/schemas/issues';
import { SigningError } from '@abp/protocol/signing/errors';
import { signingPaths } from './home.js';
import { createSigningKey, loadSigningKey, loadSigningKeyFile, SIGNING_KEY_FILE, type SigningKey } from './keys.js';
import { loadOperatorAttestor } from './operator.js';
import { keyedSigner } from './signer.js';
import { signedAtOf, trustRootSubjectName } from '@abp/protocol/signing/statement';
import { trustRootDigest } from '@abp/grader/trust';
import {
  publishTrustRootVersion,
  readTrustRootDocument,
  verifyPublishedChain,
  type PublishedTrustRoot,
} from './trust-root-versions.js';
import {
  createTrustRoot,
  findKey,
  keyStateAt,
  loadTrustRoot,
  rotateKey,
  saveTrustRoot,
  type PublicSigningKey,
} from '@abp/protocol/signing/trust-root';

export const ROTATION_STEPS = ['stage', 'retire', 'swap', 'publish', 'adopt', 'log', 'finish'] as const;
export type RotationStep = (typeof ROTATION_STEPS)[number];

/** Where a rotation keeps its files, beside the signing key. */
export function rotationPaths(home: string) {
  const { keyDir } = signingPaths(home);
  const staging = join(keyDir, 'next');
  return {
    activeKey: join(keyDir, SIGNING_KEY_FILE),
    /** The rotation in progress: the new key and the plan. Gone once the rotation is finished. */
    staging,
    stagedKey: join(staging, SIGNING_KEY_FILE),
    record: join(staging, 'rotation.json'),
    /** Old private keys, `<keyId>.pem`, mode 0600: to be destroyed or moved offline by the operator. */
    retired: join(keyDir, 'retired'),
  };
}

export function retiredKeyPath(home: string, keyId: string): string {
  return join(rotationPaths(home).retired, `${keyId}.pem`);
}

const keyIdText = z.string().regex(/^[0-9a-f]{64}$/, { error: 'must be a key id: 64 lowercase hex digits' });

/** The plan of a rotation, fixed before the swap so that every re-run carries it out the same way. */
const rotationRecordSchema = z.strictObject({
  from: keyIdText.describe('The key being retired.'),
  to: keyIdText.describe('The key replacing it.'),
  fromVersion: positiveInt.describe('The trust root version the rotation starts from; it publishes fromVersion + 1.'),
  validFrom: utcTimestamp.describe("The new key's validFrom: the staging time, before the new key can sign anything."),
});
export type RotationRecord = z.infer<typeof rotationRecordSchema>;

export interface RotationOptions {
  /** The clock; the real one by default. */
  now?: () => Date;
}

export interface RotationResult {
  from: string;
  to: string;
  /** The trust root version the rotation published. */
  version: number;
  validFrom: string;
  retiredAt: string;
  /** Where the old private key now is; the operator destroys it or moves it offline. */
  retiredKey: string;
  /** The published version's index in the transparency log. */
  logIndex: number | null;
  /** True when this run completed a rotation an earlier run left unfinished, and started none. */
  resumed: boolean;
}

const exists = (error: unknown) => (error as NodeJS.ErrnoException).code === 'EEXIST';

/** The rotation in progress, or null. */
export async function readRotationRecord(home: string): Promise<RotationRecord | null> {
  const path = rotationPaths(home).record;
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new SigningError(
      'key-invalid',
      `${path} is not JSON (${(error as Error).message}): it records a rotation in progress; restore it, or if the rotation never swapped keys remove ${rotationPaths(home).staging} to start again`,
      { cause: error },
    );
  }
  const parsed = rotationRecordSchema.safeParse(value, plainWordsParseOptions);
  if (!parsed.success)
    throw new SigningError('key-invalid', `${path} is not a rotation record: ${describeIssues(parsed.error.issues)}`);
  return parsed.data;
}

async function requireRecord(home: string, step: RotationStep): Promise<RotationRecord> {
  const record = await readRotationRecord(home);
  if (record === null)
    throw new Error(
      `rotation step ${step} needs a rotation in progress (${rotationPaths(home).record}); run the steps in order`,
    );
  return record;
}

/** The key with id `keyId` from the first of `paths` that holds it; null when none does. */
async function findPrivateKey(keyId: string, paths: string[]): Promise<SigningKey | null> {
  for (const path of paths) {
    const key = await loadSigningKeyFile(path).catch((error: unknown) => {
      if (error instanceof SigningError && error.code === 'key-missing') return null;
      throw error;
    });
    if (key?.keyId === keyId) return key;
  }
  return null;
}

/**
 * Makes trust-root.json the newest published version, once the published chain verifies: it follows the chain after a
 * crash between publish and adopt. A trust-root.json that is not a published version is refused, never overwritten.
 */
async function adoptLatest(home: string, chain: PublishedTrustRoot[]): Promise<TrustRoot> {
  const paths = signingPaths(home);
  const latest = chain.at(-1);
  if (latest === undefined) throw new Error('adoptLatest needs a published version');
  const current = await loadTrustRoot(paths.trustRoot).catch((error: unknown) => {
    if (error instanceof SigningError && error.code === 'trust-root-missing') return null;
    throw error;
  });
  if (current !== null) {
    const published = chain.find((entry) => entry.version === current.version);
    if (published === undefined) {
      throw new SigningError(
        'trust-root-invalid',
        `${paths.trustRoot} is version ${current.version}, but ${paths.trustRoots} holds versions ${chain[0]?.version ?? '?'} to ${latest.version}: a trust root version reaches consumers only when published; restore ${paths.trustRoot} from ${paths.trustRoots}/v${latest.version}.json`,
      );
    }
    if (trustRootDigest(published.document) !== trustRootDigest(current)) {
      throw new SigningError(
        'trust-root-invalid',
        `${paths.trustRoot} differs from the published version ${current.version} (${paths.trustRoots}/v${current.version}.json): it was edited after publication; restore it from ${paths.trustRoots}/v${latest.version}.json`,
      );
    }
    if (current.version === latest.version) return current;
  }
  await saveTrustRoot(paths.trustRoot, latest.document);
  return latest.document;
}

/** Appends each published version's statement to the transparency log (idempotent); returns their log indices. */
async function logVersions(home: string, chain: PublishedTrustRoot[]): Promise<Map<number, number | null>> {
  const attestor = await loadOperatorAttestor(home);
  const indices = new Map<number, number | null>();
  for (const published of chain) {
    indices.set(
      published.version,
      await attestor.logSignature('trust-root', trustRootSubjectName(published.version), published.signatureText),
    );
  }
  return indices;
}

export interface TrustRootChainState {
  /** The newest published version, which trust-root.json now is. */
  latest: PublishedTrustRoot;
  /** Whether this call published the first version (a new data directory, or one made before versions were published). */
  publishedFirst: boolean;
}

/**
 * Makes the data directory's trust root chain whole: publishes the first version from trust-root.json, self-signed by
 * the signing key, when trust-roots/ holds none yet (a data directory from before versions were published is upgraded
 * so); makes trust-root.json the newest version; logs every version. Idempotent.
 */
export async function ensureTrustRootChain(home: string, options: RotationOptions = {}): Promise<TrustRootChainState> {
  const now = options.now ?? (() => new Date());
  const paths = signingPaths(home);
  let chain = await verifyPublishedChain(paths.trustRoots);
  let publishedFirst = false;
  if (chain.length === 0) {
    const current = await loadTrustRoot(paths.trustRoot);
    const key = await loadSigningKey(paths.keyDir);
    if (!findKey(current, key.keyId)) {
      throw new SigningError(
        'unknown-key',
        `${rotationPaths(home).activeKey} is key ${key.keyId}, which ${paths.trustRoot} (version ${current.version}) does not list, so it cannot sign that version: restore the key the trust root lists from your backup`,
      );
    }
    const { published, created } = await publishTrustRootVersion(paths.trustRoots, current, {
      signer: keyedSigner(key),
      signedAt: now(),
      vouchedBy: 'self',
    });
    chain = [published];
    publishedFirst = created;
  }
  await adoptLatest(home, chain);
  await logVersions(home, chain);
  const latest = chain.at(-1);
  if (latest === undefined) throw new Error('the chain holds a version here');
  return { latest, publishedFirst };
}

/**
 * `abp init`'s signing part: creates the signing key and the first trust root unless they exist, publishes and logs the
 * chain, and completes a rotation an earlier run left unfinished. Idempotent.
 */
export async function initSigning(
  home: string,
  options: RotationOptions = {},
): Promise<{ key: SigningKey; created: boolean; trustRoot: TrustRoot; completedRotation: RotationResult | null }> {
  const now = options.now ?? (() => new Date());
  const paths = signingPaths(home);
  let key: SigningKey;
  let created = false;
  try {
    key = await loadSigningKey(paths.keyDir);
  } catch (error) {
    if (!(error instanceof SigningError && error.code === 'key-missing')) throw error;
    // A trust root that exists already lists a key this one would not be: never paper over a lost key with a new one.
    const published = await verifyPublishedChain(paths.trustRoots);
    const current = await loadTrustRoot(paths.trustRoot).catch(() => null);
    if (published.length > 0 || current !== null) {
      throw new SigningError(
        'key-missing',
        `${rotationPaths(home).activeKey} is missing, but a trust root exists (${paths.trustRoot}): restore the key it lists from your backup; a new key cannot be trusted unless the old one signs for it`,
        { cause: error },
      );
    }
    key = await createSigningKey(paths.keyDir).catch(async (raced: unknown) => {
      if (raced instanceof SigningError && raced.code === 'key-exists') return loadSigningKey(paths.keyDir);
      throw raced;
    });
    created = true;
  }
  const completedRotation = (await readRotationRecord(home)) === null ? null : await rotateSigningKey(home, options);
  if ((await verifyPublishedChain(paths.trustRoots)).length === 0) {
    const current = await loadTrustRoot(paths.trustRoot).catch((error: unknown) => {
      if (error instanceof SigningError && error.code === 'trust-root-missing') return null;
      throw error;
    });
    if (current === null) await saveTrustRoot(paths.trustRoot, createTrustRoot(key, signedAtOf(now())));
  }
  const { latest } = await ensureTrustRootChain(home, options);
  return { key: await loadSigningKey(paths.keyDir), created, trustRoot: latest.document, completedRotation };
}

/** Whether `document` is what the rotation `record` makes of `base`: `from` retired, `to` added from record.validFrom. */
function isRotationOf(document: TrustRoot, base: TrustRoot, record: RotationRecord): boolean {
  const to = findKey(document, record.to);
  const retiredAt = findKey(document, record.from)?.retiredAt;
  if (to === undefined || retiredAt === undefined) return false;
  try {
    const expected = rotateKey(base, record.from, to, { validFrom: record.validFrom, retiredAt });
    return trustRootDigest(expected) === trustRootDigest(document);
  } catch (error) {
    if (error instanceof SigningError) return false;
    throw error;
  }
}

async function stage(home: string, now: () => Date): Promise<void> {
  if ((await readRotationRecord(home)) !== null) return;
  const paths = rotationPaths(home);
  const { latest } = await ensureTrustRootChain(home, { now });
  const active = await loadSigningKey(signingPaths(home).keyDir);
  const trusted = findKey(latest.document, active.keyId);
  if (trusted === undefined) {
    throw new SigningError(
      'unknown-key',
      `${paths.activeKey} is key ${active.keyId}, which trust root version ${latest.version} does not list: restore the key it lists from your backup before rotating`,
    );
  }
  const state = keyStateAt(trusted, now());
  if (state !== 'active') {
    throw new SigningError(
      state === 'retired' ? 'key-retired' : 'key-expired',
      `${paths.activeKey} is key ${active.keyId}, which is ${state} in trust root version ${latest.version}, so it cannot sign the next version: put the active key back in place`,
    );
  }
  // A staged key left by a run that died before writing the plan is used, not replaced: nothing has trusted it yet.
  const staged = await loadSigningKey(paths.staging).catch(async (error: unknown) => {
    if (!(error instanceof SigningError && error.code === 'key-missing')) throw error;
    return createSigningKey(paths.staging).catch(async (raced: unknown) => {
      if (raced instanceof SigningError && raced.code === 'key-exists') return loadSigningKey(paths.staging);
      throw raced;
    });
  });
  if (findKey(latest.document, staged.keyId)) {
    throw new SigningError(
      'key-already-trusted',
      `${paths.stagedKey} is key ${staged.keyId}, which trust root version ${latest.version} lists already: remove ${paths.staging} and rotate again`,
    );
  }
  const record: RotationRecord = {
    from: active.keyId,
    to: staged.keyId,
    fromVersion: latest.version,
    validFrom: signedAtOf(now()),
  };
  await writeFileOnce(paths.record, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
}

async function retire(home: string): Promise<void> {
  const record = await requireRecord(home, 'retire');
  const paths = rotationPaths(home);
  const retired = retiredKeyPath(home, record.from);
  if ((await findPrivateKey(record.from, [retired])) !== null) return;
  const active = await loadSigningKeyFile(paths.activeKey);
  // After the swap the old key lives only in retired/, so a swapped rotation without it has lost it.
  if (active.keyId !== record.from) {
    throw new SigningError(
      'key-missing',
      `${retired} is missing, and ${paths.activeKey} is no longer key ${record.from}: restore the retired key from your backup`,
    );
  }
  await mkdir(paths.retired, { recursive: true, mode: 0o700 });
  try {
    await link(paths.activeKey, retired);
  } catch (error) {
    if (!exists(error)) throw error;
    if ((await findPrivateKey(record.from, [retired])) === null) {
      throw new SigningError(
        'key-invalid',
        `${retired} holds another key than ${record.from}: move it away and rotate again`,
      );
    }
  }
  await syncFolder(paths.retired);
}

async function swap(home: string): Promise<void> {
  const record = await requireRecord(home, 'swap');
  const paths = rotationPaths(home);
  const active = await loadSigningKeyFile(paths.activeKey);
  if (active.keyId === record.to) return;
  if (active.keyId !== record.from) {
    throw new SigningError(
      'key-invalid',
      `${paths.activeKey} is key ${active.keyId}, neither the key being retired (${record.from}) nor its successor (${record.to}): put one of them back`,
    );
  }
  if ((await findPrivateKey(record.from, [retiredKeyPath(home, record.from)])) === null) {
    throw new Error(
      `rotation step swap needs the old key kept in ${retiredKeyPath(home, record.from)}: run the retire step first`,
    );
  }
  const staged = await findPrivateKey(record.to, [paths.stagedKey]);
  if (staged === null) {
    throw new SigningError(
      'key-missing',
      `${paths.stagedKey} no longer holds key ${record.to}: remove ${paths.staging} to give up this rotation, then rotate again`,
    );
  }
  try {
    await rename(paths.stagedKey, paths.activeKey);
  } catch (error) {
    // A concurrent run swapped first.
    if (
      (error as NodeJS.ErrnoException).code !== 'ENOENT' ||
      (await findPrivateKey(record.to, [paths.activeKey])) === null
    )
      throw error;
  }
  await syncFolder(signingPaths(home).keyDir);
  await syncFolder(paths.staging);
}

async function publish(home: string, now: () => Date): Promise<PublishedTrustRoot> {
  const record = await requireRecord(home, 'publish');
  const paths = rotationPaths(home);
  const dir = signingPaths(home).trustRoots;
  const chain = await verifyPublishedChain(dir);
  const base = chain.find((entry) => entry.version === record.fromVersion);
  const next = chain.find((entry) => entry.version === record.fromVersion + 1);
  if (base === undefined)
    throw new SigningError(
      'trust-root-invalid',
      `${dir} lacks trust root version ${record.fromVersion}, which the rotation in ${paths.record} starts from`,
    );
  if (next !== undefined) {
    if (!isRotationOf(next.document, base.document, record)) {
      throw new SigningError(
        'trust-root-invalid',
        `${dir}/v${next.version}.json is published and is not the rotation from key ${record.from} to ${record.to}: remove ${paths.staging} only if that rotation never swapped keys`,
      );
    }
    return next;
  }
  // The old key is retired only once it can sign nothing more: after the swap.
  const newKey = await findPrivateKey(record.to, [paths.activeKey]);
  if (newKey === null)
    throw new Error(
      `rotation step publish needs ${paths.activeKey} to be the new key ${record.to}: run the swap step first`,
    );
  const oldKey = await findPrivateKey(record.from, [retiredKeyPath(home, record.from)]);
  if (oldKey === null) {
    throw new SigningError(
      'key-missing',
      `${retiredKeyPath(home, record.from)} is missing, and trust root version ${record.fromVersion + 1} is not signed yet: restore the retired key from your backup, then rotate again`,
    );
  }
  // A document a crash left unsigned is signed as it is; otherwise retiredAt is now (not before the new key's validFrom).
  const pending = await readTrustRootDocument(dir, record.fromVersion + 1);
  const retiredAt = signedAtOf(new Date(Math.max(now().getTime(), Date.parse(record.validFrom))));
  const publicKey: PublicSigningKey = { keyId: newKey.keyId, publicKeyPem: newKey.publicKeyPem };
  const document =
    pending ?? rotateKey(base.document, record.from, publicKey, { validFrom: record.validFrom, retiredAt });
  if (!isRotationOf(document, base.document, record)) {
    throw new SigningError(
      'trust-root-invalid',
      `${dir}/v${document.version}.json is not the rotation from key ${record.from} to ${record.to}; it is unsigned: move it away and rotate again`,
    );
  }
  const signedAt = findKey(document, record.from)?.retiredAt ?? retiredAt;
  const { published } = await publishTrustRootVersion(dir, document, {
    signer: keyedSigner(oldKey),
    signedAt: new Date(signedAt),
    vouchedBy: base.document,
  });
  return published;
}

async function finish(home: string): Promise<void> {
  const record = await readRotationRecord(home);
  const paths = rotationPaths(home);
  if (record !== null) {
    const published = await verifyPublishedChain(signingPaths(home).trustRoots);
    if (
      !published.some((entry) => entry.version === record.fromVersion + 1) ||
      (await findPrivateKey(record.to, [paths.activeKey])) === null
    ) {
      throw new Error(
        'rotation step finish needs the new key swapped in and its trust root version published: run the steps in order',
      );
    }
    // The plan goes first: once it is gone the rotation is over, whatever is left of the folder.
    await rm(paths.record, { force: true });
  }
  await rmdir(paths.staging).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
  await syncFolder(signingPaths(home).keyDir);
}

/** Runs one step of a rotation. Each is idempotent; run in ROTATION_STEPS order, any prefix of them is a state a re-run completes. */
export async function runRotationStep(home: string, step: RotationStep, options: RotationOptions = {}): Promise<void> {
  const now = options.now ?? (() => new Date());
  switch (step) {
    case 'stage':
      return stage(home, now);
    case 'retire':
      return retire(home);
    case 'swap':
      return swap(home);
    case 'publish':
      await publish(home, now);
      return;
    case 'adopt':
      await adoptLatest(home, await verifyPublishedChain(signingPaths(home).trustRoots));
      return;
    case 'log':
      await logVersions(home, await verifyPublishedChain(signingPaths(home).trustRoots));
      return;
    case 'finish':
      return finish(home);
  }
}

/**
 * Rotates the operator's signing key: a new key signs from now on, the old one is retired in trust root version N+1,
 * which the old key signs. When an earlier run left a rotation unfinished, completes that one instead and starts none.
 */
export async function rotateSigningKey(home: string, options: RotationOptions = {}): Promise<RotationResult> {
  const resumed = (await readRotationRecord(home)) !== null;
  for (const step of ROTATION_STEPS) {
    if (step === 'log') break;
    await runRotationStep(home, step, options);
  }
  const record = await requireRecord(home, 'log');
  const chain = await verifyPublishedChain(signingPaths(home).trustRoots);
  const published = chain.find((entry) => entry.version === record.fromVersion + 1);
  const retiredAt = published === undefined ? undefined : findKey(published.document, record.from)?.retiredAt;
  if (published === undefined || retiredAt === undefined)
    throw new Error("the publish step publishes the rotation's version");
  const logIndex = (await logVersions(home, chain)).get(published.version) ?? null;
  await runRotationStep(home, 'finish', options);
  return {
    from: record.from,
    to: record.to,
    version: published.version,
    validFrom: record.validFrom,
    retiredAt,
    retiredKey: retiredKeyPath(home, record.from),
    logIndex,
    resumed,
  };
}
