// The log in a folder: canonical lines appended once per statement, signed checkpoints, and proofs that a consumer
// checks against a checkpoint alone; 50 entries with checkpoints at 10, 30 and 50.
import { generateKeyPairSync } from 'node:crypto';
import { appendFile, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyConsistencyOf, verifyInclusionOf } from '../../src/audit/log-audit.js';
import { TransparencyError } from '@abp/protocol/transparency/errors';
import {
  type CheckpointSigningKey,
  type LogEntryKind,
  type SignedCheckpoint,
} from '@abp/protocol/transparency/formats';
import { keyIdOf } from '@abp/protocol/signing/key-id';
import { openLog, type AppendInput, type TransparencyLog } from '@abp/protocol/transparency/log';

const ORIGIN = 'abp-log/test';
const KINDS: readonly LogEntryKind[] = [
  'task-bundle',
  'registry-version',
  'draw-record',
  'aging-transition',
  'trust-root',
];

let root: string;
let key: CheckpointSigningKey & { publicKeyPem: string };

function newKey(): CheckpointSigningKey & { publicKeyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    privateKey,
    keyId: keyIdOf(publicKey),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

function digestOf(n: number): string {
  return `sha256:${n.toString(16).padStart(64, '0')}`;
}

function input(n: number): AppendInput {
  return {
    kind: KINDS[n % KINDS.length] as LogEntryKind,
    subject: `task/t-${n}/bundle`,
    digest: digestOf(n),
    appendedAt: `2026-07-${String(1 + (n % 28)).padStart(2, '0')}T00:00:00Z`,
  };
}

async function folder(name: string): Promise<string> {
  return mkdtemp(path.join(root, `${name}-`));
}

function codeOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(TransparencyError);
    return (error as TransparencyError).code;
  }
  throw new Error('expected a TransparencyError');
}

