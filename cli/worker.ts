// `abp worker`: run the abp worker in the foreground until SIGINT or SIGTERM.
import { createActivities } from '../activities/index.js';
import { migrate, openDatabase } from '../db/connection.js';
import { resolveStackConfig } from '../stack/config.js';
import { connectWorker, createWorker } from '../stack/worker.js';

export async function workerCommand(): Promise<void> {
  const config = resolveStackConfig();
  const connection = await connectWorker(config.temporal.address);
  try {
    // Bundling the workflows and migrating the database are independent; the worker polls only when both are done.
    const [worker] = await Promise.all([
      createWorker({ connection, namespace: config.temporal.namespace, activities: createActivities({ now: () => new Date() }) }),
      migrateDatabase(config.home),
    ]);
    // Worker.run resolves after a graceful shutdown, which the SDK starts on SIGINT/SIGTERM.
    await worker.run();
  } finally {
    await connection.close();
  }
}

/** The worker is the stack's long-lived process: it brings the schema up to date before it takes work. */
async function migrateDatabase(dataDir: string): Promise<void> {
  const database = await openDatabase({ dataDir });
  try {
    await migrate(database);
    console.log(`database: ${database.kind} at ${database.location}, migrations applied`);
  } finally {
    await database.close();
  }
}
