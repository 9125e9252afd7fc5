// The stack stage: everything the main job runs on, started where it is not running and reused where it is. The order
// follows the dependencies: the signing key (`abp init`); the serve port and webhook secret (the simulator delivers
// there); the simulator's small live world; Temporal and the worker, the worker bound to the simulator's endpoint;
// then `abp serve`, which needs Temporal.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createGithubClient, type GithubClient } from '@abp/pipeline/github/client';
import { signingPaths } from '@abp/pipeline/signing/home';
import { initSigning } from '@abp/pipeline/signing/key-rotation';
import type { StackConfig } from '@abp/pipeline/worker/config';
import { layoutOf, stackStatus, stackUp, type StackStatus } from '@abp/pipeline/dev-stack/dev-stack';
import { portIsFree, tailOf } from '@abp/pipeline/dev-stack/processes';
import {
  serveLayout,
  servePort,
  serveStatus,
  serveUp,
  serveUrls,
  webhookSecret,
} from '@abp/pipeline/dev-stack/serve-stack';
import { simLayout, simStatus, type SimStatus } from '@abp/pipeline/dev-stack/sim-state';
import { keptWorldDate, simDown, simUp } from './sim-stack.js';
import { utcDate } from '@abp/github-sim/world/live/world';
import { PipelineError } from './errors.js';
import type { StageReport } from './stage.js';
import { AbpError } from '@abp/protocol/errors';

export interface RunningStack {
  config: StackConfig;
  sim: { pid: number; apiUrl: string; gitUrl: string; token: string; seed: number; date: string; log: string };
  serve: { pid: number; url: string; webhookUrl: string; apiUrl: string; log: string };
  temporal: { address: string; ui: string | null; pid: number | null; log: string };
  worker: { pid: number; log: string };
  trustRoot: string;
  /** abp's GitHub client, pointed at the simulator; its pacing is off, as the simulator does not need it. */
  github: GithubClient;
}

/** The webhook URL a running simulator delivers to, from its command line (Linux); null where it cannot be read. */
function simWebhookUrl(pid: number): string | null {
  const cmdline = `/proc/${pid}/cmdline`;
  if (!existsSync(cmdline)) return null;
  const args = readFileSync(cmdline, 'utf8').split('\0');
  const at = args.indexOf('--webhook-url');
  return at === -1 ? '' : (args[at + 1] ?? '');
}

async function ensureSimulator(
  config: StackConfig,
  input: { worldSeed: number; reviewDelayMs: number; webhookUrl: string; secret: string },
  report: StageReport,
): Promise<SimStatus> {
  const log = simLayout(config).logFile;
  const running = simStatus(config, { withToken: true });
  if (running.state === 'running' && running.sim !== null) {
    const { world } = running.sim;
    if (world.world !== 'small' || world.seed !== input.worldSeed) {
      throw new PipelineError(
        'stack',
        `a simulator with another world (${JSON.stringify(world)}) runs in this data directory; the main job needs the small world seed ${input.worldSeed}: stop it with \`abp sim down\`, or use another ABP_HOME`,
        log,
      );
    }
    const deliversTo = simWebhookUrl(running.sim.pid);
    if (deliversTo === null || deliversTo === input.webhookUrl) {
      report.note(
        `simulator already running (pid ${running.sim.pid}), small world seed ${world.seed} dated ${world.date}`,
      );
      return running;
    }
    // Its deliveries would go nowhere: restarted, it resumes the world it keeps in the data directory.
    await simDown(config);
    report.note(
      `simulator restarted: it delivered webhooks to ${deliversTo || 'nowhere'}, abp serve listens at ${input.webhookUrl}`,
    );
  }
  // The secret travels in the environment (never on a command line): simUp hands this process's environment on. It is
  // taken out again at once, so no process started later (the worker) inherits it.
  process.env.ABP_SIM_WEBHOOK_SECRET = input.secret;
  // The world this data directory keeps (resumed with its pull requests), or one dated today.
  const kept = keptWorldDate(config.home, input.worldSeed);
  const date = kept ?? utcDate();
  // Back on the address it had: the tasks of this data directory name pull requests by their URLs on it.
  const { portFile } = simLayout(config);
  const last = existsSync(portFile) ? Number(readFileSync(portFile, 'utf8').trim()) : Number.NaN;
  const port = Number.isInteger(last) && last > 0 && (await portIsFree(last)) ? last : 0;
  let started: SimStatus;
  try {
    started = await simUp(
      config,
      { world: 'small', seed: input.worldSeed, date },
      { port, reviewDelayMs: input.reviewDelayMs, webhookUrl: input.webhookUrl, faultsFile: null },
    );
    if (started.sim !== null) writeFileSync(portFile, `${new URL(started.sim.apiUrl).port}\n`);
  } catch (error) {
    throw new PipelineError('stack', (error as Error).message, log, { cause: error });
  } finally {
    delete process.env.ABP_SIM_WEBHOOK_SECRET;
  }
  report.note(
    `simulator started (pid ${started.pid ?? '?'}): small world seed ${input.worldSeed} dated ${date}${kept === null ? '' : ' (resumed with its pull requests)'}, maintainers merge green pull requests after ${input.reviewDelayMs} ms, log ${log}`,
  );
  return started;
}

