// The acceptance case of the freeze queue with real processes: one `abp worker --queues main`, which holds the signing
// key, and two `abp worker --queues freeze --max-concurrent 1`, each with a data directory of its own and no key, on
// one Postgres, one Temporal dev server and one run store. Six drawn tasks' fixes merge at once; every task is built
// to completion exactly once, by one of the freeze workers (both build some), and published exactly once, by the main
// worker, into the one bundle store and transparency log (one bundle, one signature, one `frozen` event, one log
// entry). Each freeze worker stands for a machine of its own: it runs in a mount namespace where the other workers'
// data directories are hidden under an empty tmpfs, so a freeze that reached for another machine's files fails here as
// it would there. Midway, freeze-b is SIGKILLed during a build and started again: its build completes elsewhere, once.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { temporal as proto } from '@temporalio/proto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskBundleSubjectNames } from '@abp/protocol/signing/statement';
import { migrate, openDatabase, selectRows, type DatabaseHandle } from '../../src/db/connection.js';
import { packageRoot } from '../../src/package-root.js';
import { signingPaths } from '../../src/signing/home.js';
import { taskQueues } from '../../src/workflows/shared.js';
import { startPostgresServer, type PostgresServer } from '../support/postgres-server.js';
import { startDevServer } from '../support/temporal.js';
import { BENCH_TOKEN, startBench, type Bench } from './harness.js';

// Four ecosystems; textkit and durafmt with two fixes each, whose merges land one after the other on one main.
// semver-lite's two fixes conflict with each other, so one of them; rangeset#3 breaks a test, so its merge is refused.
const DRAWN = [
  ['textkit', 3],
  ['textkit', 5],
  ['rangeset', 4],
  ['durafmt', 3],
  ['durafmt', 4],
  ['semver-lite', 4],
] as const;

const { EventType, PendingActivityState, TaskQueueType } = proto.api.enums.v1;

interface WorkerProcess {
  name: string;
  home: string;
  child: ChildProcess;
  /** What Temporal records as the worker's identity: the SDK's default, `<pid>@<host>`. */
  identity: string;
  log: string[];
  /** SIGKILLed on purpose: its exit fails nothing. */
  killed?: boolean;
}

let env: TestWorkflowEnvironment;
let postgres: PostgresServer;
let database: DatabaseHandle;
let bench: Bench;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  [env, postgres] = await Promise.all([startDevServer(), startPostgresServer()]);
  database = await openDatabase({ url: postgres.url });
  await migrate(database);
  bench = await startBench({ env, db: database.db, pollSeconds: 2 });
}, 120_000);

afterAll(async () => {
  await Promise.all(
    workers.map(async ({ child }) => {
      child.kill('SIGKILL');
      if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
    }),
  );
  await bench?.close();
  await database?.close();
  await Promise.all([env?.teardown(), postgres?.stop()]);
});

/** Another machine's data directory: empty, with no signing key, as a freeze machine is given none. */
async function machineHome(name: string): Promise<string> {
  const home = join(bench.root, name);
  await mkdir(home, { recursive: true });
  return home;
}

