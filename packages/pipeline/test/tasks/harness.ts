// The task lifecycle's test bench: a live simulator world over HTTP with its webhooks delivered to the real `abp serve`
// receiver, a real Temporal dev server, a real database, the worker with every activity the lifecycle uses, the pull
// request poller, and the solver's side (push a known fix to its fork, open the pull request). Maintainers act through
// the world's writer, as the simulator's actors do, so each scenario says exactly what happens upstream.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { EnvironmentStore } from '@abp/grader/environments';
import { FolderRunStore } from '../../src/run-store/store.js';
import { createActivities } from '../../src/activities/index.js';
import type { Database } from '../../src/db/connection.js';
import {
  backlogIssues,
  backlogSnapshots,
  drawPicks,
  draws,
  registryEntries,
  registryVersions,
} from '../../src/db/schema/index.js';
import { AbpOctokit, createGithubClient, type GithubClient } from '../../src/github/client.js';
import { disclosureText, fixPullRequestBody } from '../../src/github/disclosure.js';
import { openFixPullRequest } from '../../src/github/pulls.js';
import { githubTaskId } from '@abp/protocol/schemas/abp-task';
import type { TaskStatus, TaskState } from '../../src/contracts/task-workflow.js';
import { startServer, type RunningServer } from '../../src/serve/server.js';
import { createTemporalSignaller } from '../../src/serve/signaller.js';
import { WEBHOOK_PATH } from '../../src/serve/webhooks.js';
import { signingPaths } from '../../src/signing/home.js';
import { createSigningKey } from '../../src/signing/keys.js';
import type { Attestor } from '../../src/signing/attestor.js';
import { loadOperatorAttestor } from '../../src/signing/operator.js';
import { startSimulator, type RunningSimulator } from '@abp/github-sim/server';
import { WebhookDispatcher } from '@abp/github-sim/webhooks/dispatcher';
import { createLiveWorld, SOLVER_LOGIN, type KnownFix, type LiveWorld } from '@abp/github-sim/world/live/world';
import type { SimRepo } from '@abp/github-sim/world/model';
import { createWorkerGroup, type WorkerGroup } from '../../src/worker/worker.js';
import { startTaskReadEndpoint, type RunningTaskReads } from '../../src/task-reads/endpoint.js';
import { PULL_POLLER_ID, pollPullRequests } from '../../src/workflows/pr-poller.js';
import { taskLifecycle, taskQueries, taskSignals } from '../../src/workflows/task.js';
import { taskQueues } from '../../src/workflows/shared.js';
import { RECIPES } from '../freeze/live-repos.js';
import { fixFor, pushFix } from '../../../github-sim/test/support/solver.js';

export const BENCH_TOKEN = 'task-lifecycle-token';
const SECRET = 'task-lifecycle-webhook-secret';
export const REGISTRY_VERSION = 'abp-registry/2026Q2';

export interface Bench {
  root: string;
  /** ABP_HOME for `abp` processes: the signing key is there. */
  home: string;
  /** The in-process worker's attestor (signed statements and the transparency log under `home`); null without one. */
  attestor: Attestor | null;
  world: LiveWorld;
  sim: RunningSimulator;
  github: GithubClient;
  serve: RunningServer;
  dispatcher: WebhookDispatcher;
  webhooksOn(): void;
  webhooksOff(): void;
  /** Stops the pull request poller (a benchmark starts its own with another interval; a test proves the webhook path). */
  stopPoller(): Promise<void>;
  /** Starts the pull request poller again with the bench's interval. */
  startPoller(): Promise<void>;
  /** Records the draw of (repo, issue) and starts its task workflow; returns the task id. */
  startTask(repoName: string, issue: number, options?: { historyLimit?: number }): Promise<string>;
  /** Pushes the fix to the solver's fork (on `branch`, default the fix's) and opens the pull request upstream. */
  openFix(
    repoName: string,
    issue: number,
    branch?: string,
  ): Promise<{ url: string; number: number; repo: SimRepo; fix: KnownFix }>;
  submit(taskId: string, prUrl: string): Promise<void>;
  status(taskId: string): Promise<TaskStatus>;
  until(taskId: string, states: readonly TaskState[], timeoutMs?: number): Promise<TaskStatus>;
  close(): Promise<void>;
}

