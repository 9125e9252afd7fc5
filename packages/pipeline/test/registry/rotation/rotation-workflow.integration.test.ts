// The registry rotation as a Temporal workflow on the real dev server, a real database (PGlite and PostgreSQL) and the
// GitHub simulator over HTTP: it publishes the world's eligible top-N, a rerun spends no API request, and a worker
// shut down mid-rotation is resumed by another that repeats at most one batch of API calls.
import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../../src/activities/index.js';
import { selectRows } from '../../../src/db/connection.js';
import { registryEntries } from '../../../src/db/schema/index.js';
import { readBatches, readRegistryVersion } from '../../../src/registry/rotation/store.js';
import { registrySchema } from '@abp/protocol/schemas/abp-registry';
import { compareCodeUnits } from '@abp/protocol/schemas/primitives';
import { registryDigest } from '@abp/protocol/schemas/registry-digest';
import type { RotateRegistryInput, RotationResult } from '../../../src/contracts/rotation.js';
import { startSimulator, type RunningSimulator } from '@abp/github-sim/server';
import { groundTruth, type WorldTruth } from '@abp/github-sim/world/ground-truth';
import { createScaleWorld, type ScaleWorld } from '@abp/github-sim/world/scale';
import { bundleWorkflows, createWorker, workflowsPath } from '../../../src/worker/worker.js';
import { rotateRegistry } from '../../../src/workflows/rotation.js';
import { workflowIds } from '../../../src/workflows/shared.js';
import { backends, useTestDatabase } from '../../support/database.js';
import { startDevServer } from '../../support/temporal.js';
import { unthrottledClient } from '../discovery/support.js';
import { keepHistory } from '../../support/histories.js';

// Every rotation lists each candidate's tree over REST: under GitHub's 900 points a minute these rotations would wait
// minutes for the window to reset (batches.integration shows the client waiting out a limit), so the limit is raised.
const TREE_READS = { pointsPerMinute: 100_000 };

const TOKEN = 'rotation-workflow-token';
const REPOS = 300;
const BATCH_SIZE = 50;
const SIZE = 25;

let world: ScaleWorld;
let truth: WorldTruth;
let sim: RunningSimulator;
// Slow answers stretch a batch to about a second, so a worker can be stopped while batches remain.
let slowSim: RunningSimulator;
let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  world = createScaleWorld({ seed: 515, repos: REPOS, issues: 6_000 });
  truth = groundTruth(world);
  sim = await startSimulator({ world, tokens: new Set([TOKEN]), secondaryLimits: TREE_READS });
  slowSim = await startSimulator({
    world,
    tokens: new Set([TOKEN]),
    secondaryLimits: TREE_READS,
    // Slow enough that a shutdown lands mid-rotation: every batch lists 50 trees besides its queries.
    responseDelayMs: 20,
  });
  [env, bundle] = await Promise.all([startDevServer(), bundleWorkflows()]);
});

afterAll(async () => {
  await env?.teardown();
  await sim?.close();
  await slowSim?.close();
});

/** The ground truth's eligible repositories, the SIZE most starred (ties by name), sorted by name as entries are. */
function expectedEntries(): string[] {
  const stars = (nameWithOwner: string) => {
    const [owner = '', name = ''] = nameWithOwner.split('/');
    return world.repoByName(owner, name)?.stargazerCount ?? -1;
  };
  return truth.repos
    .filter((repo) => repo.eligible)
    .map((repo) => repo.nameWithOwner)
    .sort((a, b) => stars(b) - stars(a) || compareCodeUnits(a, b))
    .slice(0, SIZE)
    .sort(compareCodeUnits);
}

function input(version: string): RotateRegistryInput {
  return { version, top: REPOS, sourcedAt: world.generatedAt, batchSize: BATCH_SIZE, size: SIZE };
}

