// The task table and its append-only event log, written only by the task workflow through these activities. Each
// write is one transaction and idempotent: a retried activity finds its transition done and writes nothing.
import { ApplicationFailure } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { and, asc, desc, eq, gt, inArray, sql } from 'drizzle-orm';
import type { Database } from '../db/connection.js';
import { draws, taskEvents, tasks } from '../db/schema/index.js';
import { canonicalJson } from '@abp/protocol/schemas/canonical-json';
import {
  TASK_SIGNAL_NAMES,
  taskLifecycleInput,
  taskTransition,
  type TaskLifecycleInput,
  type TaskState,
  type TaskTransition,
  type Withdrawal,
} from '../contracts/task-workflow.js';
import { parsed } from './arguments.js';

export interface TaskRecord {
  taskId: string;
  registryVersion: string;
  drawSeed: number;
  repo: string;
  issue: number;
  state: TaskState;
  prUrl: string | null;
  mergeCommit: string | null;
  bundleDigest: string | null;
  createdAt: string;
  updatedAt: string;
  mergedAt: string | null;
  /** When the task entered the scored set: its first `scored` event (the freeze recorded its bundle). */
  scoredAt: string | null;
  scoredUntil: string | null;
  /** When its issue was drawn, and the model cutoffs it was verified against (spec §4.4); set with the bundle. */
  sourcedAt: string | null;
  cutoffsVerified: string[] | null;
  events: Array<{
    seq: number;
    at: string;
    from: TaskState | null;
    to: TaskState;
    cause: string;
    detail: Record<string, unknown>;
  }>;
}

/** Which tasks `describeTasks` returns; every field given narrows the list. */
export interface TaskQuery {
  taskId?: string;
  state?: TaskState;
  /**
   * The scored set as of this instant (RFC 3339): tasks that entered the scored set at or before it and whose scored
   * window (until scoredUntil, exclusive) had not run out, whatever their state now.
   */
  scoredAsOf?: string;
  limit?: number;
}

export interface TaskDependencies {
  db: Database;
  /** Signals tasks (withdrawals); without it a withdrawal reaches no workflow. */
  temporal?: Client;
}

