// abp's task queues as `abp status` reads them from Temporal: for each queue of workflows/shared.ts, the workers that
// poll it and its backlog, from DescribeTaskQueue with stats. Workers on different machines may serve any subset of the
// queues, so a queue nobody polls is the first thing an operator needs to see. Read-only; every call has a deadline.
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { QUEUE_KINDS, taskQueues, type QueueKind } from '../workflows/shared.js';
import type { LiveSources } from './live.js';
import { found, messageOf, unavailable, type Part } from './part.js';

const { TaskQueueType } = proto.temporal.api.enums.v1;

/** The kinds of task a queue holds: workflow tasks (on `main` only) and activity tasks. */
export type TaskKind = 'workflow' | 'activity';

export interface QueueWorker {
  /** The identity the worker polls with (the SDK's default is `<pid>@<host>`). */
  identity: string;
  /** The kinds of task it polls for: a worker on `main` polls both, on `freeze` and `trials` activities only. */
  polls: TaskKind[];
  /** Its latest poll as the server saw it (the server forgets a worker about 5 minutes after it). */
  lastAccessAt: string | null;
}

/** A backlog per kind of task; `unknown` when the server does not report task-queue stats (never guessed as 0). */
export type Backlog = { $case: 'reported'; count: number; oldestAgeMs: number } | { $case: 'unknown' };

export interface QueueFacts {
  kind: QueueKind;
  name: string;
  /** By identity, each once whatever it polls for. */
  workers: QueueWorker[];
  backlog: Record<TaskKind, Backlog>;
}

export interface QueuesFacts {
  /** When the queues were described, by this machine's clock: what a worker's `lastAccessAt` is measured against. */
  describedAt: string;
  /** Every queue, in the order of QUEUE_KINDS. */
  queues: QueueFacts[];
}

export type DescribeResponse = proto.temporal.api.workflowservice.v1.IDescribeTaskQueueResponse;
type Int64 = number | { toString(): string } | null | undefined;

/** protobufjs gives int64 as a Long (or a number): small enough here to be a number. */
function int64(value: Int64): number {
  if (value === null || value === undefined) return 0;
  return typeof value === 'number' ? value : Number(value.toString());
}

function durationMs(duration: { seconds?: Int64; nanos?: number | null } | null | undefined): number {
  if (duration === null || duration === undefined) return 0;
  return int64(duration.seconds) * 1_000 + Math.floor((duration.nanos ?? 0) / 1e6);
}

function backlogOf(response: DescribeResponse): Backlog {
  const { stats } = response;
  // A server without stats support (or one that ignores `reportStats`) sends none.
  if (stats === null || stats === undefined) return { $case: 'unknown' };
  const count = int64(stats.approximateBacklogCount);
  return { $case: 'reported', count, oldestAgeMs: count === 0 ? 0 : durationMs(stats.approximateBacklogAge) };
}

function workersOf(described: ReadonlyArray<readonly [TaskKind, DescribeResponse]>): QueueWorker[] {
  const byIdentity = new Map<string, QueueWorker>();
  for (const [kind, response] of described) {
    for (const poller of response.pollers ?? []) {
      const identity = poller.identity ?? '';
      const access = poller.lastAccessTime;
      const lastAccessAt = access === null || access === undefined ? null : new Date(durationMs(access)).toISOString();
      const worker = byIdentity.get(identity) ?? { identity, polls: [], lastAccessAt: null };
      worker.polls.push(kind);
      if (lastAccessAt !== null && (worker.lastAccessAt === null || lastAccessAt > worker.lastAccessAt))
        worker.lastAccessAt = lastAccessAt;
      byIdentity.set(identity, worker);
    }
  }
  return [...byIdentity.values()].sort((a, b) => a.identity.localeCompare(b.identity));
}

/** A queue's facts from what the server said of its workflow and its activity tasks. */
export function queueFactsOf(kind: QueueKind, described: Record<TaskKind, DescribeResponse>): QueueFacts {
  return {
    kind,
    name: taskQueues[kind],
    workers: workersOf([
      ['workflow', described.workflow],
      ['activity', described.activity],
    ]),
    backlog: { workflow: backlogOf(described.workflow), activity: backlogOf(described.activity) },
  };
}

/** One DescribeTaskQueue call, default mode with stats (the ENHANCED mode is deprecated), under its own deadline. */
function describe(
  client: Client,
  name: string,
  type: proto.temporal.api.enums.v1.TaskQueueType,
  timeoutMs: number,
): Promise<DescribeResponse> {
  return client.connection.withDeadline(Date.now() + timeoutMs, () =>
    client.workflowService.describeTaskQueue({
      namespace: client.options.namespace,
      taskQueue: { name },
      taskQueueType: type,
      reportStats: true,
    }),
  );
}

async function queueFacts(sources: LiveSources, kind: QueueKind): Promise<Part<QueueFacts>> {
  const { client, timeoutMs } = sources;
  try {
    const [workflow, activity] = await Promise.all([
      describe(client, taskQueues[kind], TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, timeoutMs),
      describe(client, taskQueues[kind], TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY, timeoutMs),
    ]);
    return found(queueFactsOf(kind, { workflow, activity }));
  } catch (error) {
    return unavailable(`task queue ${taskQueues[kind]} could not be described: ${messageOf(error)}`);
  }
}

/** Every queue's workers and backlog: the queues and their task kinds all at once, each call with the deadline. */
export async function queuesFacts(sources: LiveSources, now: () => Date): Promise<Part<QueuesFacts>> {
  const parts = await Promise.all(QUEUE_KINDS.map((kind) => queueFacts(sources, kind)));
  const queues: QueueFacts[] = [];
  for (const part of parts) {
    // One queue that cannot be described makes the part unavailable: a partial list would read as "no such queue".
    if (part.$case !== 'found') return unavailable(part.detail);
    queues.push(part.value);
  }
  return found({ describedAt: now().toISOString(), queues });
}
