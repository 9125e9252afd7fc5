// The embedded stack behind `abp dev up|down|status`: the Temporal dev server (SQLite in the data
// directory, Web UI) and the abp worker, as background processes with pid and log files.
// With TEMPORAL_ADDRESS set, the cluster is someone else's: only the worker is started.
// Either way it ensures the quarterly registry rotation Schedule and the pull request poller exist.
// The worker reaches GitHub (or the simulator) through GITHUB_API_URL / GITHUB_TOKEN in its environment; the endpoint it
// was started with is recorded beside its pid, so a caller that needs another one (`abp start`) can have it restarted.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { databaseTarget } from '../db/connection.js';
import { redactUrl } from '../db/errors.js';
import { taskQueues } from '../workflows/shared.js';
import { packageRoot } from '../package-root.js';
import { findTemporalBinary, type StackConfig } from '../worker/config.js';
import { StackError } from '../worker/errors.js';
import { withTemporalClient } from '../worker/temporal-client.js';
import { DEFAULT_POLL_SECONDS, ensurePullPoller } from '../worker/pull-poller.js';
import { ensureRotationSchedule } from '../worker/rotation-schedule.js';
import { isOurProcess, portIsFree, readPid, startDetached, stopDetached, tailOf, withLock } from './processes.js';

export type ComponentName = 'temporal' | 'worker';

export interface ComponentStatus {
  name: ComponentName;
  state: 'running' | 'stopped' | 'stale-pid' | 'external';
  pid: number | null;
  /** What the component serves: the gRPC address for Temporal, the task queue for the worker. */
  serves: string;
  ui: string | null;
  log: string;
}

export interface StackStatus {
  home: string;
  mode: StackConfig['temporal']['mode'];
  /** Where the worker keeps abp's records (it applies the migrations when it starts). */
  database: { kind: 'pglite' | 'postgres'; location: string };
  components: ComponentStatus[];
}

interface Layout {
  pidFile: string;
  logFile: string;
  /** A string in the process's command line that tells our process from a reused pid. */
  marker: string;
}

/** The GitHub endpoint the worker reads: GITHUB_API_URL, GITHUB_TOKEN and ABP_GITHUB_PACING in its environment. */
export interface WorkerGithub {
  apiUrl: string;
  token: string;
  /** `off` lifts the client's pacing of GraphQL calls: for the local simulator only (github/client.ts). */
  pacing: 'on' | 'off';
}

/** What is recorded of a running worker's endpoint: never the token itself, only its digest. */
interface WorkerEndpoint {
  pid: number;
  github: { apiUrl: string; tokenSha256: string; pacing: 'on' | 'off' } | null;
}

export function layoutOf(
  config: StackConfig,
): Record<ComponentName, Layout> & { temporalDb: string; lockFile: string; workerEndpoint: string } {
  return {
    lockFile: join(config.home, 'run', 'stack.lock'),
    workerEndpoint: join(config.home, 'run', 'worker.json'),
    temporal: {
      pidFile: join(config.home, 'run', 'temporal.pid'),
      logFile: join(config.home, 'logs', 'temporal.log'),
      marker: 'start-dev',
    },
    worker: {
      pidFile: join(config.home, 'run', 'worker.pid'),
      logFile: join(config.home, 'logs', 'worker.log'),
      marker: 'abp.js worker',
    },
    temporalDb: join(config.home, 'temporal', 'dev.sqlite'),
  };
}

export function stackStatus(config: StackConfig): StackStatus {
  const layout = layoutOf(config);
  const describe = (name: ComponentName, serves: string, ui: string | null): ComponentStatus => {
    const { pidFile, logFile, marker } = layout[name];
    const pid = readPid(pidFile);
    const state = pid === null ? 'stopped' : isOurProcess(pid, marker) ? 'running' : 'stale-pid';
    return { name, state, pid, serves, ui, log: logFile };
  };
  const temporalStatus: ComponentStatus =
    config.temporal.mode === 'external'
      ? { name: 'temporal', state: 'external', pid: null, serves: config.temporal.address, ui: null, log: '' }
      : describe('temporal', config.temporal.address, `http://127.0.0.1:${config.temporal.uiPort}`);
  const target = databaseTarget({ dataDir: config.home });
  return {
    home: config.home,
    mode: config.temporal.mode,
    database:
      target.kind === 'pglite'
        ? { kind: 'pglite', location: target.directory }
        : { kind: 'postgres', location: redactUrl(target.url) },
    components: [
      temporalStatus,
      describe('worker', `task queue ${taskQueues.main} on ${config.temporal.address}`, null),
    ],
  };
}

export interface UpOptions {
  /** Called with one line per step, for a person watching. */
  onStep?: (line: string) => void;
  readyTimeoutMs?: number;
  /**
   * The GitHub endpoint the worker must use. A running worker started with another endpoint, or none, is restarted
   * (and the step says so). Left out, a new worker inherits this process's environment and a running one is kept.
   */
  github?: WorkerGithub;
}

