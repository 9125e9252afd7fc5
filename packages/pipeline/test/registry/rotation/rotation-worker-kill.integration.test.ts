// The acceptance case of a crashed rotation with real processes: the `abp worker` process is SIGKILLed while batches
// remain, a new one is started, and the rotation completes with no duplicate entries and at most one batch of API
// calls repeated. Postgres (not PGlite) so the test can watch the batches table while the worker holds the database.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, selectRows, type DatabaseHandle } from '../../../src/db/connection.js';
import { readBatches, readRegistryVersion } from '../../../src/registry/rotation/store.js';
import type { RotationResult } from '../../../src/contracts/rotation.js';
import { startSimulator, type RunningSimulator } from '@abp/github-sim/server';
import { createScaleWorld } from '@abp/github-sim/world/scale';
import { packageRoot } from '../../../src/package-root.js';
import { rotateRegistry } from '../../../src/workflows/rotation.js';
import { taskQueues, workflowIds } from '../../../src/workflows/shared.js';
import { startPostgresServer, type PostgresServer } from '../../support/postgres-server.js';
import { startDevServer } from '../../support/temporal.js';

// Every rotation lists each candidate's tree over REST: under GitHub's 900 points a minute these rotations would wait
// minutes for the window to reset (batches.integration shows the client waiting out a limit), so the limit is raised.
const TREE_READS = { pointsPerMinute: 100_000 };

const TOKEN = 'rotation-kill-token';
const REPOS = 300;
const BATCH_SIZE = 50;
const VERSION = 'abp-registry/2027Q1';

let temporal: TestWorkflowEnvironment;
let postgres: PostgresServer;
let sim: RunningSimulator;
let generatedAt = '';
let home = '';
let database: DatabaseHandle;
const workers: ChildProcess[] = [];

beforeAll(async () => {
  const world = createScaleWorld({ seed: 616, repos: REPOS, issues: 6_000 });
  generatedAt = world.generatedAt;
  [temporal, postgres, sim] = await Promise.all([
    startDevServer(),
    startPostgresServer(),
    startSimulator({ world, tokens: new Set([TOKEN]), secondaryLimits: TREE_READS, responseDelayMs: 10 }),
  ]);
  home = await mkdtemp(join(tmpdir(), 'abp-rotation-kill-'));
  database = await openDatabase({ url: postgres.url });
}, 120_000);

afterAll(async () => {
  for (const worker of workers) worker.kill('SIGKILL');
  await database?.close();
  await Promise.all([temporal?.teardown(), postgres?.stop(), sim?.close()]);
  if (home) await rm(home, { recursive: true, force: true });
});

function startWorker(): ChildProcess {
  const worker = spawn(process.execPath, [join(packageRoot, 'bin', 'abp.js'), 'worker'], {
    env: {
      ...process.env,
      ABP_HOME: home,
      TEMPORAL_ADDRESS: temporal.address,
      DATABASE_URL: postgres.url,
      GITHUB_API_URL: sim.apiUrl,
      GITHUB_TOKEN: TOKEN,
    },
    stdio: 'ignore',
  });
  workers.push(worker);
  return worker;
}

async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('a rotation whose worker is SIGKILLed', () => {
  it('completes on a new worker with no duplicate entries and at most one batch of API calls repeated', async () => {
    const first = startWorker();
    const handle = await temporal.client.workflow.start(rotateRegistry, {
      taskQueue: taskQueues.main,
      workflowId: workflowIds.registryRotation(VERSION),
      args: [{ version: VERSION, top: REPOS, sourcedAt: generatedAt, batchSize: BATCH_SIZE, size: 25 }],
    });
    const stored = async () => (await readBatches(database.db, VERSION).catch(() => [])).length;
    await until(async () => (await stored()) >= 2, 'two stored batches');
    first.kill('SIGKILL');
    await once(first, 'exit');
    const storedAtKill = await stored();
    expect(storedAtKill).toBeLessThan(REPOS / BATCH_SIZE);

    startWorker();
    const result: RotationResult = await handle.result();
    const batches = await readBatches(database.db, VERSION);
    expect(batches.map((batch) => batch.index)).toEqual([...Array(REPOS / BATCH_SIZE).keys()]);

    // What the stored costs add up to is a clean rotation; anything above it was spent twice.
    const repeated = sim.apiRequests() - result.cost.requests;
    const largestBatch = Math.max(...batches.map((batch) => batch.cost.requests));
    expect(repeated).toBeGreaterThanOrEqual(0);
    expect(repeated).toBeLessThanOrEqual(largestBatch);

    const document = await readRegistryVersion(database.db, VERSION);
    expect(document?.entries).toHaveLength(25);
    const [counts] = await selectRows<{ rows: number; repos: number }>(
      database.db,
      sql`select count(*)::int as rows, count(distinct lower(repo))::int as repos from registry_entries where registry_version = ${VERSION}`,
    );
    expect(counts).toEqual({ rows: 25, repos: 25 });
  }, 240_000);
});
