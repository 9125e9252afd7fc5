// The task table and its append-only event log, written only by the task workflow through these activities. Each
// write is one transaction and idempotent: a retried activity finds its transition done and writes nothing.
import { ApplicationFailure } from '@temporalio/activity';
import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../db/connection.js';
import { taskEvents, tasks } from '../db/schema/index.js';
import { taskLifecycleInput, taskTransition, type TaskLifecycleInput, type TaskState, type TaskTransition } from '../schemas/task-workflow.js';
import { parsed } from './arguments.js';

export interface TaskDependencies {
  db: Database;
}

export function createTaskActivities({ db }: TaskDependencies) {
  return {
    /** Creates the task in `drawn` with its first event; a task that exists already is left as it is. */
    async recordTaskDrawn(input: TaskLifecycleInput): Promise<{ state: TaskState; created: boolean }> {
      const task = parsed(taskLifecycleInput, input, 'recordTaskDrawn');
      return db.transaction(async (tx) => {
        const inserted = await tx
          .insert(tasks)
          .values({ id: task.taskId, drawId: task.drawId, repo: task.repo, issueNumber: task.issue })
          .onConflictDoNothing({ target: tasks.id })
          .returning({ id: tasks.id });
        if (inserted.length > 0) {
          await tx.insert(taskEvents).values({ taskId: task.taskId, seq: 1, fromState: null, toState: 'drawn', cause: 'drawn', detail: { drawId: task.drawId } });
          return { state: 'drawn' as const, created: true };
        }
        const [row] = await tx.select({ state: tasks.state }).from(tasks).where(eq(tasks.id, task.taskId));
        return { state: row?.state ?? 'drawn', created: false };
      });
    },

    /** Moves the task from `from` to `to` and appends the event; done already (the task is in `to`) is a no-op. */
    async recordTaskTransition(input: TaskTransition): Promise<{ seq: number }> {
      const change = parsed(taskTransition, input, 'recordTaskTransition');
      return db.transaction(async (tx) => {
        // Row lock: two attempts of one transition serialize here, the second sees the first's state.
        const [row] = await tx.select({ state: tasks.state }).from(tasks).where(eq(tasks.id, change.taskId)).for('update');
        if (row === undefined) throw ApplicationFailure.create({ type: 'UnknownTask', message: `task ${change.taskId} is not stored; it is created when drawn`, nonRetryable: true });
        const [last] = await tx.select({ seq: sql<number>`coalesce(max(${taskEvents.seq}), 0)::int` }).from(taskEvents).where(eq(taskEvents.taskId, change.taskId));
        const seq = last?.seq ?? 0;
        if (row.state === change.to) return { seq };
        if (row.state !== change.from) {
          throw ApplicationFailure.create({ type: 'InvalidTransition', message: `task ${change.taskId} is ${row.state}, not ${change.from}: it cannot move to ${change.to}`, nonRetryable: true });
        }
        await tx
          .update(tasks)
          .set({ state: change.to, ...(change.prUrl === undefined ? {} : { prUrl: change.prUrl }) })
          .where(and(eq(tasks.id, change.taskId), eq(tasks.state, change.from)));
        await tx.insert(taskEvents).values({ taskId: change.taskId, seq: seq + 1, fromState: change.from, toState: change.to, cause: change.cause, detail: change.detail });
        return { seq: seq + 1 };
      });
    },
  };
}
