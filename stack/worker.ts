// Builds the abp worker: the workflows bundle plus the activities, on one task queue.
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, NativeConnection, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { Activities } from '../activities/index.js';
import { taskQueues } from '../workflows/shared.js';

export const workflowsPath = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

export interface WorkerOptions {
  connection: NativeConnection;
  namespace: string;
  activities: Activities;
  taskQueue?: string;
  /** A bundle made beforehand with `bundleWorkflows`; otherwise the worker bundles `workflowsPath` itself. */
  workflowBundle?: WorkflowBundleWithSourceMap;
}

export async function createWorker(options: WorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue ?? taskQueues.main,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath }),
    activities: options.activities,
  });
}

/** Bundles the workflows for Temporal's sandbox without a server connection, so it can overlap other start-up work. */
export function bundleWorkflows(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ workflowsPath, logger: quietBundlerLogger });
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
