// `abp sim serve|up|down|status`: the local GitHub that every stage, test and demo runs against.
import { readFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Actors } from '@abp/github-sim/actors';
import { startSimulator, type RunningSimulator } from '@abp/github-sim/server';
import { WebhookDispatcher } from '@abp/github-sim/webhooks/dispatcher';
import { createLiveCi } from '@abp/github-sim/world/live/ci';
import {
  createLiveWorld,
  LiveWorldError,
  resumeLiveWorld,
  savedLiveWorldDate,
  utcDate,
  worldDateClock,
} from '@abp/github-sim/world/live/world';
import { createScaleWorld } from '@abp/github-sim/world/scale';
import { simFaultsFile, type SimFaultsFile } from '@abp/github-sim/fault-plan';
import { resolveStackConfig } from '@abp/pipeline/worker/config';
import { StackError } from '@abp/pipeline/worker/errors';
import {
  publishSimState,
  simStatus,
  withdrawSimState,
  type SimStatus,
  type WorldSpec,
} from '@abp/pipeline/dev-stack/sim-state';
import { keptWorldDate, simDown, simUp, smallWorldFolder, type ServeSpec } from '../sim-stack.js';
import { createOutput, type Output, type OutputOptions } from '@abp/grader/cli';

export interface WorldOptions {
  world: 'scale' | 'small';
  seed: number;
  repos: number;
  issues: number;
  port: number;
  reviewDelayMs: number;
  webhookUrl?: string;
  faults?: string;
  /**
   * Small world: the day its clock starts (YYYY-MM-DD, 00:00 UTC). Default: the day of the world this data directory
   * keeps for the seed, so a restart resumes it; today for a new one, so its history is recent.
   */
  worldDate?: string;
}

/** The world to serve, its date checked here where the user sees the error. */
export function worldSpec(options: WorldOptions, home: string): WorldSpec {
  if (options.world === 'scale')
    return { world: 'scale', seed: options.seed, repos: options.repos, issues: options.issues };
  const date = options.worldDate ?? keptWorldDate(home, options.seed) ?? utcDate();
  try {
    worldDateClock(date);
  } catch (error) {
    if (error instanceof LiveWorldError) throw new StackError('invalid-setting', `--world-date: ${error.message}`);
    throw error;
  }
  return { world: 'small', seed: options.seed, date };
}

function serveSpec(options: WorldOptions): ServeSpec {
  return {
    port: options.port,
    reviewDelayMs: options.reviewDelayMs,
    webhookUrl: options.webhookUrl ?? null,
    faultsFile: options.faults ? resolve(options.faults) : null,
  };
}

