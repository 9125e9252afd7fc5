// Where the read-only API learns about the pipeline's tasks: the read path every reader uses (task-reads/reader.ts),
// never a workflow. The API depends only on the one-method-per-question interface below. Tasks frozen by hand are not
// here: the API reads their published records (freeze/published-tasks.ts) without the worker.
import type { TaskState } from '../contracts/task-workflow.js';
import type { TaskReads } from '../task-reads/reader.js';
import { TaskReadError, type TaskQuery, type TaskRecord } from '../task-reads/records.js';
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

function entryOf(record: TaskRecord): TaskEntry {
  const { taskId, registryVersion, drawSeed, repo, issue, state, bundleDigest, createdAt, mergedAt, scoredUntil } =
    record;
  return { taskId, registryVersion, drawSeed, repo, issue, state, bundleDigest, createdAt, mergedAt, scoredUntil };
}

/** The pipeline's tasks as the API reads them: from `reads`, a worker that does not answer being `unreachable`. */
export function createTaskSource(reads: TaskReads): TaskSource {
  const read = async (query: TaskQuery): Promise<TaskEntry[]> => {
    try {
      return (await reads.read(query)).map(entryOf);
    } catch (error) {
      if (error instanceof TaskReadError && error.code !== 'invalid-task-query')
        throw new ServeError('unreachable', error.message, { cause: error });
      throw error;
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
