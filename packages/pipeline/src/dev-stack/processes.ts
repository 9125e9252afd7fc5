// Background processes of the embedded stack: start detached with a pid file and a log file,
// find them again from the pid file, stop them and leave no stale pid file behind.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { isAlive } from '@abp/grader/execution';
import { StackError } from '../worker/errors.js';

export { isAlive };

export function readPid(pidFile: string): number | null {
  if (!existsSync(pidFile)) return null;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  return Number.isInteger(pid) && pid > 0 ? pid : null;
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
export async function startDetached(spec: DetachedProcess): Promise<number> {
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
    // A binary that cannot be executed is reported through 'error', after spawn() has returned.
    await new Promise<void>((started, failed) => {
      child.once('spawn', started);
      child.once('error', (error) =>
        failed(new StackError('start-failed', `could not start ${spec.command}: ${error.message}`, { cause: error })),
      );
    });
    const pid = child.pid as number;
    child.unref();
    const partial = `${spec.pidFile}.${process.pid}.partial`;
    writeFileSync(partial, `${pid}\n`);
    renameSync(partial, spec.pidFile);
    return pid;
  } finally {
    closeSync(log);
  }
}

/** SIGTERM to the whole process group, SIGKILL after the grace period; then the pid file goes. */
export async function stopDetached(
  pidFile: string,
  marker: string,
  graceMs = 10_000,
): Promise<'stopped' | 'not-running'> {
  const pid = readPid(pidFile);
  if (pid === null || !isOurProcess(pid, marker)) {
    rmSync(pidFile, { force: true });
    return 'not-running';
  }
  signalGroup(pid, 'SIGTERM');
  if (!(await exited(pid, graceMs))) {
    signalGroup(pid, 'SIGKILL');
    if (!(await exited(pid, 5_000))) {
      throw new StackError(
        'stop-failed',
        `process ${pid} (${pidFile}) survived SIGKILL; it may be stuck in the kernel: check it with \`ps -o pid,stat,cmd -p ${pid}\``,
      );
    }
  }
  rmSync(pidFile, { force: true });
  return 'stopped';
}

async function exited(pid: number, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (isAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await delay(50);
  }
  return true;
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

/**
 * Runs `action` holding an exclusive lock file, so two `abp dev up|down` never race on the same
 * ports and pid files. A lock left by a process that died is taken over.
 */
export async function withLock<T>(lockFile: string, action: () => Promise<T>): Promise<T> {
  mkdirSync(dirname(lockFile), { recursive: true });
  for (let attempt = 0; ; attempt += 1) {
    try {
      writeFileSync(lockFile, `${process.pid}\n`, { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readPid(lockFile);
      // A second EEXIST means another process took the stale lock over first: it holds it now.
      if ((holder !== null && isAlive(holder)) || attempt > 0) {
        throw new StackError(
          'locked',
          `another abp process (pid ${holder ?? '?'}) is starting or stopping this stack (${lockFile}); wait for it to finish`,
        );
      }
      rmSync(lockFile, { force: true });
    }
  }
  try {
    return await action();
  } finally {
    rmSync(lockFile, { force: true });
  }
}

export function portIsFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolvePort) => {
    const server = createServer();
    server.once('error', () => resolvePort(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolvePort(true)));
  });
}

// Below Linux's ephemeral range (32768-60999 by default): the kernel hands ports from that range to every outgoing
// connection, so a port picked there and released can be taken by some client before the server binds it (seen with a
// busy package install beside a starting Temporal). Ports below it are only ever taken by a listener asking for them.
const QUIET_PORTS = { first: 10_000, last: 32_767 };

/** A TCP port nothing listens on right now, from the range the kernel never gives to outgoing connections. */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  for (let attempt = 0; attempt < 64; attempt++) {
    const port = QUIET_PORTS.first + Math.floor(Math.random() * (QUIET_PORTS.last - QUIET_PORTS.first + 1));
    if (await portIsFree(port, host)) return port;
  }
  return kernelPort(host);
}

function kernelPort(host: string): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

/** The last lines of a log, for an error message that shows why a process died. */
export function tailOf(logFile: string, lines = 20): string {
  if (!existsSync(logFile)) return '(no log written)';
  return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
}