/** Reads and checks a fault plan file; the error names the file, the field and the rule. */
export function readFaultsFile(path: string): SimFaultsFile {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new StackError('invalid-setting', `--faults ${path}: ${(error as Error).message}`);
  }
  const parsed = simFaultsFile.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '$'}: ${issue.message}`).join('; ');
    throw new StackError(
      'invalid-setting',
      `--faults ${path}: ${problems} (e.g. {"seed": 1, "serverErrorRate": 0.05, "serverErrorBurst": 3})`,
    );
  }
  return parsed.data;
}

function describeWorld(world: WorldSpec): string {
  return world.world === 'scale'
    ? `scale world seed ${world.seed} (${world.repos} repositories, ${world.issues} issues)`
    : `small live world seed ${world.seed} dated ${world.date}`;
}

function printStatus(out: Output, status: SimStatus): void {
  if (status.state !== 'running' || !status.sim) {
    out.line(`simulator       ${status.state}${status.pid === null ? '' : ` (pid ${status.pid})`}`);
    return;
  }
  const { sim } = status;
  out.line(`simulator       running pid ${sim.pid}, ${describeWorld(sim.world)}`);
  out.line(`GITHUB_API_URL  ${sim.apiUrl}`);
  out.line(`GraphQL         ${sim.graphqlUrl}`);
  out.line(`git clone       ${sim.gitUrl}/<owner>/<name>.git`);
  if (status.token) out.line(`GITHUB_TOKEN    ${status.token}`);
  out.line(`log             ${status.log}`);
}

/** The serving process itself (what `sim up` starts in the background). */
export async function simServeCommand(options: WorldOptions): Promise<void> {
  const config = resolveStackConfig();
  const tokenFile = process.env.ABP_SIM_TOKEN_FILE;
  const token = process.env.ABP_SIM_TOKEN ?? (tokenFile ? readFileSync(tokenFile, 'utf8').trim() : '');
  if (!token)
    throw new StackError(
      'invalid-setting',
      'no token: set ABP_SIM_TOKEN (or ABP_SIM_TOKEN_FILE), or start the simulator with `abp sim up`',
    );
  const spec = worldSpec(options, config.home);
  const faults = options.faults ? readFaultsFile(options.faults) : null;
  const started = performance.now();
  const served =
    spec.world === 'scale'
      ? await serveScaleWorld(spec, token, options.port, faults)
      : await serveLiveWorld(spec, token, options, config.home, faults);
  console.log(
    `simulator: ${describeWorld(spec)} ready in ${Math.round(performance.now() - started)} ms at ${served.simulator.apiUrl}`,
  );
  publishSimState(config, {
    pid: process.pid,
    apiUrl: served.simulator.apiUrl,
    graphqlUrl: served.simulator.graphqlUrl,
    gitUrl: served.simulator.gitUrl,
    world: spec,
    startedAt: new Date().toISOString(),
  });
  await new Promise<void>((stop) => {
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  withdrawSimState(config);
  await served.stop();
}

interface Served {
  simulator: RunningSimulator;
  stop(): Promise<void>;
}

async function serveScaleWorld(
  spec: Extract<WorldSpec, { world: 'scale' }>,
  token: string,
  port: number,
  faults: SimFaultsFile | null,
): Promise<Served> {
  const world = createScaleWorld({ seed: spec.seed, repos: spec.repos, issues: spec.issues });
  const simulator = await startSimulator({ world, tokens: new Set([token]), port, ...(faults ? { faults } : {}) });
  return { simulator, stop: () => simulator.close() };
}

/** The small live world: real repositories on disk, CI and maintainers at work, webhooks if asked for. */
async function serveLiveWorld(
  spec: Extract<WorldSpec, { world: 'small' }>,
  token: string,
  options: WorldOptions,
  home: string,
  faults: SimFaultsFile | null,
): Promise<Served> {
  // The world this data directory keeps for the seed and day is resumed, pull requests and all: tasks follow them by
  // URL. Any other is built afresh from its seed and date, which give the same repositories.
  const dir = smallWorldFolder(home, spec.seed);
  const worldDir = join(dir, 'world');
  const kept = savedLiveWorldDate(worldDir);
  const resume = kept === spec.date;
  if (kept !== null && !resume)
    console.log(
      `simulator: building the world dated ${spec.date} afresh in place of the one dated ${kept}; the pull requests opened in that one are gone`,
    );
  if (!resume) await rm(dir, { recursive: true, force: true });
  await rm(join(dir, 'ci'), { recursive: true, force: true });
  // The solver's forks carry every known fix as fix/<issue>: what the reference solver of `abp start` opens upstream.
  const world = resume
    ? resumeLiveWorld({ dir: worldDir })
    : await createLiveWorld({
        seed: spec.seed,
        dir: worldDir,
        generatedAt: worldDateClock(spec.date),
        solverFixBranches: true,
        keepState: true,
      });
  if (resume) console.log(`simulator: resumed the world kept in ${worldDir}`);
  const simulator = await startSimulator({
    world,
    tokens: new Set([token]),
    port: options.port,
    gitRoot: world.gitRoot,
    canPush: world.canPush,
    ...(faults ? { faults } : {}),
  });
  await mkdir(join(dir, 'ci'), { recursive: true });
  const actors = new Actors({
    world,
    ci: createLiveCi(world, {
      workDir: join(dir, 'ci'),
      // The simulator's log is where an operator looks when a pull request's check went red for no visible reason.
      onInstallFailure: (repo, pull, message) =>
        console.error(`ci: ${repo.owner}/${repo.name}#${pull.number}: the install step failed: ${message}`),
    }),
    plan: { seed: spec.seed, reviewDelayMs: options.reviewDelayMs, closeUnmergedRate: 0 },
  });
  actors.start();
  let webhooks: WebhookDispatcher | null = null;
  if (options.webhookUrl) {
    const secret = process.env.ABP_SIM_WEBHOOK_SECRET;
    if (!secret)
      throw new StackError(
        'invalid-setting',
        '--webhook-url needs ABP_SIM_WEBHOOK_SECRET in the environment: the secret deliveries are signed with',
      );
    webhooks = new WebhookDispatcher({
      world,
      apiBaseUrl: simulator.apiUrl,
      url: options.webhookUrl,
      secret,
      seed: spec.seed,
      dropRate: faults?.webhookDropRate ?? 0,
      logPath: join(home, 'logs', 'sim-webhooks.jsonl'),
    });
    webhooks.attach(world);
  }
  return {
    simulator,
    stop: async () => {
      actors.stop();
      await webhooks?.close();
      await simulator.close();
    },
  };
}

export async function simUpCommand(options: WorldOptions & OutputOptions): Promise<void> {
  const out = createOutput(options);
  // Check the plan here, where the user sees the error, not only in the background process.
  if (options.faults) readFaultsFile(options.faults);
  const config = resolveStackConfig();
  const status = await simUp(config, worldSpec(options, config.home), serveSpec(options));
  printStatus(out, status);
  out.data(status);
}

export async function simDownCommand(options: OutputOptions): Promise<void> {
  const out = createOutput(options);
  const result = await simDown(resolveStackConfig());
  out.line(`simulator       ${result}`);
  out.data({ result });
}

export function simStatusCommand(options: OutputOptions): void {
  const out = createOutput(options);
  const status = simStatus(resolveStackConfig());
  printStatus(out, status);
  out.data(status);
}
