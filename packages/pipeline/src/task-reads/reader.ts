// Where a process that is not the worker reads task records: the PostgreSQL server directly when DATABASE_URL names
// one (any number of processes share it), else the worker that holds the embedded PGlite database, through its read
// endpoint (task-reads/endpoint.ts). Neither path starts a workflow or touches the pipeline's task queue.
import { readFile } from 'node:fs/promises';
import { isAlive } from '@abp/grader/execution';
import { readCappedBody } from '@abp/grader/pull';
import { databaseTarget, openDatabase, type DatabaseHandle } from '../db/connection.js';
import { checkTaskQuery, describeTasks, TaskReadError, type TaskQuery, type TaskRecord } from './records.js';
import { TASK_READS_PATH, taskQueryParams, taskReadEndpointFile, type TaskReadEndpoint } from './endpoint.js';

export interface TaskReads {
  /** `worker`: through the embedded database's worker; `database`: straight from the PostgreSQL server. */
  readonly via: 'worker' | 'database';
  read(query: TaskQuery): Promise<TaskRecord[]>;
  close(): Promise<void>;
}

export interface TaskReadsOptions {
  /** The data directory (ABP_HOME): where the worker's endpoint file is, and PGlite. */
  home: string;
  /** Where DATABASE_URL is read from; `process.env` by default. */
  env?: Readonly<Record<string, string | undefined>>;
  /** How long one read may take. */
  timeoutMs?: number;
}

/** The most a worker's answer may hold: MAX_TASK_LIMIT records with room to spare, never a runaway answer. */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

export async function openTaskReads(options: TaskReadsOptions): Promise<TaskReads> {
  const target = databaseTarget({ dataDir: options.home, ...(options.env === undefined ? {} : { env: options.env }) });
  const timeoutMs = options.timeoutMs ?? 15_000;
  if (target.kind === 'postgres') {
    let database: DatabaseHandle;
    try {
      database = await openDatabase({ url: target.url });
    } catch (cause) {
      throw new TaskReadError('worker-unreachable', (cause as Error).message, { cause });
    }
    return {
      via: 'database',
      read: (query) => describeTasks(database.db, query),
      close: () => database.close(),
    };
  }
  return {
    via: 'worker',
    // Checked here too, so a malformed query is refused the same way before anything is asked.
    read: async (query) => readFromWorker(options.home, checkTaskQuery(query), timeoutMs),
    close: () => Promise.resolve(),
  };
}

async function endpointOf(home: string): Promise<TaskReadEndpoint> {
  const file = taskReadEndpointFile(home);
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (text === null)
    throw new TaskReadError(
      'worker-not-running',
      `no abp worker holds the embedded database in ${home} (${file} is absent): start it with \`abp dev up\` or \`abp worker\`, or set DATABASE_URL to read a PostgreSQL server`,
    );
  const parsed = JSON.parse(text) as Partial<TaskReadEndpoint>;
  if (typeof parsed.url !== 'string' || typeof parsed.token !== 'string' || typeof parsed.pid !== 'number')
    throw new TaskReadError(
      'worker-unreachable',
      `${file} is not a worker's read endpoint (url, token, pid): restart the worker, which rewrites it`,
    );
  return parsed as TaskReadEndpoint;
}

async function readFromWorker(home: string, query: TaskQuery, timeoutMs: number): Promise<TaskRecord[]> {
  const endpoint = await endpointOf(home);
  const url = `${endpoint.url}${TASK_READS_PATH}?${taskQueryParams(query).toString()}`;
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { authorization: `Bearer ${endpoint.token}` },
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (cause) {
    throw new TaskReadError(
      isAlive(endpoint.pid) ? 'worker-unreachable' : 'worker-not-running',
      isAlive(endpoint.pid)
        ? `the abp worker (pid ${endpoint.pid}) did not answer a task read at ${endpoint.url} within ${timeoutMs} ms: see its log (\`abp dev status\` names it)`
        : `the abp worker that held the embedded database in ${home} (pid ${endpoint.pid}) has stopped: start it with \`abp dev up\` or \`abp worker\``,
      { cause },
    );
  }
  const body = (
    await readCappedBody(
      response,
      MAX_ANSWER_BYTES,
      () =>
        new TaskReadError(
          'worker-unreachable',
          `the worker's answer exceeds ${MAX_ANSWER_BYTES} bytes: ask for fewer tasks (limit)`,
        ),
    )
  ).toString('utf8');
  if (response.status === 400) {
    const { error } = JSON.parse(body) as { error: string };
    throw new TaskReadError('invalid-task-query', error);
  }
  if (response.status !== 200)
    throw new TaskReadError(
      'worker-unreachable',
      `the abp worker (pid ${endpoint.pid}) answered a task read with ${response.status}: ${body.slice(0, 500)}`,
    );
  return JSON.parse(body) as TaskRecord[];
}
