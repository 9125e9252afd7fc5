// Auditing a log folder that someone tampered with: each kind of damage is found and named by its code, and a clean
// log passes, across a key rotation too.
import { generateKeyPairSync } from 'node:crypto';
import { appendFile, cp, mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, type AuditOptions } from '../../src/audit/log-audit.js';
import { TransparencyError } from '@abp/protocol/transparency/errors';
import {
  type CheckpointSigningKey,
  type CheckpointVerifyingKey,
  type SignedCheckpoint,
} from '@abp/protocol/transparency/formats';
import { keyIdOf } from '@abp/protocol/signing/key-id';
import { openLog } from '@abp/protocol/transparency/log';

const ORIGIN = 'abp-log/audit';

type TestKey = CheckpointSigningKey & CheckpointVerifyingKey;

let root: string;
let pristine: string;
let key: TestKey;
let pristineCheckpoints: SignedCheckpoint[];

function newKey(): TestKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    privateKey,
    keyId: keyIdOf(publicKey),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

function trusted(of: TestKey): CheckpointVerifyingKey {
  return { publicKeyPem: of.publicKeyPem, keyId: of.keyId };
}

function entry(n: number) {
  return {
    kind: 'task-bundle' as const,
    subject: `task/t-${n}/bundle`,
    digest: `sha256:${n.toString(16).padStart(64, '0')}`,
    appendedAt: '2026-07-02T14:11:09Z',
  };
}

/** A fresh copy of the 50-entry log with checkpoints at 10, 30 and 50, to damage. */
async function copyOfLog(): Promise<{ dir: string; entries: string; checkpoints: string }> {
  const dir = await mkdtemp(path.join(root, 'copy-'));
  await cp(pristine, dir, { recursive: true });
  return { dir, entries: path.join(dir, 'entries.jsonl'), checkpoints: path.join(dir, 'checkpoints') };
}

