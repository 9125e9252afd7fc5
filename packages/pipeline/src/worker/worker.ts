// Builds the abp worker: one Temporal worker per task queue it serves, each with its own concurrency; the workflows
// bundle only on the main queue, which carries every workflow.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode, NativeConnection, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { activitiesOn, type Activities } from '../activities/index.js';
import { QUEUE_KINDS, taskQueues, type QueueKind } from '../workflows/shared.js';
import { packageRoot } from '../package-root.js';
import { isAlive, ownEnvironment, runProgram } from '@abp/grader/execution';

export const workflowsPath = join(packageRoot, 'dist', 'workflows', 'index.js');

export interface WorkerOptions {
  connection: NativeConnection;
  namespace: string;
  activities: Activities;
  taskQueue?: string;
  /** A bundle made beforehand with `bundleWorkflows`; otherwise the worker bundles `workflowsPath` itself. */
  workflowBundle?: WorkflowBundleWithSourceMap;
}

/**
 * Workflows kept in memory between activations. Tasks wait weeks for a merge: keeping thousands cached would cost
 * memory for nothing, and an evicted task replays its short history (continueAsNew keeps it short) when a signal comes.
 */
export const MAX_CACHED_WORKFLOWS = 100;

export async function createWorker(options: WorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue ?? taskQueues.main,
    maxCachedWorkflows: MAX_CACHED_WORKFLOWS,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath }),
    activities: options.activities,
  });
}

/**
 * How many activities of each queue one worker runs at once. The main queue's are short waits on GitHub or the
 * database; a freeze runs suites two at a time itself; a trial is an engine plus its verification.
 */
export const DEFAULT_MAX_CONCURRENT: Readonly<Record<QueueKind, number>> = { main: 100, freeze: 1, trials: 1 };

export interface WorkerGroupOptions {
  connection: NativeConnection;
  namespace: string;
  /** Every activity this process has; each queue's worker registers its own (activitiesOn). */
  activities: Activities | Readonly<Record<string, unknown>>;
  /**
   * The queues to serve and how many activities of each at once; default all three at DEFAULT_MAX_CONCURRENT. A queue
   * other than main for which `activities` holds nothing is not polled.
   */
  queues?: Partial<Record<QueueKind, { maxConcurrent?: number }>>;
  workflowBundle?: WorkflowBundleWithSourceMap;
  /** Names this process in the Web UI and `abp status` (default: the SDK's pid@host). */
  identity?: string;
}

/** The workers of one process, one per queue, run and stopped together. */
export interface WorkerGroup {
  readonly queues: ReadonlyArray<{ kind: QueueKind; maxConcurrent: number }>;
  run(): Promise<void>;
  shutdown(): void;
  runUntil<T>(work: Promise<T> | (() => Promise<T>)): Promise<T>;
}

export async function createWorkerGroup(options: WorkerGroupOptions): Promise<WorkerGroup> {
  const served: Partial<Record<QueueKind, { maxConcurrent?: number }>> =
    options.queues ?? Object.fromEntries(QUEUE_KINDS.map((kind) => [kind, {}]));
  const all = options.activities as Readonly<Record<string, unknown>>;
  // A queue whose work this process cannot do (the freeze or the trials without what they read) is left to workers that can.
  const queues = QUEUE_KINDS.filter(
    (kind) => served[kind] !== undefined && (kind === 'main' || Object.keys(activitiesOn(kind, all)).length > 0),
  ).map((kind) => ({
    kind,
    maxConcurrent: served[kind]?.maxConcurrent ?? DEFAULT_MAX_CONCURRENT[kind],
  }));
  const workers = await Promise.all(
    queues.map(({ kind, maxConcurrent }) =>
      Worker.create({
        connection: options.connection,
        namespace: options.namespace,
        taskQueue: taskQueues[kind],
        ...(options.identity === undefined ? {} : { identity: options.identity }),
        activities: activitiesOn(kind, all),
        maxConcurrentActivityTaskExecutions: maxConcurrent,
        ...(kind === 'main'
          ? {
              maxCachedWorkflows: MAX_CACHED_WORKFLOWS,
              ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath }),
            }
          : {}),
      }),
    ),
  );
  const shutdown = () => {
    for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
  };
  const run = async () => {
    // One queue's worker failing stops the others: a process serving half its queues would look healthy.
    const runs = workers.map((worker) => worker.run().finally(shutdown));
    await Promise.all(runs);
  };
  return {
    queues,
    run,
    shutdown,
    async runUntil(work) {
      const running = run();
      try {
        return await (typeof work === 'function' ? work() : work);
      } finally {
        shutdown();
        await running;
      }
    },
  };
}

/** Bundles the workflows for Temporal's sandbox without a server connection, so it can overlap other start-up work. */
export function bundleWorkflows(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ workflowsPath, logger: quietBundlerLogger });
}

/**
 * The same bundle, made by a short-lived child process: webpack holds about a hundred MiB that the worker would keep
 * for its whole life (peak memory is a target of the worker that carries thousands of tasks).
 */
export async function bundleWorkflowsApart(): Promise<WorkflowBundleWithSourceMap> {
  await removeStaleBundleFolders();
  // The pid in the name lets a later worker tell a folder a killed worker left from one still in use.
  const dir = await mkdtemp(join(tmpdir(), `${BUNDLE_FOLDER_PREFIX}${process.pid}-`));
  try {
    const out = join(dir, 'bundle.json');
    await runProgram([process.execPath, join(packageRoot, 'dist', 'worker', 'bundle-entry.js'), out], {
      cwd: dir,
      env: ownEnvironment(),
    });
    return JSON.parse(await readFile(out, 'utf8')) as WorkflowBundleWithSourceMap;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const BUNDLE_FOLDER_PREFIX = 'abp-bundle-';

/** Bundle folders of workers that no longer run (killed while bundling, so their finally never ran). */
async function removeStaleBundleFolders(): Promise<void> {
  const names = await readdir(tmpdir()).catch(() => [] as string[]);
  for (const name of names) {
    const pid = new RegExp(`^${BUNDLE_FOLDER_PREFIX}(\\d+)-[A-Za-z0-9]{6}$`).exec(name)?.[1];
    if (pid === undefined || isAlive(Number(pid))) continue;
    await rm(join(tmpdir(), name), { recursive: true, force: true });
  }
}

// webpack's module listing is noise in the worker log; warnings and errors still show.
const quietBundlerLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string, meta?: Record<string, unknown>) => console.warn(message, meta ?? ''),
  error: (message: string, meta?: Record<string, unknown>) => console.error(message, meta ?? ''),
};

export async function connectWorker(address: string): Promise<NativeConnection> {
  return NativeConnection.connect({ address });
}