async function asyncCodeOf(promise: Promise<unknown>): Promise<string> {
  const error: unknown = await promise.then(
    () => null,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(TransparencyError);
  return (error as TransparencyError).code;
}

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'abp-transparency-log-'));
  key = newKey();
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('a log of 50 entries with checkpoints at 10, 30 and 50', () => {
  let dir: string;
  let log: TransparencyLog;
  const checkpoints = new Map<number, SignedCheckpoint>();

  beforeAll(async () => {
    dir = await folder('fifty');
    log = await openLog(dir, ORIGIN);
    for (let n = 0; n < 50; n += 1) {
      const appended = await log.append(input(n));
      expect(appended.index).toBe(n);
      if (n + 1 === 10 || n + 1 === 30 || n + 1 === 50) checkpoints.set(n + 1, await log.checkpoint(key));
    }
  });

  it('stores one canonical line per entry and one file per checkpoint', async () => {
    const lines = (await readFile(path.join(dir, 'entries.jsonl'), 'utf8')).split('\n');
    expect(lines).toHaveLength(51);
    expect(lines.at(-1)).toBe('');
    expect(lines[0]).toBe(
      '{"appendedAt":"2026-07-01T00:00:00Z","digest":"sha256:0000000000000000000000000000000000000000000000000000000000000000","index":0,"kind":"task-bundle","subject":"task/t-0/bundle"}',
    );
    expect((await readdir(path.join(dir, 'checkpoints'))).sort()).toEqual(['10.json', '30.json', '50.json']);
    const stored = await log.checkpoints();
    expect(stored.map((signed) => signed.checkpoint.size)).toEqual([10, 30, 50]);
    expect(stored[2]).toEqual(checkpoints.get(50));
    expect(stored[2]?.checkpoint).toMatchObject({ origin: ORIGIN, size: 50, rootHash: log.rootHash() });
  });

  it('proves every entry included in every checkpoint at or after it', () => {
    let proved = 0;
    for (const [size, checkpoint] of checkpoints) {
      for (const entry of log.entries().slice(0, size)) {
        verifyInclusionOf(entry, log.proveInclusion(entry.index, size), checkpoint, key.publicKeyPem);
        proved += 1;
      }
    }
    expect(proved).toBe(10 + 30 + 50);
  });

  it('refuses an entry against a checkpoint it is not in, a proof of another size, and an altered entry', () => {
    const at10 = checkpoints.get(10) as SignedCheckpoint;
    const at30 = checkpoints.get(30) as SignedCheckpoint;
    const late = log.entries()[20]!;
    expect(codeOf(() => verifyInclusionOf(late, log.proveInclusion(20, 30), at10, key.publicKeyPem))).toBe(
      'inclusion-failed',
    );
    const early = log.entries()[3]!;
    expect(codeOf(() => verifyInclusionOf(early, log.proveInclusion(3, 10), at30, key.publicKeyPem))).toBe(
      'inclusion-failed',
    );
    expect(
      codeOf(() =>
        verifyInclusionOf(
          { ...early, subject: 'task/other/bundle' },
          log.proveInclusion(3, 30),
          at30,
          key.publicKeyPem,
        ),
      ),
    ).toBe('inclusion-failed');
    expect(
      codeOf(() => verifyInclusionOf({ ...early, index: 4 }, log.proveInclusion(3, 30), at30, key.publicKeyPem)),
    ).toBe('inclusion-failed');
  });

  it('refuses a checkpoint signed by another key or altered after signing', () => {
    const at30 = checkpoints.get(30) as SignedCheckpoint;
    const entry = log.entries()[5]!;
    const proof = log.proveInclusion(5, 30);
    expect(codeOf(() => verifyInclusionOf(entry, proof, at30, newKey().publicKeyPem))).toBe('checkpoint-forged');
    const inflated = { ...at30, checkpoint: { ...at30.checkpoint, size: 31 } };
    expect(codeOf(() => verifyInclusionOf(entry, log.proveInclusion(5, 31), inflated, key.publicKeyPem))).toBe(
      'checkpoint-forged',
    );
  });

  it('proves consistency 10 -> 30 -> 50 and 10 -> 50, and not backwards or between the wrong checkpoints', () => {
    const [at10, at30, at50] = [10, 30, 50].map((size) => checkpoints.get(size) as SignedCheckpoint) as [
      SignedCheckpoint,
      SignedCheckpoint,
      SignedCheckpoint,
    ];
    verifyConsistencyOf(log.proveConsistency(10, 30), at10, at30, key.publicKeyPem);
    verifyConsistencyOf(log.proveConsistency(30, 50), at30, at50, key.publicKeyPem);
    verifyConsistencyOf(log.proveConsistency(10), at10, at50, key.publicKeyPem);
    expect(codeOf(() => verifyConsistencyOf(log.proveConsistency(10, 30), at10, at50, key.publicKeyPem))).toBe(
      'inconsistent-checkpoints',
    );
    const forkedRoot = {
      ...log.proveConsistency(10, 30),
      path: log.proveConsistency(10, 30).path.map(() => log.rootHash(7)),
    };
    expect(codeOf(() => verifyConsistencyOf(forkedRoot, at10, at30, key.publicKeyPem))).toBe(
      'inconsistent-checkpoints',
    );
  });

  it('refuses proofs outside the log', () => {
    expect(codeOf(() => log.proveInclusion(50))).toBe('out-of-range');
    expect(codeOf(() => log.proveInclusion(5, 51))).toBe('out-of-range');
    expect(codeOf(() => log.proveConsistency(0, 10))).toBe('out-of-range');
    expect(codeOf(() => log.proveConsistency(31, 30))).toBe('out-of-range');
  });

  it('reads back to the same tree after reopening', async () => {
    const reopened = await openLog(dir, ORIGIN);
    expect(reopened.size()).toBe(50);
    expect(reopened.entries()).toEqual(log.entries());
    expect(reopened.rootHash()).toBe(log.rootHash());
  });
});

