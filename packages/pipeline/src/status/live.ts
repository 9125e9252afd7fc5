// What only the running stack knows, as `abp status` reads it through Temporal: whether a worker polls the main task
// queue, the tasks by state (the worker owns the database, PGlite allows one process, so they are read through the
// `describeTasks` workflow as `abp task list` reads them) and the quarterly rotation Schedule's next run. Every call
// has a deadline: a status must stay fast when a server or the worker is down.
import { randomUUID } from 'node:crypto';
import { ScheduleNotFoundError, type Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import type { TaskQuery, TaskRecord } from '../activities/tasks.js';
import { ROTATION_SCHEDULE_ID } from '../contracts/rotation.js';
import { taskStates, type TaskState } from '../contracts/task-workflow.js';
import type { describeTasks } from '../workflows/describe-tasks.js';
import { absent, found, messageOf, unavailable, type Part } from './part.js';

export interface LiveSources {
  client: Client;
  namespace: string;
  taskQueue: string;
  /** How long each read may take before its part says so. */
  timeoutMs: number;
  now: () => Date;
  /** Tasks one read returns at most (TASK_READ_LIMIT). */
  taskReadLimit: number;
}

export interface TaskFacts {
  total: number;
  /** Every state, zeros included, in lifecycle order. */
  byState: Record<TaskState, number>;
  /** States holding at least `limit` tasks: their count is a floor, shown as "<limit>+". */
  capped: TaskState[];
  limit: number;
}

export interface ScheduleFacts {
  scheduleId: string;
  paused: boolean;
  /** The operator's note, e.g. why it is paused. */
  note: string | null;
  /** The next rotations, earliest first (empty while paused). */
  nextRuns: string[];
  lastRunAt: string | null;
}

/**
 * Tasks one read returns at most. A task record is about 600 bytes of JSON, so this keeps each read's result far below
 * Temporal's 2 MB payload limit; a state with more is reported as "1000+" rather than read in pieces.
 */
export const TASK_READ_LIMIT = 1_000;

/**
 * A worker long-polls for up to a minute and polls again at once; one whose last poll is older than this has stopped.
 * A worker killed within this window still looks present, and then the task read's deadline says it did not answer.
 */
const POLLER_FRESH_MS = 2 * 60_000;

function millisOf(timestamp: proto.google.protobuf.ITimestamp | null | undefined): number | null {
  if (!timestamp) return null;
  const seconds =
    typeof timestamp.seconds === 'number' ? timestamp.seconds : Number(timestamp.seconds?.toString() ?? 0);
  return seconds * 1000 + Math.floor((timestamp.nanos ?? 0) / 1e6);
}

/** The identities (`<pid>@<host>`) of workers that polled the task queue for workflow tasks lately. */
export async function pollingWorkers(sources: LiveSources): Promise<string[]> {
  const { pollers } = await sources.client.connection.withDeadline(Date.now() + sources.timeoutMs, () =>
    sources.client.workflowService.describeTaskQueue({
      namespace: sources.namespace,
      taskQueue: { name: sources.taskQueue },
      taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    }),
  );
  const freshAfter = sources.now().getTime() - POLLER_FRESH_MS;
  return (pollers ?? [])
    .filter((poller) => (millisOf(poller.lastAccessTime) ?? 0) >= freshAfter)
    .map((poller) => poller.identity ?? 'unknown');
}

function readTasks(sources: LiveSources, query: TaskQuery): Promise<TaskRecord[]> {
  return sources.client.workflow.execute<typeof describeTasks>('describeTasks', {
    taskQueue: sources.taskQueue,
    workflowId: `describe-tasks-status-${randomUUID()}`,
    args: [query],
    // A worker that stopped after its last poll never picks the read up: give up instead of waiting for it.
    workflowExecutionTimeout: sources.timeoutMs,
  });
}

function countStates(records: readonly TaskRecord[]): Record<TaskState, number> {
  const byState = Object.fromEntries(taskStates.map((state) => [state, 0])) as Record<TaskState, number>;
  for (const record of records) byState[record.state] += 1;
  return byState;
}

export async function taskFacts(sources: LiveSources): Promise<Part<TaskFacts>> {
  const workers = await pollingWorkers(sources);
  if (workers.length === 0) {
    return unavailable(
      `no worker polls task queue ${sources.taskQueue}: tasks are read through the worker, which owns the database; start it with \`abp dev up\` (or \`abp worker\`)`,
    );
  }
  try {
    const limit = sources.taskReadLimit;
    const all = await readTasks(sources, { limit });
    if (all.length < limit) return found({ total: all.length, byState: countStates(all), capped: [], limit });
    // Too many to count in one read: one read per state, each up to the limit.
    const perState = await Promise.all(
      taskStates.map(async (state) => [state, (await readTasks(sources, { state, limit })).length] as const),
    );
    const byState = Object.fromEntries(perState) as Record<TaskState, number>;
    return found({
      total: perState.reduce((sum, [, count]) => sum + count, 0),
      byState,
      capped: perState.filter(([, count]) => count >= limit).map(([state]) => state),
      limit,
    });
  } catch (error) {
    return unavailable(
      `the worker (${workers.join(', ')}) did not answer a task read within ${sources.timeoutMs} ms: ${messageOf(error)}; see its log (\`abp dev status\` names it)`,
    );
  }
}

export async function scheduleFacts(sources: LiveSources): Promise<Part<ScheduleFacts>> {
  try {
    const description = await sources.client.connection.withDeadline(Date.now() + sources.timeoutMs, () =>
      sources.client.schedule.getHandle(ROTATION_SCHEDULE_ID).describe(),
    );
    const lastRun = description.info.recentActions.at(-1);
    return found({
      scheduleId: ROTATION_SCHEDULE_ID,
      paused: description.state.paused,
      // The server answers "" for a Schedule without a note.
      note: description.state.note || null,
      nextRuns: description.info.nextActionTimes.map((time) => time.toISOString()),
      lastRunAt: lastRun === undefined ? null : lastRun.takenAt.toISOString(),
    });
  } catch (error) {
    if (error instanceof ScheduleNotFoundError) {
      return absent(
        `not scheduled: no Schedule ${ROTATION_SCHEDULE_ID}; \`abp registry schedule\` creates the quarterly rotation (\`abp dev up\` does too)`,
      );
    }
    throw error;
  }
}
