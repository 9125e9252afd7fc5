// `abp sim up|down|status`: the GitHub simulator as a background process of the stack, with its
// pid, log and a state file (URLs, world) in the data directory, and its token in a 0600 file.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { repositoryRoot, type StackConfig } from './config.js';
import { StackError } from './errors.js';
import { isOurProcess, readPid, startDetached, stopDetached, tailOf, withLock } from './processes.js';

/**
 * A scale world (many repositories, read-only) or the small live world (real git, actors), dated: its clock starts at
 * 00:00 UTC on `date` (YYYY-MM-DD), so the same seed and day give the same repositories and commits.
 */
export type WorldSpec = { world: 'scale'; seed: number; repos: number; issues: number } | { world: 'small'; seed: number; date: string };

/** Options of the serving process beyond the world; secrets travel in the environment, never here. */
export interface ServeSpec {
  port: number;
  /** Live worlds: how long the maintainer actor waits before merging a green pull request. */
  reviewDelayMs: number;
  /** Live worlds: where webhooks are delivered (the secret is ABP_SIM_WEBHOOK_SECRET). */
  webhookUrl: string | null;
  /** A fault plan file (schemas/sim-faults.ts), absolute. */
  faultsFile: string | null;
}

/** What a running simulator publishes about itself; the token is kept apart, in a 0600 file. */
export interface SimState {
  pid: number;
  apiUrl: string;
  graphqlUrl: string;
  gitUrl: string;
  world: WorldSpec;
  startedAt: string;
}

export interface SimStatus {
  state: 'running' | 'stopped' | 'stale-pid';
  pid: number | null;
  sim: SimState | null;
  /** Only for the caller that asked for it: `sim up` prints it once. */
  token: string | null;
  log: string;
}

const marker = 'abp.js sim serve';

export function simLayout(config: StackConfig) {
  const run = join(config.home, 'run');
  return {
    pidFile: join(run, 'sim.pid'),
    stateFile: join(run, 'sim.json'),
    tokenFile: join(run, 'sim.token'),
    lockFile: join(run, 'sim.lock'),
    logFile: join(config.home, 'logs', 'sim.log'),
  };
}

export function simStatus(config: StackConfig, options: { withToken?: boolean } = {}): SimStatus {
  const layout = simLayout(config);
  const pid = readPid(layout.pidFile);
  const state = pid === null ? 'stopped' : isOurProcess(pid, marker) ? 'running' : 'stale-pid';
  const sim = state === 'running' && existsSync(layout.stateFile) ? (JSON.parse(readFileSync(layout.stateFile, 'utf8')) as SimState) : null;
  const token = options.withToken && sim && existsSync(layout.tokenFile) ? readFileSync(layout.tokenFile, 'utf8').trim() : null;
  return { state, pid, sim, token, log: layout.logFile };
}

/** Written by the serving process once it listens: readiness is this file naming that process. */
export function publishSimState(config: StackConfig, state: SimState): void {
  const { stateFile } = simLayout(config);
  writeFileSync(`${stateFile}.partial`, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(`${stateFile}.partial`, stateFile);
}

export function withdrawSimState(config: StackConfig): void {
  rmSync(simLayout(config).stateFile, { force: true });
}

export function worldArgs(world: WorldSpec): string[] {
  return world.world === 'scale'
    ? ['--world', 'scale', '--seed', String(world.seed), '--repos', String(world.repos), '--issues', String(world.issues)]
    : ['--world', 'small', '--seed', String(world.seed), '--world-date', world.date];
}

export function simUp(config: StackConfig, world: WorldSpec, serve: ServeSpec, options: { readyTimeoutMs?: number } = {}): Promise<SimStatus> {
  const layout = simLayout(config);
  return withLock(layout.lockFile, async () => {
    const before = simStatus(config, { withToken: true });
    if (before.state === 'running') {
      const running = before.sim?.world;
      if (running && JSON.stringify(running) !== JSON.stringify(world)) {
        throw new StackError('start-failed', `a simulator with another world (${JSON.stringify(running)}) is already running: \`abp sim down\` first`);
      }
      return before;
    }
    withdrawSimState(config);
    // A fresh token per start; the file is readable only by this user.
    const token = `ghs_sim${randomBytes(18).toString('hex')}`;
    writeFileSync(layout.tokenFile, `${token}\n`, { mode: 0o600 });
    const pid = await startDetached({
      command: process.execPath,
      args: [
        join(repositoryRoot, 'bin', 'abp.js'), 'sim', 'serve', ...worldArgs(world),
        '--port', String(serve.port), '--review-delay-ms', String(serve.reviewDelayMs),
        ...(serve.webhookUrl ? ['--webhook-url', serve.webhookUrl] : []),
        ...(serve.faultsFile ? ['--faults', serve.faultsFile] : []),
      ],
      pidFile: layout.pidFile,
      logFile: layout.logFile,
      cwd: repositoryRoot,
      env: { ...process.env, ABP_HOME: config.home, ABP_SIM_TOKEN_FILE: layout.tokenFile },
    });
    const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
    while (Date.now() < deadline) {
      const status = simStatus(config, { withToken: true });
      if (status.sim?.pid === pid) return status;
      if (!isOurProcess(pid, marker)) {
        await stopDetached(layout.pidFile, marker);
        throw new StackError('start-failed', `the simulator exited during start-up; last lines of ${layout.logFile}:\n${tailOf(layout.logFile)}`);
      }
      await delay(100);
    }
    await stopDetached(layout.pidFile, marker);
    throw new StackError('start-failed', `the simulator did not start listening within ${options.readyTimeoutMs ?? 60_000} ms; see ${layout.logFile}`);
  });
}

export function simDown(config: StackConfig): Promise<'stopped' | 'not-running'> {
  const layout = simLayout(config);
  return withLock(layout.lockFile, async () => {
    const result = await stopDetached(layout.pidFile, marker);
    withdrawSimState(config);
    rmSync(layout.tokenFile, { force: true });
    return result;
  });
}
