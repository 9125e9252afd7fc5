// The quarterly Schedule on the real dev server: creating it twice leaves one Schedule firing at quarter starts, and a
// backfill over two quarter starts produces two rotations, each publishing the version of the quarter it was due for.
// The time-skipping test server does not implement Schedules (temporalio/sdk-java#1954), so time is skipped here the
// way Temporal offers for Schedules: a backfill of past scheduled times, which the scheduler runs as if they had come.
import { ScheduleOverlapPolicy } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../../src/activities/index.js';
import { readRegistryVersion } from '../../../src/registry/rotation/store.js';
import { registrySchema } from '@abp/protocol/schemas/abp-registry';
import { quarterVersion, ROTATION_SCHEDULE_ID } from '../../../src/contracts/rotation.js';
import { startSimulator, type RunningSimulator } from '@abp/github-sim/server';
import { createScaleWorld, type ScaleWorld } from '@abp/github-sim/world/scale';
import { ensureRotationSchedule } from '../../../src/worker/rotation-schedule.js';
import { bundleWorkflows, createWorker } from '../../../src/worker/worker.js';
import { useTestDatabase } from '../../support/database.js';
import { startDevServer } from '../../support/temporal.js';
import { unthrottledClient } from '../discovery/support.js';

const TOKEN = 'rotation-schedule-token';

let world: ScaleWorld;
let sim: RunningSimulator;
let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  world = createScaleWorld({ seed: 616, repos: 120, issues: 1_200 });
  sim = await startSimulator({ world, tokens: new Set([TOKEN]) });
  [env, bundle] = await Promise.all([startDevServer(), bundleWorkflows()]);
});

afterAll(async () => {
  await env?.teardown();
  await sim?.close();
});

async function until<T>(read: () => Promise<T | null>, what: string, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the quarterly rotation Schedule', () => {
  const database = useTestDatabase('pglite');

  it('is created once and brought up to date when created again; it fires at 00:00 UTC on quarter starts', async () => {
    const first = await ensureRotationSchedule(env.client, { top: 120, size: 10 });
    const second = await ensureRotationSchedule(env.client, { top: 120, size: 12, batchSize: 40 });
    expect([first.outcome, second.outcome]).toEqual(['created', 'updated']);

    const description = await env.client.schedule.getHandle(ROTATION_SCHEDULE_ID).describe();
    expect(description.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: 'scheduledRotation',
      args: [{ top: 120, size: 12, batchSize: 40 }],
    });
    expect(second.nextRuns.length).toBeGreaterThanOrEqual(2);
    for (const run of second.nextRuns) {
      expect([
        run.getUTCMonth(),
        run.getUTCDate(),
        run.getUTCHours(),
        run.getUTCMinutes(),
        run.getUTCSeconds(),
      ]).toEqual([run.getUTCMonth() - (run.getUTCMonth() % 3), 1, 0, 0, 0]);
    }
    // Three months apart: consecutive quarters.
    const [a, b] = second.nextRuns as [Date, Date];
    expect((b.getUTCFullYear() - a.getUTCFullYear()) * 12 + b.getUTCMonth() - a.getUTCMonth()).toBe(3);
  });

  it('runs two rotations across two quarters, each publishing its quarter with the previous as its base', async () => {
    await ensureRotationSchedule(env.client, { top: 120, size: 12, batchSize: 40 });
    const worker = await createWorker({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      workflowBundle: bundle,
      activities: createActivities({
        now: () => new Date(),
        rotation: { db: database.db, github: unthrottledClient(sim.apiUrl, TOKEN) },
      }),
    });
    // The two quarter starts before the world's clock: e.g. 2026-07-01 and 2026-10-01 for a world generated in November.
    const now = new Date(world.generatedAt);
    const currentQuarter = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - (now.getUTCMonth() % 3), 1);
    const previousQuarter = new Date(currentQuarter);
    previousQuarter.setUTCMonth(previousQuarter.getUTCMonth() - 3);
    const [older, newer] = [quarterVersion(previousQuarter), quarterVersion(new Date(currentQuarter))];

    await worker.runUntil(async () => {
      await env.client.schedule.getHandle(ROTATION_SCHEDULE_ID).backfill({
        start: new Date(previousQuarter.getTime() - 3_600_000),
        end: new Date(currentQuarter + 3_600_000),
        // One after the other, so the newer quarter diffs against the older.
        overlap: ScheduleOverlapPolicy.BUFFER_ALL,
      });
      await until(() => readRegistryVersion(database.db, newer), `${newer} to be published`);
    });

    const first = await readRegistryVersion(database.db, older);
    const second = await readRegistryVersion(database.db, newer);
    expect(registrySchema.safeParse(first).success).toBe(true);
    expect(registrySchema.safeParse(second).success).toBe(true);
    expect(first).toMatchObject({
      version: older,
      sourcedAt: previousQuarter.toISOString().replace('.000Z', 'Z'),
      previous: null,
    });
    expect(second).toMatchObject({
      version: newer,
      sourcedAt: new Date(currentQuarter).toISOString().replace('.000Z', 'Z'),
      previous: older,
    });
    expect(second?.entries).toHaveLength(12);

    const description = await env.client.schedule.getHandle(ROTATION_SCHEDULE_ID).describe();
    const started = description.info.recentActions.map((action) => action.action.workflow.workflowId);
    expect(started).toHaveLength(2);
  });
});
