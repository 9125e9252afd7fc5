// `abp sim up|down`: the GitHub simulator started as a background process of the stack (`abp sim serve`, this package's
// `abp`), with its token in a 0600 file; pipeline/dev-stack/sim-state.ts says where everything lives and reads it.
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import {
  SIM_PROCESS_MARKER as marker,
  simLayout,
  simStatus,
  withdrawSimState,
  type SimStatus,
  type WorldSpec,
} from '@abp/pipeline/dev-stack/sim-state';
import { savedLiveWorldDate, utcDate } from '@abp/github-sim/world/live/world';
import { isOurProcess, startDetached, stopDetached, tailOf, withLock } from '@abp/pipeline/dev-stack/processes';
import type { StackConfig } from '@abp/pipeline/worker/config';
import { StackError } from '@abp/pipeline/worker/errors';
import { packageRoot } from './package-root.js';

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

/** Where the small world of `seed` lives in a data directory: its repositories and state, and CI's scratch folder. */
export function smallWorldFolder(home: string, seed: number): string {
  return join(home, 'sim', `small-${seed}`);
}

/**
 * How long a kept small world is resumed. Its last merges lie 18 to 21 days before its date and the registry criteria
 * want one within 30 days of a rotation, so an older world would leave a new quarter's rotation empty.
 */
export const KEPT_WORLD_MAX_AGE_DAYS = 7;

/**
 * The day of the small world this data directory keeps for `seed`, while it is recent enough to resume; null when it
 * keeps none or one too old (then a world dated today is built, without the pull requests of the old one).
 */
export function keptWorldDate(home: string, seed: number, today: string = utcDate()): string | null {
  const kept = savedLiveWorldDate(join(smallWorldFolder(home, seed), 'world'));
  if (kept === null) return null;
  const ageDays = (Date.parse(`${today}T00:00:00Z`) - Date.parse(`${kept}T00:00:00Z`)) / 86_400_000;
  return ageDays >= 0 && ageDays <= KEPT_WORLD_MAX_AGE_DAYS ? kept : null;
}

export function worldArgs(world: WorldSpec): string[] {
  return world.world === 'scale'
    ? [
        '--world',
        'scale',
        '--seed',
        String(world.seed),
        '--repos',
        String(world.repos),
        '--issues',
        String(world.issues),
      ]
    : ['--world', 'small', '--seed', String(world.seed), '--world-date', world.date];
}

export function simUp(
  config: StackConfig,
  world: WorldSpec,
  serve: ServeSpec,
  options: { readyTimeoutMs?: number } = {},
): Promise<SimStatus> {
  const layout = simLayout(config);
  return withLock(layout.lockFile, async () => {
    const before = simStatus(config, { withToken: true });
    if (before.state === 'running') {
      const running = before.sim?.world;
      if (running && JSON.stringify(running) !== JSON.stringify(world)) {
        throw new StackError(
          'start-failed',
          `a simulator with another world (${JSON.stringify(running)}) is already running: \`abp sim down\` first`,
        );
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
        join(packageRoot, 'bin', 'abp.js'),
        'sim',
        'serve',
        ...worldArgs(world),
        '--port',
        String(serve.port),
        '--review-delay-ms',
        String(serve.reviewDelayMs),
        ...(serve.webhookUrl ? ['--webhook-url', serve.webhookUrl] : []),
        ...(serve.faultsFile ? ['--faults', serve.faultsFile] : []),
      ],
      pidFile: layout.pidFile,
      logFile: layout.logFile,
      cwd: packageRoot,
      env: { ...process.env, ABP_HOME: config.home, ABP_SIM_TOKEN_FILE: layout.tokenFile },
    });
    const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
    while (Date.now() < deadline) {
      const status = simStatus(config, { withToken: true });
      if (status.sim?.pid === pid) return status;
      if (!isOurProcess(pid, marker)) {
        await stopDetached(layout.pidFile, marker);
        throw new StackError(
          'start-failed',
          `the simulator exited during start-up; last lines of ${layout.logFile}:\n${tailOf(layout.logFile)}`,
        );
      }
      await delay(100);
    }
    await stopDetached(layout.pidFile, marker);
    throw new StackError(
      'start-failed',
      `the simulator did not start listening within ${options.readyTimeoutMs ?? 60_000} ms; see ${layout.logFile}`,
    );
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