async function auditCode(
  dir: string,
  keys: CheckpointVerifyingKey | CheckpointVerifyingKey[] = trusted(key),
  options: AuditOptions = {},
): Promise<string> {
  const error: unknown = await auditLog(dir, keys, options).then(
    () => null,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(TransparencyError);
  return (error as TransparencyError).code;
}

async function editLine(file: string, position: number, edit: (line: string) => string | null): Promise<void> {
  const lines = (await readFile(file, 'utf8')).split('\n').slice(0, -1);
  const edited = lines.flatMap((line, at) =>
    at === position ? [edit(line)].filter((text): text is string => text !== null) : [line],
  );
  await writeFile(file, `${edited.map((line) => `${line}\n`).join('')}`);
}

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'abp-transparency-audit-'));
  pristine = path.join(root, 'pristine');
  key = newKey();
  const log = await openLog(pristine, ORIGIN);
  for (let n = 0; n < 50; n += 1) {
    await log.append(entry(n));
    if ([10, 30, 50].includes(n + 1)) await log.checkpoint(key);
  }
  pristineCheckpoints = await log.checkpoints();
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('auditLog', () => {
  it('passes an untouched log, with entries beyond the last checkpoint', async () => {
    const { dir } = await copyOfLog();
    const log = await openLog(dir, ORIGIN);
    await log.append(entry(50));
    expect(await auditLog(dir, trusted(key), { knownCheckpoints: pristineCheckpoints })).toEqual({
      origin: ORIGIN,
      size: 51,
      rootHash: log.rootHash(),
      checkpointSizes: [10, 30, 50],
    });
  });

  it('passes an empty log', async () => {
    const dir = await mkdtemp(path.join(root, 'empty-'));
    expect(await auditLog(dir, trusted(key))).toMatchObject({ origin: null, size: 0, checkpointSizes: [] });
  });

  it('finds a rewritten entry', async () => {
    const { dir, entries } = await copyOfLog();
    await editLine(entries, 17, (line) => line.replace('task/t-17/bundle', 'task/t-99/bundle'));
    expect(await auditCode(dir)).toBe('entry-rewritten');
  });

  it('finds a rewritten entry past the last checkpoint only by its form, never silently', async () => {
    const { dir, entries } = await copyOfLog();
    await (await openLog(dir, ORIGIN)).append(entry(50));
    await editLine(entries, 50, (line) => line.replace('{"appendedAt"', '{ "appendedAt"'));
    expect(await auditCode(dir)).toBe('malformed-entry');
  });

  it('finds a dropped entry at the end (truncated) and in the middle', async () => {
    const end = await copyOfLog();
    const lines = (await readFile(end.entries, 'utf8')).split('\n');
    await truncate(
      end.entries,
      Buffer.byteLength(
        lines
          .slice(0, 48)
          .map((line) => `${line}\n`)
          .join(''),
      ),
    );
    expect(await auditCode(end.dir)).toBe('entry-dropped');

    const middle = await copyOfLog();
    await editLine(middle.entries, 20, () => null);
    expect(await auditCode(middle.dir)).toBe('entry-dropped');
  });

  it('finds a forged checkpoint: a flipped signature byte, a changed root, an untrusted key', async () => {
    const flipped = await copyOfLog();
    const file = path.join(flipped.checkpoints, '30.json');
    const signed = JSON.parse(await readFile(file, 'utf8')) as SignedCheckpoint;
    const signature = Buffer.from(signed.signature, 'base64');
    signature[20] = (signature[20] ?? 0) ^ 0xff;
    await writeFile(file, JSON.stringify({ ...signed, signature: signature.toString('base64') }));
    expect(await auditCode(flipped.dir)).toBe('checkpoint-forged');

    const rerooted = await copyOfLog();
    const at10 = pristineCheckpoints[0] as SignedCheckpoint;
    await writeFile(
      path.join(rerooted.checkpoints, '30.json'),
      JSON.stringify({ ...signed, checkpoint: { ...signed.checkpoint, rootHash: at10.checkpoint.rootHash } }),
    );
    expect(await auditCode(rerooted.dir)).toBe('checkpoint-forged');

    expect(await auditCode(pristine, trusted(newKey()))).toBe('checkpoint-forged');
  });

  it('finds a torn last line', async () => {
    const { dir, entries } = await copyOfLog();
    await appendFile(entries, '{"appendedAt":"2026');
    expect(await auditCode(dir)).toBe('torn-entry');
  });

  it('finds a rewritten history re-signed by the operator, through checkpoints the auditor kept', async () => {
    const { dir, entries, checkpoints } = await copyOfLog();
    await editLine(entries, 5, (line) => line.replace('task/t-5/bundle', 'task/t-55/bundle'));
    await rm(checkpoints, { recursive: true });
    const log = await openLog(dir, ORIGIN);
    await log.checkpoint(key);
    // Alone, the re-signed log looks whole; the checkpoints kept from before expose it.
    expect(await auditLog(dir, trusted(key))).toMatchObject({ checkpointSizes: [50] });
    expect(await auditCode(dir, trusted(key), { knownCheckpoints: pristineCheckpoints.slice(0, 1) })).toBe(
      'entry-rewritten',
    );
    expect(await auditCode(dir, trusted(key), { knownCheckpoints: pristineCheckpoints })).toBe(
      'inconsistent-checkpoints',
    );
  });

  it('accepts checkpoints signed before and after a key rotation when both keys are trusted', async () => {
    const { dir } = await copyOfLog();
    const rotated = newKey();
    const log = await openLog(dir, ORIGIN);
    await log.append(entry(50));
    await log.checkpoint(rotated);
    expect(await auditLog(dir, [trusted(key), trusted(rotated)])).toMatchObject({ checkpointSizes: [10, 30, 50, 51] });
    expect(await auditCode(dir, trusted(rotated))).toBe('checkpoint-forged');
  });

  it('refuses a trusted key whose id does not name it', async () => {
    expect(await auditCode(pristine, { publicKeyPem: key.publicKeyPem, keyId: newKey().keyId })).toBe('invalid-key');
  });

  it('refuses a checkpoint file named for another size', async () => {
    const { dir, checkpoints } = await copyOfLog();
    await cp(path.join(checkpoints, '10.json'), path.join(checkpoints, '11.json'));
    expect(await auditCode(dir)).toBe('malformed-checkpoint');
  });
});
