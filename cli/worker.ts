// `abp worker`: run the abp worker in the foreground until SIGINT or SIGTERM.
import { createActivities, type ActivityDependencies } from '../activities/index.js';
import { migrate, openDatabase, type DatabaseHandle } from '../db/connection.js';
import { createGithubClient, GithubConfigError } from '../github/client.js';
import { resolveStackConfig } from '../stack/config.js';
import { bundleWorkflows, connectWorker, createWorker } from '../stack/worker.js';

export async function workerCommand(): Promise<void> {
  const config = resolveStackConfig();
  // Bundling the workflows and migrating the database are independent, so they overlap; neither
  // holds a server connection, so a failed migration exits at once with nothing to unwind.
  const [workflowBundle, database] = await Promise.all([bundleWorkflows(), migrateDatabase(config.home)]);
  try {
    const connection = await connectWorker(config.temporal.address);
    try {
      const worker = await createWorker({ connection, namespace: config.temporal.namespace, workflowBundle, activities: createActivities(dependencies(database)) });
      // Worker.run resolves after a graceful shutdown, which the SDK starts on SIGINT/SIGTERM.
      await worker.run();
    } finally {
      await connection.close();
    }
  } finally {
    await database.close();
  }
}

/** The worker is the stack's long-lived process: it brings the schema up to date before it takes work, and keeps the database open. */
async function migrateDatabase(dataDir: string): Promise<DatabaseHandle> {
  const database = await openDatabase({ dataDir });
  try {
    await migrate(database);
  } catch (error) {
    await database.close();
    throw error;
  }
  console.log(`database: ${database.kind} at ${database.location}, migrations applied`);
  return database;
}

/** Stages that reach GitHub run only where a client is configured; the rest of the worker runs either way. */
function dependencies(database: DatabaseHandle): ActivityDependencies {
  const now = () => new Date();
  try {
    const github = createGithubClient();
    console.log(`github: ${process.env.GITHUB_API_URL ?? 'https://api.github.com'}; registry rotation enabled`);
    return { now, rotation: { db: database.db, github } };
  } catch (error) {
    if (!(error instanceof GithubConfigError)) throw error;
    console.log(`github: not configured, registry rotation disabled (${error.message})`);
    return { now };
  }
}
