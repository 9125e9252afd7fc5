// The freeze stage: the worker freezes each merged fix (FAIL_TO_PASS from repeated real runs, a deterministic bundle,
// signed and logged) on its own; this stage waits until every task with a merged fix is scored or rejected, and says
// why a rejected one was. Tasks learn of merges from webhooks; one still tracking a merged fix a few seconds into the
// stage has missed its delivery and is nudged to look again (a signal with no verdict: the task re-reads the pull
// request itself).
import { setTimeout as delay } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import type { TaskReads } from '@abp/pipeline/task-reads/reader';
import { MAX_TASK_LIMIT, type TaskEvent, type TaskRecord } from '@abp/pipeline/task-reads/records';
import type { TaskState } from '@abp/pipeline/contracts/task-workflow';
import { taskSignals } from '@abp/pipeline/workflows/task';
import { PipelineError } from './errors.js';
import type { StageReport } from './stage.js';
import { activityProgress, retryReporter } from './temporal.js';

/** A task that has left the freeze: frozen into the scored set (or aged to practice), or not. */
const FROZEN: readonly TaskState[] = ['scored', 'practice'];
const DONE: readonly TaskState[] = [...FROZEN, 'rejected', 'withdrawn'];

export interface FrozenTask {
  taskId: string;
  repo: string;
  issue: number;
  state: TaskState;
  bundleDigest: string | null;
  prUrl: string | null;
  /** Why a rejected or withdrawn task was (its last event's cause and detail). */
  reason: string | null;
}

/** A task's latest event as a reason: its cause, and its detail when it has one. */
export function reasonOfEvent(event: TaskEvent | null): string | null {
  if (event === null) return null;
  return `${event.cause}${Object.keys(event.detail).length > 0 ? ` ${JSON.stringify(event.detail)}` : ''}`;
}

export interface FreezeWait {
  timeoutMs: number;
  nudgeAfterMs?: number;
  pollMs?: number;
}

/**
 * Waits for the tasks in `taskIds` (the draw's picks) that have a merged fix (`merged`) or are freezing already; the
 * others are left as they are. Returns every pick that is frozen or was rejected.
 */
export async function waitForFreezes(
  client: Client,
  input: {
    reads: TaskReads;
    taskIds: readonly string[];
    merged: ReadonlySet<string>;
    workerLog: string;
    wait: FreezeWait;
  },
  report: StageReport,
): Promise<{ value: FrozenTask[]; summary: string }> {
  const pollMs = input.wait.pollMs ?? 1_000;
  const nudgeAfterMs = input.wait.nudgeAfterMs ?? 5_000;
  const started = Date.now();
  const deadline = started + input.wait.timeoutMs;
  const picks = new Set(input.taskIds);
  const nudged = new Set<string>();
  const retries = retryReporter((message) => report.note(message));
  let records: TaskRecord[] = [];
  const watched = (record: TaskRecord) =>
    input.merged.has(record.taskId) || record.state === 'freezing' || DONE.includes(record.state);
  const alreadyDone = new Set(
    (await input.reads.read({ limit: MAX_TASK_LIMIT }))
      .filter((record) => picks.has(record.taskId) && DONE.includes(record.state) && !input.merged.has(record.taskId))
      .map((record) => record.taskId),
  );
  for (;;) {
    records = (await input.reads.read({ limit: MAX_TASK_LIMIT })).filter(
      (record) => picks.has(record.taskId) && watched(record),
    );
    const waiting = records.filter((record) => !DONE.includes(record.state));
    const frozen = records.filter((record) => FROZEN.includes(record.state)).length;
    report.progress(
      records.length - waiting.length,
      records.length,
      'tasks',
      waiting.length === 0
        ? null
        : `${frozen} frozen, ${waiting.filter((record) => record.state === 'freezing').length} freezing`,
    );
    if (waiting.length === 0) break;
    if (Date.now() > deadline) {
      throw new PipelineError(
        'freeze',
        `${waiting.length} tasks did not finish freezing within ${Math.round(input.wait.timeoutMs / 1000)} s: ${waiting.map((record) => `${record.taskId} (${record.state})`).join(', ')}`,
        input.workerLog,
      );
    }
    for (const record of waiting.filter((candidate) => candidate.state === 'freezing')) {
      // A freeze that keeps failing says why here, not only in the worker log (the freeze is the task's child workflow).
      const progress = await activityProgress(client.workflow.getHandle(`${record.taskId}-freeze`)).catch(() => null);
      if (progress !== null)
        retries(progress.retrying.map((activity) => ({ ...activity, type: `${record.taskId}: ${activity.type}` })));
    }
    for (const record of waiting) {
      if (
        record.state !== 'tracking' ||
        nudged.has(record.taskId) ||
        record.prUrl === null ||
        Date.now() - started < nudgeAfterMs
      )
        continue;
      nudged.add(record.taskId);
      report.note(
        `${record.taskId} still tracks ${record.prUrl}, which merged: told to look again (its webhook may have been lost)`,
      );
      await client.workflow
        .getHandle(record.taskId)
        .signal(taskSignals.pullRequestChanged, { prUrl: record.prUrl, action: 'polled', deliveryId: null })
        .catch(() => undefined);
    }
    await delay(pollMs);
  }
  const tasks: FrozenTask[] = [];
  for (const record of records) {
    const reason = FROZEN.includes(record.state) ? null : reasonOfEvent(record.lastEvent);
    tasks.push({
      taskId: record.taskId,
      repo: record.repo,
      issue: record.issue,
      state: record.state,
      bundleDigest: record.bundleDigest,
      prUrl: record.prUrl,
      reason,
    });
    const before = alreadyDone.has(record.taskId) ? ' (before this run)' : '';
    report.note(
      reason === null
        ? `${record.taskId}: ${record.state}${before}, bundle ${record.bundleDigest ?? '?'}`
        : `${record.taskId}: ${record.state}${before}: ${reason}`,
    );
  }
  const scored = tasks.filter((task) => FROZEN.includes(task.state));
  if (scored.length === 0) {
    throw new PipelineError(
      'freeze',
      tasks.length === 0
        ? 'no fix was merged, so no task could freeze: see the merge stage above'
        : `none of ${tasks.length} tasks froze into the scored set: ${tasks.map((task) => `${task.taskId} ${task.reason ?? ''}`).join('; ')}`,
      input.workerLog,
    );
  }
  const rejected = tasks.length - scored.length;
  return {
    value: tasks,
    summary: `${scored.length} tasks frozen and signed${alreadyDone.size > 0 ? ` (${alreadyDone.size} before this run)` : ''}${rejected > 0 ? `, ${rejected} rejected` : ''}`,
  };
}
