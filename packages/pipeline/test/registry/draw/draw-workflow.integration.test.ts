// Draws end to end on the real dev server, PGlite and the GitHub simulator, driven through the real `abp` CLI: a draw
// publishes a snapshot and a record that `abp audit draw` re-derives, starts one task workflow per pick and, run again,
// creates nothing twice; an opt-out is honored by the next draw at once; `abp registry show|diff` read what was published.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker, WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../../src/activities/index.js';
import { selectRows } from '../../../src/db/connection.js';
import { drawSchema } from '@abp/protocol/schemas/abp-draw';
import type { DrawTasksResult } from '../../../src/contracts/draw-workflow.js';
import type { OptOutResult, RotationResult } from '../../../src/contracts/rotation.js';
import type { TaskStatus } from '../../../src/contracts/task-workflow.js';
import { startSimulator, type RunningSimulator } from '@abp/github-sim/server';
import { createScaleWorld, type ScaleWorld } from '@abp/github-sim/world/scale';
import { bundleWorkflows, createWorker } from '../../../src/worker/worker.js';
import type { TrustRoot } from '@abp/protocol/schemas/abp-trust-root';
import { readStatementFile, statementPath } from '../../../src/signing/attestor.js';
import { signingPaths } from '../../../src/signing/home.js';
import { createSigningKey } from '../../../src/signing/keys.js';
import { loadOperatorAttestor } from '../../../src/signing/operator.js';
import { DRAW_RECORD_PREDICATE, REGISTRY_VERSION_PREDICATE } from '@abp/protocol/signing/statement';
import { createTrustRoot, saveTrustRoot } from '@abp/protocol/signing/trust-root';
import { verifyStatementBundle } from '@abp/grader/trust';
import { taskQueries } from '../../../src/workflows/task.js';
import { runAbp, type CliResult } from '../../support/cli.js';
import { useTestDatabase } from '../../support/database.js';
import { startDevServer } from '../../support/temporal.js';
import { unthrottledClient } from '../discovery/support.js';
import { keepHistory } from '../../support/histories.js';

const TOKEN = 'draw-workflow-token';

let world: ScaleWorld;
let sim: RunningSimulator;
let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
let home: string;

beforeAll(async () => {
  // The CLI judges recency against its own clock: the world is generated now.
  world = createScaleWorld({
    seed: 717,
    repos: 150,
    issues: 3_000,
    generatedAt: `${new Date().toISOString().slice(0, 19)}Z`,
  });
  sim = await startSimulator({ world, tokens: new Set([TOKEN]) });
  [env, bundle, home] = await Promise.all([
    startDevServer(),
    bundleWorkflows(),
    mkdtemp(join(tmpdir(), 'abp-draw-workflow-')),
  ]);
});

