// The read path every reader takes (task-reads/): on PGlite through the endpoint a worker runs, on PostgreSQL straight
// from the server; both answer every query exactly as the query run on the database itself, neither starts a workflow
// (there is no Temporal here at all), and each failure has its own code and a message that says what to do.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase, type Database, type DatabaseHandle } from '../../src/db/connection.js';
import { taskEvents } from '../../src/db/schema/index.js';
import {
  startTaskReadEndpoint,
  TASK_READS_PATH,
  taskReadEndpointFile,
  type RunningTaskReads,
} from '../../src/task-reads/endpoint.js';
import { openTaskReads, type TaskReads } from '../../src/task-reads/reader.js';
import { describeTasks, TaskReadError, type TaskQuery } from '../../src/task-reads/records.js';
import { insertDrawnTask, taskEventRow } from '../support/database.js';
import { startPostgresServer, type PostgresServer } from '../support/postgres-server.js';

const QUERIES: TaskQuery[] = [
  {},
  { state: 'drawn' },
  { state: 'withdrawn' },
  { limit: 2 },
  { taskId: 'gh-acme-reads-3' },
  { taskId: 'gh-nobody-nothing-1' },
  { scoredAsOf: '2026-08-01T00:00:00Z' },
];

/** Five tasks in four states, one with the events of a task that was scored and then withdrawn. */
async function seed(db: Database): Promise<void> {
  for (const [n, state] of [
    [1, 'drawn'],
    [2, 'drawn'],
    [3, 'withdrawn'],
    [4, 'tracking'],
    [5, 'rejected'],
  ] as const) {
    await insertDrawnTask(db, {
      task: {
        id: `gh-acme-reads-${n}`,
        state,
        createdAt: new Date(Date.UTC(2026, 6, n)),
        ...(state === 'tracking' ? { prUrl: 'https://github.com/acme/reads/pull/4' } : {}),
        // Scored once and withdrawn since: in the scored set as of a date inside its window, whatever its state now.
        ...(n === 3 ? { scoredUntil: new Date('2027-01-05T00:00:00Z') } : {}),
      },
    });
  }
  await db.insert(taskEvents).values([
    taskEventRow({ taskId: 'gh-acme-reads-3', at: new Date('2026-07-03T00:00:00Z') }),
    taskEventRow({
      taskId: 'gh-acme-reads-3',
      seq: 2,
      fromState: 'freezing',
      toState: 'scored',
      cause: 'frozen',
      detail: { bundle: 'sha256:1' },
      at: new Date('2026-07-10T00:00:00Z'),
    }),
  ]);
}

async function expectCode(promise: Promise<unknown>, code: string): Promise<string> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TaskReadError);
  expect((error as TaskReadError).code).toBe(code);
  return (error as TaskReadError).message;
}

