// `abp audit log` as an auditor runs it: the whole log checked against the pinned trust root, one entry's inclusion
// proved from the newest checkpoint, two checkpoints proved consistent, and checkpoints kept from earlier held
// against a history the operator rewrote and re-signed; and the same audit of a log a real `abp serve` serves
// (`--from`), downloaded into a temporary folder that is gone afterwards, with `--save` keeping its checkpoints.
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keptCheckpointsFile } from '@abp/grader/pull';
import { startServer, type RunningServer } from '../../src/serve/server.js';
import { LOG_ORIGIN } from '@abp/protocol/transparency/formats';
import { signingPaths } from '../../src/signing/home.js';
import { createSigningKey, type SigningKey } from '../../src/signing/keys.js';
import { createTrustRoot, saveTrustRoot } from '@abp/protocol/signing/trust-root';
import type { SignedCheckpoint } from '@abp/protocol/transparency/formats';
import { openLog } from '@abp/protocol/transparency/log';
import { runAbp } from '../support/cli.js';

let home: string;
let key: SigningKey;

const entry = (n: number) => ({
  kind: 'draw-record' as const,
  subject: `draw/d-${n}`,
  digest: `sha256:${n.toString(16).padStart(64, '0')}`,
  appendedAt: '2026-11-02T10:00:00Z',
});

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
    const report = JSON.parse(result.stdout) as {
      size: number;
      checkpointSizes: number[];
      inclusion: { entry: { subject: string }; proof: { size: number; path: string[] } };
      consistency: { proof: { oldSize: number; newSize: number; path: string[] } };
    };
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
    expect(caught.stderr).toContain(
      'two signed checkpoints of size 3 have different roots: the log showed two histories',
    );
  });
});

