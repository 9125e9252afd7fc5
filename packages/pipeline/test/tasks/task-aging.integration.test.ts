// Aging under Temporal's time-skipping test server (issue 8): a task frozen from a real merge in the simulator moves to
// practice exactly 180 days after its fix merged (workflow time), the move is signed (the aging statement verifies
// against a trust root listing the operator's key) and logged (the log audits, the entry is included), and signing
// again is a no-op. On the same real rows, `abp tasks --scored --as-of` lists the task only inside its scored window,
// and the task records when it was sourced and the cutoffs it was verified against; `abp export training` leaves it out
// while it is scored and exports it once the signed aging statement moved it to practice.
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgingActivities } from '../../src/activities/aging.js';
import { describeTasks, type TaskRecord } from '../../src/task-reads/records.js';
import { cutoffsBefore } from '../../src/freeze/index.js';
import { readStatementFile, signatureDigest } from '../../src/signing/attestor.js';
import { LOG_ORIGIN } from '@abp/protocol/transparency/formats';
import { signingPaths } from '../../src/signing/home.js';
import { loadSigningKey } from '../../src/signing/keys.js';
import { AGING_TRANSITION_PREDICATE, taskBundleSubjectNames } from '@abp/protocol/signing/statement';
import { createTrustRoot, saveTrustRoot } from '@abp/protocol/signing/trust-root';
import { verifyStatementBundle } from '@abp/grader/trust';
import { bundleWorkflows } from '../../src/worker/worker.js';
import { auditLog, verifyInclusionOf } from '@abp/grader/audit';
import { openLog } from '@abp/protocol/transparency/log';
import type { TaskStatus } from '../../src/contracts/task-workflow.js';
import { useTestDatabase } from '../support/database.js';
import { startTimeSkippingServer } from '../support/temporal.js';
import { startBench, type Bench } from './harness.js';
import { runAbp } from '../support/cli.js';
import type { taskLifecycle } from '../../src/workflows/task.js';
import { keepHistory } from '../support/histories.js';

const DAY_MS = 86_400_000;
/**
 * How late the move may be, in workflow time. The timer's length is computed from the workflow's now when the task is
 * scored, but the server starts it when that workflow task completes, a few milliseconds later; after it fires, the next
 * workflow task starts a few milliseconds after that. Both are real milliseconds (time is not skipped while a workflow
 * task runs). A timer counted from the end of the freeze instead of from mergedAt would be late by the whole freeze (the
 * simulator's clock puts the merge weeks before it), far past this bound.
 */
const TOLERANCE_MS = 2_000;

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  [env, bundle] = await Promise.all([startTimeSkippingServer(), bundleWorkflows()]);
});
afterAll(async () => {
  await env?.teardown();
});

