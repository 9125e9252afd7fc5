// Background processes of the embedded stack: start detached with a pid file and a log file,
// find them again from the pid file, stop them and leave no stale pid file behind.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

export function readPid(pidFile: string): number | null {
  if (!existsSync(pidFile)) return null;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A pid can be reused after its process dies; on Linux the command line tells whether the pid
 * still belongs to what we started. Elsewhere a live pid is taken at its word.
 */
export function isOurProcess(pid: number, marker: string): boolean {
  if (!isAlive(pid)) return false;
  const cmdline = `/proc/${pid}/cmdline`;
  if (!existsSync(cmdline)) return true;
  try {
    return readFileSync(cmdline, 'utf8').split('\0').join(' ').includes(marker);
  } catch {
    return false;
  }
}

export interface DetachedProcess {
  command: string;
  args: string[];
  pidFile: string;
  logFile: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** Starts a process in its own process group, output appended to its log, pid written atomically. */
export function startDetached(spec: DetachedProcess): number {
  mkdirSync(dirname(spec.pidFile), { recursive: true });
  mkdirSync(dirname(spec.logFile), { recursive: true });
  const log = openSync(spec.logFile, 'a');
  try {
    const child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      env: spec.env,
      detached: true,
      stdio: ['ignore', log, log],
    });
    if (child.pid === undefined) throw new Error(`could not start ${spec.command}`);
    child.unref();
    const partial = `${spec.pidFile}.${process.pid}.partial`;
    writeFileSync(partial, `${child.pid}\n`);
    renameSync(partial, spec.pidFile);
    return child.pid;
  } finally {
    closeSync(log);
  }
}

/** SIGTERM to the whole process group, SIGKILL after the grace period; then the pid file goes. */
export async function stopDetached(pidFile: string, marker: string, graceMs = 10_000): Promise<'stopped' | 'not-running'> {
  const pid = readPid(pidFile);
  if (pid === null || !isOurProcess(pid, marker)) {
    rmSync(pidFile, { force: true });
    return 'not-running';
  }
  signalGroup(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < deadline) await delay(100);
  if (isAlive(pid)) {
    signalGroup(pid, 'SIGKILL');
    while (isAlive(pid)) await delay(50);
  }
  rmSync(pidFile, { force: true });
  return 'stopped';
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
}

export function portIsFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolvePort) => {
    const server = createServer();
    server.once('error', () => resolvePort(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolvePort(true)));
  });
}

/** The last lines of a log, for an error message that shows why a process died. */
export function tailOf(logFile: string, lines = 20): string {
  if (!existsSync(logFile)) return '(no log written)';
  return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
}
