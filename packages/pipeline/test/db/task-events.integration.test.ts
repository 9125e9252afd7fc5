// The task event log is append-only in the database itself (migration 0001's trigger), so no
// code path, ORM or psql session can rewrite a task's history.
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { selectRows } from '../../src/db/connection.js';
import { SqlState } from '../../src/db/errors.js';
import { taskEvents, tasks } from '../../src/db/schema/index.js';
import { backends, failureSqlState, insertDrawnTask, taskEventRow, useTestDatabase } from '../support/database.js';

describe.each(backends)('task event log on %s', (kind) => {
  const database = useTestDatabase(kind);

  async function taskWithOneEvent() {
    const { task } = await insertDrawnTask(database.db);
    const event = taskEventRow({
      taskId: task.id,
      seq: 1,
      toState: 'drawn',
      cause: 'drawn',
      detail: { seed: '424242' },
    });
    await database.db.insert(taskEvents).values(event);
    return { task, event };
  }

  async function eventsOf(taskId: string) {
    return database.db.select().from(taskEvents).where(eq(taskEvents.taskId, taskId)).orderBy(taskEvents.seq);
  }

  it('accepts appended events', async () => {
    const { task } = await taskWithOneEvent();
    await database.db
      .insert(taskEvents)
      .values(taskEventRow({ taskId: task.id, seq: 2, fromState: 'drawn', toState: 'solving', cause: 'claimed' }));
    expect((await eventsOf(task.id)).map((event) => [event.seq, event.toState])).toEqual([
      [1, 'drawn'],
      [2, 'solving'],
    ]);
  });

  it('rejects UPDATE and leaves the event as it was', async () => {
    const { task, event } = await taskWithOneEvent();
    const update = database.db.update(taskEvents).set({ cause: 'rewritten' }).where(eq(taskEvents.taskId, task.id));
    expect(await failureSqlState(update)).toBe(SqlState.appendOnlyViolation);
    expect(await eventsOf(task.id)).toMatchObject([{ seq: 1, cause: event.cause, detail: event.detail }]);
  });

  it('rejects DELETE and keeps the event', async () => {
    const { task } = await taskWithOneEvent();
    const remove = database.db.delete(taskEvents).where(eq(taskEvents.taskId, task.id));
    expect(await failureSqlState(remove)).toBe(SqlState.appendOnlyViolation);
    expect(await eventsOf(task.id)).toHaveLength(1);
  });

  it('rejects UPDATE and DELETE even when they match no row', async () => {
    const none = eq(taskEvents.taskId, 'gh-nobody-nothing-404');
    expect(await failureSqlState(database.db.update(taskEvents).set({ cause: 'x' }).where(none))).toBe(
      SqlState.appendOnlyViolation,
    );
    expect(await failureSqlState(database.db.delete(taskEvents).where(none))).toBe(SqlState.appendOnlyViolation);
  });

  it('rejects TRUNCATE', async () => {
    const { task } = await taskWithOneEvent();
    expect(await failureSqlState(database.db.execute(sql`truncate table task_events cascade`))).toBe(
      SqlState.appendOnlyViolation,
    );
    expect(await eventsOf(task.id)).toHaveLength(1);
  });

  it('refuses to delete a task that has history', async () => {
    const { task } = await taskWithOneEvent();
    expect(await failureSqlState(database.db.delete(tasks).where(eq(tasks.id, task.id)))).toBe(
      SqlState.foreignKeyViolation,
    );
    const [row] = await selectRows<{ count: number }>(
      database.db,
      sql`select count(*)::int as count from ${taskEvents} where ${taskEvents.taskId} = ${task.id}`,
    );
    expect(row?.count).toBe(1);
  });

  it('rolls back the whole transaction when one of its statements touches the log', async () => {
    const { task } = await taskWithOneEvent();
    const transaction = database.db.transaction(async (tx) => {
      await tx.update(tasks).set({ state: 'withdrawn' }).where(eq(tasks.id, task.id));
      await tx
        .insert(taskEvents)
        .values(taskEventRow({ taskId: task.id, seq: 2, fromState: 'drawn', toState: 'withdrawn', cause: 'opt-out' }));
      await tx.delete(taskEvents).where(eq(taskEvents.seq, 1));
    });
    expect(await failureSqlState(transaction)).toBe(SqlState.appendOnlyViolation);
    expect(await eventsOf(task.id)).toHaveLength(1);
    const [row] = await database.db.select({ state: tasks.state }).from(tasks).where(eq(tasks.id, task.id));
    expect(row?.state).toBe('drawn');
  });
});
