// `abp serve` as a background component of the stack, like the simulator (sim-state.ts): pid and log files, a state file
// naming its URLs once it answers, and the webhook secret it checks deliveries with, generated once into the data
// directory (mode 0600) so the simulator's deliveries and the receiver agree across restarts.
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { request } from 'node:http';
import { dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { API_PREFIX } from '../serve/api.js';
import { WEBHOOK_PATH } from '../serve/webhooks.js';
import { packageRoot } from '../package-root.js';
import type { StackConfig } from '../worker/config.js';
import { StackError } from '../worker/errors.js';
import {
  freePort,
  isOurProcess,
  portIsFree,
  readPid,
  startDetached,
  stopDetached,
  tailOf,
  withLock,
} from './processes.js';

/** What a running `abp serve` answers at; the secret is kept apart, in its 0600 file. */
export interface ServeState {
  pid: number;
  url: string;
  webhookUrl: string;
  apiUrl: string;
  startedAt: string;
}

export interface ServeStatus {
  state: 'running' | 'stopped' | 'stale-pid';
  pid: number | null;
  serve: ServeState | null;
  log: string;
}

const marker = 'abp.js serve';

export function serveLayout(config: StackConfig) {
  const run = join(config.home, 'run');
  return {
    pidFile: join(run, 'serve.pid'),
    stateFile: join(run, 'serve.json'),
    lockFile: join(run, 'serve.lock'),
    logFile: join(config.home, 'logs', 'serve.log'),
    requestLogFile: join(config.home, 'logs', 'serve-requests.log'),
    /** Kept across restarts: the simulator signs its deliveries with it. */
    secretFile: join(config.home, 'serve', 'webhook-secret'),
    /** The port last served on, tried first on the next start, so a webhook URL given out before stays right. */
    portFile: join(config.home, 'serve', 'port'),
  };
}

export function serveStatus(config: StackConfig): ServeStatus {
  const layout = serveLayout(config);
  const pid = readPid(layout.pidFile);
  const state = pid === null ? 'stopped' : isOurProcess(pid, marker) ? 'running' : 'stale-pid';
  const recorded =
    state === 'running' && existsSync(layout.stateFile)
      ? (JSON.parse(readFileSync(layout.stateFile, 'utf8')) as ServeState)
      : null;
  return { state, pid, serve: recorded?.pid === pid ? recorded : null, log: layout.logFile };
}

/** The webhook secret of this data directory: read, or made once (32 random bytes, hex) into a file only this user reads. */
export function webhookSecret(config: StackConfig): string {
  const { secretFile } = serveLayout(config);
  if (existsSync(secretFile)) {
    const secret = readFileSync(secretFile, 'utf8').trim();
    if (secret === '')
      throw new StackError(
        'invalid-setting',
        `${secretFile} is empty: remove it and a new webhook secret is made on the next start`,
      );
    return secret;
  }
  writeAtomically(secretFile, `${randomBytes(32).toString('hex')}\n`, 0o600);
  return readFileSync(secretFile, 'utf8').trim();
}

/**
 * The port the next start will listen on: ABP_SERVE_PORT when set, else the port served on last time while it is free
 * (so the simulator's webhook URL stays valid), else one the kernel picks.
 */
export async function servePort(config: StackConfig, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const raw = env.ABP_SERVE_PORT;
  if (raw !== undefined && raw !== '') {
    const port = Number(raw);
    if (!Number.isInteger(port) || port < 1 || port > 65_535)
      throw new StackError(
        'invalid-setting',
        `ABP_SERVE_PORT=${raw} is not a TCP port: use a whole number from 1 to 65535, e.g. ABP_SERVE_PORT=8080`,
      );
    return port;
  }
  const running = serveStatus(config).serve;
  if (running !== null) return Number(new URL(running.url).port);
  const { portFile } = serveLayout(config);
  const last = existsSync(portFile) ? Number(readFileSync(portFile, 'utf8').trim()) : NaN;
  if (Number.isInteger(last) && last > 0 && (await portIsFree(last))) return last;
  return freePort();
}

/** The URLs a server on `port` of 127.0.0.1 answers at (before it runs: the simulator needs the webhook URL first). */
export function serveUrls(port: number): { url: string; webhookUrl: string; apiUrl: string } {
  const url = `http://127.0.0.1:${port}`;
  return { url, webhookUrl: `${url}${WEBHOOK_PATH}`, apiUrl: `${url}${API_PREFIX}` };
}

/** Whether something answers HTTP at `url` (any status: the server is listening and routing). */
function answers(url: string): Promise<boolean> {
  return new Promise((resolveAnswer) => {
    const probe = request(url, { method: 'GET', timeout: 1_000 }, (response) => {
      response.resume();
      resolveAnswer(true);
    });
    probe.once('timeout', () => probe.destroy());
    probe.once('error', () => resolveAnswer(false));
    probe.end();
  });
}

export interface ServeUpOptions {
  port: number;
  readyTimeoutMs?: number;
}

/**
 * Starts `abp serve` in the background on 127.0.0.1 with the webhook route (this data directory's secret) and the
 * read-only API; returns once it answers. A server already running is kept when it listens on `port`, and refused
 * otherwise (its webhook URL is what the simulator was given).
 */
export function serveUp(config: StackConfig, options: ServeUpOptions): Promise<ServeStatus> {
  const layout = serveLayout(config);
  return withLock(layout.lockFile, async () => {
    const before = serveStatus(config);
    const wanted = serveUrls(options.port);
    if (before.state === 'running' && before.serve !== null) {
      if (before.serve.url !== wanted.url) {
        throw new StackError(
          'start-failed',
          `abp serve is already running at ${before.serve.url}, not ${wanted.url}: stop it (\`kill ${before.pid ?? ''}\`) or use its port`,
        );
      }
      return before;
    }
    // A pid file whose process is gone, or a server that never wrote its state: start afresh.
    await stopDetached(layout.pidFile, marker);
    rmSync(layout.stateFile, { force: true });
    if (!(await portIsFree(options.port))) {
      throw new StackError(
        'port-in-use',
        `port ${options.port} (abp serve) is already in use on 127.0.0.1: stop whatever listens there, or pick another port with ABP_SERVE_PORT=<port>`,
      );
    }
    const secret = webhookSecret(config);
    const pid = await startDetached({
      command: process.execPath,
      // Requests go to their own rotating log; the start line and any failure stay in serve.log.
      args: [
        join(packageRoot, 'bin', 'abp.js'),
        'serve',
        '--port',
        String(options.port),
        '--host',
        '127.0.0.1',
        '--log-file',
        layout.requestLogFile,
      ],
      pidFile: layout.pidFile,
      logFile: layout.logFile,
      cwd: packageRoot,
      // The receiver needs no GitHub credentials: it only signals tasks, which re-read GitHub themselves.
      env: {
        ...withoutGithub(process.env),
        ABP_HOME: config.home,
        TEMPORAL_ADDRESS: config.temporal.address,
        TEMPORAL_NAMESPACE: config.temporal.namespace,
        ABP_WEBHOOK_SECRET: secret,
      },
    });
    const timeoutMs = options.readyTimeoutMs ?? 60_000;
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!isOurProcess(pid, marker)) {
        await stopDetached(layout.pidFile, marker);
        throw new StackError(
          'start-failed',
          `abp serve exited during start-up; last lines of ${layout.logFile}:\n${tailOf(layout.logFile)}`,
        );
      }
      if (await answers(`${wanted.apiUrl}/registry`)) {
        const state: ServeState = { pid, ...wanted, startedAt: new Date().toISOString() };
        writeAtomically(layout.stateFile, `${JSON.stringify(state, null, 2)}\n`);
        writeAtomically(layout.portFile, `${options.port}\n`);
        return serveStatus(config);
      }
      await delay(100);
    }
    await stopDetached(layout.pidFile, marker);
    throw new StackError(
      'start-failed',
      `abp serve did not answer at ${wanted.url} within ${timeoutMs} ms; last lines of ${layout.logFile}:\n${tailOf(layout.logFile)}`,
    );
  });
}

export function serveDown(config: StackConfig): Promise<'stopped' | 'not-running'> {
  const layout = serveLayout(config);
  return withLock(layout.lockFile, async () => {
    const result = await stopDetached(layout.pidFile, marker);
    rmSync(layout.stateFile, { force: true });
    return result;
  });
}

function withoutGithub(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = { ...env };
  for (const name of ['GITHUB_TOKEN', 'GITHUB_API_URL', 'ABP_GITHUB_PACING']) delete copy[name];
  return copy;
}

/** Temp file, fsync, rename: a reader sees the old file or the new one, never half of one. */
function writeAtomically(file: string, text: string, mode = 0o644): void {
  mkdirSync(dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}.partial`;
  const fd = openSync(partial, 'w', mode);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(partial, file);
}
