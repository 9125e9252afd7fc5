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
import { bundleWorkflowsApart, connectWorker, createWorkerGroup, DEFAULT_MAX_CONCURRENT } from '../worker/worker.js';
import { StackError } from '../worker/errors.js';
import { QUEUE_KINDS, taskQueues, type QueueKind } from '../workflows/shared.js';
import type { GradingDependencies } from '../grading/activities.js';
import { openRunStore } from '../run-store/open.js';
import type { RunStore } from '../run-store/store.js';

export interface WorkerCommandOptions {
  /** Comma-separated queue kinds (main, freeze, trials); default all three. */
  queues?: string;
  /** `n` for every queue served, or `kind=n,…`. */
  maxConcurrent?: string;
}

export async function workerCommand(options: WorkerCommandOptions = {}): Promise<void> {
  const config = resolveStackConfig();
  const queues = parseQueues(options);
  const serves = (kind: QueueKind) => queues[kind] !== undefined;
  // Workflows and freezes read and write the task lifecycle; trials need only Temporal and the run store.
  const needsDatabase = serves('main') || serves('freeze');
  if (serves('freeze') && !serves('main') && !process.env.DATABASE_URL)
    throw new StackError(
      'invalid-setting',
      '--queues without main but with freeze needs DATABASE_URL (Postgres): the embedded PGlite database belongs to the one worker that serves main; run this worker against the same Postgres, or serve main here too',
    );
  // Bundling the workflows and migrating the database are independent, so they overlap; neither
  // holds a server connection, so a failed migration exits at once with nothing to unwind.
  const [workflowBundle, database] = await Promise.all([
    serves('main') ? bundleWorkflowsApart() : Promise.resolve(undefined),
    needsDatabase ? migrateDatabase(config.home) : Promise.resolve(null),
  ]);
  // The embedded database is this process's alone: other processes (abp serve, abp task, abp status, the main job) read
  // tasks through this endpoint, before the worker takes any work. A server database they read themselves.
  let reads: RunningTaskReads | null = null;
  try {
    if (database?.kind === 'pglite') {
      reads = await startTaskReadEndpoint({ db: database.db, home: config.home });
      console.log(`task reads: answered at ${reads.endpoint.url} (${taskReadEndpointFile(config.home)})`);
    }
    // Where machines hand each other files: trial inputs and receipts, built freezes on their way to publishing.
    const runStore = await openRunStore(config.home);
    console.log(`run store: ${runStore.location} (trial inputs and receipts, freezes on their way to publishing)`);
    const connection = await connectWorker(config.temporal.address);
    // Activities signal workflows (poller nudges, withdrawals) through a client of their own.
    const clientConnection = await Connection.connect({ address: config.temporal.address });
    try {
      const temporal = new Client({ connection: clientConnection, namespace: config.temporal.namespace });
      const deps: ActivityDependencies =
        database === null ? { now: () => new Date() } : await dependencies(config, database, temporal, runStore);
      if (serves('trials')) deps.grading = gradingDependencies(config, runStore);
      const group = await createWorkerGroup({
        connection,
        namespace: config.temporal.namespace,
        ...(workflowBundle === undefined ? {} : { workflowBundle }),
        activities: createActivities(deps),
        queues,
      });
      const unserved = (Object.keys(queues) as QueueKind[]).filter(
        (kind) => !group.queues.some((queue) => queue.kind === kind),
      );
      console.log(
        `queues: ${group.queues.map((queue) => `${taskQueues[queue.kind]} (${queue.maxConcurrent} at once)`).join(', ')} on ${config.temporal.address}` +
          (unserved.length > 0
            ? `; not ${unserved.map((kind) => taskQueues[kind]).join(', ')}, whose work needs what this worker lacks (above)`
            : ''),
      );
      // Worker.run resolves after a graceful shutdown, which the SDK starts on SIGINT/SIGTERM.
      await group.run();
    } finally {
      await clientConnection.close();
      await connection.close();
    }
  } finally {
    await reads?.close();
    await database?.close();
  }
}

