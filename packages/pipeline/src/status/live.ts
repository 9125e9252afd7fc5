// What only the running stack knows, as `abp status` reads it: the tasks by state (through the read path every reader
// takes, task-reads/reader.ts, never a workflow), and through Temporal the quarterly rotation Schedule's next run. Every call has a deadline: a status must stay fast when a server or the
// worker is down.
import { ScheduleNotFoundError, type Client } from '@temporalio/client';
import type { TaskReads } from '../task-reads/reader.js';
import { FREEZE_STALLED, type TaskRecord } from '../task-reads/records.js';
import { ROTATION_SCHEDULE_ID } from '../contracts/rotation.js';
import { taskStates, type TaskState } from '../contracts/task-workflow.js';
import { absent, found, messageOf, unavailable, type Part } from './part.js';

export interface LiveSources {
  client: Client;
  /** How long each read may take before its part says so. */
  timeoutMs: number;
}

export interface TaskFacts {
  total: number;
  /** Every state, zeros included, in lifecycle order. */
  byState: Record<TaskState, number>;
  /** States holding at least `limit` tasks: their count is a floor, shown as "<limit>+". */
  capped: TaskState[];
  limit: number;
  /** Freezes waiting out a machine fault (a full disk, memory, a service not answering), with the fault they met. */
  stalled: Array<{ taskId: string; fault: string; message: string; since: string }>;
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
 * Tasks one read returns at most. A task record is about 600 bytes of JSON, so a read stays well under a megabyte; a
 * state with more is reported as "1000+" rather than read in pieces.
 */
export const TASK_READ_LIMIT = 1_000;

function stalledOf(records: readonly TaskRecord[]): TaskFacts['stalled'] {
  return records.flatMap((record) => {
    const last = record.lastEvent;
    if (record.state !== 'freezing' || last === null || last.cause !== FREEZE_STALLED) return [];
    return [
      { taskId: record.taskId, fault: String(last.detail.fault), message: String(last.detail.message), since: last.at },
    ];
  });
}

function countStates(records: readonly TaskRecord[]): Record<TaskState, number> {
  const byState = Object.fromEntries(taskStates.map((state) => [state, 0])) as Record<TaskState, number>;
  for (const record of records) byState[record.state] += 1;
  return byState;
}

/** The tasks by state, read with `reads` (which carries its own deadline), at most `limit` per read. */
export async function taskFacts(reads: TaskReads, limit: number): Promise<Part<TaskFacts>> {
  try {
    const all = await reads.read({ limit });
    if (all.length < limit)
      return found({ total: all.length, byState: countStates(all), capped: [], limit, stalled: stalledOf(all) });
    // Too many to count in one read: one read per state, each up to the limit.
    const perState = await Promise.all(
      taskStates.map(async (state) => [state, await reads.read({ state, limit })] as const),
    );
    const byState = Object.fromEntries(perState.map(([state, read]) => [state, read.length])) as Record<
      TaskState,
      number
    >;
    return found({
      total: perState.reduce((sum, [, read]) => sum + read.length, 0),
      byState,
      capped: perState.filter(([, read]) => read.length >= limit).map(([state]) => state),
      limit,
      stalled: stalledOf(perState.find(([state]) => state === 'freezing')?.[1] ?? []),
    });
  } catch (error) {
    return unavailable(`the tasks could not be read: ${messageOf(error)}`);
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
