// Builds the abp worker: the workflows bundle plus the activities, on one task queue.
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { Activities } from '../activities/index.js';
import { taskQueues } from '../workflows/shared.js';

export const workflowsPath = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

export interface WorkerOptions {
  connection: NativeConnection;
  namespace: string;
  activities: Activities;
  taskQueue?: string;
  identity?: string;
}

export async function createWorker(options: WorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue ?? taskQueues.main,
    workflowsPath,
    activities: options.activities,
    ...(options.identity ? { identity: options.identity } : {}),
  });
}

export async function connectWorker(address: string): Promise<NativeConnection> {
  return NativeConnection.connect({ address });
}
