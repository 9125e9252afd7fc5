// One worker carrying thousands of tracked tasks (issue 7): 2,000 task workflows, each tracking an open pull request in
// the simulator's live world, on one `abp worker` process (Postgres; GitHub pacing off for the simulator). Reports the
// worker process's peak memory (VmHWM), the GraphQL cost of one polling round over every tracked
// pull request and what that is per hour at the production interval (targets: < 1 GiB, < 100 points an hour), and the
// time from a maintainer's merge to the task's new state, by webhook and by polling with webhooks dropped.
//   node bin/run-ts.js bench/tasks-scale.ts [tasks]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { createTrackingActivities } from '@abp/pipeline/activities/tracking';
import { SOLVER_LOGIN } from '@abp/github-sim/world/live/world';
import { DEFAULT_POLL_SECONDS } from '@abp/pipeline/worker/pull-poller';
import { PULL_POLLER_ID, pollPullRequests } from '@abp/pipeline/workflows/pr-poller';
import { taskQueues } from '@abp/pipeline/workflows/shared';
import { migrate, openDatabase, selectRows } from '@abp/pipeline/db/connection';
import { packageRoot } from '@abp/pipeline/package-root';
import { startPostgresServer } from '../packages/pipeline/test/support/postgres-server.js';
import { startDevServer } from '../packages/pipeline/test/support/temporal.js';
import { BENCH_TOKEN, startBench, type Bench } from '../packages/pipeline/test/tasks/harness.js';
import { git, gitIdentityEnvironment } from '@abp/grader/execution';

const TASKS = Number(process.argv[2] ?? 2_000);
const MEMORY_TARGET = 1024 ** 3;
const POINTS_PER_HOUR_TARGET = 100;

/** Peak and current resident memory of a process, from the kernel's accounting. */
function memoryOf(pid: number): { peak: number; now: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { peak: kib('VmHWM'), now: kib('VmRSS') };
}
const mib = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(0)} MiB`;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

/** Branches `bench-1…n` in the solver's fork of textkit, each one commit ahead of main, and a pull request from each. */
async function openPulls(bench: Bench, n: number): Promise<string[]> {
  const repo = bench.world.repoByName('mira-quill', 'textkit');
  const fork = bench.world.repoByName(SOLVER_LOGIN, 'textkit');
  if (repo === undefined || fork === undefined) throw new Error('the live world has no textkit');
  const forkPath = bench.world.gitPathOf(fork);
  const work = await mkdtemp(join(tmpdir(), 'abp-bench-fork-'));
  try {
    const env = gitIdentityEnvironment({ identity: { name: 'bench', email: 'bench@example.org' }, at: 1_767_225_600 });
    await git(['clone', '--quiet', forkPath, work], { cwd: tmpdir() });
    await appendFile(join(work, 'README.md'), 'A benchmark note.\n');
    await git(['add', 'README.md'], { cwd: work });
    await git(['commit', '--quiet', '-m', 'A note'], { cwd: work, env });
    const oid = (await git(['rev-parse', 'HEAD'], { cwd: work })).stdout.toString('utf8').trim();
    await git(['push', '--quiet', 'origin', `${oid}:refs/heads/bench-base`], { cwd: work });
    const refs = Array.from({ length: n }, (_, index) => `create refs/heads/bench-${index + 1} ${oid}\n`).join('');
    await git(['-C', forkPath, 'update-ref', '--stdin'], { cwd: forkPath, input: refs });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  const urls: string[] = [];
  for (let index = 1; index <= n; index++) {
    const pull = bench.world.openPull(repo, {
      title: `Benchmark fix ${index}`,
      body: `Fixes #${10_000 + index - 1}\n\nA change under benchmark.`,
      head: `${SOLVER_LOGIN}:bench-${index}`,
      base: 'main',
      authorLogin: SOLVER_LOGIN,
    });
    urls.push(`${bench.sim.gitUrl}/${repo.owner}/${repo.name}/pull/${pull.number}`);
  }
  return urls;
}

async function pool<T>(
  items: readonly T[],
  width: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const index = next++;
        await work(items[index] as T, index);
      }
    }),
  );
}