describe('abp audit log --from: the log a registry serves', () => {
  let served: string;
  let server: RunningServer;
  /** The auditor's temporary folder: the download lives there during an audit and must be gone after. */
  let auditorTmp: string;

  beforeAll(async () => {
    // The registry's data directory, served by a real abp serve; its log routes read files only.
    served = join(home, 'served');
    await writeLog(signingPaths(served).log, 7, [3, 7]);
    server = await startServer({ port: 0, host: '127.0.0.1', api: { home: served }, log: () => undefined });
    auditorTmp = join(home, 'auditor-tmp');
    await mkdir(auditorTmp);
  });
  afterAll(async () => {
    await server?.close();
  });

  // The download folders in the auditor's temporary folder (tsx keeps its cache there too).
  const downloads = async () => (await readdir(auditorTmp)).filter((name) => name.startsWith('abp-audit-log-'));
  const auditFrom = (...args: string[]) =>
    runAbp(['audit', 'log', '--from', server.url, ...args], { ABP_HOME: home, TMPDIR: auditorTmp });

  /** Runs `during` with the served log replaced by `replacement`, then puts the original back. */
  async function withServedLog(replacement: string, during: () => Promise<void>): Promise<void> {
    const dir = signingPaths(served).log;
    const original = `${dir}-original`;
    await rename(dir, original);
    await cp(replacement, dir, { recursive: true });
    try {
      await during();
    } finally {
      await rm(dir, { recursive: true, force: true });
      await rename(original, dir);
    }
  }

  it('audits a clean served log like a folder, and leaves no download behind', async () => {
    const result = await auditFrom('--entry', '2', '--consistency', '3:7', '--json');
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as {
      origin: string;
      size: number;
      checkpointSizes: number[];
      rootHash: string;
      trustRootVersion: number;
      inclusion: { entry: { subject: string } };
    };
    const local = await openLog(signingPaths(served).log, LOG_ORIGIN);
    expect(report).toMatchObject({
      origin: LOG_ORIGIN,
      size: 7,
      checkpointSizes: [3, 7],
      rootHash: local.rootHash(),
      trustRootVersion: 1,
    });
    expect(report.inclusion.entry.subject).toBe('draw/d-2');
    expect(await downloads()).toEqual([]);

    const person = await auditFrom();
    expect(person.code, person.stderr).toBe(0);
    expect(person.stdout).toContain(`log ${LOG_ORIGIN} at ${server.url}: 7 entries, root ${local.rootHash()}`);
  });

  it('finds an entry rewritten on the server, and still leaves no download behind', async () => {
    const entries = join(signingPaths(served).log, 'entries.jsonl');
    const original = await readFile(entries, 'utf8');
    // Entry 4 changed in place, still a canonical line of its own index: only the signed heads can tell.
    await writeFile(entries, original.replace('"subject":"draw/d-4"', '"subject":"draw/d-X"'));
    try {
      const caught = await auditFrom('--json');
      expect(caught.code).toBe(1);
      expect((JSON.parse(caught.stdout) as { error: { code: string } }).error.code).toBe('entry-rewritten');
      expect(caught.stderr).toContain('the checkpoint of size 7');
    } finally {
      await writeFile(entries, original);
    }
    expect(await downloads()).toEqual([]);
  });

  it('keeps the checkpoints it audited with --save, and holds a re-signed history against them next time', async () => {
    const keptDir = join(home, 'auditor-kept');
    const first = await auditFrom('--save', keptDir);
    expect(first.code, first.stderr).toBe(0);
    const keptFile = keptCheckpointsFile(keptDir, server.url);
    expect(first.stdout).toContain(`2 checkpoint(s) downloaded; 2 kept in ${keptFile}`);
    const kept = JSON.parse(await readFile(keptFile, 'utf8')) as SignedCheckpoint[];
    expect(kept.map((signed) => signed.checkpoint.size)).toEqual([3, 7]);
    // Auditing the unchanged log again keeps the same checkpoints.
    expect((await auditFrom('--save', keptDir)).code).toBe(0);
    expect(JSON.parse(await readFile(keptFile, 'utf8'))).toEqual(kept);

    // The operator rebuilds the log with entry 1 changed and one entry more, and signs every checkpoint afresh.
    const rebuilt = join(home, 'rebuilt-served-log');
    await writeLog(rebuilt, 8, [3, 8], 1);
    await withServedLog(rebuilt, async () => {
      // Alone, the rebuilt log agrees with itself...
      expect((await auditFrom()).code).toBe(0);
      // ...but not with what the auditor kept, whether read from the --save folder or passed with --known.
      const caught = await auditFrom('--save', keptDir, '--json');
      expect(caught.code).toBe(1);
      expect((JSON.parse(caught.stdout) as { error: { code: string } }).error.code).toBe('inconsistent-checkpoints');
      expect(caught.stderr).toContain(
        'two signed checkpoints of size 3 have different roots: the log showed two histories',
      );
      const known = await auditFrom('--known', keptFile);
      expect(known.code).toBe(1);
      expect(known.stderr).toContain('two signed checkpoints of size 3 have different roots');
    });
    // Nothing from the rewritten log was kept.
    expect(JSON.parse(await readFile(keptFile, 'utf8'))).toEqual(kept);
    expect(await downloads()).toEqual([]);
  });

  it('refuses --save without --from, and a --from that is not a server', async () => {
    const local = await audit('--save', join(home, 'nowhere'));
    expect(local.code).toBe(1);
    expect(local.stderr).toContain('--save keeps the checkpoints of a log audited with --from');
    const closed = await startServer({
      port: 0,
      host: '127.0.0.1',
      api: { home: served },
      log: () => undefined,
    });
    await closed.close();
    const unreachable = await runAbp(['audit', 'log', '--from', closed.url, '--json'], {
      ABP_HOME: home,
      TMPDIR: auditorTmp,
    });
    expect(unreachable.code).toBe(1);
    expect((JSON.parse(unreachable.stdout) as { error: { code: string } }).error.code).toBe('unreachable');
    expect(await downloads()).toEqual([]);
  });
});