/** The stack's components running now, by name. */
function runningComponents(config: StackConfig): Map<string, number | null> {
  const running = new Map<string, number | null>();
  for (const component of stackStatus(config).components)
    if (component.state === 'running')
      running.set(component.name === 'temporal' ? 'Temporal dev server' : 'worker', component.pid);
  const sim = simStatus(config);
  if (sim.state === 'running') running.set('simulator', sim.pid);
  const serve = serveStatus(config);
  if (serve.state === 'running') running.set('abp serve', serve.pid);
  return running;
}

/**
 * Starts or reuses every component. A start that fails part way says which of the components it launched are still
 * running and how to stop them: they are left up (the next start reuses them), never silently.
 */
export async function startStack(
  config: StackConfig,
  input: { worldSeed: number; reviewDelayMs: number },
  report: StageReport,
): Promise<RunningStack> {
  const before = runningComponents(config);
  try {
    return await startComponents(config, input, report);
  } catch (error) {
    if (!(error instanceof PipelineError)) throw error;
    const launched = [...runningComponents(config)].filter(([name]) => !before.has(name));
    if (launched.length === 0) throw error;
    throw new PipelineError(
      error.stage,
      `${error.reason}; this start left running what it launched (${launched.map(([name, pid]) => `${name} pid ${pid ?? '?'}`).join(', ')}): \`abp stop\` stops it, and the next \`abp start\` reuses it`,
      error.log,
      { cause: error },
    );
  }
}

