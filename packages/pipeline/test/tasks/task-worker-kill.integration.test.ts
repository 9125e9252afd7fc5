// The task lifecycle survives its worker: real `abp worker` processes are SIGKILLed right after tasks start, right after
// their fixes are submitted, and in the middle of a freeze; each time a new worker takes over. Every task still reaches
// the scored set with exactly one event per transition and one bundle and signature, and none is lost or duplicated.
// Postgres (not PGlite), so the test reads the database while a worker process holds it.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase, selectRows, type DatabaseHandle } from '../../src/db/connection.js';
import { packageRoot } from '../../src/package-root.js';
import { startPostgresServer, type PostgresServer } from '../support/postgres-server.js';
import { startDevServer } from '../support/temporal.js';
import { BENCH_TOKEN, startBench, type Bench } from './harness.js';

let env: TestWorkflowEnvironment;
let postgres: PostgresServer;
let database: DatabaseHandle;
let bench: Bench;
const workers: ChildProcess[] = [];

beforeAll(async () => {
  [env, postgres] = await Promise.all([startDevServer(), startPostgresServer()]);
  database = await openDatabase({ url: postgres.url });
  await migrate(database);
  bench = await startBench({ env, db: database.db, pollSeconds: 2 });
}, 120_000);

afterAll(async () => {
  for (const worker of workers) worker.kill('SIGKILL');
  await bench?.close();
  await database?.close();
  await Promise.all([env?.teardown(), postgres?.stop()]);
});

function startWorker(): ChildProcess {
  const worker = spawn(process.execPath, [`${packageRoot}/bin/abp.js`, 'worker'], {
    env: {
      ...process.env,
      ABP_HOME: bench.home,
      TEMPORAL_ADDRESS: env.address,
      DATABASE_URL: postgres.url,
      GITHUB_API_URL: bench.sim.apiUrl,
      GITHUB_TOKEN: BENCH_TOKEN,
      // As the in-process bench worker does: these tasks' repositories need only the host's toolchains, and what is
      // under test is the lifecycle across kills (environments have suites of their own).
      ABP_FREEZE_IN: 'host',
    },
    stdio: 'ignore',
  });
  workers.push(worker);
  return worker;
}

async function kill(worker: ChildProcess): Promise<void> {
  worker.kill('SIGKILL');
  if (worker.exitCode === null && worker.signalCode === null) await once(worker, 'exit');
}

async function rows<T>(query: ReturnType<typeof sql>): Promise<T[]> {
  return selectRows<T>(database.db, query);
}

describe('tasks whose worker is SIGKILLed', () => {
  it('lose no task and no event, and duplicate nothing', async () => {
    const t0 = Date.now();
    const at = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;
    let worker = startWorker();
    const started = [bench.startTask('textkit', 3), bench.startTask('rangeset', 4), bench.startTask('textkit', 5)];
    // Killed while the first workflow tasks are being taken.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await kill(worker);
    worker = startWorker();
    const tasks = await Promise.all(started);
    console.info(`${at()}: drawn after a kill: ${tasks.join(', ')}`);

    const pulls = [
      await bench.openFix('textkit', 3),
      await bench.openFix('rangeset', 4),
      await bench.openFix('textkit', 5),
    ];
    await Promise.all(tasks.map((taskId, index) => bench.submit(taskId, pulls[index]?.url ?? '')));
    // Killed with the submissions in flight: signals wait in Temporal for the next worker.
    await kill(worker);
    worker = startWorker();
    await Promise.all(tasks.map((taskId) => bench.until(taskId, ['tracking'], 60_000)));
    console.info(`${at()}: tracking after a kill`);

    for (const pull of pulls) {
      bench.world.setChecks(pull.repo, pull.number, 'SUCCESS');
      bench.world.mergePull(pull.repo, pull.number, pull.repo.owner);
    }
    // Killed in the middle of a freeze: its activity is retried by the next worker.
    await bench.until(tasks[0] ?? '', ['freezing'], 60_000);
    await kill(worker);
    worker = startWorker();
    console.info(`${at()}: killed mid-freeze`);

    for (const taskId of tasks)
      expect((await bench.until(taskId, ['scored', 'rejected', 'withdrawn'], 180_000)).state).toBe('scored');
    for (const taskId of tasks) {
      const events = await rows<{ seq: number; cause: string; to_state: string }>(
        sql`select seq, cause, to_state from task_events where task_id = ${taskId} order by seq`,
      );
      expect(events.map((event) => `${event.seq}:${event.cause}→${event.to_state}`)).toEqual([
        '1:drawn→drawn',
        '2:fix-submitted→tracking',
        '3:pr-merged→freezing',
        '4:frozen→scored',
      ]);
    }
    console.info(`${at()}: all scored`);
    const [counts] = await rows<{ tasks: number; bundles: number; signatures: number; scored: number }>(
      sql`select (select count(*)::int from tasks) as tasks, (select count(*)::int from bundles) as bundles,
                 (select count(*)::int from signatures) as signatures, (select count(*)::int from tasks where state = 'scored' and bundle_digest is not null) as scored`,
    );
    expect(counts).toEqual({ tasks: 3, bundles: 3, signatures: 3, scored: 3 });
    await kill(worker);
  }, 400_000);
});
