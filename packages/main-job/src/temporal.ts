// The main job's reads and starts on Temporal: a state-changing workflow started or joined (one rotation or draw at a
// time, as `abp registry rotate` and `abp draw` do), and what a running workflow is doing now, for the progress line.
// Task records are read through the read path (@abp/pipeline/task-reads/reader), never through Temporal.
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import proto from '@temporalio/proto';

/** Reports each retry of a workflow's activity once, with the reason the attempt before it failed. */
export function retryReporter(note: (message: string) => void): (retrying: readonly PendingActivity[]) => void {
  const seen = new Set<string>();
  return (retrying) => {
    for (const activity of retrying) {
      const key = `${activity.type}#${activity.attempt}`;
      if (seen.has(key)) continue;
      seen.add(key);
      note(
        `${activity.type} is on attempt ${activity.attempt}: the last one failed with ${activity.lastFailure ?? 'no message'} (the worker retries with backoff)`,
      );
    }
  };
}

/** Starts the workflow, or waits on the run of it that is going on already (same id). Failures say the innermost cause. */
export async function startOrJoin<R>(
  client: Client,
  workflowId: string,
  start: () => Promise<WorkflowHandle>,
  watch?: (handle: WorkflowHandle) => Promise<void>,
): Promise<R> {
  let handle: WorkflowHandle;
  try {
    handle = await start();
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    handle = client.workflow.getHandle(workflowId);
  }
  let watching = true;
  const watcher =
    watch === undefined
      ? Promise.resolve()
      : (async () => {
          while (watching) {
            await watch(handle).catch(() => undefined);
            await new Promise((resolve) => setTimeout(resolve, 500));
          }
        })();
  try {
    return (await handle.result()) as R;
  } catch (error) {
    if (!(error instanceof WorkflowFailedError)) throw error;
    // The workflow's own failure says little; the activity's (innermost) says what to do.
    let cause: unknown = error;
    while (cause instanceof Error && cause.cause instanceof Error) cause = cause.cause;
    throw new Error(`workflow ${workflowId} failed: ${(cause as Error).message}`, { cause: error });
  } finally {
    watching = false;
    await watcher;
  }
}

const { EventType } = proto.temporal.api.enums.v1;

export interface PendingActivity {
  type: string;
  attempt: number;
  /** Why the previous attempt failed, when this is a retry: what a stuck step is stuck on. */
  lastFailure: string | null;
}

/** How many activities of each type a workflow has completed, and which are in flight now: a long step's progress. */
export async function activityProgress(
  handle: WorkflowHandle,
): Promise<{ completed: Map<string, number>; pending: string[]; retrying: PendingActivity[] }> {
  const [history, description] = await Promise.all([handle.fetchHistory(), handle.describe()]);
  const typeOf = new Map<string, string>();
  const completed = new Map<string, number>();
  for (const event of history.events ?? []) {
    const id = String(event.eventId ?? '');
    if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
      typeOf.set(id, event.activityTaskScheduledEventAttributes?.activityType?.name ?? '');
    } else if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED) {
      const type = typeOf.get(String(event.activityTaskCompletedEventAttributes?.scheduledEventId ?? '')) ?? '';
      completed.set(type, (completed.get(type) ?? 0) + 1);
    }
  }
  const activities = description.raw.pendingActivities ?? [];
  const pending = activities.map((activity) => activity.activityType?.name ?? '').filter((name) => name !== '');
  const retrying = activities
    .filter((activity) => (activity.attempt ?? 1) > 1)
    .map((activity) => ({
      type: activity.activityType?.name ?? '',
      attempt: activity.attempt ?? 1,
      lastFailure: activity.lastFailure?.message ?? null,
    }));
  return { completed, pending, retrying };
}