async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe.each(backends)('the registry rotation workflow on %s', (kind) => {
  const database = useTestDatabase(kind);
  const taskQueue = `rotation-${kind}-${randomUUID()}`;
  const batches = Math.ceil(REPOS / BATCH_SIZE);
  let first: RotationResult;

  const worker = (simulator: RunningSimulator) =>
    createWorker({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      workflowBundle: bundle,
      activities: createActivities({
        now: () => new Date(),
        rotation: { db: database.db, github: unthrottledClient(simulator.apiUrl, TOKEN) },
      }),
    });
  const start = (version: string) =>
    env.client.workflow.start(rotateRegistry, {
      taskQueue,
      workflowId: workflowIds.registryRotation(version),
      args: [input(version)],
    });

  async function storedEntries(version: string): Promise<string[]> {
    const rows = await database.db
      .select({ repo: registryEntries.repo })
      .from(registryEntries)
      .where(eq(registryEntries.registryVersion, version));
    return rows.map((row) => row.repo).sort(compareCodeUnits);
  }

  it('publishes a valid abp-registry/v1 version whose entries are the eligible top-N of the ground truth', async () => {
    const version = 'abp-registry/2026Q3';
    const before = sim.apiRequests();
    const handle = await start(version);
    first = await (await worker(sim)).runUntil(handle.result());

    const document = await readRegistryVersion(database.db, version);
    expect(document).not.toBeNull();
    expect(registrySchema.safeParse(document).success).toBe(true);
    expect(document?.digest).toBe(registryDigest(document as NonNullable<typeof document>));
    expect(document?.entries.map((entry) => entry.repo)).toEqual(expectedEntries());
    expect(await storedEntries(version)).toEqual(expectedEntries());
    expect(first).toMatchObject({
      version,
      entries: SIZE,
      candidates: REPOS,
      batches,
      batchesFromStore: 0,
      fromStore: false,
      digest: document?.digest,
    });

    // The cost is recorded per batch and in total, and is exactly what the simulator answered.
    const stored = await readBatches(database.db, version);
    expect(stored.map((batch) => batch.index)).toEqual([...Array(batches).keys()]);
    expect(stored.every((batch) => batch.cost.requests >= 1 && batch.cost.points >= 1)).toBe(true);
    expect(first.cost.requests).toBe(sim.apiRequests() - before);

    // The history carries counts, not facts, and replays under today's workflow code.
    const history = await handle.fetchHistory();
    expect(JSON.stringify(history).length).toBeLessThan(40_000);
    await Worker.runReplayHistory({ workflowsPath }, history, handle.workflowId);
    await keepHistory(env.client, 'registry-rotation', handle.workflowId);
  });

  it('spends no API request when the same version is rotated again', async () => {
    const before = sim.apiRequests();
    const again = await (await worker(sim)).runUntil((await start('abp-registry/2026Q3')).result());
    expect(sim.apiRequests() - before).toBe(0);
    expect(again).toEqual({ ...first, fromStore: true, batchesFromStore: batches });
  });

  it('resumes on another worker after one is shut down mid-rotation, repeating at most one batch of API calls', async () => {
    const version = 'abp-registry/2026Q4';
    const before = slowSim.apiRequests();
    const handle = await start(version);
    const crashing = await worker(slowSim);
    const running = crashing.run();
    await until(async () => (await readBatches(database.db, version)).length >= 2, 'two stored batches');
    crashing.shutdown();
    await running;
    const storedAtCrash = (await readBatches(database.db, version)).length;
    const spentAtCrash = slowSim.apiRequests() - before;
    expect(storedAtCrash).toBeLessThan(batches);

    const result = await (await worker(slowSim)).runUntil(handle.result());
    const spent = slowSim.apiRequests() - before;
    const stored = await readBatches(database.db, version);
    const largestBatch = Math.max(...stored.map((batch) => batch.cost.requests));
    // The resumed worker did fetch, but nothing stored before the crash was fetched again.
    console.info(
      `crash: ${storedAtCrash} stored at shutdown, ${spentAtCrash} requests before, ${spent} in all; clean run ${first.cost.requests}; largest batch ${largestBatch}; resumed batches from store ${result.batchesFromStore}`,
    );
    expect(spent).toBeGreaterThan(spentAtCrash);
    expect(spent).toBeGreaterThanOrEqual(first.cost.requests);
    expect(spent).toBeLessThanOrEqual(first.cost.requests + largestBatch);
    expect(result.cost).toEqual(first.cost);

    expect(result).toMatchObject({ version, entries: SIZE, digest: expect.stringMatching(/^sha256:/) as unknown });
    const document = await readRegistryVersion(database.db, version);
    expect(document?.previous).toBe('abp-registry/2026Q3');
    expect(document?.diff).toEqual({ added: [], removed: [], kept: expectedEntries() });
    expect(await storedEntries(version)).toEqual(expectedEntries());
    const [counts] = await selectRows<{ rows: number; repos: number }>(
      database.db,
      sql`select count(*)::int as rows, count(distinct lower(repo))::int as repos from registry_entries where registry_version = ${version}`,
    );
    expect(counts).toEqual({ rows: SIZE, repos: SIZE });
    expect(stored).toHaveLength(batches);
  });
});