afterAll(async () => {
  await env?.teardown();
  await sim?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

describe('abp registry and abp draw against a worker', () => {
  const database = useTestDatabase('pglite');
  let worker: Worker;
  let running: Promise<void>;
  const publishDir = () => join(home, 'published');

  /** The CLI as a user runs it, while the worker this test owns serves the stack's task queue. */
  async function abp(...args: string[]): Promise<CliResult> {
    const result = await runAbp(args, {
      ABP_HOME: home,
      TEMPORAL_ADDRESS: env.address,
      TEMPORAL_NAMESPACE: env.namespace ?? 'default',
    });
    if (result.code !== 0) throw new Error(`abp ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
    return result;
  }
  const json = <T>(result: CliResult) => JSON.parse(result.stdout) as T;

  let trustRoot: TrustRoot;

  beforeAll(async () => {
    const github = unthrottledClient(sim.apiUrl, TOKEN);
    const db = database.db;
    // The operator's key and trust root, as `abp init` makes them: every version and draw is signed and logged.
    const paths = signingPaths(home);
    trustRoot = createTrustRoot(await createSigningKey(paths.keyDir), '2026-01-01T00:00:00Z');
    await saveTrustRoot(paths.trustRoot, trustRoot);
    const attestor = await loadOperatorAttestor(home);
    worker = await createWorker({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      workflowBundle: bundle,
      activities: createActivities({
        now: () => new Date(),
        rotation: { db, github, publishDir: publishDir(), attestor },
        optOuts: { db, publishDir: publishDir() },
        draws: { db, github, publishDir: publishDir(), attestor },
        tasks: { db, temporal: env.client },
      }),
    });
    running = worker.run();
  });

  afterAll(async () => {
    worker?.shutdown();
    await running;
  });

  let first: DrawTasksResult;

  it('rotates two versions and shows and diffs them from the published files', async () => {
    const q3 = json<RotationResult>(
      await abp('registry', 'rotate', '--version', 'abp-registry/2026Q3', '--top', '150', '--size', '12', '--json'),
    );
    const q4 = json<RotationResult>(
      await abp('registry', 'rotate', '--version', 'abp-registry/2026Q4', '--top', '150', '--size', '16', '--json'),
    );
    expect([q3.entries, q4.entries]).toEqual([12, 16]);
    expect(q4.cost.points).toBeGreaterThan(0);

    const shown = await abp('registry', 'show');
    expect(shown.stdout).toContain(`abp-registry/2026Q4  16 entries`);
    expect(shown.stdout).toContain(`digest ${q4.digest} (checked)`);
    const diff = json<{ added: string[]; removed: unknown[]; kept: string[] }>(
      await abp('registry', 'diff', 'abp-registry/2026Q3', 'abp-registry/2026Q4', '--json'),
    );
    expect({ added: diff.added.length, removed: diff.removed.length, kept: diff.kept.length }).toEqual({
      added: 4,
      removed: 0,
      kept: 12,
    });
  });

  it('draws, publishes a record that the audit re-derives, and starts one task workflow per pick', async () => {
    first = json<DrawTasksResult>(await abp('draw', '--seed', '424242', '--count', '10', '--json'));
    expect(first.snapshot).toMatchObject({ registryVersion: 'abp-registry/2026Q4', repos: 16, mode: 'full' });
    expect(first.draw.picks).toHaveLength(10);
    expect(first).toMatchObject({ tasksStarted: 10, tasksExisting: 0 });

    const audit = await runAbp([
      'audit',
      'draw',
      first.draw.recordPath,
      '--snapshot',
      first.draw.snapshotPath,
      '--opt-outs',
      first.draw.optOutsPath,
      '--registry',
      join(publishDir(), 'registry', '2026Q4.json'),
    ]);
    expect(audit.code, audit.stderr).toBe(0);
    expect(audit.stdout).toMatch(/^match: /);

    const status = await env.client.workflow.getHandle(first.draw.picks[0]?.taskId ?? '').query(taskQueries.status);
    expect(status).toEqual<TaskStatus>({
      taskId: first.draw.picks[0]?.taskId ?? '',
      state: 'drawn',
      prUrl: null,
      failedAttempts: 0,
      recent: [],
    });
    const [counts] = await selectRows<{ tasks: number; events: number }>(
      database.db,
      sql`select (select count(*)::int from tasks) as tasks, (select count(*)::int from task_events) as events`,
    );
    expect(counts).toEqual({ tasks: 10, events: 10 });
    await keepHistory(env.client, 'draw', 'draw-latest-424242-10');
  });

  it('creates nothing twice when the same draw runs again: same record bytes, no new task', async () => {
    const before = await readFile(first.draw.recordPath);
    const again = json<DrawTasksResult>(await abp('draw', '--seed', '424242', '--count', '10', '--json'));
    expect(again.snapshot).toBeNull();
    expect(again.draw).toMatchObject({ drawId: first.draw.drawId, digest: first.draw.digest, created: false });
    expect(again).toMatchObject({ tasksStarted: 0, tasksExisting: 10 });
    expect((await readFile(first.draw.recordPath)).equals(before)).toBe(true);
    const [counts] = await selectRows<{ tasks: number; events: number; draws: number }>(
      database.db,
      sql`select (select count(*)::int from tasks) as tasks, (select count(*)::int from task_events) as events, (select count(*)::int from draws) as draws`,
    );
    expect(counts).toEqual({ tasks: 10, events: 10, draws: 1 });
  });

  it('signs each registry version and the draw once, and logs each signature once', async () => {
    const statements = join(home, 'statements');
    for (const version of ['2026Q3', '2026Q4']) {
      const document = JSON.parse(await readFile(join(publishDir(), 'registry', `${version}.json`), 'utf8')) as {
        digest: string;
        entries: unknown[];
      };
      const signed = JSON.parse(
        (await readStatementFile(statements, 'registry-version', `abp-registry/${version}`)) ?? 'null',
      ) as unknown;
      const verified = await verifyStatementBundle(signed, trustRoot, {
        subjects: [{ name: `abp-registry/${version}`, sha256: document.digest.slice('sha256:'.length) }],
        predicateType: REGISTRY_VERSION_PREDICATE,
      });
      expect(verified.statement.predicate).toMatchObject({
        version: `abp-registry/${version}`,
        repositories: document.entries.length,
      });
    }
    expect(first.draw.statementPath).toBe(statementPath(statements, 'draw-record', `draw/${first.draw.drawId}`));
    const drawStatement = JSON.parse(await readFile(first.draw.statementPath ?? '', 'utf8')) as unknown;
    const verified = await verifyStatementBundle(drawStatement, trustRoot, {
      subjects: [{ name: `draw/${first.draw.drawId}`, sha256: first.draw.digest.slice('sha256:'.length) }],
      predicateType: DRAW_RECORD_PREDICATE,
    });
    expect(verified.statement.predicate).toMatchObject({
      seed: 424242,
      picks: 10,
      registryVersion: 'abp-registry/2026Q4',
    });
    // A record edited after signing no longer matches its statement.
    await expect(
      verifyStatementBundle(drawStatement, trustRoot, {
        subjects: [{ name: `draw/${first.draw.drawId}`, sha256: '0'.repeat(64) }],
        predicateType: DRAW_RECORD_PREDICATE,
      }),
    ).rejects.toMatchObject({ code: 'digest-mismatch' });

    // Two versions and one draw, each logged once although the draw ran twice; `abp audit log` checks the whole log.
    const log = await abp('audit', 'log', '--json');
    expect(JSON.parse(log.stdout)).toMatchObject({ origin: 'abp-log/registry', size: 3 });
    const entries = (await readFile(join(home, 'log', 'entries.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; subject: string });
    expect(entries.map((entry) => `${entry.kind} ${entry.subject}`)).toEqual([
      'registry-version abp-registry/2026Q3',
      'registry-version abp-registry/2026Q4',
      `draw-record draw/${first.draw.drawId}`,
    ]);
  });

  it('honors an opt-out in the next draw at once, and records the list it honored', async () => {
    const optedOut = first.draw.picks[0]?.repo ?? '';
    const result = json<OptOutResult>(
      await abp(
        'registry',
        'opt-out',
        optedOut,
        '--reason',
        'maintainers asked by email',
        '--by',
        'maintainer@example.org',
        '--json',
      ),
    );
    expect(result).toMatchObject({ repo: optedOut, added: true, optOuts: [optedOut] });
    const repeated = json<OptOutResult>(await abp('registry', 'opt-out', optedOut, '--reason', 'again', '--json'));
    expect(repeated.added).toBe(false);

    const next = json<DrawTasksResult>(await abp('draw', '--seed', '7', '--count', '25', '--json'));
    // A new draw refreshes the last snapshot, reading only what changed.
    expect(next.snapshot?.mode).toBe('incremental');
    const record = drawSchema.parse(JSON.parse(await readFile(next.draw.recordPath, 'utf8')));
    expect(record.picks.map((pick) => pick.repo.toLowerCase())).not.toContain(optedOut.toLowerCase());
    // Every issue left out is counted under the rule that left it out, the opt-out among them.
    const excluded = next.snapshot?.excluded ?? {};
    expect(Object.values(excluded).reduce((sum, count) => sum + count, 0)).toBe(
      (next.snapshot?.issues ?? 0) - (next.snapshot?.eligible ?? 0),
    );
    expect(excluded['opted-out']).toBeGreaterThan(0);
    expect(JSON.parse(await readFile(next.draw.optOutsPath, 'utf8'))).toEqual([optedOut]);
    const audit = await runAbp([
      'audit',
      'draw',
      next.draw.recordPath,
      '--snapshot',
      next.draw.snapshotPath,
      '--opt-outs',
      next.draw.optOutsPath,
    ]);
    expect(audit.code, audit.stderr).toBe(0);
    // Auditing it against the list without the opt-out finds the difference.
    const wrong = await runAbp([
      'audit',
      'draw',
      next.draw.recordPath,
      '--snapshot',
      next.draw.snapshotPath,
      '--opt-outs',
      first.draw.optOutsPath,
    ]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('opt-out list digest');
  });

  it('fails a draw from a version that was never rotated with the reason and the fix, and records nothing', async () => {
    const result = await runAbp(['draw', '--seed', '1', '--count', '3', '--registry-version', 'abp-registry/2020Q1'], {
      ABP_HOME: home,
      TEMPORAL_ADDRESS: env.address,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('abp-registry/2020Q1 is not stored: rotate it');
    const [counts] = await selectRows<{ draws: number }>(
      database.db,
      sql`select count(*)::int as draws from draws where registry_version = 'abp-registry/2020Q1'`,
    );
    expect(counts).toEqual({ draws: 0 });
  });
});