/** `abp worker <args>` with `home` as its data directory; `hidden` folders are empty tmpfs mounts in its view. */
function startWorker(name: string, home: string, args: string[], hidden: string[] = []): WorkerProcess {
  const abp = [process.execPath, join(packageRoot, 'bin', 'abp.js'), 'worker', ...args];
  // unshare and sh both exec, so the pid Temporal names the worker by is node's.
  const argv =
    hidden.length === 0
      ? abp
      : [
          'unshare',
          '--mount',
          '--propagation',
          'private',
          'sh',
          '-c',
          'for dir in $ABP_TEST_HIDDEN; do mount -t tmpfs another-machine "$dir" || exit 1; done; exec "$@"',
          'sh',
          ...abp,
        ];
  const child = spawn(argv[0] ?? '', argv.slice(1), {
    env: {
      ...process.env,
      ABP_HOME: home,
      TEMPORAL_ADDRESS: env.address,
      DATABASE_URL: postgres.url,
      GITHUB_API_URL: bench.sim.apiUrl,
      GITHUB_TOKEN: BENCH_TOKEN,
      // The suites of these repositories need only the host's toolchains; environments have suites of their own.
      ABP_FREEZE_IN: 'host',
      // The storage every machine mounts, through which built tasks go to the publisher.
      ABP_RUN_STORE: join(bench.root, 'shared-run-store'),
      ABP_TEST_HIDDEN: hidden.join(' '),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log: string[] = [];
  child.stdout?.on('data', (chunk: Buffer) => log.push(chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => log.push(chunk.toString()));
  const worker = { name, home, child, identity: `${child.pid ?? 0}@${hostname()}`, log };
  workers.push(worker);
  return worker;
}

function workerLogs(): string {
  return workers
    .map(({ name, identity, child, log }) => {
      const state = child.exitCode === null && child.signalCode === null ? 'running' : 'exited';
      return `--- ${name} (${identity}, ${state}) ---\n${log.join('').slice(-4_000)}`;
    })
    .join('\n');
}

async function pollers(queue: string, type: proto.api.enums.v1.TaskQueueType): Promise<string[]> {
  const described = await env.client.workflowService.describeTaskQueue({
    namespace: env.namespace ?? 'default',
    taskQueue: { name: queue },
    taskQueueType: type,
  });
  return (described.pollers ?? []).map((poller) => poller.identity ?? '');
}

async function until(condition: () => Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (workers.some(({ child, killed }) => killed !== true && (child.exitCode !== null || child.signalCode !== null)))
      throw new Error(`a worker exited while waiting for ${what}\n${workerLogs()}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${workerLogs()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * The state each task settles in (scored, rejected or withdrawn), in order; a task workflow that ends otherwise (a failed
 * freeze fails it) fails this at once. One loop, so nothing is left calling Temporal once it returns or throws.
 */
async function settled(taskIds: readonly string[], timeoutMs: number, at: () => string): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  const states = new Map<string, string>();
  while (states.size < taskIds.length) {
    for (const taskId of taskIds.filter((id) => !states.has(id))) {
      const status = await bench.status(taskId).catch(() => null);
      if (status !== null && ['scored', 'rejected', 'withdrawn'].includes(status.state)) {
        states.set(taskId, status.state);
        console.info(`${at()}: ${taskId} ${status.state}`);
        continue;
      }
      const handle = env.client.workflow.getHandle(taskId);
      const { status: run } = await handle.describe();
      if (run.name !== 'RUNNING') {
        const why = await handle.result().then(
          () => 'it completed',
          (error: unknown) => causes(error),
        );
        throw new Error(`the workflow of ${taskId} is ${run.name}: ${why}\n${workerLogs()}`);
      }
      if (Date.now() > deadline)
        throw new Error(
          `${taskId} is still ${status?.state ?? 'not answering'} after ${timeoutMs} ms\n${workerLogs()}`,
        );
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return taskIds.map((taskId) => states.get(taskId) ?? '');
}

/** An error's message and its causes', outermost first. */
function causes(error: unknown): string {
  const messages: string[] = [];
  for (let at: unknown = error; at instanceof Error; at = at.cause) messages.push(at.message);
  return messages.join(' ← ');
}

/**
 * The activities a workflow ran: name, the identity of the worker that started its last attempt, that attempt, and the
 * seconds from its start to its end.
 */
async function activityRuns(
  workflowId: string,
): Promise<Array<{ name: string; identity: string; attempt: number; seconds: number }>> {
  const events = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const names = new Map<string, string>();
  const ends = new Map<string, number>();
  const secondsOf = (event: (typeof events)[number]) =>
    Number(event.eventTime?.seconds ?? 0) + (event.eventTime?.nanos ?? 0) / 1e9;
  for (const event of events) {
    if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
      names.set(String(event.eventId), event.activityTaskScheduledEventAttributes?.activityType?.name ?? '');
    const ended = event.activityTaskCompletedEventAttributes ?? event.activityTaskFailedEventAttributes;
    if (ended) ends.set(String(ended.startedEventId), secondsOf(event));
  }
  return events
    .filter((event) => event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED)
    .map((event) => {
      const started = event.activityTaskStartedEventAttributes;
      return {
        name: names.get(String(started?.scheduledEventId)) ?? '',
        identity: started?.identity ?? '',
        attempt: started?.attempt ?? 0,
        seconds: (ends.get(String(event.eventId)) ?? secondsOf(event)) - secondsOf(event),
      };
    });
}

/** The builds running now: each freeze workflow's started `buildFrozenTask`, with the worker that holds it. */
async function buildsRunning(taskIds: readonly string[]): Promise<Array<{ taskId: string; identity: string }>> {
  const running: Array<{ taskId: string; identity: string }> = [];
  for (const taskId of taskIds) {
    const described = await env.client.workflow
      .getHandle(`${taskId}-freeze`)
      .describe()
      .catch(() => null);
    for (const pending of described?.raw.pendingActivities ?? [])
      if (
        pending.activityType?.name === 'buildFrozenTask' &&
        pending.state === PendingActivityState.PENDING_ACTIVITY_STATE_STARTED
      )
        running.push({ taskId, identity: pending.lastWorkerIdentity ?? '' });
  }
  return running;
}

/** The identities of the workers that ran a workflow's workflow tasks. */
async function workflowTaskIdentities(workflowId: string): Promise<string[]> {
  const events = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  return [
    ...new Set(
      events
        .filter((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED)
        .map((event) => event.workflowTaskStartedEventAttributes?.identity ?? ''),
    ),
  ];
}

/** The `<hex>.tar` archives in a data directory's bundle store, as digests. */
async function storedBundles(home: string): Promise<string[]> {
  const names = await readdir(join(signingPaths(home).bundles, 'sha256')).catch(() => [] as string[]);
  return names.filter((name) => name.endsWith('.tar')).map((name) => `sha256:${name.slice(0, -'.tar'.length)}`);
}

/** The subjects of the task-bundle entries in a data directory's transparency log. */
async function loggedBundles(home: string): Promise<string[]> {
  const text = await readFile(join(signingPaths(home).log, 'entries.jsonl'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { kind: string; subject: string })
    .filter((entry) => entry.kind === 'task-bundle')
    .map((entry) => entry.subject);
}

describe('the freeze queue served by two freeze workers', () => {
  it('a draw of many tasks freezes across two freeze workers with each task frozen once', async () => {
    const t0 = Date.now();
    const at = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;
    const [homeA, homeB] = await Promise.all([machineHome('freeze-a'), machineHome('freeze-b')]);
    const main = startWorker('main', bench.home, ['--queues', 'main']);
    const freezeA = startWorker(
      'freeze-a',
      homeA,
      ['--queues', 'freeze', '--max-concurrent', '1'],
      [homeB, bench.home],
    );
    const freezeB = startWorker(
      'freeze-b',
      homeB,
      ['--queues', 'freeze', '--max-concurrent', '1'],
      [homeA, bench.home],
    );
    // Both freeze workers poll before any freeze is scheduled, so neither finds the queue drained by the other.
    await until(
      async () => {
        const [workflow, freeze] = await Promise.all([
          pollers(taskQueues.main, TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW),
          pollers(taskQueues.freeze, TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY),
        ]);
        return workflow.includes(main.identity) && [freezeA, freezeB].every((w) => freeze.includes(w.identity));
      },
      'the main worker on abp-main and both freeze workers on abp-freeze',
      90_000,
    );
    console.info(`${at()}: workers polling`);

    const tasks = await Promise.all(DRAWN.map(([repo, issue]) => bench.startTask(repo, issue)));
    const pulls: Array<Awaited<ReturnType<Bench['openFix']>>> = [];
    for (const [repo, issue] of DRAWN) pulls.push(await bench.openFix(repo, issue));
    await Promise.all(tasks.map((taskId, index) => bench.submit(taskId, pulls[index]?.url ?? '')));
    await Promise.all(tasks.map((taskId) => bench.until(taskId, ['tracking'], 60_000)));
    console.info(`${at()}: ${tasks.length} tasks drawn and tracking`);
    for (const pull of pulls) {
      bench.world.setChecks(pull.repo, pull.number, 'SUCCESS');
      bench.world.mergePull(pull.repo, pull.number, pull.repo.owner);
    }
    // A freeze machine goes away mid-build and comes back: once freeze-b has built a task, it is SIGKILLed during its
    // next build, and started again on the same data directory. The build it held goes to another worker after the
    // heartbeat timeout; nothing of the killed attempt is published.
    // A build's scratch is named by its process: the killed build's is left behind until the worker started again
    // sweeps it.
    const scratchOf = async (pid: number | undefined) =>
      (await readdir(join(homeB, 'freeze-work')).catch(() => [] as string[])).filter(
        (name) => /^(?:freeze|gold)-(\d+)-/.exec(name)?.[1] === String(pid),
      );
    let killedTask = '';
    await until(
      async () => {
        const building = await buildsRunning(tasks);
        const done = (await Promise.all(tasks.map((taskId) => activityRuns(`${taskId}-freeze`).catch(() => []))))
          .flat()
          .filter((run) => run.name === 'buildFrozenTask' && run.identity === freezeB.identity);
        killedTask = building.find((running) => running.identity === freezeB.identity)?.taskId ?? '';
        return done.length >= 1 && killedTask !== '' && (await scratchOf(freezeB.child.pid)).length > 0;
      },
      'freeze-b building its second task',
      300_000,
    );
    freezeB.killed = true;
    freezeB.child.kill('SIGKILL');
    await once(freezeB.child, 'exit');
    console.info(`${at()}: freeze-b killed while building ${killedTask}`);
    expect(await scratchOf(freezeB.child.pid)).not.toEqual([]);
    const freezeB2 = startWorker(
      'freeze-b again',
      homeB,
      ['--queues', 'freeze', '--max-concurrent', '1'],
      [homeA, bench.home],
    );

    // The two Go freezes dominate: about two minutes each on this 2-core machine at a load average of 7.
    const states = await settled(tasks, 480_000, at);
    console.info(`${at()}: all settled`);
    expect(states, workerLogs()).toEqual(tasks.map(() => 'scored'));

    // In the database: one bundle, one signature and one `frozen` event per task, and the usual four events.
    for (const taskId of tasks) {
      const events = await selectRows<{ seq: number; cause: string; to_state: string }>(
        database.db,
        sql`select seq, cause, to_state from task_events where task_id = ${taskId} order by seq`,
      );
      expect(events.map((event) => `${event.seq}:${event.cause}→${event.to_state}`)).toEqual([
        '1:drawn→drawn',
        '2:fix-submitted→tracking',
        '3:pr-merged→freezing',
        '4:frozen→scored',
      ]);
    }
    const records = await selectRows<{
      id: string;
      bundle_digest: string | null;
      bundles: number;
      signatures: number;
      frozen_events: number;
      bundle_path: string | null;
    }>(
      database.db,
      sql`select t.id, t.bundle_digest,
                 (select count(*)::int from bundles b where b.task_id = t.id) as bundles,
                 (select count(*)::int from signatures s join bundles b on b.digest = s.bundle_digest
                   where b.task_id = t.id) as signatures,
                 (select count(*)::int from task_events e where e.task_id = t.id and e.cause = 'frozen') as frozen_events,
                 (select b.path from bundles b where b.digest = t.bundle_digest) as bundle_path
            from tasks t order by t.id`,
    );
    expect(
      records.map(({ id, bundles, signatures, frozen_events }) => ({ id, bundles, signatures, frozen_events })),
    ).toEqual([...tasks].sort().map((id) => ({ id, bundles: 1, signatures: 1, frozen_events: 1 })));

    // In Temporal: each freeze ran each of its four activities once, at the first attempt: gathering and building on a
    // freeze worker, staging the trace and publishing on the main worker; every workflow task ran on the main worker.
    const freezers = [freezeA, freezeB, freezeB2];
    const builtBy = new Map<string, WorkerProcess>();
    for (const taskId of tasks) {
      const runs = await activityRuns(`${taskId}-freeze`);
      // The killed build's second attempt is the one that completed, on a worker that was alive.
      expect(runs.map((run) => `${run.name}#${run.attempt}`)).toEqual([
        'prepareFreeze#1',
        'stageGoldenTrace#1',
        `buildFrozenTask#${taskId === killedTask ? 2 : 1}`,
        'publishFrozenTask#1',
      ]);
      for (const run of runs)
        if (run.name === 'prepareFreeze' || run.name === 'buildFrozenTask')
          expect(freezers.map((worker) => worker.identity)).toContain(run.identity);
        else expect(run.identity).toBe(main.identity);
      const build = runs.find((run) => run.name === 'buildFrozenTask');
      if (taskId === killedTask) expect(build?.identity).not.toBe(freezeB.identity);
      const builder = freezers.find((worker) => worker.identity === build?.identity);
      if (builder !== undefined) builtBy.set(taskId, builder);
      console.info(
        `${taskId}: ${runs.map((run) => `${run.name} ${run.seconds.toFixed(1)} s on ${[main, ...freezers].find((worker) => worker.identity === run.identity)?.name ?? run.identity}`).join(', ')}`,
      );
      for (const workflowId of [taskId, `${taskId}-freeze`])
        expect(await workflowTaskIdentities(workflowId)).toEqual([main.identity]);
      // The task workflow's own activities (records, pull reads) are the main queue's.
      for (const run of await activityRuns(taskId)) expect(run.identity).toBe(main.identity);
    }
    const counts = freezers.map((worker) => [...builtBy.values()].filter((by) => by === worker).length);
    console.info(`${at()}: builds by worker: a ${counts[0]}, b ${counts[1]}, b again ${counts[2]}`);
    // Both machines built: freeze-a, and freeze-b before it was killed (the kill waited for its first build).
    expect(counts[0], `builds by worker: ${counts.join(', ')}`).toBeGreaterThanOrEqual(1);
    expect(counts[1], `builds by worker: ${counts.join(', ')}`).toBeGreaterThanOrEqual(1);

    // On the machines: every bundle is stored and logged once, in the main worker's data directory, the registry's one
    // store and log; the freeze machines hold no key, no bundle and no log.
    for (const record of records)
      expect(record.bundle_path?.startsWith(`${main.home}/`), `${record.id}: ${record.bundle_path}`).toBe(true);
    const digests = records.map((record) => record.bundle_digest ?? '');
    expect((await storedBundles(main.home)).sort()).toEqual([...digests].sort());
    expect((await loggedBundles(main.home)).sort()).toEqual(
      tasks.map((taskId) => taskBundleSubjectNames(taskId).bundle).sort(),
    );
    expect(await scratchOf(freezeB.child.pid)).toEqual([]);
    for (const worker of freezers) {
      expect(await storedBundles(worker.home)).toEqual([]);
      expect(await loggedBundles(worker.home)).toEqual([]);
      expect(await readdir(signingPaths(worker.home).keyDir).catch(() => [])).toEqual([]);
    }
  }, 840_000);
});
