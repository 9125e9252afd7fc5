// Builds the abp worker: the workflows bundle plus the activities, on one task queue.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode, NativeConnection, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { Activities } from '../activities/index.js';
import { taskQueues } from '../workflows/shared.js';
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
