// The task lifecycle against the simulator, one scenario per way a fix can go upstream (issue 7): merged and seen by
// webhook, merged and seen by polling with webhooks dropped, closed unmerged then re-submitted and merged,
// force-pushed before the merge, the issue closed by someone else, the repository opted out mid-flight, a merge by a
// user without write access, and a merge with failing checks. Each transition lands in the event log with its cause.
// With ABP_RECORD_HISTORIES=1 the scenarios keep the histories the replay test holds the workflow code to.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectRows } from '../../src/db/connection.js';
import { SOLVER_LOGIN } from '@abp/github-sim/world/live/world';
import { bundleWorkflows } from '../../src/worker/worker.js';
import { recordOptOut } from '../../src/workflows/opt-out.js';
import { taskSignals } from '../../src/workflows/task.js';
import { pollPullRequests } from '../../src/workflows/pr-poller.js';
import { taskQueues } from '../../src/workflows/shared.js';
import { useTestDatabase } from '../support/database.js';
import { startDevServer } from '../support/temporal.js';
import { BENCH_TOKEN, startBench, type Bench } from './harness.js';
import { runAbp, type CliResult } from '../support/cli.js';
import { fixFor, pushFix } from '../../../github-sim/test/support/solver.js';
import { git } from '@abp/github-sim/world/live/git';
import { keepHistory } from '../support/histories.js';

let env: TestWorkflowEnvironment;

