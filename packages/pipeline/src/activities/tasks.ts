// The task table and its append-only event log, written only by the task workflow through these activities. Each
// write is one transaction and idempotent: a retried activity finds its transition done and writes nothing.
import { ApplicationFailure } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../db/connection.js';
import { taskEvents, tasks } from '../db/schema/index.js';
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
  };
}
