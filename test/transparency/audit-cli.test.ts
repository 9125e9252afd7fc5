// `abp audit log` as an auditor runs it: the whole log checked against the pinned trust root, one entry's inclusion
// proved from the newest checkpoint, two checkpoints proved consistent, and checkpoints kept from earlier held
// against a history the operator rewrote and re-signed.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOG_ORIGIN, signingPaths } from '../../signing/home.js';
import { createSigningKey, type SigningKey } from '../../signing/keys.js';
import { createTrustRoot, saveTrustRoot } from '../../signing/trust-root.js';
import { openLog } from '../../transparency/log.js';
import { runAbp } from '../support/cli.js';

let home: string;
let key: SigningKey;

const entry = (n: number) => ({ kind: 'draw-record' as const, subject: `draw/d-${n}`, digest: `sha256:${n.toString(16).padStart(64, '0')}`, appendedAt: '2026-11-02T10:00:00Z' });

async function writeLog(dir: string, count: number, checkpointAt: readonly number[], rewrite?: number): Promise<void> {
  const log = await openLog(dir, LOG_ORIGIN);
  for (let n = 0; n < count; n += 1) {
    await log.append(n === rewrite ? { ...entry(n), subject: 'draw/rewritten' } : entry(n));
    if (checkpointAt.includes(n + 1)) await log.checkpoint(key);
  }
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'abp-audit-cli-'));
  const paths = signingPaths(home);
  key = await createSigningKey(paths.keyDir);
  await saveTrustRoot(paths.trustRoot, createTrustRoot(key, '2026-01-01T00:00:00Z'));
  await writeLog(paths.log, 7, [3, 7]);
});

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

const audit = (...args: string[]) => runAbp(['audit', 'log', ...args], { ABP_HOME: home });

describe('abp audit log', () => {
  it('proves an entry included in the newest checkpoint and two checkpoints consistent', async () => {
    const result = await audit('--entry', '2', '--consistency', '3:7', '--json');
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as { size: number; checkpointSizes: number[]; inclusion: { entry: { subject: string }; proof: { size: number; path: string[] } }; consistency: { proof: { oldSize: number; newSize: number; path: string[] } } };
    expect(report).toMatchObject({ size: 7, checkpointSizes: [3, 7] });
    expect(report.inclusion.entry.subject).toBe('draw/d-2');
    expect(report.inclusion.proof).toMatchObject({ size: 7 });
    expect(report.inclusion.proof.path).toHaveLength(3);
    expect(report.consistency.proof).toMatchObject({ oldSize: 3, newSize: 7 });
    expect(report.consistency.proof.path.length).toBeGreaterThan(0);
  });

  it('names what it cannot prove: an entry past the log, a size without a checkpoint', async () => {
    const beyond = await audit('--entry', '9');
    expect(beyond.code).toBe(1);
    expect(beyond.stderr).toContain('--entry 9: the log holds entries 0 to 6');
    const unstored = await audit('--consistency', '4:7');
    expect(unstored.code).toBe(1);
    expect(unstored.stderr).toContain('no checkpoint of size 4 is stored (sizes 3, 7)');
  });

  it('catches a history rewritten and re-signed by the operator through a checkpoint the auditor kept', async () => {
    const kept = join(home, 'kept-checkpoint.json');
    await writeFile(kept, await readFile(join(signingPaths(home).log, 'checkpoints', '3.json')));
    expect((await audit('--known', kept)).code).toBe(0);

    // The operator rebuilds the log with entry 1 changed and signs fresh checkpoints: the log agrees with itself...
    const forged = join(home, 'forged-log');
    await writeLog(forged, 7, [3, 7], 1);
    expect((await audit('--log', forged)).code).toBe(0);
    // ...but not with the checkpoint of size 3 the auditor kept from before.
    const caught = await audit('--log', forged, '--known', kept);
    expect(caught.code).toBe(1);
    expect(caught.stderr).toContain('two signed checkpoints of size 3 have different roots: the log showed two histories');
  });
});
