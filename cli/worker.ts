// `abp worker`: run the abp worker in the foreground until SIGINT or SIGTERM.
import { join } from 'node:path';
import { createActivities, type ActivityDependencies } from '../activities/index.js';
import { migrate, openDatabase, type DatabaseHandle } from '../db/connection.js';
import { createGithubClient, GithubConfigError } from '../github/client.js';
import { SigningError } from '../signing/errors.js';
import { signingPaths } from '../signing/home.js';
import { createSigner } from '../signing/signer.js';
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
      const deps = { ...dependencies(database, join(config.home, 'published')), ...(await freezeDependencies(database, config.home)) };
      const worker = await createWorker({ connection, namespace: config.temporal.namespace, workflowBundle, activities: createActivities(deps) });
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
function dependencies(database: DatabaseHandle, publishDir: string): ActivityDependencies {
  const { db } = database;
  const local: ActivityDependencies = { now: () => new Date(), optOuts: { db, publishDir }, tasks: { db } };
  try {
    const github = createGithubClient();
    console.log(`github: ${process.env.GITHUB_API_URL ?? 'https://api.github.com'}; registry rotation and draws enabled; published documents in ${publishDir}`);
    return { ...local, rotation: { db, github, publishDir }, draws: { db, github, publishDir } };
  } catch (error) {
    if (!(error instanceof GithubConfigError)) throw error;
    console.log(`github: not configured, registry rotation and draws disabled (${error.message})`);
    return local;
  }
}

/** The freeze signs what it publishes: without the operator's key (`abp init`) the worker does not freeze. */
async function freezeDependencies(database: DatabaseHandle, home: string): Promise<Pick<ActivityDependencies, 'freeze'>> {
  const paths = signingPaths(home);
  try {
    const signer = await createSigner({ keyDir: paths.keyDir });
    console.log(`freeze: enabled, signing with key ${signer.keyId ?? ''}; bundles in ${paths.bundles}`);
    return { freeze: { db: database.db, bundleDir: paths.bundles, signer, workDir: join(home, 'freeze-work') } };
  } catch (error) {
    if (!(error instanceof SigningError)) throw error;
    console.log(`freeze: disabled (${error.message}); run \`abp init\` to create the signing key`);
    return {};
  }
}
