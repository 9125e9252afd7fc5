// Where the read-only API learns about the pipeline's tasks. The worker owns the database (PGlite allows one process),
// so `abp serve` asks it through Temporal: the `describeTasks` workflow around one read-only activity, as `abp task
// list` does. The API depends only on the one-method-per-question interface below. Tasks frozen by hand are not here:
// the API reads their published records (freeze/published-tasks.ts) without the worker.
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { TaskRecord } from '../activities/tasks.js';
import type { TaskState } from '../contracts/task-workflow.js';
import type { describeTasks } from '../workflows/describe-tasks.js';
import { taskQueues } from '../workflows/shared.js';
import { ServeError } from './errors.js';

/** What the API says about a task; the database's record holds more (events, pull request), which is not published. */
export type TaskEntry = Pick<
  TaskRecord,
  | 'taskId'
  | 'registryVersion'
  | 'drawSeed'
  | 'repo'
  | 'issue'
  | 'state'
  | 'bundleDigest'
  | 'createdAt'
  | 'mergedAt'
  | 'scoredUntil'
>;

export interface TaskSource {
  /** Tasks in `state`, oldest first, at most `limit`. */
  list(query: { state: TaskState; limit: number }): Promise<TaskEntry[]>;
  /** The task with this id, whatever its state; null when there is none. */
  get(taskId: string): Promise<TaskEntry | null>;
}

export interface TemporalTaskSourceOptions {
  client: Client;
  /** Where the worker that owns the database polls; the main queue by default. */
  taskQueue?: string;
  /** How long one read may take before the API answers 503: a stopped worker must not hold requests open. */
  timeoutMs?: number;
}

function entryOf(record: TaskRecord): TaskEntry {
  const { taskId, registryVersion, drawSeed, repo, issue, state, bundleDigest, createdAt, mergedAt, scoredUntil } =
    record;
  return { taskId, registryVersion, drawSeed, repo, issue, state, bundleDigest, createdAt, mergedAt, scoredUntil };
}

export function createTemporalTaskSource(options: TemporalTaskSourceOptions): TaskSource {
  const { client } = options;
  const taskQueue = options.taskQueue ?? taskQueues.main;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const read = async (query: { taskId?: string; state?: TaskState; limit?: number }): Promise<TaskEntry[]> => {
    try {
      const records = await client.workflow.execute<typeof describeTasks>('describeTasks', {
        taskQueue,
        workflowId: `describe-tasks-${randomUUID()}`,
        args: [query],
        workflowExecutionTimeout: timeoutMs,
      });
      return records.map(entryOf);
    } catch (error) {
      throw new ServeError(
        'unreachable',
        `the abp worker did not answer a task read within ${timeoutMs} ms on task queue ${taskQueue}: start it (\`abp dev up\` or \`abp worker\`)`,
        { cause: error },
      );
    }
  };
  return {
    list: (query) => read(query),
    async get(taskId) {
      const [entry] = await read({ taskId, limit: 1 });
      return entry ?? null;
    },
  };
}