export interface BenchOptions {
  env: TestWorkflowEnvironment;
  db: Database;
  /** The pull request poller's interval; null starts no poller (merges then reach tasks by webhook only). */
  pollSeconds: number | null;
  /** The in-process worker's workflow bundle; without one, the caller runs `abp worker` processes (ABP_HOME = bench.home). */
  bundle?: WorkflowBundleWithSourceMap;
  /**
   * The in-process worker's GitHub client without the production client's one-GraphQL-call-a-second pacing, for
   * benchmarks that move thousands of tasks (the pacing protects github.com's secondary limits, not the simulator).
   */
  unthrottled?: boolean;
}

export async function startBench(options: BenchOptions): Promise<Bench> {
  const { env, bundle, db } = options;
  const root = await mkdtemp(join(tmpdir(), 'abp-task-bench-'));
  const world = await createLiveWorld({ seed: 5, dir: join(root, 'world') });
  const sim = await startSimulator({
    world,
    tokens: new Set([BENCH_TOKEN]),
    gitRoot: world.gitRoot,
    canPush: world.canPush,
  });
  const github = options.unthrottled
    ? new AbpOctokit({
        auth: BENCH_TOKEN,
        baseUrl: sim.apiUrl,
        throttle: { enabled: false },
        retry: { retryAfterBaseValue: 10 },
      })
    : createGithubClient({ baseUrl: sim.apiUrl, token: BENCH_TOKEN });
  const serve = await startServer({
    port: 0,
    host: '127.0.0.1',
    webhookSecret: SECRET,
    signaller: createTemporalSignaller(env.client),
    log: () => undefined,
  });
  const dispatcher = new WebhookDispatcher({
    world,
    apiBaseUrl: sim.apiUrl,
    url: `${serve.url}${WEBHOOK_PATH}`,
    secret: SECRET,
    retry: { attempts: 1 },
  });
  let detach: (() => void) | null = dispatcher.attach(world);

  // The data directory an `abp worker` process is given: its signing key is where `abp init` puts it.
  const home = join(root, 'home');
  const paths = signingPaths(home);
  await createSigningKey(paths.keyDir);
  let worker: WorkerGroup | null = null;
  let running: Promise<void> = Promise.resolve();
  let attestor: Attestor | null = null;
  let reads: RunningTaskReads | null = null;
  if (bundle !== undefined) {
    attestor = await loadOperatorAttestor(home);
    const runStore = new FolderRunStore(join(home, 'run-store'));
    worker = await createWorkerGroup({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      workflowBundle: bundle,
      activities: createActivities({
        now: () => new Date(),
        tasks: { db, temporal: env.client },
        optOuts: { db, publishDir: join(home, 'published') },
        tracking: { db, github, temporal: env.client },
        // As cli/worker.ts wires them: the freeze builds and hands over through the run store, the main queue publishes.
        freeze: { db, github, workDir: join(home, 'freeze-work'), runStore },
        publish: {
          db,
          bundleDir: paths.bundles,
          goldenTraceDir: paths.goldenTraces,
          attestor,
          runStore,
          environments: new EnvironmentStore(join(home, 'environments')),
          dataDir: home,
        },
        aging: { db, attestor },
      }),
    });
    running = worker.run();
    // As `abp worker` does on PGlite: `abp task …` processes read tasks through this endpoint.
    reads = await startTaskReadEndpoint({ db, home });
  }
  const startPoller = async (): Promise<void> => {
    const intervalSeconds = options.pollSeconds;
    if (intervalSeconds === null) throw new Error('this bench was started without a poller (pollSeconds: null)');
    await env.client.workflow.start(pollPullRequests, {
      taskQueue: taskQueues.main,
      workflowId: PULL_POLLER_ID,
      args: [{ intervalSeconds }],
    });
  };
  if (options.pollSeconds !== null) await startPoller();

  // One registry version with the live repositories and their runner recipes, one snapshot, one draw per task.
  await db.insert(registryVersions).values({
    id: REGISTRY_VERSION,
    quarter: '2026Q2',
    criteriaVersion: 'abp-criteria/1',
    sourcedAt: new Date('2026-04-01T00:00:00Z'),
    digest: `sha256:${'1'.repeat(64)}`,
    document: {},
  });
  const upstream = (name: string): SimRepo => {
    for (let index = 0; index < world.repoCount(); index++) {
      const repo = world.repoAt(index);
      if (repo !== undefined && repo.name === name && repo.owner !== SOLVER_LOGIN) return repo;
    }
    throw new Error(`the live world has no repository ${name}`);
  };
  for (const [name, runner] of [
    ['textkit', 'node-test'],
    ['rangeset', 'pytest'],
    ['durafmt', 'go-test'],
    ['semver-lite', 'cargo-test'],
  ] as const) {
    const recipe = RECIPES[runner];
    await db.insert(registryEntries).values({
      registryVersion: REGISTRY_VERSION,
      repo: `${upstream(name).owner}/${name}`,
      stars: 100,
      licenseSpdx: 'MIT',
      defaultBranch: 'main',
      runnerRecipe: {
        language: recipe.ecosystem,
        install: [recipe.install],
        test: [recipe.test],
        reportFormat: recipe.report,
      },
      verdict: 'included',
      reasons: [],
    });
  }
  await db.insert(backlogSnapshots).values({
    id: 'backlog-bench',
    registryVersion: REGISTRY_VERSION,
    digest: `sha256:${'2'.repeat(64)}`,
    takenAt: new Date('2026-05-01T00:00:00Z'),
    repoCount: 4,
    issueCount: 0,
    eligibleIssueCount: 0,
  });
  let draws_ = 0;

  const bench: Bench = {
    root,
    home,
    attestor,
    world,
    sim,
    github,
    serve,
    dispatcher,
    async stopPoller() {
      await env.client.workflow.getHandle(PULL_POLLER_ID).terminate('benchmark');
    },
    startPoller,
    webhooksOn: () => {
      detach ??= dispatcher.attach(world);
    },
    webhooksOff: () => {
      detach?.();
      detach = null;
    },
    async startTask(repoName, issue, options = {}) {
      const repo = upstream(repoName);
      const fullName = `${repo.owner}/${repo.name}`;
      const n = ++draws_;
      const drawId = `draw-bench-${n}`;
      await db
        .insert(backlogIssues)
        .values({
          snapshotId: 'backlog-bench',
          repo: fullName,
          issueNumber: issue,
          title: `issue ${issue}`,
          url: `https://github.com/${fullName}/issues/${issue}`,
          labels: ['bug'],
          issueCreatedAt: new Date('2026-04-15T00:00:00Z'),
          eligibility: 'eligible',
        })
        .onConflictDoNothing();
      await db.insert(draws).values({
        id: drawId,
        registryVersion: REGISTRY_VERSION,
        seed: 424242n,
        algorithm: 'abp-draw/v1',
        backlogSnapshotId: 'backlog-bench',
        inputDigests: {},
        requestedCount: 1,
        drawnAt: new Date('2026-05-01T00:00:00Z'),
        documentDigest: `sha256:${n.toString(16).padStart(64, '0')}`,
      });
      await db
        .insert(drawPicks)
        .values({ drawId, position: 0, backlogSnapshotId: 'backlog-bench', repo: fullName, issueNumber: issue });
      const taskId = githubTaskId(fullName, issue);
      await env.client.workflow.start(taskLifecycle, {
        taskQueue: taskQueues.main,
        workflowId: taskId,
        args: [{ taskId, drawId, repo: fullName, issue, ...options }],
      });
      await bench.until(taskId, ['drawn']);
      return taskId;
    },
    async openFix(repoName, issue, branch) {
      const { repo, fix } = fixFor(world, repoName, issue);
      const pushed = { ...fix, branch: branch ?? fix.branch };
      await pushFix(world, pushed, `${sim.gitUrl}/${SOLVER_LOGIN}/${repoName}.git`, root);
      const body = fixPullRequestBody({
        issue,
        summary: fix.body,
        disclosure: disclosureText({
          taskId: githubTaskId(`${repo.owner}/${repo.name}`, issue),
          engine: 'abp-reference@0.1.0',
          registryVersion: '2026Q2',
          drawSeed: 424242,
        }),
        contributing: null,
      });
      const opened = await openFixPullRequest(github, {
        repo: `${repo.owner}/${repo.name}`,
        head: `${SOLVER_LOGIN}:${pushed.branch}`,
        base: 'main',
        title: fix.title,
        body,
      });
      return { url: opened.url, number: opened.number, repo, fix };
    },
    async submit(taskId, prUrl) {
      await env.client.workflow.getHandle(taskId).signal(taskSignals.fixSubmitted, { prUrl });
    },
    status: (taskId) => env.client.workflow.getHandle(taskId).query(taskQueries.status),
    async until(taskId, states, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const status = await bench.status(taskId).catch(() => null);
        if (status !== null && states.includes(status.state)) return status;
        if (Date.now() > deadline)
          throw new Error(
            `task ${taskId} did not reach ${states.join('|')} in ${timeoutMs} ms (it is ${status?.state ?? 'not answering'})`,
          );
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async close() {
      detach?.();
      await dispatcher.close();
      worker?.shutdown();
      await running;
      await reads?.close();
      await serve.close();
      await sim.close();
      await rm(root, { recursive: true, force: true });
    },
  };
  return bench;
}
