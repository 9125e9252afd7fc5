// `abp worker`: run the abp worker in the foreground until SIGINT or SIGTERM.
import { join } from 'node:path';
import { EnvironmentStore } from '@abp/grader/environments';
import { Client, Connection } from '@temporalio/client';
import { createActivities, type ActivityDependencies } from '../activities/index.js';
import { migrate, openDatabase, type DatabaseHandle } from '../db/connection.js';
import { createGithubClient, GithubConfigError, type GithubClient } from '../github/client.js';
import { SigningError } from '@abp/protocol/signing/errors';
import { signingPaths } from '../signing/home.js';
import { startTaskReadEndpoint, taskReadEndpointFile, type RunningTaskReads } from '../task-reads/endpoint.js';
import type { Attestor } from '../signing/attestor.js';
import { loadOperatorAttestor } from '../signing/operator.js';
import { resolveStackConfig, type StackConfig } from '../worker/config.js';
import { bundleWorkflowsApart, connectWorker, createWorker } from '../worker/worker.js';

export async function workerCommand(): Promise<void> {
  const config = resolveStackConfig();
  // Bundling the workflows and migrating the database are independent, so they overlap; neither
  // holds a server connection, so a failed migration exits at once with nothing to unwind.
  const [workflowBundle, database] = await Promise.all([bundleWorkflowsApart(), migrateDatabase(config.home)]);
  // The embedded database is this process's alone: other processes (abp serve, abp task, abp status, the main job) read
  // tasks through this endpoint, before the worker takes any work. A server database they read themselves.
  let reads: RunningTaskReads | null = null;
  try {
    if (database.kind === 'pglite') {
      reads = await startTaskReadEndpoint({ db: database.db, home: config.home });
      console.log(`task reads: answered at ${reads.endpoint.url} (${taskReadEndpointFile(config.home)})`);
    }
    const connection = await connectWorker(config.temporal.address);
    // Activities signal workflows (poller nudges, withdrawals) through a client of their own.
    const clientConnection = await Connection.connect({ address: config.temporal.address });
    try {
      const temporal = new Client({ connection: clientConnection, namespace: config.temporal.namespace });
      const deps = await dependencies(config, database, temporal);
      const worker = await createWorker({
        connection,
        namespace: config.temporal.namespace,
        workflowBundle,
        activities: createActivities(deps),
      });
      // Worker.run resolves after a graceful shutdown, which the SDK starts on SIGINT/SIGTERM.
      await worker.run();
    } finally {
      await clientConnection.close();
      await connection.close();
    }
  } finally {
    await reads?.close();
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

function githubOrNull(): GithubClient | null {
  try {
    const github = createGithubClient();
    console.log(
      `github: ${process.env.GITHUB_API_URL ?? 'https://api.github.com'}; rotation, draws and tracking enabled`,
    );
    return github;
  } catch (error) {
    if (!(error instanceof GithubConfigError)) throw error;
    console.log(`github: not configured, rotation, draws and tracking disabled (${error.message})`);
    return null;
  }
}

/** The operator's attestor, or null (logged) until `abp init` has created the signing key. */
async function operatorAttestorOrNull(home: string): Promise<Attestor | null> {
  try {
    return await loadOperatorAttestor(home);
  } catch (error) {
    if (!(error instanceof SigningError)) throw error;
    console.log(
      `signing: disabled, so the freeze is too, and registry versions and draws are published unsigned (${error.message}); run \`abp init\` to create the signing key`,
    );
    return null;
  }
}

/**
 * Stages that reach GitHub run only where a client is configured, and the freeze only where the operator's signing key
 * exists (`abp init`); the rest of the worker runs either way.
 */
async function dependencies(
  config: StackConfig,
  database: DatabaseHandle,
  temporal: Client,
): Promise<ActivityDependencies> {
  const { db } = database;
  const publishDir = join(config.home, 'published');
  const paths = signingPaths(config.home);
  const github = githubOrNull();
  const attestor = await operatorAttestorOrNull(config.home);
  const signing = attestor === null ? {} : { attestor };
  const deps: ActivityDependencies = { now: () => new Date(), optOuts: { db, publishDir }, tasks: { db, temporal } };
  if (github !== null) {
    deps.rotation = { db, github, publishDir, ...signing };
    deps.draws = { db, github, publishDir, ...signing };
    deps.tracking = { db, github, temporal };
  }
  if (attestor !== null) {
    deps.freeze = {
      db,
      ...(github === null ? {} : { github }),
      bundleDir: paths.bundles,
      goldenTraceDir: paths.goldenTraces,
      attestor,
      workDir: join(config.home, 'freeze-work'),
      ...(config.freeze.runsIn === 'environment' ? { environments: new EnvironmentStore(config.freeze.store) } : {}),
    };
    console.log(
      config.freeze.runsIn === 'environment'
        ? `freeze: every suite runs in the task's environment, built or reused in ${config.freeze.store}`
        : "freeze: suites run on this machine's toolchains (ABP_FREEZE_IN=host); tasks name no image",
    );
    deps.aging = { db, attestor };
    console.log(
      `signing: registry versions, draws, bundles and aging signed with key ${attestor.signer.keyId ?? ''}, logged in ${paths.log}; bundles in ${paths.bundles}`,
    );
  }
  return deps;
}