function endpointOf(github: WorkerGithub | null): WorkerEndpoint['github'] {
  return github === null
    ? null
    : {
        apiUrl: github.apiUrl,
        tokenSha256: createHash('sha256').update(github.token).digest('hex'),
        pacing: github.pacing,
      };
}

/** The endpoint a worker started from this environment reads (github/client.ts): none without a token. */
function githubOfEnv(env: NodeJS.ProcessEnv): WorkerGithub | null {
  if (!env.GITHUB_TOKEN) return null;
  return {
    apiUrl: env.GITHUB_API_URL ?? 'https://api.github.com',
    token: env.GITHUB_TOKEN,
    pacing: env.ABP_GITHUB_PACING?.trim().toLowerCase() === 'off' ? 'off' : 'on',
  };
}

function describeEndpoint(endpoint: WorkerEndpoint['github'] | undefined): string {
  if (endpoint === undefined) return 'an endpoint it did not record';
  if (endpoint === null) return 'no GitHub endpoint';
  return `GITHUB_API_URL=${endpoint.apiUrl} (token sha256 ${endpoint.tokenSha256.slice(0, 12)}…${endpoint.pacing === 'off' ? ', pacing off' : ''})`;
}

/** The endpoint recorded for the worker process `pid`, or undefined when none was recorded for that process. */
function recordedEndpoint(file: string, pid: number | null): WorkerEndpoint['github'] | undefined {
  if (pid === null || !existsSync(file)) return undefined;
  try {
    const recorded = JSON.parse(readFileSync(file, 'utf8')) as WorkerEndpoint;
    return recorded.pid === pid ? recorded.github : undefined;
  } catch {
    return undefined;
  }
}

function recordEndpoint(file: string, endpoint: WorkerEndpoint): void {
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, `${JSON.stringify(endpoint, null, 2)}\n`);
  renameSync(partial, file);
}

export function stackUp(config: StackConfig, options: UpOptions = {}): Promise<StackStatus> {
  return withLock(layoutOf(config).lockFile, () => startStack(config, options));
}

async function startStack(config: StackConfig, options: UpOptions): Promise<StackStatus> {
  const step = options.onStep ?? (() => undefined);
  const timeoutMs = options.readyTimeoutMs ?? 60_000;
  const layout = layoutOf(config);
  const started: ComponentName[] = [];
  const before = stackStatus(config);
  try {
    if (config.temporal.mode === 'embedded') {
      if (before.components[0]?.state === 'running') {
        step(`temporal already running (pid ${before.components[0].pid}) on ${config.temporal.address}`);
      } else {
        await startTemporal(config, layout, step);
        started.push('temporal');
      }
    } else {
      step(`temporal: using the cluster at TEMPORAL_ADDRESS=${config.temporal.address}; no server started`);
    }
    await waitForTemporal(config, layout, timeoutMs);
    const github = options.github === undefined ? githubOfEnv(process.env) : options.github;
    const wanted = endpointOf(github);
    let workerRunning = before.components[1]?.state === 'running';
    if (workerRunning && options.github !== undefined) {
      const running = recordedEndpoint(layout.workerEndpoint, before.components[1]?.pid ?? null);
      if (JSON.stringify(running) !== JSON.stringify(wanted)) {
        // Tasks are durable workflows: a worker stopped between activities loses nothing, the new one carries on.
        await stopDetached(layout.worker.pidFile, layout.worker.marker);
        step(`worker restarted: it ran with ${describeEndpoint(running)}, the stack needs ${describeEndpoint(wanted)}`);
        workerRunning = false;
      }
    }
    if (workerRunning) {
      step(
        `worker already running (pid ${before.components[1]?.pid}) with ${describeEndpoint(recordedEndpoint(layout.workerEndpoint, before.components[1]?.pid ?? null))}`,
      );
    } else {
      const endpointEnv =
        github === null
          ? {}
          : { GITHUB_API_URL: github.apiUrl, GITHUB_TOKEN: github.token, ABP_GITHUB_PACING: github.pacing };
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        ...endpointEnv,
        ABP_HOME: config.home,
        TEMPORAL_ADDRESS: config.temporal.address,
        TEMPORAL_NAMESPACE: config.temporal.namespace,
      };
      // No endpoint wanted: none inherited either, so the worker does not reach a GitHub the caller did not choose.
      if (github === null) for (const name of ['GITHUB_API_URL', 'GITHUB_TOKEN', 'ABP_GITHUB_PACING']) delete env[name];
      const pid = await startDetached({
        command: process.execPath,
        args: [join(packageRoot, 'bin', 'abp.js'), 'worker'],
        pidFile: layout.worker.pidFile,
        logFile: layout.worker.logFile,
        cwd: packageRoot,
        env,
      });
      recordEndpoint(layout.workerEndpoint, { pid, github: wanted });
      started.push('worker');
      step(`worker starting (pid ${pid}) with ${describeEndpoint(wanted)}, log ${layout.worker.logFile}`);
      await waitForWorker(config, layout, timeoutMs);
    }
    const [schedule, poller] = await withTemporalClient(config, (client) =>
      Promise.all([ensureRotationSchedule(client), ensurePullPoller(client)]),
    );
    step(`registry rotation schedule ${schedule.outcome}; next run ${schedule.nextRuns[0]?.toISOString() ?? 'none'}`);
    step(`pull request poller ${poller} (every ${DEFAULT_POLL_SECONDS / 60} minutes)`);
    return stackStatus(config);
  } catch (error) {
    // Leave nothing half-started: stop what this call started, newest first.
    for (const name of started.reverse()) await stopDetached(layout[name].pidFile, layout[name].marker);
    throw error;
  }
}