/** `--queues` and `--max-concurrent` as the worker group takes them; a bad value names the flag and the fix. */
export function parseQueues(options: WorkerCommandOptions): Partial<Record<QueueKind, { maxConcurrent: number }>> {
  const names = (options.queues ?? QUEUE_KINDS.join(','))
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !(QUEUE_KINDS as string[]).includes(name));
  if (names.length === 0 || unknown.length > 0)
    throw new StackError(
      'invalid-setting',
      `--queues ${options.queues ?? ''}: ${unknown.length > 0 ? `${unknown.join(', ')} is not a queue` : 'names no queue'}; use a comma-separated list of ${QUEUE_KINDS.join(', ')}`,
    );
  const kinds = [...new Set(names)] as QueueKind[];
  const limits = new Map<QueueKind, number>();
  const given = options.maxConcurrent?.trim();
  if (given !== undefined && given !== '') {
    const whole = (text: string, what: string) => {
      const value = Number(text);
      if (!/^\d+$/.test(text) || value < 1 || value > 1000)
        throw new StackError(
          'invalid-setting',
          `--max-concurrent ${given}: ${what} "${text}" is not a whole number from 1 to 1000; e.g. --max-concurrent 4 or --max-concurrent trials=4,freeze=1`,
        );
      return value;
    };
    if (!given.includes('=')) for (const kind of kinds) limits.set(kind, whole(given, 'the limit'));
    else
      for (const part of given.split(',')) {
        const [kind = '', value = ''] = part.split('=').map((text) => text.trim());
        if (!kinds.includes(kind as QueueKind))
          throw new StackError(
            'invalid-setting',
            `--max-concurrent ${given}: "${kind}" is not a queue this worker serves (${kinds.join(', ')}); name one of them, or add it to --queues`,
          );
        limits.set(kind as QueueKind, whole(value, `the limit of ${kind}`));
      }
  }
  return Object.fromEntries(
    kinds.map((kind) => [kind, { maxConcurrent: limits.get(kind) ?? DEFAULT_MAX_CONCURRENT[kind] }]),
  );
}

/** What the trials queue's activities need: the run store every machine reaches, and this machine's caches. */
function gradingDependencies(config: StackConfig, store: RunStore): GradingDependencies {
  return {
    home: config.home,
    store,
    cacheDir: join(config.home, 'grading', 'repository-cache'),
    environmentStore: config.freeze.store,
    hostEnv: process.env,
  };
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
      `signing: disabled, so built freezes wait for a worker that can publish them, and registry versions and draws are published unsigned (${error.message}); run \`abp init\` to create the signing key`,
    );
    return null;
  }
}

/**
 * Stages that reach GitHub run only where a client is configured, and publishing a freeze (and aging) only where the
 * operator's signing key exists (`abp init`); the rest of the worker runs either way.
 */
async function dependencies(
  config: StackConfig,
  database: DatabaseHandle,
  temporal: Client,
  runStore: RunStore,
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
  // The freeze builds wherever this worker serves the freeze queue, and needs no key: it hands each built task over
  // through the run store. Publishing (store, sign, log) runs on the main queue, where the key is.
  deps.freeze = {
    db,
    ...(github === null ? {} : { github }),
    workDir: join(config.home, 'freeze-work'),
    ...(config.freeze.runsIn === 'environment' ? { environments: new EnvironmentStore(config.freeze.store) } : {}),
    runStore,
  };
  console.log(
    config.freeze.runsIn === 'environment'
      ? `freeze: every suite runs in the task's environment, built or reused in ${config.freeze.store}`
      : "freeze: suites run on this machine's toolchains (ABP_FREEZE_IN=host); tasks name no image",
  );
  // Publishing a freeze needs the key; without it this worker still stages golden traces, and a freeze to publish
  // stalls here, noted on the task, until a main worker with the key takes it.
  deps.publish = {
    db,
    bundleDir: paths.bundles,
    goldenTraceDir: paths.goldenTraces,
    attestor,
    runStore,
    environments: new EnvironmentStore(config.freeze.store),
    dataDir: config.home,
  };
  if (attestor !== null) {
    deps.aging = { db, attestor };
    console.log(
      `signing: registry versions, draws, bundles and aging signed with key ${attestor.signer.keyId ?? ''}, logged in ${paths.log}; bundles in ${paths.bundles}`,
    );
  }
  return deps;
}
