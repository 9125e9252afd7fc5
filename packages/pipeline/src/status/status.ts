// `abp status` as data: one read-only pass over the data directory and the running stack that says what is published,
// signed and scheduled, and who serves which task queue. The file parts are read whether or not anything runs; the tasks
// through the read path (task-reads/reader.ts), the Schedule and the task queues through Temporal, each with a
// deadline. Nothing here writes, starts or creates anything.
import { Connection, Client } from '@temporalio/client';
import { join } from 'node:path';
import { signingPaths } from '../signing/home.js';
import type { StackConfig } from '../worker/config.js';
import { stackStatus } from '../dev-stack/dev-stack.js';
import { serveStatus } from '../dev-stack/serve-stack.js';
import { simStatus } from '../dev-stack/sim-state.js';
import { openTaskReads } from '../task-reads/reader.js';
import {
  scheduleFacts,
  TASK_READ_LIMIT,
  taskFacts,
  type LiveSources,
  type ScheduleFacts,
  type TaskFacts,
} from './live.js';
import { absent, found, messageOf, settle, unavailable, type Part } from './part.js';
import { queuesFacts, type QueuesFacts } from './queues.js';
import { drawFacts, registryFacts, type DrawFacts, type RegistryFacts } from './published.js';
import { loadTrustRootState, type TrustRootState } from './signatures.js';
import { bundleFacts, logFacts, type BundleFacts, type LogFacts } from './store.js';

export interface ComponentFacts {
  name: 'temporal' | 'worker' | 'simulator' | 'serve';
  state: 'running' | 'stopped' | 'stale-pid' | 'external';
  pid: number | null;
  /** What it serves: an address, a task queue, a URL; null while it is not running. */
  serves: string | null;
  log: string | null;
}

export interface TrustRootFacts {
  path: string;
  version: number;
  keys: number;
}

export interface OperatorStatus {
  home: string;
  stack: {
    mode: StackConfig['temporal']['mode'];
    temporalAddress: string;
    namespace: string;
    database: { kind: 'pglite' | 'postgres'; location: string };
    components: ComponentFacts[];
    /** The Temporal Web UI, while the embedded dev server runs. */
    webUi: string | null;
  };
  trustRoot: Part<TrustRootFacts>;
  registry: Part<RegistryFacts>;
  draws: Part<DrawFacts>;
  tasks: Part<TaskFacts>;
  bundles: Part<BundleFacts>;
  log: Part<LogFacts>;
  schedule: Part<ScheduleFacts>;
  /** Each task queue's workers and backlog. */
  queues: Part<QueuesFacts>;
}

export interface StatusOptions {
  config: StackConfig;
  /** A connected client for the live parts (tests pass their server's); by default one is connected and closed here. */
  client?: Client;
  /** Deadline of each Temporal call, connecting included. */
  timeoutMs?: number;
  /** The clock a worker's latest poll is measured against. */
  now?: () => Date;
  /** Tasks one read returns at most; more in a state are shown as "<limit>+" (TASK_READ_LIMIT by default). */
  taskReadLimit?: number;
}

export const DEFAULT_STATUS_TIMEOUT_MS = 3_000;

function componentsOf(config: StackConfig): { stack: OperatorStatus['stack']; temporalRunning: boolean } {
  const stack = stackStatus(config);
  const components: ComponentFacts[] = stack.components.map((component) => ({
    name: component.name,
    state: component.state,
    pid: component.pid,
    serves: component.state === 'running' || component.state === 'external' ? component.serves : null,
    log: component.log === '' ? null : component.log,
  }));
  const sim = simStatus(config);
  components.push({ name: 'simulator', state: sim.state, pid: sim.pid, serves: sim.sim?.apiUrl ?? null, log: sim.log });
  const serve = serveStatus(config);
  components.push({
    name: 'serve',
    state: serve.state,
    pid: serve.pid,
    serves: serve.serve === null ? null : `API ${serve.serve.apiUrl}, webhooks ${serve.serve.webhookUrl}`,
    log: serve.log,
  });
  const temporal = stack.components.find((component) => component.name === 'temporal');
  const temporalRunning = temporal?.state === 'running' || temporal?.state === 'external';
  return {
    stack: {
      mode: stack.mode,
      temporalAddress: config.temporal.address,
      namespace: config.temporal.namespace,
      database: stack.database,
      components,
      webUi: temporal?.state === 'running' ? temporal.ui : null,
    },
    temporalRunning,
  };
}