export function createTaskActivities({ db, temporal }: TaskDependencies) {
  return {
    /**
     * Creates the task in `drawn` with its first event; a task that exists already is left as it is, and its state and
     * scored window are returned for the workflow to continue from.
     */
    async recordTaskDrawn(
      input: TaskLifecycleInput,
    ): Promise<{ state: TaskState; created: boolean; scoredUntil: string | null }> {
      const task = parsed(taskLifecycleInput, input, 'recordTaskDrawn');
      return db.transaction(async (tx) => {
        const inserted = await tx
          .insert(tasks)
          .values({ id: task.taskId, drawId: task.drawId, repo: task.repo, issueNumber: task.issue })
          .onConflictDoNothing({ target: tasks.id })
          .returning({ id: tasks.id });
        if (inserted.length > 0) {
          await tx.insert(taskEvents).values({
            taskId: task.taskId,
            seq: 1,
            fromState: null,
            toState: 'drawn',
            cause: 'drawn',
            detail: { drawId: task.drawId },
          });
          return { state: 'drawn' as const, created: true, scoredUntil: null };
        }
        const [row] = await tx
          .select({ state: tasks.state, scoredUntil: tasks.scoredUntil })
          .from(tasks)
          .where(eq(tasks.id, task.taskId));
        return { state: row?.state ?? 'drawn', created: false, scoredUntil: row?.scoredUntil?.toISOString() ?? null };
      });
    },

    /**
     * Moves the task from `from` to `to`, sets the columns the new state needs, and appends the event, in one
     * transaction; done already (the task is in `to`, or the observation is the last event) is a no-op.
     */
    async recordTaskTransition(input: TaskTransition): Promise<{ seq: number }> {
      const change = parsed(taskTransition, input, 'recordTaskTransition');
      return db.transaction(async (tx) => {
        // Row lock: two attempts of one transition serialize here, the second sees the first's state.
        const [row] = await tx
          .select({ state: tasks.state })
          .from(tasks)
          .where(eq(tasks.id, change.taskId))
          .for('update');
        if (row === undefined)
          throw ApplicationFailure.create({
            type: 'UnknownTask',
            message: `task ${change.taskId} is not stored; it is created when drawn`,
            nonRetryable: true,
          });
        const [last] = await tx
          .select({ seq: taskEvents.seq, cause: taskEvents.cause, detail: taskEvents.detail })
          .from(taskEvents)
          .where(eq(taskEvents.taskId, change.taskId))
          .orderBy(desc(taskEvents.seq))
          .limit(1);
        const seq = last?.seq ?? 0;
        if (change.from === change.to) {
          // An observation: a retry finds it logged already (same cause and detail as the last event).
          if (
            last !== undefined &&
            last.cause === change.cause &&
            canonicalJson(last.detail) === canonicalJson(change.detail)
          )
            return { seq };
        } else if (row.state === change.to) {
          return { seq };
        }
        if (row.state !== change.from) {
          throw ApplicationFailure.create({
            type: 'InvalidTransition',
            message: `task ${change.taskId} is ${row.state}, not ${change.from}: it cannot move to ${change.to}`,
            nonRetryable: true,
          });
        }
        const set = change.set ?? {};
        await tx
          .update(tasks)
          .set({
            state: change.to,
            ...(set.prUrl === undefined ? {} : { prUrl: set.prUrl }),
            ...(set.prNodeId === undefined
              ? {}
              : { prNodeId: set.prNodeId, prSeenUpdatedAt: set.prSeenUpdatedAt ?? null }),
            ...(set.mergeCommit === undefined ? {} : { mergeCommit: set.mergeCommit }),
            ...(set.mergedAt === undefined ? {} : { mergedAt: new Date(set.mergedAt) }),
            ...(set.scoredUntil === undefined ? {} : { scoredUntil: new Date(set.scoredUntil) }),
          })
          .where(and(eq(tasks.id, change.taskId), eq(tasks.state, change.from)));
        await tx.insert(taskEvents).values({
          taskId: change.taskId,
          seq: seq + 1,
          fromState: change.from,
          toState: change.to,
          cause: change.cause,
          detail: change.detail,
        });
        return { seq: seq + 1 };
      });
    },

    /** Signals every live task of a repository to withdraw (an opt-out, an archived repository). */
    async withdrawRepositoryTasks({
      repo,
      withdrawal,
    }: {
      repo: string;
      withdrawal: Withdrawal;
    }): Promise<{ signalled: number }> {
      const rows = await db
        .select({ id: tasks.id })
        .from(tasks)
        .where(
          and(
            sql`lower(${tasks.repo}) = ${repo.toLowerCase()}`,
            inArray(tasks.state, ['drawn', 'solving', 'tracking']),
          ),
        );
      if (temporal === undefined)
        throw ApplicationFailure.create({
          type: 'NoTemporalClient',
          message: 'this worker cannot signal tasks: it was started without a Temporal client for activities',
          nonRetryable: true,
        });
      let signalled = 0;
      for (const row of rows) {
        try {
          await temporal.workflow.getHandle(row.id).signal(TASK_SIGNAL_NAMES.withdraw, withdrawal);
          signalled += 1;
        } catch (error) {
          if (!(error instanceof WorkflowNotFoundError)) throw error;
        }
      }
      return { signalled };
    },

    /** Tasks with their state, pull request and timings, and (for one task) its event log: what `abp task list|show` and `abp tasks` print. */
    async describeTasks(query: TaskQuery): Promise<TaskRecord[]> {
      const asOf = query.scoredAsOf === undefined ? undefined : Date.parse(query.scoredAsOf);
      if (asOf !== undefined && Number.isNaN(asOf)) {
        throw ApplicationFailure.create({
          type: 'InvalidActivityInput',
          message: `describeTasks: scoredAsOf ${JSON.stringify(query.scoredAsOf)} is not a date; pass RFC 3339, e.g. "2026-07-02T00:00:00Z"`,
          nonRetryable: true,
        });
      }
      // A task enters the scored set once, when its bundle is recorded (its one `scored` event).
      const scored = db
        .select({
          taskId: taskEvents.taskId,
          at: sql<Date>`min(${taskEvents.at})`.mapWith(taskEvents.at).as('scored_at'),
        })
        .from(taskEvents)
        .where(eq(taskEvents.toState, 'scored'))
        .groupBy(taskEvents.taskId)
        .as('scored');
      const asOfDate = asOf === undefined ? undefined : new Date(asOf);
      const rows = await db
        .select({ task: tasks, registryVersion: draws.registryVersion, seed: draws.seed, scoredAt: scored.at })
        .from(tasks)
        .innerJoin(draws, eq(draws.id, tasks.drawId))
        .leftJoin(scored, eq(scored.taskId, tasks.id))
        .where(
          and(
            query.taskId === undefined ? undefined : eq(tasks.id, query.taskId),
            query.state === undefined ? undefined : eq(tasks.state, query.state),
            asOfDate === undefined
              ? undefined
              : and(sql`${scored.at} <= ${asOfDate.toISOString()}::timestamptz`, gt(tasks.scoredUntil, asOfDate)),
          ),
        )
        .orderBy(asc(tasks.createdAt), asc(tasks.id))
        .limit(query.limit ?? 1_000);
      const events =
        query.taskId === undefined
          ? []
          : await db.select().from(taskEvents).where(eq(taskEvents.taskId, query.taskId)).orderBy(asc(taskEvents.seq));
      return rows.map(({ task: row, registryVersion, seed, scoredAt }) => ({
        taskId: row.id,
        registryVersion,
        drawSeed: Number(seed),
        repo: row.repo,
        issue: row.issueNumber,
        state: row.state,
        prUrl: row.prUrl,
        mergeCommit: row.mergeCommit,
        bundleDigest: row.bundleDigest,
        createdAt: row.createdAt.toISOString(),
        updatedAt: row.updatedAt.toISOString(),
        mergedAt: row.mergedAt?.toISOString() ?? null,
        scoredAt: scoredAt?.toISOString() ?? null,
        scoredUntil: row.scoredUntil?.toISOString() ?? null,
        sourcedAt: row.sourcedAt?.toISOString() ?? null,
        cutoffsVerified: row.cutoffsVerified,
        events: events.map((event) => ({
          seq: event.seq,
          at: event.at.toISOString(),
          from: event.fromState,
          to: event.toState,
          cause: event.cause,
          detail: event.detail,
        })),
      }));
    },
  };
}