async function startTemporal(
  config: StackConfig,
  layout: ReturnType<typeof layoutOf>,
  step: (line: string) => void,
): Promise<void> {
  const { port, uiPort } = config.temporal;
  for (const [what, p, variable] of [
    ['gRPC', port, 'ABP_TEMPORAL_PORT'],
    ['Web UI', uiPort, 'ABP_TEMPORAL_UI_PORT'],
  ] as const) {
    if (!(await portIsFree(p))) {
      throw new StackError(
        'port-in-use',
        `port ${p} (Temporal ${what}) is already in use on 127.0.0.1: stop whatever listens there, ` +
          `pick another port with ${variable}=<port>, or use that server with TEMPORAL_ADDRESS=127.0.0.1:${port}`,
      );
    }
  }
  const binary = findTemporalBinary('temporal');
  mkdirSync(join(config.home, 'temporal'), { recursive: true });
  const pid = await startDetached({
    command: binary,
    args: [
      'server',
      'start-dev',
      '--db-filename',
      layout.temporalDb,
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--ui-port',
      String(uiPort),
      '--namespace',
      config.temporal.namespace,
      '--log-level',
      'warn',
    ],
    pidFile: layout.temporal.pidFile,
    logFile: layout.temporal.logFile,
    cwd: config.home,
    // The server needs no secrets of ours (DATABASE_URL, tokens): hand it only what a process needs to run.
    env: pick(process.env, ['PATH', 'HOME', 'TMPDIR', 'TZ', 'LANG']),
  });
  step(`temporal dev server starting (pid ${pid}), state ${layout.temporalDb}, log ${layout.temporal.logFile}`);
}

async function waitForTemporal(
  config: StackConfig,
  layout: ReturnType<typeof layoutOf>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    assertStillRunning(config, layout, 'temporal');
    try {
      const connection = await Connection.connect({ address: config.temporal.address, connectTimeout: 2_000 });
      try {
        await connection.workflowService.getSystemInfo({});
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      lastError = error;
      await delay(200);
    }
  }
  throw new StackError('unreachable', `Temporal at ${config.temporal.address} did not answer within ${timeoutMs} ms`, {
    cause: lastError,
  });
}

async function waitForWorker(
  config: StackConfig,
  layout: ReturnType<typeof layoutOf>,
  timeoutMs: number,
): Promise<void> {
  const connection = await Connection.connect({ address: config.temporal.address });
  try {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      assertStillRunning(config, layout, 'worker');
      const { pollers } = await connection.workflowService.describeTaskQueue({
        namespace: config.temporal.namespace,
        taskQueue: { name: taskQueues.main },
        taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
      });
      const workerPid = readPid(layout.worker.pidFile);
      if (pollers?.some((poller) => poller.identity?.startsWith(`${workerPid}@`))) return;
      await delay(250);
    }
  } finally {
    await connection.close();
  }
  throw new StackError(
    'start-failed',
    `the worker did not poll task queue ${taskQueues.main} within ${timeoutMs} ms; last lines of ${layout.worker.logFile}:\n${tailOf(layout.worker.logFile)}`,
  );
}

function assertStillRunning(config: StackConfig, layout: ReturnType<typeof layoutOf>, name: ComponentName): void {
  if (name === 'temporal' && config.temporal.mode === 'external') return;
  const pid = readPid(layout[name].pidFile);
  if (pid !== null && isOurProcess(pid, layout[name].marker)) return;
  throw new StackError(
    'start-failed',
    `${name} exited during start-up; last lines of ${layout[name].logFile}:\n${tailOf(layout[name].logFile)}`,
  );
}

export function stackDown(
  config: StackConfig,
): Promise<Array<{ name: ComponentName; result: 'stopped' | 'not-running' }>> {
  const layout = layoutOf(config);
  return withLock(layout.lockFile, async () => {
    const results: Array<{ name: ComponentName; result: 'stopped' | 'not-running' }> = [];
    // The worker first, so it does not spend its shutdown retrying a server that is already gone.
    for (const name of ['worker', 'temporal'] as const) {
      results.push({ name, result: await stopDetached(layout[name].pidFile, layout[name].marker) });
    }
    rmSync(layout.workerEndpoint, { force: true });
    return results;
  });
}

function pick(env: NodeJS.ProcessEnv, names: string[]): NodeJS.ProcessEnv {
  return Object.fromEntries(names.flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]]])));
}
