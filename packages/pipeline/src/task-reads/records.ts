// The task records as operators and consumers read them (`abp task list|show`, `abp tasks`, `abp status`, the main
// job, the API's task routes): one query over the task table, its draw and its event log, run wherever the database
// is reachable (task-reads/reader.ts decides where). Reading never writes and never goes through Temporal.
import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { Database } from '../db/connection.js';
import { draws, taskEvents, tasks } from '../db/schema/index.js';
import { taskStates, type TaskState } from '../contracts/task-workflow.js';
import { AbpError } from '@abp/protocol/errors';
import { conforms, documentId } from '@abp/protocol/schemas/primitives';

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
  /** The task's latest event, whatever the query: why it is where it is (a rejection's reason, a stalled freeze's fault). */
  lastEvent: TaskEvent | null;
  /** The event log, oldest first; only when the query names one task. */
  events: TaskEvent[];
}

export interface TaskEvent {
  seq: number;
  at: string;
  from: TaskState | null;
  to: TaskState;
  cause: string;
  detail: Record<string, unknown>;
}

/** A freeze waiting out a machine fault (activities/freeze.ts): the task is freezing and its latest event says why not. */
export const FREEZE_STALLED = 'freeze-stalled';

/** Which tasks a read returns; every field given narrows the list. */
export interface TaskQuery {
  taskId?: string;
  state?: TaskState;
  /**
   * The scored set as of this instant (RFC 3339): tasks that entered the scored set at or before it and whose scored
   * window (until scoredUntil, exclusive) had not run out, whatever their state now.
   */
  scoredAsOf?: string;
  /** At most this many, oldest first; DEFAULT_TASK_LIMIT when absent. */
  limit?: number;
}

export const DEFAULT_TASK_LIMIT = 1_000;
/** The most one read returns: a read is answered whole, in memory, so it is bounded (a record is about 600 bytes). */
export const MAX_TASK_LIMIT = 10_000;

export type TaskReadErrorCode =
  /** A query field out of its form. */
  | 'invalid-task-query'
  /** The embedded database's worker is not running, so nothing can read it. */
  | 'worker-not-running'
  /** The worker (or the database server) did not answer in time, or answered something else than task records. */
  | 'worker-unreachable';

export class TaskReadError extends AbpError<TaskReadErrorCode> {}

/** The query as given, checked field by field: an error names the field and the form it takes. */
export function checkTaskQuery(query: TaskQuery): TaskQuery {
  if (query.taskId !== undefined && !conforms(documentId, query.taskId))
    throw new TaskReadError(
      'invalid-task-query',
      `taskId ${JSON.stringify(query.taskId.slice(0, 200))} is not a task id: e.g. gh-<owner>-<name>-<issue>`,
    );
  if (query.state !== undefined && !(taskStates as readonly string[]).includes(query.state))
    throw new TaskReadError(
      'invalid-task-query',
      `state ${JSON.stringify(String(query.state).slice(0, 40))} is not a task state: use one of ${taskStates.join(', ')}`,
    );
  if (query.scoredAsOf !== undefined && Number.isNaN(Date.parse(query.scoredAsOf)))
    throw new TaskReadError(
      'invalid-task-query',
      `scoredAsOf ${JSON.stringify(query.scoredAsOf.slice(0, 60))} is not a date: give RFC 3339, e.g. 2026-07-02T00:00:00Z`,
    );
  if (
    query.limit !== undefined &&
    !(Number.isInteger(query.limit) && query.limit >= 1 && query.limit <= MAX_TASK_LIMIT)
  )
    throw new TaskReadError(
      'invalid-task-query',
      `limit ${String(query.limit)} is out of range: give a whole number from 1 to ${MAX_TASK_LIMIT}`,
    );
  return query;
}

/** Tasks with their state, pull request and timings, oldest first, and (for one task) its event log. */
export async function describeTasks(db: Database, query: TaskQuery): Promise<TaskRecord[]> {
  checkTaskQuery(query);
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
  const asOf = query.scoredAsOf === undefined ? undefined : new Date(Date.parse(query.scoredAsOf));
  // The latest event of each task, beside it in the same query.
  const last = sql<TaskEvent | null>`(
    select jsonb_build_object('seq', e.seq, 'at', e.at, 'from', e.from_state, 'to', e.to_state, 'cause', e.cause, 'detail', e.detail)
    from ${taskEvents} e where e.task_id = ${tasks.id} order by e.seq desc limit 1)`;
  const rows = await db
    .select({
      task: tasks,
      registryVersion: draws.registryVersion,
      seed: draws.seed,
      scoredAt: scored.at,
      lastEvent: last,
    })
    .from(tasks)
    .innerJoin(draws, eq(draws.id, tasks.drawId))
    .leftJoin(scored, eq(scored.taskId, tasks.id))
    .where(
      and(
        query.taskId === undefined ? undefined : eq(tasks.id, query.taskId),
        query.state === undefined ? undefined : eq(tasks.state, query.state),
        asOf === undefined
          ? undefined
          : and(sql`${scored.at} <= ${asOf.toISOString()}::timestamptz`, gt(tasks.scoredUntil, asOf)),
      ),
    )
    .orderBy(asc(tasks.createdAt), asc(tasks.id))
    .limit(query.limit ?? DEFAULT_TASK_LIMIT);
  const events =
    query.taskId === undefined
      ? []
      : await db.select().from(taskEvents).where(eq(taskEvents.taskId, query.taskId)).orderBy(asc(taskEvents.seq));
  return rows.map(({ task: row, registryVersion, seed, scoredAt, lastEvent }) => ({
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
    lastEvent: lastEvent === null ? null : { ...lastEvent, at: new Date(lastEvent.at).toISOString() },
    events: events.map((event) => ({
      seq: event.seq,
      at: event.at.toISOString(),
      from: event.fromState,
      to: event.toState,
      cause: event.cause,
      detail: event.detail,
    })),
  }));
}
