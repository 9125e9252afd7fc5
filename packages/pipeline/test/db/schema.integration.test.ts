// Round trips of every domain, and the constraints that keep the records honest (unique keys,
// foreign keys, checks), on PGlite and on a real PostgreSQL server alike.
import { and, asc, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { selectRows } from '../../src/db/connection.js';
import { SqlState } from '../../src/db/errors.js';
import {
  backlogIssues,
  backlogSnapshots,
  bundles,
  drawPicks,
  draws,
  optOuts,
  registryEntries,
  registryVersions,
  signatures,
  taskEvents,
  tasks,
} from '../../src/db/schema/index.js';
import {
  backends,
  backlogIssueRow,
  backlogSnapshotRow,
  bundleRow,
  commitOf,
  digestOf,
  drawPickRow,
  drawRow,
  failureSqlState,
  insertDrawnTask,
  optOutRow,
  registryEntryRow,
  registryVersionRow,
  signatureRow,
  single,
  taskEventRow,
  taskRow,
  useTestDatabase,
} from '../support/database.js';

describe.each(backends)('schema on %s', (kind) => {
  const database = useTestDatabase(kind);

  describe('registry', () => {
    it('round-trips a version, its predecessor and its entries', async () => {
      const { db } = database;
      const previous = registryVersionRow();
      const current = registryVersionRow({
        previousVersion: previous.id,
        document: { entries: [{ repo: 'a/b' }], n: 1 },
      });
      await db.insert(registryVersions).values([previous, current]);
      const included = registryEntryRow({ registryVersion: current.id });
      const excluded = registryEntryRow({
        registryVersion: current.id,
        verdict: 'excluded',
        licenseSpdx: null,
        runnerRecipe: null,
        reasons: ['no-license'],
      });
      await db.insert(registryEntries).values([included, excluded]);

      const found = await db.query.registryVersions.findFirst({
        where: eq(registryVersions.id, current.id),
        with: { previous: true, entries: { orderBy: asc(registryEntries.verdict) } },
      });
      expect(found).toMatchObject({ ...current, previous: { id: previous.id }, entries: [included, excluded] });
      expect(found?.createdAt).toBeInstanceOf(Date);
    });

    it('stores jsonb as JSON values, not as JSON strings', async () => {
      const { db } = database;
      const version = registryVersionRow();
      await db.insert(registryVersions).values(version);
      const [row] = await selectRows<{ type: string }>(
        db,
        sql`select jsonb_typeof(${registryVersions.document}) as type from ${registryVersions} where ${registryVersions.id} = ${version.id}`,
      );
      expect(row?.type).toBe('object');
    });

    it('rejects an id that does not name its quarter, and a malformed digest', async () => {
      const { db } = database;
      expect(
        await failureSqlState(db.insert(registryVersions).values(registryVersionRow({ id: 'abp-registry/1999Q1' }))),
      ).toBe(SqlState.checkViolation);
      expect(
        await failureSqlState(db.insert(registryVersions).values(registryVersionRow({ digest: 'sha256:abc' }))),
      ).toBe(SqlState.checkViolation);
    });

    it('rejects an included entry without a runner recipe', async () => {
      const { db } = database;
      const version = registryVersionRow();
      await db.insert(registryVersions).values(version);
      const entry = registryEntryRow({ registryVersion: version.id, runnerRecipe: null });
      expect(await failureSqlState(db.insert(registryEntries).values(entry))).toBe(SqlState.checkViolation);
    });

    it('deletes a version with its entries, but not a version another one follows', async () => {
      const { db } = database;
      const previous = registryVersionRow();
      const current = registryVersionRow({ previousVersion: previous.id });
      await db.insert(registryVersions).values([previous, current]);
      await db.insert(registryEntries).values(registryEntryRow({ registryVersion: current.id }));
      expect(await failureSqlState(db.delete(registryVersions).where(eq(registryVersions.id, previous.id)))).toBe(
        SqlState.foreignKeyViolation,
      );
      await db.delete(registryVersions).where(eq(registryVersions.id, current.id));
      expect(await db.select().from(registryEntries).where(eq(registryEntries.registryVersion, current.id))).toEqual(
        [],
      );
    });

    it('keeps one opt-out per repository, whatever the case', async () => {
      const { db } = database;
      const optOut = single(
        await db
          .insert(optOuts)
          .values(optOutRow({ repo: 'Acme/Widget' }))
          .returning(),
      );
      expect(optOut.repo).toBe('Acme/Widget');
      expect(typeof optOut.id).toBe('number');
      expect(optOut.createdAt).toBeInstanceOf(Date);
      expect(await failureSqlState(db.insert(optOuts).values(optOutRow({ repo: 'Acme/Widget' })))).toBe(
        SqlState.uniqueViolation,
      );
      expect(await failureSqlState(db.insert(optOuts).values(optOutRow({ repo: 'acme/widget' })))).toBe(
        SqlState.uniqueViolation,
      );
      const again = await db
        .insert(optOuts)
        .values(optOutRow({ repo: 'ACME/WIDGET' }))
        .onConflictDoNothing()
        .returning();
      expect(again).toEqual([]);
    });
  });

  describe('backlog snapshots and draws', () => {
    it('round-trips a snapshot, its issues, a draw and its picks', async () => {
      const { db } = database;
      const version = registryVersionRow();
      await db.insert(registryVersions).values(version);
      const snapshot = backlogSnapshotRow({
        registryVersion: version.id,
        repoCount: 1,
        issueCount: 2,
        eligibleIssueCount: 1,
      });
      await db.insert(backlogSnapshots).values(snapshot);
      const eligible = backlogIssueRow({
        snapshotId: snapshot.id,
        repo: 'acme/widget',
        issueNumber: 7,
        labels: ['bug', 'p1'],
      });
      const question = backlogIssueRow({
        snapshotId: snapshot.id,
        repo: 'acme/widget',
        issueNumber: 8,
        eligibility: 'ineligible',
        eligibilityReason: 'question',
      });
      await db.insert(backlogIssues).values([eligible, question]);
      const draw = drawRow({ registryVersion: version.id, backlogSnapshotId: snapshot.id, requestedCount: 1 });
      await db.insert(draws).values(draw);
      const pick = drawPickRow({
        drawId: draw.id,
        backlogSnapshotId: snapshot.id,
        repo: 'acme/widget',
        issueNumber: 7,
      });
      await db.insert(drawPicks).values(pick);

      const found = await db.query.draws.findFirst({
        where: eq(draws.id, draw.id),
        with: {
          snapshot: { with: { issues: { orderBy: asc(backlogIssues.issueNumber) } } },
          picks: { with: { issue: true } },
        },
      });
      expect(found).toMatchObject({
        ...draw,
        snapshot: { ...snapshot, issues: [eligible, question] },
        picks: [{ ...pick, issue: eligible }],
      });
    });

    it('keeps seeds beyond 2^31 and 2^53 exact as bigint', async () => {
      const { db } = database;
      const seeds = [2n ** 31n + 1n, 2n ** 53n + 1n, 2n ** 63n - 1n];
      const { draw } = await insertDrawnTask(db, { draw: { seed: seeds[0]! } });
      for (const seed of seeds) {
        const [updated] = await db
          .update(draws)
          .set({ seed })
          .where(eq(draws.id, draw.id))
          .returning({ seed: draws.seed });
        expect(updated?.seed).toBe(seed);
        const [read] = await db.select({ seed: draws.seed }).from(draws).where(eq(draws.id, draw.id));
        expect(read?.seed).toBe(seed);
        const [text] = await selectRows<{ seed: string }>(
          db,
          sql`select seed::text as seed from draws where id = ${draw.id}`,
        );
        expect(text?.seed).toBe(seed.toString());
      }
    });

    it('rejects a pick of an issue that is not in the draw’s snapshot', async () => {
      const { db } = database;
      const { draw, snapshot } = await insertDrawnTask(db);
      const orphan = drawPickRow({
        drawId: draw.id,
        backlogSnapshotId: snapshot.id,
        position: 1,
        repo: 'nobody/nothing',
        issueNumber: 1,
      });
      expect(await failureSqlState(db.insert(drawPicks).values(orphan))).toBe(SqlState.foreignKeyViolation);
    });

    it('rejects a draw whose snapshot belongs to another registry version', async () => {
      const { db } = database;
      const { snapshot } = await insertDrawnTask(db);
      const other = registryVersionRow();
      await db.insert(registryVersions).values(other);
      const draw = drawRow({ registryVersion: other.id, backlogSnapshotId: snapshot.id });
      expect(await failureSqlState(db.insert(draws).values(draw))).toBe(SqlState.foreignKeyViolation);
    });

    it('rejects picking the same issue twice in one draw', async () => {
      const { db } = database;
      const { pick } = await insertDrawnTask(db);
      expect(await failureSqlState(db.insert(drawPicks).values({ ...pick, position: 1 }))).toBe(
        SqlState.uniqueViolation,
      );
    });

    it('rejects a snapshot with more eligible issues than issues', async () => {
      const { db } = database;
      const version = registryVersionRow();
      await db.insert(registryVersions).values(version);
      const snapshot = backlogSnapshotRow({ registryVersion: version.id, issueCount: 1, eligibleIssueCount: 2 });
      expect(await failureSqlState(db.insert(backlogSnapshots).values(snapshot))).toBe(SqlState.checkViolation);
    });
  });

  describe('tasks', () => {
    it('round-trips a task through its life, with its pick and events', async () => {
      const { db } = database;
      const { task, pick } = await insertDrawnTask(db);
      expect(task).toMatchObject({ state: 'drawn', prUrl: null, bundleDigest: null });
      const mergedAt = new Date('2026-11-01T10:00:00.123Z');
      const scoredUntil = new Date(mergedAt.getTime() + 180 * 24 * 60 * 60 * 1000);
      const bundle = bundleRow({ taskId: task.id });
      await db.insert(bundles).values(bundle);
      const frozen = {
        state: 'scored' as const,
        prUrl: `https://github.com/${task.repo}/pull/9000`,
        baseCommit: commitOf('base'),
        mergeCommit: commitOf('merge'),
        mergedAt,
        scoredUntil,
        bundleDigest: bundle.digest,
      };
      const [updated] = await db.update(tasks).set(frozen).where(eq(tasks.id, task.id)).returning();
      expect(updated).toMatchObject(frozen);
      expect(updated!.updatedAt.getTime()).toBeGreaterThanOrEqual(task.updatedAt.getTime());
      await db.insert(taskEvents).values([
        taskEventRow({ taskId: task.id, seq: 1, toState: 'drawn', cause: 'drawn' }),
        taskEventRow({
          taskId: task.id,
          seq: 2,
          fromState: 'drawn',
          toState: 'scored',
          cause: 'frozen',
          detail: { failToPass: ['t1'] },
        }),
      ]);

      const found = await db.query.tasks.findFirst({
        where: eq(tasks.id, task.id),
        with: { pick: true, events: { orderBy: asc(taskEvents.seq) }, publishedBundle: true, bundles: true },
      });
      expect(found).toMatchObject({
        ...frozen,
        pick,
        publishedBundle: { digest: bundle.digest },
        bundles: [{ digest: bundle.digest }],
        events: [
          { seq: 1, fromState: null, toState: 'drawn', detail: {} },
          { seq: 2, fromState: 'drawn', toState: 'scored', detail: { failToPass: ['t1'] } },
        ],
      });
      expect(found?.events[0]?.at).toBeInstanceOf(Date);
    });

    it('rejects a task whose draw pick does not exist', async () => {
      const { db } = database;
      const orphan = taskRow({ drawId: 'draw-that-never-was', repo: 'acme/widget', issueNumber: 1 });
      expect(await failureSqlState(db.insert(tasks).values(orphan))).toBe(SqlState.foreignKeyViolation);
    });

    it('rejects states missing what they need: tracking without a PR, scored without a bundle', async () => {
      const { db } = database;
      const { task } = await insertDrawnTask(db);
      expect(await failureSqlState(db.update(tasks).set({ state: 'tracking' }).where(eq(tasks.id, task.id)))).toBe(
        SqlState.checkViolation,
      );
      const scoredWithoutBundle = {
        state: 'scored' as const,
        prUrl: 'https://github.com/acme/widget/pull/1',
        baseCommit: commitOf('b'),
        mergeCommit: commitOf('m'),
        mergedAt: new Date('2026-11-01T00:00:00Z'),
        scoredUntil: new Date('2027-04-30T00:00:00Z'),
      };
      expect(await failureSqlState(db.update(tasks).set(scoredWithoutBundle).where(eq(tasks.id, task.id)))).toBe(
        SqlState.checkViolation,
      );
    });

    it('rejects publishing a bundle built for another task', async () => {
      const { db } = database;
      const first = await insertDrawnTask(db);
      const second = await insertDrawnTask(db);
      const bundle = bundleRow({ taskId: first.task.id });
      await db.insert(bundles).values(bundle);
      const publish = db.update(tasks).set({ bundleDigest: bundle.digest }).where(eq(tasks.id, second.task.id));
      expect(await failureSqlState(publish)).toBe(SqlState.foreignKeyViolation);
    });

    it('rejects a second event with the same (task, seq), and events of unknown tasks', async () => {
      const { db } = database;
      const { task } = await insertDrawnTask(db);
      await db.insert(taskEvents).values(taskEventRow({ taskId: task.id, seq: 1 }));
      expect(
        await failureSqlState(db.insert(taskEvents).values(taskEventRow({ taskId: task.id, seq: 1, cause: 'again' }))),
      ).toBe(SqlState.uniqueViolation);
      expect(await failureSqlState(db.insert(taskEvents).values(taskEventRow({ taskId: 'gh-nobody-nothing-1' })))).toBe(
        SqlState.foreignKeyViolation,
      );
    });

    it('serves the aging sweep: scored tasks whose scoredUntil has passed', async () => {
      const { db } = database;
      const { task } = await insertDrawnTask(db);
      const bundle = bundleRow({ taskId: task.id });
      await db.insert(bundles).values(bundle);
      await db
        .update(tasks)
        .set({
          state: 'scored',
          prUrl: 'https://github.com/acme/widget/pull/2',
          baseCommit: commitOf('b2'),
          mergeCommit: commitOf('m2'),
          mergedAt: new Date('2020-01-01T00:00:00Z'),
          scoredUntil: new Date('2020-06-29T00:00:00Z'),
          bundleDigest: bundle.digest,
        })
        .where(eq(tasks.id, task.id));
      const due = await db
        .select({ id: tasks.id })
        .from(tasks)
        .where(and(eq(tasks.state, 'scored'), sql`${tasks.scoredUntil} <= now()`));
      expect(due.map((row) => row.id)).toContain(task.id);
    });
  });

  describe('bundles and signatures', () => {
    it('round-trips a bundle with a keyed and a keyless signature', async () => {
      const { db } = database;
      const { task } = await insertDrawnTask(db);
      const bundle = bundleRow({ taskId: task.id, sizeBytes: 5_000_000_000 });
      await db.insert(bundles).values(bundle);
      const keyed = signatureRow({ bundleDigest: bundle.digest });
      const keyless = signatureRow({
        bundleDigest: bundle.digest,
        signerKind: 'keyless',
        keyId: null,
        certificateIdentity: 'https://github.com/acme/abp/.github/workflows/freeze.yml@refs/heads/main',
        logIndex: 123_456_789_012,
      });
      await db.insert(signatures).values([keyed, keyless]);
      const found = await db.query.bundles.findFirst({
        where: eq(bundles.digest, bundle.digest),
        with: { task: true, signatures: { orderBy: asc(signatures.id) } },
      });
      expect(found).toMatchObject({ ...bundle, task: { id: task.id }, signatures: [keyed, keyless] });
    });

    it('keeps one signature per signer per bundle, and keyless signatures carry a log index', async () => {
      const { db } = database;
      const { task } = await insertDrawnTask(db);
      const bundle = bundleRow({ taskId: task.id });
      await db.insert(bundles).values(bundle);
      await db.insert(signatures).values(signatureRow({ bundleDigest: bundle.digest }));
      expect(await failureSqlState(db.insert(signatures).values(signatureRow({ bundleDigest: bundle.digest })))).toBe(
        SqlState.uniqueViolation,
      );
      const keylessWithoutLog = signatureRow({
        bundleDigest: bundle.digest,
        signerKind: 'keyless',
        keyId: null,
        certificateIdentity: 'someone@example.com',
      });
      expect(await failureSqlState(db.insert(signatures).values(keylessWithoutLog))).toBe(SqlState.checkViolation);
    });

    it('rejects a signature of an unknown bundle and a bundle of an unknown task', async () => {
      const { db } = database;
      expect(
        await failureSqlState(db.insert(signatures).values(signatureRow({ bundleDigest: digestOf('nothing') }))),
      ).toBe(SqlState.foreignKeyViolation);
      expect(await failureSqlState(db.insert(bundles).values(bundleRow({ taskId: 'gh-nobody-nothing-2' })))).toBe(
        SqlState.foreignKeyViolation,
      );
    });
  });

  describe('transactions', () => {
    it('commits every write of a transaction that succeeds', async () => {
      const { db } = database;
      const { task } = await insertDrawnTask(db);
      await db.transaction(async (tx) => {
        await tx.update(tasks).set({ state: 'solving' }).where(eq(tasks.id, task.id));
        await tx
          .insert(taskEvents)
          .values(taskEventRow({ taskId: task.id, fromState: 'drawn', toState: 'solving', cause: 'claimed' }));
      });
      const [row] = await db.select({ state: tasks.state }).from(tasks).where(eq(tasks.id, task.id));
      expect(row?.state).toBe('solving');
      expect(await db.select().from(taskEvents).where(eq(taskEvents.taskId, task.id))).toHaveLength(1);
    });

    it('leaves nothing written when a statement of the transaction fails', async () => {
      const { db } = database;
      const { task } = await insertDrawnTask(db);
      const optOut = optOutRow();
      const failing = db.transaction(async (tx) => {
        await tx.insert(optOuts).values(optOut);
        await tx.update(tasks).set({ state: 'withdrawn' }).where(eq(tasks.id, task.id));
        await tx
          .insert(taskEvents)
          .values(taskEventRow({ taskId: task.id, fromState: 'drawn', toState: 'withdrawn', cause: 'opt-out' }));
        await tx.insert(taskEvents).values(taskEventRow({ taskId: task.id, seq: 1, cause: 'duplicate seq' }));
      });
      expect(await failureSqlState(failing)).toBe(SqlState.uniqueViolation);
      expect(await db.select().from(optOuts).where(eq(optOuts.repo, optOut.repo))).toEqual([]);
      expect(await db.select().from(taskEvents).where(eq(taskEvents.taskId, task.id))).toEqual([]);
      const [row] = await db.select({ state: tasks.state }).from(tasks).where(eq(tasks.id, task.id));
      expect(row?.state).toBe('drawn');
    });

    it('leaves nothing written when the transaction is rolled back on purpose', async () => {
      const { db } = database;
      const optOut = optOutRow();
      await expect(
        db.transaction(async (tx) => {
          await tx.insert(optOuts).values(optOut);
          tx.rollback();
        }),
      ).rejects.toThrow();
      expect(await db.select().from(optOuts).where(eq(optOuts.repo, optOut.repo))).toEqual([]);
    });
  });
});