describe('task reads on PGlite, through the worker that holds the database', () => {
  let root: string;
  let home: string;
  let database: DatabaseHandle;
  let endpoint: RunningTaskReads;
  let reads: TaskReads;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'abp-task-reads-'));
    home = join(root, 'home');
    database = await openDatabase({ dataDir: home, env: {} });
    await migrate(database);
    await seed(database.db);
    endpoint = await startTaskReadEndpoint({ db: database.db, home });
    reads = await openTaskReads({ home, env: {} });
  });
  afterAll(async () => {
    await endpoint?.close();
    await database?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('answers every query as the database does, events for one task included', async () => {
    expect(reads.via).toBe('worker');
    for (const query of QUERIES) expect(await reads.read(query)).toEqual(await describeTasks(database.db, query));
    const [scored] = await reads.read({ taskId: 'gh-acme-reads-3' });
    expect(scored?.events.map((event) => event.cause)).toEqual(['drawn', 'frozen']);
    expect(scored?.scoredAt).toBe('2026-07-10T00:00:00.000Z');
    // Every listing carries each task's latest event, as an instant in the records' own spelling.
    const listed = await reads.read({});
    expect(listed.find((task) => task.taskId === 'gh-acme-reads-3')?.lastEvent).toEqual({
      seq: 2,
      at: '2026-07-10T00:00:00.000Z',
      from: 'freezing',
      to: 'scored',
      cause: 'frozen',
      detail: { bundle: 'sha256:1' },
    });
    expect(listed.find((task) => task.taskId === 'gh-acme-reads-1')?.lastEvent).toBeNull();
    expect((await reads.read({ state: 'drawn' })).map((task) => task.taskId)).toEqual([
      'gh-acme-reads-1',
      'gh-acme-reads-2',
    ]);
  });

  it("keeps the endpoint's token to the data directory's owner and answers no one without it", async () => {
    const file = taskReadEndpointFile(home);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const { url, token, pid } = JSON.parse(await readFile(file, 'utf8')) as { url: string; token: string; pid: number };
    expect(pid).toBe(process.pid);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    for (const authorization of [undefined, 'Bearer wrong', `Basic ${token}`]) {
      const answer = await fetch(`${url}${TASK_READS_PATH}`, {
        headers: authorization === undefined ? {} : { authorization },
      });
      expect(answer.status).toBe(401);
    }
    const other = await fetch(`${url}/other`, { headers: { authorization: `Bearer ${token}` } });
    expect(other.status).toBe(404);
  });

  it('refuses a malformed query with invalid-task-query, naming the field', async () => {
    expect(await expectCode(reads.read({ state: 'lost' as never }), 'invalid-task-query')).toContain('state "lost"');
    expect(await expectCode(reads.read({ limit: 0 }), 'invalid-task-query')).toContain('limit 0 is out of range');
    expect(await expectCode(reads.read({ scoredAsOf: 'soon' }), 'invalid-task-query')).toContain('scoredAsOf');
    expect(await expectCode(reads.read({ taskId: '../x' }), 'invalid-task-query')).toContain('not a task id');
  });

  it('says worker-not-running when no worker holds the database, or the one named has stopped', async () => {
    const elsewhere = join(root, 'elsewhere');
    const message = await expectCode(
      (await openTaskReads({ home: elsewhere, env: {} })).read({}),
      'worker-not-running',
    );
    expect(message).toContain(`no abp worker holds the embedded database in ${elsewhere}`);
    expect(message).toContain('`abp dev up` or `abp worker`');

    // A worker killed without closing leaves its file behind: a process that has exited, on a port nobody serves.
    const dead = spawn(process.execPath, ['-e', '0']);
    const deadPid = await new Promise<number>((exited) => dead.once('exit', () => exited(dead.pid ?? 0)));
    const leftover = join(root, 'leftover');
    await rm(leftover, { recursive: true, force: true });
    const leftoverReads = await startTaskReadEndpoint({ db: database.db, home: leftover });
    const { url, token } = leftoverReads.endpoint;
    await leftoverReads.close();
    await writeFile(taskReadEndpointFile(leftover), JSON.stringify({ url, token, pid: deadPid }));
    expect(
      await expectCode((await openTaskReads({ home: leftover, env: {} })).read({}), 'worker-not-running'),
    ).toContain(`(pid ${deadPid}) has stopped`);
  });

  it('removes its endpoint file when it closes, and leaves a newer worker’s file alone', async () => {
    const other = join(root, 'closing');
    const first = await startTaskReadEndpoint({ db: database.db, home: other });
    const second = await startTaskReadEndpoint({ db: database.db, home: other });
    await first.close();
    expect(JSON.parse(await readFile(taskReadEndpointFile(other), 'utf8'))).toMatchObject({
      token: second.endpoint.token,
    });
    await second.close();
    await expect(stat(taskReadEndpointFile(other))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('task reads on PostgreSQL, straight from the server', () => {
  let server: PostgresServer;
  let database: DatabaseHandle;
  let reads: TaskReads;

  beforeAll(async () => {
    server = await startPostgresServer();
    database = await openDatabase({ url: server.url });
    await migrate(database);
    await seed(database.db);
    // No worker and no endpoint file: a reader of a server database needs neither.
    reads = await openTaskReads({ home: join(tmpdir(), 'abp-no-such-home'), env: { DATABASE_URL: server.url } });
  });
  afterAll(async () => {
    await reads?.close();
    await database?.close();
    await server?.stop();
  });

  it('answers every query as the database does', async () => {
    expect(reads.via).toBe('database');
    for (const query of QUERIES) expect(await reads.read(query)).toEqual(await describeTasks(database.db, query));
  });

  it('refuses a malformed query with invalid-task-query', async () => {
    expect(await expectCode(reads.read({ limit: 10_001 }), 'invalid-task-query')).toContain('from 1 to 10000');
  });
});
