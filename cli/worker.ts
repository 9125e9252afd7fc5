// `abp worker`: run the abp worker in the foreground until SIGINT or SIGTERM.
import { resolveStackConfig } from '../stack/config.js';
import { connectWorker, createWorker } from '../stack/worker.js';
import { createActivities } from '../activities/index.js';

export async function workerCommand(): Promise<void> {
  const config = resolveStackConfig();
  const connection = await connectWorker(config.temporal.address);
  try {
    const worker = await createWorker({ connection, namespace: config.temporal.namespace, activities: createActivities({ now: () => new Date() }) });
    // Worker.run resolves after a graceful shutdown, which the SDK starts on SIGINT/SIGTERM.
    await worker.run();
  } finally {
    await connection.close();
  }
}
