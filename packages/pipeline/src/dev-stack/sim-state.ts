// The GitHub simulator as a background component of a data directory, read side: where its pid, log, state file
// (URLs, world) and token live, and whether it runs. `abp status` reads this; the main job starts and stops the
// simulator (main-job/src/sim-stack.ts) and its serving process publishes the state file once it listens.
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StackConfig } from '../worker/config.js';
import { isOurProcess, readPid } from './processes.js';

/**
 * A scale world (many repositories, read-only) or the small live world (real git, actors), dated: its clock starts at
 * 00:00 UTC on `date` (YYYY-MM-DD), so the same seed and day give the same repositories and commits.
 */
export type WorldSpec =
  { world: 'scale'; seed: number; repos: number; issues: number } | { world: 'small'; seed: number; date: string };

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

/** What the serving process's command line holds: `abp sim serve`. */
export const SIM_PROCESS_MARKER = 'abp.js sim serve';

export function simLayout(config: StackConfig) {
  const run = join(config.home, 'run');
  return {
    pidFile: join(run, 'sim.pid'),
    stateFile: join(run, 'sim.json'),
    tokenFile: join(run, 'sim.token'),
    lockFile: join(run, 'sim.lock'),
    /** The port it last served on, kept after it stops: tasks keep the pull request URLs it gave out. */
    portFile: join(run, 'sim.port'),
    logFile: join(config.home, 'logs', 'sim.log'),
  };
}

export function simStatus(config: StackConfig, options: { withToken?: boolean } = {}): SimStatus {
  const layout = simLayout(config);
  const pid = readPid(layout.pidFile);
  const state = pid === null ? 'stopped' : isOurProcess(pid, SIM_PROCESS_MARKER) ? 'running' : 'stale-pid';
  const sim =
    state === 'running' && existsSync(layout.stateFile)
      ? (JSON.parse(readFileSync(layout.stateFile, 'utf8')) as SimState)
      : null;
  const token =
    options.withToken && sim && existsSync(layout.tokenFile) ? readFileSync(layout.tokenFile, 'utf8').trim() : null;
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