/** The real `abp` command against this test's Temporal server and simulator, as an operator runs it. */
async function abp(args: string[]): Promise<CliResult> {
  const result = await runAbp(args, {
    TEMPORAL_ADDRESS: env.address,
    GITHUB_API_URL: bench.sim.apiUrl,
    GITHUB_TOKEN: BENCH_TOKEN,
    ABP_HOME: bench.home,
  });
  if (result.code !== 0) throw new Error(`abp ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return result;
}
let bench: Bench;
let bundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  [env, bundle] = await Promise.all([startDevServer(), bundleWorkflows()]);
});
afterAll(async () => {
  await env?.teardown();
});

/** A test that waits up to 120 s for a freeze (bench.until) needs room beyond the tier's 60 s default. */
const FREEZE_TEST_MS = 180_000;

describe('the task lifecycle against the simulator', () => {
  const database = useTestDatabase('pglite');

  beforeAll(async () => {
    bench = await startBench({ env, bundle, db: database.db, pollSeconds: 1 });
  });
  afterAll(async () => {
    await bench?.close();
  });

  async function causes(taskId: string): Promise<string[]> {
    const rows = await selectRows<{ cause: string; to_state: string }>(
      database.db,
      sql`select cause, to_state from task_events where task_id = ${taskId} order by seq`,
    );
    return rows.map((row) => `${row.cause}→${row.to_state}`);
  }

  it(
    'detects a merge by webhook and freezes the task into the scored set',
    async () => {
      const taskId = await bench.startTask('textkit', 3);
      const pull = await bench.openFix('textkit', 3);
      await bench.submit(taskId, pull.url);
      await bench.until(taskId, ['tracking']);
      bench.world.setChecks(pull.repo, pull.number, 'SUCCESS');
      // With the poller stopped, only the webhook can tell the task its pull request merged.
      await bench.stopPoller();
      try {
        bench.world.mergePull(pull.repo, pull.number, pull.repo.owner);
        await bench.until(taskId, ['freezing', 'scored', 'rejected']);
      } finally {
        await bench.startPoller();
      }
      const done = await bench.until(taskId, ['scored', 'rejected'], 120_000);
      expect(done.state).toBe('scored');
      expect(await causes(taskId)).toEqual([
        'drawn→drawn',
        'fix-submitted→tracking',
        'pr-merged→freezing',
        'frozen→scored',
      ]);
      await keepHistory(env.client, 'task-webhook-merge', taskId);
      const [row] = await selectRows<{ bundle_digest: string | null; scored_days: number }>(
        database.db,
        sql`select bundle_digest, extract(epoch from scored_until - merged_at)::int / 86400 as scored_days from tasks where id = ${taskId}`,
      );
      expect(row).toMatchObject({
        bundle_digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) as unknown,
        scored_days: 180,
      });
    },
    FREEZE_TEST_MS,
  );

  it(
    'detects a merge by polling when the webhooks are dropped (the pull request opened by `abp task open-pr`)',
    async () => {
      const taskId = await bench.startTask('textkit', 5);
      const { repo, fix } = fixFor(bench.world, 'textkit', 5);
      await pushFix(bench.world, fix, `${bench.sim.gitUrl}/${SOLVER_LOGIN}/textkit.git`, bench.root);
      const opened = await abp([
        'task',
        'open-pr',
        taskId,
        '--branch',
        `${SOLVER_LOGIN}:${fix.branch}`,
        '--summary',
        'Truncate by code point.',
        '--title',
        fix.title,
        '--json',
      ]);
      const { pull: created, status } = JSON.parse(opened.stdout) as {
        pull: { url: string; number: number };
        status: { state: string };
      };
      expect(status.state).toBe('tracking');
      const { data: body } = await bench.github.rest.pulls.get({
        owner: repo.owner,
        repo: repo.name,
        pull_number: created.number,
      });
      expect(body.body).toMatch(/^Fixes #5/);
      expect(body.body).toContain('Agent Benchmark Protocol');
      const pull = { ...created, repo };
      bench.webhooksOff();
      try {
        bench.world.setChecks(pull.repo, pull.number, 'SUCCESS');
        bench.world.mergePull(pull.repo, pull.number, pull.repo.owner);
        await bench.until(taskId, ['freezing', 'scored', 'rejected'], 10_000);
      } finally {
        bench.webhooksOn();
      }
      expect((await bench.until(taskId, ['scored', 'rejected'], 120_000)).state).toBe('scored');
      await keepHistory(env.client, 'task-polled-merge', taskId);
    },
    FREEZE_TEST_MS,
  );

  it(
    'goes back to solving when the fix is closed unmerged, and is scored when a new fix is merged',
    async () => {
      const taskId = await bench.startTask('rangeset', 4);
      const first = await bench.openFix('rangeset', 4);
      await bench.submit(taskId, first.url);
      await bench.until(taskId, ['tracking']);
      bench.world.closePull(first.repo, first.number);
      expect(await bench.until(taskId, ['solving'])).toMatchObject({ failedAttempts: 1 });
      const second = await bench.openFix('rangeset', 4, 'parse-negative-numbers-again');
      await bench.submit(taskId, second.url);
      await bench.until(taskId, ['tracking']);
      bench.world.setChecks(second.repo, second.number, 'SUCCESS');
      bench.world.mergePull(second.repo, second.number, second.repo.owner);
      expect((await bench.until(taskId, ['scored', 'rejected'], 120_000)).state).toBe('scored');
      expect(await causes(taskId)).toEqual([
        'drawn→drawn',
        'fix-submitted→tracking',
        'pr-closed-unmerged→solving',
        'fix-submitted→tracking',
        'pr-merged→freezing',
        'frozen→scored',
      ]);
      await keepHistory(env.client, 'task-closed-then-resubmitted', taskId);
    },
    FREEZE_TEST_MS,
  );

  it(
    'follows a force-push before the merge',
    async () => {
      const taskId = await bench.startTask('semver-lite', 3);
      const pull = await bench.openFix('semver-lite', 3);
      const submitted = await abp(['task', 'submit-fix', taskId, '--pr', pull.url]);
      expect(submitted.stdout).toContain(`${taskId} is tracking, following ${pull.url}`);
      // The solver amends its commit and force-pushes: the pull request's head moves (a `synchronize` webhook).
      const clone = `${bench.root}/force-push`;
      await git(
        ['clone', '--quiet', '--branch', pull.fix.branch, `${bench.sim.gitUrl}/${SOLVER_LOGIN}/semver-lite.git`, clone],
        { cwd: bench.root, transport: 'network' },
      );
      await git(
        [
          '-c',
          'user.name=abp-solver',
          '-c',
          'user.email=solver@example.org',
          'commit',
          '--quiet',
          '--amend',
          '-m',
          `${pull.fix.commitMessage} (amended)`,
        ],
        { cwd: clone },
      );
      await git(['push', '--quiet', '--force', 'origin', pull.fix.branch], { cwd: clone, transport: 'network' });
      const deadline = Date.now() + 10_000;
      while (!(await causes(taskId)).includes('pr-head-moved→tracking') && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await causes(taskId)).toContain('pr-head-moved→tracking');
      bench.world.setChecks(pull.repo, pull.number, 'SUCCESS');
      bench.world.mergePull(pull.repo, pull.number, pull.repo.owner);
      expect((await bench.until(taskId, ['scored', 'rejected'], 120_000)).state).toBe('scored');
      await keepHistory(env.client, 'task-force-pushed', taskId);
    },
    FREEZE_TEST_MS,
  );

  it('is withdrawn when someone else closes the issue', async () => {
    const taskId = await bench.startTask('durafmt', 3);
    const repo = (await bench.openFix('durafmt', 3)).repo;
    bench.world.closeIssue(repo, 3, 'COMPLETED');
    await bench.until(taskId, ['withdrawn']);
    expect(await causes(taskId)).toEqual(['drawn→drawn', 'issue-closed-by-others→withdrawn']);
    await keepHistory(env.client, 'task-withdrawn-issue-closed', taskId);
  });

  it('is withdrawn when its repository opts out mid-flight', async () => {
    const taskId = await bench.startTask('durafmt', 4);
    const pull = await bench.openFix('durafmt', 4);
    await bench.submit(taskId, pull.url);
    await bench.until(taskId, ['tracking']);
    const result = await env.client.workflow.execute(recordOptOut, {
      taskQueue: taskQueues.main,
      workflowId: 'opt-out-durafmt',
      args: [{ repo: `${pull.repo.owner}/durafmt`, reason: 'the maintainers asked', requestedBy: pull.repo.owner }],
    });
    expect(result).toMatchObject({ added: true, tasksWithdrawn: 1 });
    await bench.until(taskId, ['withdrawn']);
    expect(await causes(taskId)).toEqual(['drawn→drawn', 'fix-submitted→tracking', 'repository-opted-out→withdrawn']);
    await keepHistory(env.client, 'task-withdrawn-opted-out', taskId);
  });

  it('does not accept a merge by a user without write access', async () => {
    const issues = await bench.github.rest.issues.listForRepo({ owner: 'mira-quill', repo: 'textkit', state: 'open' });
    const issue = issues.data.find(
      (candidate) => candidate.pull_request === undefined && ![3, 5].includes(candidate.number),
    );
    expect(issue).toBeDefined();
    const number = issue?.number ?? 0;
    const taskId = await bench.startTask('textkit', number);
    const other = await openUnrelatedFix(bench, 'textkit', number);
    await bench.submit(taskId, other.url);
    await bench.until(taskId, ['tracking']);
    bench.world.setChecks(other.repo, other.number, 'SUCCESS');
    bench.world.mergePull(other.repo, other.number, 'kenji-dev');
    await bench.until(taskId, ['withdrawn']);
    const [event] = await selectRows<{ cause: string; detail: { reason: string } }>(
      database.db,
      sql`select cause, detail from task_events where task_id = ${taskId} order by seq desc limit 1`,
    );
    expect(event).toMatchObject({ cause: 'merge-not-accepted', detail: { reason: 'merger-without-write-access' } });
    await keepHistory(env.client, 'task-merge-not-accepted', taskId);
  });

  it('does not accept a merge whose checks failed', async () => {
    const taskId = await bench.startTask('rangeset', 3);
    // rangeset's known fix for #3 breaks an existing test: its CI goes red, and a maintainer merges it anyway.
    const pull = await bench.openFix('rangeset', 3);
    await bench.submit(taskId, pull.url);
    await bench.until(taskId, ['tracking']);
    bench.world.setChecks(pull.repo, pull.number, 'FAILURE');
    bench.world.mergePull(pull.repo, pull.number, pull.repo.owner);
    await bench.until(taskId, ['withdrawn']);
    const [event] = await selectRows<{ cause: string; detail: { reason: string } }>(
      database.db,
      sql`select cause, detail from task_events where task_id = ${taskId} order by seq desc limit 1`,
    );
    expect(event).toMatchObject({ cause: 'merge-not-accepted', detail: { reason: 'checks-not-green' } });
  });

  it('restarts a long-lived task with continueAsNew, keeping its state, pull request and failed attempts', async () => {
    const taskId = await bench.startTask('semver-lite', 4, { historyLimit: 25 });
    const pull = await openUnrelatedFix(bench, 'semver-lite', 4);
    await bench.submit(taskId, pull.url);
    await bench.until(taskId, ['tracking']);
    const handle = env.client.workflow.getHandle(taskId);
    const firstRun = (await handle.describe()).runId;
    // Each nudge makes the task read its pull request again: history grows until the workflow restarts itself.
    for (let round = 0; round < 6; round++) {
      await handle.signal(taskSignals.pullRequestChanged, { prUrl: pull.url, action: 'edited', deliveryId: null });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const deadline = Date.now() + 20_000;
    while ((await handle.describe()).runId === firstRun && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await handle.describe()).runId).not.toBe(firstRun);
    await keepHistory(env.client, 'task-before-continue-as-new', taskId, firstRun);
    expect(await bench.status(taskId)).toMatchObject({ state: 'tracking', prUrl: pull.url });
    bench.world.closePull(pull.repo, pull.number);
    expect(await bench.until(taskId, ['solving'])).toMatchObject({ failedAttempts: 1, prUrl: pull.url });
    expect(await causes(taskId)).toEqual(['drawn→drawn', 'fix-submitted→tracking', 'pr-closed-unmerged→solving']);
  });

  it('keeps polling across continueAsNew, carrying its totals', async () => {
    const workflowId = 'abp-pull-request-poller-short-runs';
    const handle = await env.client.workflow.start(pollPullRequests, {
      taskQueue: taskQueues.main,
      workflowId,
      args: [{ intervalSeconds: 1, roundsPerRun: 2 }],
    });
    const deadline = Date.now() + 60_000;
    while ((await handle.describe()).runId === handle.firstExecutionRunId && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 200));
    const first = env.client.workflow.getHandle(workflowId, handle.firstExecutionRunId);
    expect((await first.describe()).status.name).toBe('CONTINUED_AS_NEW');
    await keepHistory(env.client, 'pull-poller-continued-as-new', workflowId, handle.firstExecutionRunId);
    await env.client.workflow.getHandle(workflowId).terminate('test over');
  });

  it('lists the tasks by state and shows one with its event log', async () => {
    const listed = JSON.parse((await abp(['task', 'list', '--json'])).stdout) as Array<{
      taskId: string;
      state: string;
    }>;
    const states = listed.map((task) => task.state).sort();
    expect(states).toEqual([
      'scored',
      'scored',
      'scored',
      'scored',
      'solving',
      'withdrawn',
      'withdrawn',
      'withdrawn',
      'withdrawn',
    ]);
    const scored = listed.find((task) => task.state === 'scored')?.taskId ?? '';
    const shown = await abp(['task', 'show', scored]);
    expect(shown.stdout).toContain('fix-submitted');
    expect(shown.stdout).toMatch(/bundle sha256:[0-9a-f]{64}/);
  });
});

/** A pull request from the solver's fork of `name` whose body closes `issue`: a one-line change to the README. */
async function openUnrelatedFix(bench: Bench, name: string, issue: number) {
  const repo = fixFor(bench.world, name, name === 'textkit' ? 3 : 4).repo;
  const clone = `${bench.root}/tidy-${name}-${issue}`;
  await git(['clone', '--quiet', `${bench.sim.gitUrl}/${SOLVER_LOGIN}/${name}.git`, clone], {
    cwd: bench.root,
    transport: 'network',
  });
  await git(['checkout', '--quiet', '-b', `tidy-${issue}`], { cwd: clone });
  const { appendFile } = await import('node:fs/promises');
  await appendFile(`${clone}/README.md`, '\nA note.\n');
  await git(['add', 'README.md'], { cwd: clone });
  await git(
    ['-c', 'user.name=abp-solver', '-c', 'user.email=solver@example.org', 'commit', '--quiet', '-m', 'Tidy the README'],
    { cwd: clone },
  );
  await git(['push', '--quiet', 'origin', `tidy-${issue}`], { cwd: clone, transport: 'network' });
  const { data } = await bench.github.rest.pulls.create({
    owner: repo.owner,
    repo: name,
    title: 'Tidy the README',
    body: `Fixes #${issue}`,
    head: `${SOLVER_LOGIN}:tidy-${issue}`,
    base: 'main',
  });
  return { url: data.html_url, number: data.number, repo };
}
