// `abp worker`: run the abp worker in the foreground until SIGINT or SIGTERM.
import { createActivities } from '../activities/index.js';
import { migrate, openDatabase } from '../db/connection.js';
import { resolveStackConfig } from '../stack/config.js';
import { bundleWorkflows, connectWorker, createWorker } from '../stack/worker.js';

export async function workerCommand(): Promise<void> {
  const config = resolveStackConfig();
  // Bundling the workflows and migrating the database are independent, so they overlap; neither
  // holds a server connection, so a failed migration exits at once with nothing to unwind.
  const [workflowBundle] = await Promise.all([bundleWorkflows(), migrateDatabase(config.home)]);
  const connection = await connectWorker(config.temporal.address);
  try {
    const worker = await createWorker({ connection, namespace: config.temporal.namespace, workflowBundle, activities: createActivities({ now: () => new Date() }) });
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