function trustRootFacts(state: TrustRootState): Part<TrustRootFacts> {
  switch (state.$case) {
    case 'loaded':
      return found({ path: state.path, version: state.trustRoot.version, keys: state.trustRoot.keys.length });
    case 'missing':
      return absent(state.detail);
    case 'invalid':
      return unavailable(state.detail);
  }
}

/** The tasks by state, through the read path with the status's deadline. */
async function tasksPart(options: StatusOptions): Promise<Part<TaskFacts>> {
  let reads;
  try {
    reads = await openTaskReads({
      home: options.config.home,
      timeoutMs: options.timeoutMs ?? DEFAULT_STATUS_TIMEOUT_MS,
    });
  } catch (error) {
    return unavailable(`the tasks could not be read: ${messageOf(error)}`);
  }
  try {
    return await taskFacts(reads, options.taskReadLimit ?? TASK_READ_LIMIT);
  } finally {
    await reads.close();
  }
}

interface TemporalParts {
  schedule: Part<ScheduleFacts>;
  queues: Part<QueuesFacts>;
}

function temporalDown(detail: string): TemporalParts {
  return { schedule: unavailable(detail), queues: unavailable(detail) };
}

/**
 * What Temporal knows (the Schedule, the task queues), read with the caller's client or one fresh connection closed
 * afterwards; without a server, both parts say why not.
 */
async function temporalParts(options: StatusOptions, temporalRunning: boolean): Promise<TemporalParts> {
  const { config } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_STATUS_TIMEOUT_MS;
  const read = async (client: Client): Promise<TemporalParts> => {
    const sources: LiveSources = { client, timeoutMs };
    const [schedule, queues] = await Promise.all([
      settle(() => scheduleFacts(sources)),
      settle(() => queuesFacts(sources, options.now ?? (() => new Date()))),
    ]);
    return { schedule, queues };
  };
  if (options.client) return read(options.client);
  // The embedded server's pid file already says it is down: no connection attempt to wait for.
  if (!temporalRunning) return temporalDown('the Temporal dev server is not running: `abp dev up` starts the stack');
  let connection: Connection;
  try {
    connection = await Connection.connect({ address: config.temporal.address, connectTimeout: timeoutMs });
  } catch (error) {
    return temporalDown(
      `Temporal at ${config.temporal.address} does not answer (${messageOf(error)}): start the stack with \`abp dev up\`, or check TEMPORAL_ADDRESS`,
    );
  }
  try {
    return await read(new Client({ connection, namespace: config.temporal.namespace }));
  } finally {
    await connection.close();
  }
}

export async function gatherStatus(options: StatusOptions): Promise<OperatorStatus> {
  const { config } = options;
  const home = config.home;
  const paths = signingPaths(home);
  const { stack, temporalRunning } = componentsOf(config);
  const trustRoot = await loadTrustRootState(paths.trustRoot);
  const published = { publishedDir: join(home, 'published'), statementsDir: paths.statements, trustRoot };

  const [registry, draws, bundles, log, tasks, { schedule, queues }] = await Promise.all([
    settle(() => registryFacts(published)),
    settle(() => drawFacts(published)),
    settle(() => bundleFacts(paths.bundles)),
    settle(() => logFacts(paths.log, trustRoot)),
    settle(() => tasksPart(options)),
    // Each part settles on its own inside; this catches what is left (closing the connection).
    temporalParts(options, temporalRunning).catch((error: unknown) => temporalDown(messageOf(error))),
  ]);
  return { home, stack, trustRoot: trustRootFacts(trustRoot), registry, draws, tasks, bundles, log, schedule, queues };
}