describe('aging under the time-skipping server', () => {
  const database = useTestDatabase('pglite');
  let bench: Bench;
  let taskId: string;
  let scored: TaskRecord;

  beforeAll(async () => {
    // No poller: under time skipping, a one-second poll would be 15 million polls over 180 days, and terminating it
    // with an activity in flight leaks a time-skipping lock in the Java test server (temporalio/sdk-java#1138), so
    // time then passes at wall-clock speed. The merge reaches the task by webhook.
    bench = await startBench({ env, bundle, db: database.db, pollSeconds: null });
    bench.webhooksOn();
  });
  afterAll(async () => {
    await bench?.close();
  });

  const describeTask = async (id: string): Promise<TaskRecord> => {
    const [record] = await describeTasks(database.db, { taskId: id });
    if (record === undefined) throw new Error(`task ${id} is not stored`);
    return record;
  };

  /** `abp export training --json` of the bench's data directory, against a trust root listing the operator's key. */
  async function exportTraining(): Promise<{
    tasks: Array<{ taskId: string; set: string }>;
    excludedScored: Array<{ taskId: string }>;
  }> {
    const paths = signingPaths(bench.home);
    const trustRoot = join(bench.root, 'pinned-trust-root.json');
    await saveTrustRoot(trustRoot, createTrustRoot(await loadSigningKey(paths.keyDir), '2026-01-01T00:00:00Z'));
    const result = await runAbp(
      ['export', 'training', '-o', join(bench.root, 'training.jsonl'), '--trust-root', trustRoot, '--json'],
      { ABP_HOME: bench.home },
    );
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as {
      tasks: Array<{ taskId: string; set: string }>;
      excludedScored: Array<{ taskId: string }>;
    };
  }

  /** `abp tasks --scored --as-of <at> --json` through the worker, as an operator runs it. */
  async function scoredAsOf(at: string): Promise<string[]> {
    const result = await runAbp(['tasks', '--scored', '--as-of', at, '--json'], {
      TEMPORAL_ADDRESS: env.address,
      ABP_HOME: bench.home,
    });
    expect(result.code, result.stderr).toBe(0);
    const listed = JSON.parse(result.stdout) as { asOf: string; tasks: TaskRecord[] };
    expect(listed.asOf).toBe(new Date(at).toISOString());
    return listed.tasks.map((task) => task.taskId);
  }

  it('freezes a merged fix into the scored set, recording sourcedAt and the cutoffs it was verified against', async () => {
    taskId = await bench.startTask('textkit', 3);
    const pull = await bench.openFix('textkit', 3);
    await bench.submit(taskId, pull.url);
    await bench.until(taskId, ['tracking']);
    bench.world.setChecks(pull.repo, pull.number, 'SUCCESS');
    bench.world.mergePull(pull.repo, pull.number, pull.repo.owner);
    expect((await bench.until(taskId, ['scored', 'rejected'], 180_000)).state).toBe('scored');

    scored = await describeTask(taskId);
    expect(scored.state).toBe('scored');
    expect(Date.parse(scored.scoredUntil ?? '') - Date.parse(scored.mergedAt ?? '')).toBe(180 * DAY_MS);
    // The harness draws every task on 2026-05-01; the freeze takes sourcedAt from the draw, the cutoffs from the committed list.
    expect(scored.sourcedAt).toBe('2026-05-01T00:00:00.000Z');
    expect(scored.cutoffsVerified).toEqual(await cutoffsBefore('2026-05-01T00:00:00Z'));
    expect(scored.cutoffsVerified?.length).toBeGreaterThan(0);
    expect(scored.bundleDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(scored.scoredAt).not.toBeNull();
  });

  it('lists the task in the scored set only inside its window (`abp tasks --scored --as-of`)', async () => {
    const scoredAt = Date.parse(scored.scoredAt ?? '');
    const scoredUntil = Date.parse(scored.scoredUntil ?? '');
    expect(await scoredAsOf(new Date(scoredAt - 1).toISOString())).toEqual([]);
    expect(await scoredAsOf(new Date(scoredAt).toISOString())).toEqual([taskId]);
    expect(await scoredAsOf(new Date(scoredUntil - 1).toISOString())).toEqual([taskId]);
    expect(await scoredAsOf(new Date(scoredUntil).toISOString())).toEqual([]);
    const [listed] = await describeTasks(database.db, {
      scoredAsOf: new Date(scoredAt + 1_000).toISOString(),
    });
    expect(listed).toMatchObject({
      taskId,
      sourcedAt: scored.sourcedAt,
      cutoffsVerified: scored.cutoffsVerified,
      bundleDigest: scored.bundleDigest,
    });
    // Still scored, so not training data.
    expect(await exportTraining()).toMatchObject({ tasks: [], excludedScored: [{ taskId }] });
  });

  it('moves the task to practice exactly at mergedAt + 180 days, signed and logged', async () => {
    const before = await env.currentTimeMs();
    expect(before).toBeLessThan(Date.parse(scored.scoredUntil ?? ''));
    // Waiting on the result unlocks time skipping: the server jumps to the timer.
    const done: TaskStatus = await env.client.workflow.getHandle<typeof taskLifecycle>(taskId).result();
    expect(done.state).toBe('practice');
    expect(await env.currentTimeMs()).toBeGreaterThanOrEqual(Date.parse(scored.scoredUntil ?? ''));
    // The whole life, from draw to practice, replays under this workflow code: the timer loop and the signing are deterministic.
    await Worker.runReplayHistory(
      { workflowBundle: bundle },
      await env.client.workflow.getHandle(taskId).fetchHistory(),
      taskId,
    );
    await keepHistory(env.client, 'task-aged-out', taskId);

    const aged = await describeTask(taskId);
    expect(aged.state).toBe('practice');
    const last = aged.events.at(-1);
    expect(last).toMatchObject({ from: 'scored', to: 'practice', cause: 'aged-out' });
    const detail = last?.detail as { scoredUntil: string; agedAt: string; statement: string; logIndex: string };
    expect(detail.scoredUntil).toBe(scored.scoredUntil);
    const lateMs = Date.parse(detail.agedAt) - Date.parse(scored.scoredUntil ?? '');
    console.info(`aged out ${lateMs} ms (workflow time) after mergedAt + 180 days`);
    expect(lateMs).toBeGreaterThanOrEqual(0);
    expect(lateMs).toBeLessThan(TOLERANCE_MS);

    // The statement: kept under the task's bundle subject, its digest the one the event names, and it verifies.
    const paths = signingPaths(bench.home);
    const subject = taskBundleSubjectNames(taskId).bundle;
    const kept = await readStatementFile(paths.statements, 'aging-transition', subject);
    expect(kept).not.toBeNull();
    expect(signatureDigest(kept ?? '')).toBe(detail.statement);
    const key = await loadSigningKey(paths.keyDir);
    const trustRoot = createTrustRoot(key, '2026-01-01T00:00:00Z');
    const verified = await verifyStatementBundle(JSON.parse(kept ?? ''), trustRoot, {
      subjects: [{ name: subject, sha256: (scored.bundleDigest ?? '').slice('sha256:'.length) }],
      predicateType: AGING_TRANSITION_PREDICATE,
    });
    expect(verified.keyId).toBe(key.keyId);
    expect(verified.statement.predicate).toMatchObject({
      taskId,
      bundleDigest: scored.bundleDigest,
      from: 'scored',
      to: 'practice',
      mergedAt: scored.mergedAt,
      scoredUntil: scored.scoredUntil,
    });

    // The log: it audits, and the entry the event names is the aging statement, included under the latest checkpoint.
    const pinned = [{ publicKeyPem: key.publicKeyPem, keyId: key.keyId }];
    const audit = await auditLog(paths.log, pinned);
    const log = await openLog(paths.log, LOG_ORIGIN);
    const index = Number(detail.logIndex);
    const entry = log.entries()[index];
    expect(entry).toMatchObject({ index, kind: 'aging-transition', subject, digest: detail.statement });
    const checkpoint = (await log.checkpoints()).at(-1);
    if (entry === undefined || checkpoint === undefined) throw new Error('the log has no aging entry or no checkpoint');
    expect(checkpoint.checkpoint.size).toBe(audit.size);
    expect(() =>
      verifyInclusionOf(entry, log.proveInclusion(index, checkpoint.checkpoint.size), checkpoint, pinned),
    ).not.toThrow();
    expect(log.entries().filter((candidate) => candidate.kind === 'aging-transition')).toHaveLength(1);

    // Signing again (a retried activity) returns the kept signature and its entry, and logs nothing new.
    if (bench.attestor === null) throw new Error('the bench runs an in-process worker with an attestor');
    const again = await createAgingActivities({ db: database.db, attestor: bench.attestor }).signAgingTransition({
      taskId,
    });
    expect(again).toMatchObject({ digest: detail.statement, logIndex: index, created: false });
    expect((await openLog(paths.log, LOG_ORIGIN)).size()).toBe(audit.size);
  });

  it('leaves the scored set as of its scoredUntil, stays in it as of any time before, and is exported as practice', async () => {
    expect(await scoredAsOf(scored.scoredUntil ?? '')).toEqual([]);
    expect(await scoredAsOf(new Date(Date.parse(scored.scoredUntil ?? '') - DAY_MS).toISOString())).toEqual([taskId]);
    expect(await exportTraining()).toMatchObject({
      tasks: [{ taskId, set: 'practice', bundleDigest: scored.bundleDigest }],
      excludedScored: [],
    });
  });
});
