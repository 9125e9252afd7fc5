// How other processes read the embedded database. PGlite is one process's database, and that process is the worker;
// reads used to reach it as Temporal workflows on the pipeline's own task queue, so every `abp task list` and every
// API request started two workflows. Now the worker answers reads itself, over HTTP on loopback, outside Temporal:
// `GET /tasks?<query>` with the bearer token it writes, with the address, to `<home>/run/task-reads.json` (mode 0600:
// only the data directory's owner can read tasks this way). On PostgreSQL nothing here runs: readers query the server.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Database } from '../db/connection.js';
import type { TaskState } from '../contracts/task-workflow.js';
import { describeTasks, TaskReadError, type TaskQuery } from './records.js';

export const TASK_READS_PATH = '/tasks';

/** What a reader needs to reach the worker. */
export interface TaskReadEndpoint {
  url: string;
  token: string;
  /** The worker's process, so a reader can tell a stopped worker's leftover file from a live one. */
  pid: number;
}

export function taskReadEndpointFile(home: string): string {
  return join(home, 'run', 'task-reads.json');
}

// A read is a few milliseconds; a client that takes longer to send its request is not one of ours.
const REQUEST_TIMEOUT_MS = 10_000;

/** The query in a request's search parameters, each field as TaskQuery spells it. */
export function taskQueryOf(params: URLSearchParams): TaskQuery {
  const query: TaskQuery = {};
  const taskId = params.get('taskId');
  const state = params.get('state');
  const scoredAsOf = params.get('scoredAsOf');
  const limit = params.get('limit');
  if (taskId !== null) query.taskId = taskId;
  if (state !== null) query.state = state as TaskState;
  if (scoredAsOf !== null) query.scoredAsOf = scoredAsOf;
  if (limit !== null) query.limit = /^\d{1,9}$/.test(limit) ? Number(limit) : Number.NaN;
  return query;
}

/** The search parameters that carry `query`. */
export function taskQueryParams(query: TaskQuery): URLSearchParams {
  const params = new URLSearchParams();
  if (query.taskId !== undefined) params.set('taskId', query.taskId);
  if (query.state !== undefined) params.set('state', query.state);
  if (query.scoredAsOf !== undefined) params.set('scoredAsOf', query.scoredAsOf);
  if (query.limit !== undefined) params.set('limit', String(query.limit));
  return params;
}

function answer(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
  });
  response.end(text);
}

function authorized(request: IncomingMessage, token: Buffer): boolean {
  const given = Buffer.from(/^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '');
  return given.length === token.length && timingSafeEqual(given, token);
}

export interface RunningTaskReads {
  endpoint: TaskReadEndpoint;
  /** Stops answering and removes the endpoint file, unless a newer worker has replaced it. */
  close(): Promise<void>;
}

/** Answers task reads from `db` until closed, and tells readers where in `<home>/run/task-reads.json`. */
export async function startTaskReadEndpoint(options: { db: Database; home: string }): Promise<RunningTaskReads> {
  const token = randomBytes(32).toString('hex');
  const tokenBytes = Buffer.from(token);
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://task-reads.invalid');
    if (!authorized(request, tokenBytes)) return answer(response, 401, { error: 'no or wrong bearer token' });
    if (request.method !== 'GET' || url.pathname !== TASK_READS_PATH)
      return answer(response, 404, { error: `only GET ${TASK_READS_PATH} is answered here` });
    describeTasks(options.db, taskQueryOf(url.searchParams)).then(
      (records) => answer(response, 200, records),
      (error: unknown) =>
        error instanceof TaskReadError
          ? answer(response, 400, { error: error.message, code: error.code })
          : answer(response, 500, { error: error instanceof Error ? error.message : String(error) }),
    );
  });
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.headersTimeout = REQUEST_TIMEOUT_MS;
  await new Promise<void>((listening, failed) => {
    server.once('error', failed);
    server.listen(0, '127.0.0.1', listening);
  });
  const { port } = server.address() as AddressInfo;
  const endpoint: TaskReadEndpoint = { url: `http://127.0.0.1:${port}`, token, pid: process.pid };
  const file = taskReadEndpointFile(options.home);
  try {
    await mkdir(join(options.home, 'run'), { recursive: true });
    const staged = `${file}.${process.pid}.tmp`;
    await writeFile(staged, `${JSON.stringify(endpoint)}\n`, { mode: 0o600 });
    await rename(staged, file);
  } catch (error) {
    server.close();
    throw error;
  }
  return {
    endpoint,
    async close() {
      await new Promise<void>((closed) => {
        server.close(() => closed());
        server.closeIdleConnections();
      });
      const current = await readFile(file, 'utf8').catch(() => null);
      if (current !== null && current.includes(endpoint.token)) await rm(file, { force: true });
    },
  };
}