async function main(): Promise<void> {
  const [env, postgres] = await Promise.all([startDevServer(), startPostgresServer()]);
  const database = await openDatabase({ url: postgres.url });
  await migrate(database);
  const bench = await startBench({ env, db: database.db, pollSeconds: DEFAULT_POLL_SECONDS, unthrottled: true });
  const worker = spawn(process.execPath, [join(packageRoot, 'bin', 'abp.js'), 'worker'], {
    env: {
      ...process.env,
      ABP_HOME: bench.home,
      TEMPORAL_ADDRESS: env.address,
      DATABASE_URL: postgres.url,
      GITHUB_API_URL: bench.sim.apiUrl,
      GITHUB_TOKEN: BENCH_TOKEN,
      ABP_GITHUB_PACING: 'off',
    },
    stdio: 'ignore',
  });
  try {
    await new Promise((resolve) => setTimeout(resolve, 8_000));
    const baseline = memoryOf(worker.pid ?? 0).now;
    let started = performance.now();
    const urls = await openPulls(bench, TASKS);
    console.log(
      `${TASKS} pull requests opened in the simulator in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );

    started = performance.now();
    const taskIds: string[] = [];
    await pool(urls, 25, async (url, index) => {
      const taskId = await bench.startTask('textkit', 10_000 + index);
      taskIds[index] = taskId;
      await bench.submit(taskId, url);
    });
    const tracking = async () =>
      (
        await selectRows<{ n: number }>(database.db, sql`select count(*)::int as n from tasks where state = 'tracking'`)
      )[0]?.n ?? 0;
    while ((await tracking()) < TASKS) await new Promise((resolve) => setTimeout(resolve, 500));
    console.log(`${TASKS} tasks drawn and tracking in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const steadyRss = memoryOf(worker.pid ?? 0).now;

    // One polling round over every tracked pull request, as the poller's activity runs it.
    const tracker = createTrackingActivities({ db: database.db, github: bench.github, temporal: env.client });
    started = performance.now();
    const round = await tracker.pollTrackedPulls();
    const roundMs = performance.now() - started;
    const perHour = round.cost.points * (3_600 / DEFAULT_POLL_SECONDS);
    console.log(
      `poll round: ${round.tracked} pull requests, ${round.cost.requests} requests, ${round.cost.points} points, ${(roundMs / 1000).toFixed(1)} s; ${perHour} points an hour at one round every ${DEFAULT_POLL_SECONDS / 60} min (target < ${POINTS_PER_HOUR_TARGET})`,
    );

    // Merge → new state: five by webhook, five by polling (webhooks dropped, one round every 5 s).
    const repo = bench.world.repoByName('mira-quill', 'textkit');
    if (repo === undefined) throw new Error('textkit is missing');
    const detect = async (index: number): Promise<number> => {
      const number = Number(/\/pull\/(\d+)$/.exec(urls[index] ?? '')?.[1]);
      bench.world.setChecks(repo, number, 'SUCCESS');
      const merged = performance.now();
      bench.world.mergePull(repo, number, repo.owner);
      await bench.until(taskIds[index] ?? '', ['freezing', 'scored', 'rejected', 'withdrawn'], 120_000);
      return performance.now() - merged;
    };
    const byWebhook: number[] = [];
    for (const index of [0, 1, 2, 3, 4]) byWebhook.push(await detect(index));
    await bench.stopPoller();
    await env.client.workflow.start(pollPullRequests, {
      taskQueue: taskQueues.main,
      workflowId: `${PULL_POLLER_ID}-bench`,
      args: [{ intervalSeconds: 5 }],
    });
    bench.webhooksOff();
    const byPolling: number[] = [];
    for (const index of [5, 6, 7, 8, 9]) byPolling.push(await detect(index));
    console.log(
      `merge → task state by webhook: median ${median(byWebhook).toFixed(0)} ms, max ${Math.max(...byWebhook).toFixed(0)} ms`,
    );
    console.log(
      `merge → task state by polling (webhooks dropped, 5 s interval): median ${median(byPolling).toFixed(0)} ms, max ${Math.max(...byPolling).toFixed(0)} ms (at most one interval plus a read)`,
    );
    const peakRss = memoryOf(worker.pid ?? 0).peak;
    console.log(
      `worker memory: idle ${mib(baseline)}, ${TASKS} tasks tracking ${mib(steadyRss)}, peak ${mib(peakRss)} (target < ${mib(MEMORY_TARGET)})`,
    );
    const verdict =
      peakRss < MEMORY_TARGET && perHour < POINTS_PER_HOUR_TARGET ? 'within both targets' : 'OVER A TARGET';
    console.log(verdict);
  } finally {
    worker.kill('SIGTERM');
    await bench.close();
    await database.close();
    await postgres.stop();
    await env.teardown();
  }
}

await main();