describe('appending', () => {
  it('is idempotent for the same kind, subject and digest, even after reopening', async () => {
    const dir = await folder('idempotent');
    const log = await openLog(dir, ORIGIN);
    const first = await log.append(input(1));
    const again = await log.append({ ...input(1), appendedAt: '2027-01-01T00:00:00Z' });
    expect(again).toEqual(first);
    const bytes = await readFile(path.join(dir, 'entries.jsonl'));
    const reopened = await openLog(dir, ORIGIN);
    expect(await reopened.append(input(1))).toEqual(first);
    expect(await readFile(path.join(dir, 'entries.jsonl'))).toEqual(bytes);
    // A new digest for the same subject is a new statement, so a new entry.
    expect((await reopened.append({ ...input(1), digest: digestOf(999) })).index).toBe(1);
  });

  it('gives the same leaves and roots for the same entries, in any folder', async () => {
    const logs = await Promise.all([folder('same-a'), folder('same-b')].map(async (dir) => openLog(await dir, ORIGIN)));
    const leaves = await Promise.all(
      logs.map(async (log) => Promise.all(Array.from({ length: 17 }, (_, n) => log.append(input(n))))),
    );
    expect(leaves[0]).toEqual(leaves[1]);
    expect(logs[0]?.rootHash()).toBe(logs[1]?.rootHash());
    expect(logs[0]?.rootHash(9)).toBe(logs[1]?.rootHash(9));
  });

  it('numbers concurrent appends one after another', async () => {
    const log = await openLog(await folder('concurrent'), ORIGIN);
    const appended = await Promise.all(Array.from({ length: 20 }, (_, n) => log.append(input(n))));
    expect(appended.map((entry) => entry.index)).toEqual(Array.from({ length: 20 }, (_, n) => n));
  });

  it('stamps the time when none is given', async () => {
    const log = await openLog(await folder('stamped'), ORIGIN);
    const { appendedAt, ...given } = input(1);
    expect(appendedAt).toBeDefined();
    const before = Date.now();
    const { entry } = await log.append(given);
    expect(Date.parse(entry.appendedAt)).toBeGreaterThanOrEqual(before);
  });

  it('refuses a second writer, a malformed entry and a bad origin', async () => {
    const dir = await folder('two-writers');
    const first = await openLog(dir, ORIGIN);
    const second = await openLog(dir, ORIGIN);
    await first.append(input(1));
    expect(await asyncCodeOf(second.append(input(2)))).toBe('concurrent-append');
    expect(await asyncCodeOf(first.append({ ...input(3), digest: 'sha256:abc' }))).toBe('invalid-entry');
    expect(await asyncCodeOf(first.append({ ...input(3), kind: 'other' as LogEntryKind }))).toBe('invalid-entry');
    expect(await asyncCodeOf(openLog(dir, 'main'))).toBe('invalid-origin');
  });

  it('reports a torn last line on open instead of dropping it', async () => {
    const dir = await folder('torn');
    const log = await openLog(dir, ORIGIN);
    await log.append(input(1));
    await appendFile(path.join(dir, 'entries.jsonl'), '{"appendedAt":"2026-07-0');
    expect(await asyncCodeOf(openLog(dir, ORIGIN))).toBe('torn-entry');
  });
});

describe('checkpoints', () => {
  it('are idempotent per size and refused for an empty log or a key that is not what its id says', async () => {
    const log = await openLog(await folder('checkpoints'), ORIGIN);
    expect(await asyncCodeOf(log.checkpoint(key))).toBe('empty-log');
    await log.append(input(1));
    const first = await log.checkpoint(key);
    expect(await log.checkpoint(key)).toEqual(first);
    expect(await log.checkpoint(newKey())).toEqual(first);
    expect(await asyncCodeOf(log.checkpoint({ privateKey: key.privateKey, keyId: newKey().keyId }))).toBe(
      'invalid-key',
    );
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    expect(await asyncCodeOf(log.checkpoint({ privateKey: rsa.privateKey, keyId: keyIdOf(rsa.publicKey) }))).toBe(
      'invalid-key',
    );
  });
});
