// The run lock: one matrix per output folder at a time. The lock file says who holds it; a lock whose holder is gone is
// stale and moved aside (kept as evidence of the interrupted run) before a new run takes over.
import { open, readFile, rename, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { isAlive } from '../../stack/processes.js';
import { RunError } from './errors.js';

interface LockHolder {
  pid: number;
  host: string;
  runId: string;
  startedAt: string;
}

export interface RunLock {
  readonly path: string;
  /** Where an earlier, stale lock was moved to, if there was one. */
  readonly staleEvidence: string | null;
  release(): Promise<void>;
}

async function readHolder(path: string): Promise<Partial<LockHolder> | null> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as Partial<LockHolder>;
  } catch {
    return null;
  }
}

export async function acquireRunLock(path: string, runId: string, now: () => Date = () => new Date()): Promise<RunLock> {
  const holder: LockHolder = { pid: process.pid, host: hostname(), runId, startedAt: now().toISOString() };
  let staleEvidence: string | null = null;
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const handle = await open(path, 'wx');
      await handle.write(`${JSON.stringify(holder)}\n`);
      await handle.close();
      return {
        path,
        staleEvidence,
        release: () => rm(path, { force: true }),
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const current = await readHolder(path);
    // Only a holder on this host can be checked; a lock from another host is never taken over silently.
    const alive = current?.host !== hostname() || (typeof current.pid === 'number' && isAlive(current.pid));
    if (current && alive) {
      throw new RunError('locked', `${path} is held by pid ${String(current.pid)} on ${String(current.host)} (run ${String(current.runId)}, since ${String(current.startedAt)}); wait for it, or pass another --lock-file`);
    }
    staleEvidence = `${path}.stale-${now().toISOString().replace(/[:.]/g, '-')}`;
    await rename(path, staleEvidence);
  }
  throw new RunError('locked', `${path}: could not take the lock after moving a stale one aside; another run is starting at the same time`);
}
