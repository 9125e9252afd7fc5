// The run lock: one matrix per output folder at a time. The lock file says who holds it; a lock whose holder is gone is
// stale and moved aside (kept as evidence of the interrupted run) before a new run takes over.
import { randomBytes } from 'node:crypto';
import { link, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { isAlive } from '../execution/liveness.js';
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

/** A lock file nobody can read is taken as held for this long: its holder may be between creating and writing it. */
const UNREADABLE_GRACE_MS = 60_000;

export async function acquireRunLock(
  path: string,
  runId: string,
  now: () => Date = () => new Date(),
): Promise<RunLock> {
  const holder: LockHolder = { pid: process.pid, host: hostname(), runId, startedAt: now().toISOString() };
  const text = `${JSON.stringify(holder)}\n`;
  let staleEvidence: string | null = null;
  for (let attempt = 0; attempt < 2; attempt += 1) {
    // Written whole under another name, then linked into place: the lock never exists half-written.
    const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    await writeFile(temporary, text);
    try {
      await link(temporary, path);
      return {
        path,
        staleEvidence,
        // Only our own lock is removed: one moved aside and retaken by another run is left alone.
        release: async () => {
          if ((await readFile(path, 'utf8').catch(() => null)) === text) await rm(path, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      await rm(temporary, { force: true });
    }
    const current = await readHolder(path);
    const age = now().getTime() - ((await stat(path).catch(() => null))?.mtimeMs ?? 0);
    // Only a holder on this host can be checked; a lock from another host is never taken over silently.
    const alive =
      current === null
        ? age < UNREADABLE_GRACE_MS
        : current.host !== hostname() || (typeof current.pid === 'number' && isAlive(current.pid));
    if (alive) {
      throw new RunError(
        'locked',
        current === null
          ? `${path} exists but cannot be read yet; another run may be starting: wait, or pass another --lock-file`
          : `${path} is held by pid ${String(current.pid)} on ${String(current.host)} (run ${String(current.runId)}, since ${String(current.startedAt)}); wait for it, or pass another --lock-file`,
      );
    }
    staleEvidence = `${path}.stale-${now().toISOString().replace(/[:.]/g, '-')}`;
    await rename(path, staleEvidence);
  }
  throw new RunError(
    'locked',
    `${path}: could not take the lock after moving a stale one aside; another run is starting at the same time`,
  );
}
