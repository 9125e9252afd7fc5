import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireRunLock } from '../../src/run/lock.js';
import { RunError } from '../../src/run/errors.js';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));
const fresh = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'abp-lock-'));
  dirs.push(dir);
  return dir;
};

describe('the run lock', () => {
  it('refuses a second run while the holder lives, and frees on release', async () => {
    const dir = await fresh();
    const lock = await acquireRunLock(join(dir, 'run.lock'), 'run-1');
    const second = await acquireRunLock(join(dir, 'run.lock'), 'run-2').then(
      () => 'acquired',
      (error: unknown) => (error instanceof RunError ? error.code : 'other'),
    );
    expect(second).toBe('locked');
    await lock.release();
    const third = await acquireRunLock(join(dir, 'run.lock'), 'run-3');
    expect(third.staleEvidence).toBeNull();
    await third.release();
  });

  it('takes a fresh unreadable lock as held, and an old one as stale', async () => {
    const dir = await fresh();
    await writeFile(join(dir, 'run.lock'), '');
    const unreadable = await acquireRunLock(join(dir, 'run.lock'), 'run-1').then(
      () => 'acquired',
      (error: unknown) => (error instanceof RunError ? error.code : 'other'),
    );
    expect(unreadable).toBe('locked');
    const old = new Date(Date.now() - 120_000);
    await utimes(join(dir, 'run.lock'), old, old);
    const lock = await acquireRunLock(join(dir, 'run.lock'), 'run-2');
    expect(lock.staleEvidence).not.toBeNull();
    await lock.release();
  });

  it('moves a dead holder’s lock aside as evidence and takes over', async () => {
    const dir = await fresh();
    const child = spawn(process.execPath, ['-e', '']);
    const pid = child.pid ?? 0;
    await new Promise((resolve) => child.on('exit', resolve));
    const stale = { pid, host: hostname(), runId: 'run-killed', startedAt: '2026-11-30T00:00:00.000Z' };
    await writeFile(join(dir, 'run.lock'), JSON.stringify(stale));
    const lock = await acquireRunLock(join(dir, 'run.lock'), 'run-2');
    expect(lock.staleEvidence).not.toBeNull();
    expect(JSON.parse(await readFile(lock.staleEvidence ?? '', 'utf8'))).toEqual(stale);
    expect(JSON.parse(await readFile(join(dir, 'run.lock'), 'utf8'))).toMatchObject({
      pid: process.pid,
      runId: 'run-2',
    });
    await lock.release();
    expect((await readdir(dir)).filter((name) => name.startsWith('run.lock.stale-'))).toHaveLength(1);
  });
});
