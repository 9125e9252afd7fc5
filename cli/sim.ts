// `abp sim serve|up|down|status`: the local GitHub that every stage, test and demo runs against.
import { readFileSync } from 'node:fs';
import { startSimulator } from '../simulator/server.js';
import { createScaleWorld } from '../simulator/world/scale.js';
import { resolveStackConfig } from '../stack/config.js';
import { StackError } from '../stack/errors.js';
import { publishSimState, simDown, simStatus, simUp, withdrawSimState, type SimStatus, type WorldSpec } from '../stack/sim-stack.js';
import { createOutput, type Output, type OutputOptions } from './output.js';

export interface WorldOptions {
  world: 'scale';
  seed: number;
  repos: number;
  issues: number;
}


function worldSpec(options: WorldOptions): WorldSpec {
  return { world: options.world, seed: options.seed, repos: options.repos, issues: options.issues };
}

function printStatus(out: Output, status: SimStatus): void {
  if (status.state !== 'running' || !status.sim) {
    out.line(`simulator       ${status.state}${status.pid === null ? '' : ` (pid ${status.pid})`}`);
    return;
  }
  const { sim } = status;
  out.line(`simulator       running pid ${sim.pid}, ${sim.world.world} world seed ${sim.world.seed} (${sim.world.repos} repositories, ${sim.world.issues} issues)`);
  out.line(`GITHUB_API_URL  ${sim.apiUrl}`);
  out.line(`GraphQL         ${sim.graphqlUrl}`);
  out.line(`git clone       ${sim.gitUrl}/<owner>/<name>.git`);
  if (status.token) out.line(`GITHUB_TOKEN    ${status.token}`);
  out.line(`log             ${status.log}`);
}

/** The serving process itself (what `sim up` starts in the background). */
export async function simServeCommand(options: WorldOptions & { port: number }): Promise<void> {
  const config = resolveStackConfig();
  const tokenFile = process.env.ABP_SIM_TOKEN_FILE;
  const token = process.env.ABP_SIM_TOKEN ?? (tokenFile ? readFileSync(tokenFile, 'utf8').trim() : '');
  if (!token) throw new StackError('invalid-setting', 'no token: set ABP_SIM_TOKEN (or ABP_SIM_TOKEN_FILE), or start the simulator with `abp sim up`');
  const started = performance.now();
  const world = createScaleWorld({ seed: options.seed, repos: options.repos, issues: options.issues });
  const simulator = await startSimulator({ world, tokens: new Set([token]), port: options.port });
  console.log(`simulator: ${options.world} world seed ${options.seed} ready in ${Math.round(performance.now() - started)} ms at ${simulator.apiUrl}`);
  publishSimState(config, {
    pid: process.pid,
    apiUrl: simulator.apiUrl,
    graphqlUrl: simulator.graphqlUrl,
    gitUrl: simulator.gitUrl,
    world: worldSpec(options),
    startedAt: new Date().toISOString(),
  });
  await new Promise<void>((stop) => {
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  withdrawSimState(config);
  await simulator.close();
}

export async function simUpCommand(options: WorldOptions & OutputOptions & { port: number }): Promise<void> {
  const out = createOutput(options);
  const status = await simUp(resolveStackConfig(), worldSpec(options), { port: options.port });
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