async function startComponents(
  config: StackConfig,
  input: { worldSeed: number; reviewDelayMs: number },
  report: StageReport,
): Promise<RunningStack> {
  if (process.env.GITHUB_TOKEN || process.env.GITHUB_API_URL) {
    report.note(
      'GITHUB_TOKEN / GITHUB_API_URL in the environment are not used: the main job runs against the simulator (README, "Running against real GitHub", runs the stages on api.github.com)',
    );
  }
  const { key, created, trustRoot } = await initSigning(config.home);
  const paths = signingPaths(config.home);
  report.note(
    `${created ? 'created' : 'kept'} signing key ${key.keyId.slice(0, 16)}…; trust root ${paths.trustRoot} (version ${trustRoot.version})`,
  );

  const port = await servePort(config);
  const urls = serveUrls(port);
  const secret = webhookSecret(config);
  const sim = await ensureSimulator(config, { ...input, webhookUrl: urls.webhookUrl, secret }, report);
  if (sim.sim === null || sim.token === null || sim.pid === null)
    throw new PipelineError('stack', 'the simulator runs but published no state or token', sim.log);
  const { world } = sim.sim;
  if (world.world !== 'small')
    throw new PipelineError('stack', 'the simulator does not serve the small world', sim.log);

  const layout = layoutOf(config);
  let status: StackStatus;
  try {
    status = await stackUp(config, {
      github: { apiUrl: sim.sim.apiUrl, token: sim.token, pacing: 'off' },
      onStep: (line) => report.note(line),
    });
  } catch (error) {
    // The log of the component that is not up is the one that says why (a Temporal port clash is in temporal.log).
    const down = stackStatus(config).components.find(
      (component) => component.state !== 'running' && component.state !== 'external',
    );
    throw new PipelineError('stack', (error as Error).message, down?.log ?? layout.worker.logFile, { cause: error });
  }
  const temporal = status.components.find((component) => component.name === 'temporal');
  const worker = status.components.find((component) => component.name === 'worker');
  if (worker?.pid === null || worker === undefined)
    throw new PipelineError('stack', 'the worker is not running after start-up', layout.worker.logFile);

  const served = await serveUp(config, { port }).catch((error: unknown) => {
    throw new PipelineError('stack', (error as Error).message, serveLayout(config).logFile, { cause: error });
  });
  if (served.serve === null || served.pid === null)
    throw new PipelineError('stack', 'abp serve runs but published no state', served.log);
  report.note(
    `abp serve at ${served.serve.url}: webhooks ${served.serve.webhookUrl}, API ${served.serve.apiUrl}, log ${served.log}`,
  );

  return {
    config,
    sim: {
      pid: sim.pid,
      apiUrl: sim.sim.apiUrl,
      gitUrl: sim.sim.gitUrl,
      token: sim.token,
      seed: world.seed,
      date: world.date,
      log: sim.log,
    },
    serve: {
      pid: served.pid,
      url: served.serve.url,
      webhookUrl: served.serve.webhookUrl,
      apiUrl: served.serve.apiUrl,
      log: served.log,
    },
    temporal: {
      address: config.temporal.address,
      ui: temporal?.ui ?? null,
      pid: temporal?.pid ?? null,
      log: temporal?.log ?? '',
    },
    worker: { pid: worker.pid, log: worker.log },
    trustRoot: paths.trustRoot,
    github: createGithubClient({ baseUrl: sim.sim.apiUrl, token: sim.token }, { ABP_GITHUB_PACING: 'off' }),
  };
}

/** A component of the stack that stopped while the job ran: the stage that was waiting on it fails with its log. */
export class StackComponentExited extends AbpError<'component-exited'> {
  constructor(
    message: string,
    readonly log: string,
  ) {
    super('component-exited', message);
  }
}

export interface StackGuard {
  /** Rejects with StackComponentExited once a component of the stack is gone; never resolves. */
  exited: Promise<never>;
  stop(): void;
}

/**
 * Watches the stack's processes while the job waits on them: a worker, simulator, server or `abp serve` that exits
 * (killed, out of memory, crashed) would otherwise leave a stage waiting until its timeout, or for ever on a workflow.
 */
export function guardStack(stack: RunningStack, everyMs = 2_000): StackGuard {
  let timer: NodeJS.Timeout | null = null;
  const exited = new Promise<never>((_, reject) => {
    timer = setInterval(() => {
      const components = stackStatus(stack.config).components.map((component) => ({
        name: component.name === 'temporal' ? 'Temporal dev server' : 'worker',
        state: component.state,
        log: component.log,
      }));
      const serve = serveStatus(stack.config);
      const sim = simStatus(stack.config);
      const gone = [
        ...components,
        { name: 'abp serve', state: serve.state, log: serve.log },
        { name: 'simulator', state: sim.state, log: sim.log },
      ].find((component) => component.state !== 'running' && component.state !== 'external');
      if (gone === undefined) return;
      if (timer !== null) clearInterval(timer);
      reject(
        new StackComponentExited(
          `the ${gone.name} exited while the job ran (${gone.state}); last lines of ${gone.log}:\n${tailOf(gone.log, 10)}`,
          gone.log,
        ),
      );
    }, everyMs);
    timer.unref();
  });
  // The promise is raced by every stage; one left unobserved after the job must not crash the process.
  exited.catch(() => undefined);
  return {
    exited,
    stop: () => {
      if (timer !== null) clearInterval(timer);
    },
  };
}
