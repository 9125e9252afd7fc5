// The reference solver against a live world over HTTP: it finds the fix a fork carries (fix/<issue>), opens the pull
// request upstream with the disclosure, hands it to the task through a real Temporal server (a stand-in workflow takes
// the fix as a drawn task does), opens nothing twice, and leaves a task without a known fix drawn.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGithubClient, type GithubClient } from '@abp/pipeline/github/client';
import { startSimulator, type RunningSimulator } from '@abp/github-sim/server';
import { createLiveWorld, SOLVER_LOGIN, type LiveWorld } from '@abp/github-sim/world/live/world';
import { titleAndSummary } from '../src/solver/fork-fix.js';
import { temporalHandOff, type TaskHandOff } from '../src/solver/hand-off.js';
import { createReferenceSolver, type SolverTask } from '../src/solver/reference-solver.js';
import { startDevServer } from '../../pipeline/test/support/temporal.js';
import { fixTaker } from './support/fix-taker-workflow.js';

const TOKEN = 'solver-test-token';
const taskQueue = `solver-${randomUUID()}`;

describe('the reference solver', () => {
  let root: string;
  let world: LiveWorld;
  let sim: RunningSimulator;
  let github: GithubClient;
  let env: TestWorkflowEnvironment;
  let worker: Worker;
  let workerRun: Promise<void>;
  let tasks: TaskHandOff;

  /** Starts the stand-in task for `taskId` (drawn, takes a fix), as the draw starts the real one. */
  async function drawnTask(taskId: string): Promise<void> {
    await env.client.workflow.start(fixTaker, { taskQueue, workflowId: taskId });
  }

  const followed = (taskId: string) =>
    env.client.workflow.getHandle(taskId).query<{ state: string; prUrl: string | null }>('taskStatus');

  const task = (repo: string, issue: number, overrides: Partial<SolverTask> = {}): SolverTask => ({
    taskId: `gh-${repo.replace('/', '-')}-${issue}`,
    repo,
    issue,
    registryVersion: 'abp-registry/2026Q4',
    drawSeed: 8,
    state: 'drawn',
    prUrl: null,
    ...overrides,
  });

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'abp-solver-'));
    world = await createLiveWorld({
      seed: 1,
      dir: join(root, 'world'),
      generatedAt: '2026-11-30T00:00:00Z',
      solverFixBranches: true,
    });
    sim = await startSimulator({ world, tokens: new Set([TOKEN]), gitRoot: world.gitRoot, canPush: world.canPush });
    github = createGithubClient({ baseUrl: sim.apiUrl, token: TOKEN }, { ABP_GITHUB_PACING: 'off' });
    env = await startDevServer();
    worker = await Worker.create({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue,
      workflowsPath: fileURLToPath(new URL('./support/fix-taker-workflow.ts', import.meta.url)),
    });
    workerRun = worker.run();
    tasks = temporalHandOff(env.client);
  });
  afterAll(async () => {
    worker?.shutdown();
    await workerRun;
    await env?.teardown();
    await sim?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('reads a commit message as the title and a summary without the closing line', () => {
    expect(titleAndSummary('slugify: transliterate accented letters\n\nDecompose the title.\n\nFixes #3\n')).toEqual({
      title: 'slugify: transliterate accented letters',
      summary: 'Decompose the title.',
    });
    expect(titleAndSummary('One line only')).toEqual({ title: 'One line only', summary: '' });
  });

  it('opens the fork’s fix upstream with the disclosure and hands it to the task, once', async () => {
    const solver = createReferenceSolver({ github, tasks, forkOwner: SOLVER_LOGIN });
    const textkit = world.repoAt(0);
    const repo = `${textkit?.owner ?? ''}/${textkit?.name ?? ''}`;
    const taskId = `gh-${repo.replace('/', '-')}-3`;
    await drawnTask(taskId);
    const opened = await solver.solve(task(repo, 3));
    expect(opened).toMatchObject({ $case: 'opened', prUrl: `${sim.apiUrl}/${repo}/pull/6`, number: 6 });
    const pull = world.pull(textkit as NonNullable<typeof textkit>, 6);
    expect(pull).toMatchObject({
      headRefName: 'fix/3',
      authorLogin: SOLVER_LOGIN,
      closesIssues: [3],
      title: 'slugify: transliterate accented letters instead of splitting on them',
    });
    expect(pull?.body.startsWith('Fixes #3\n\nDecompose the title (NFKD)')).toBe(true);
    expect(pull?.body).toContain('`abp-reference@0.1.0`');
    expect(pull?.body).toContain('registry 2026Q4; this is task `gh-mira-quill-textkit-3`');
    expect(pull?.body.match(/Fixes #3/g)).toHaveLength(1);
    // The task took it: the hand-off returned only once the task's status named the pull request.
    expect(await followed(taskId)).toMatchObject({ state: 'tracking', prUrl: `${sim.apiUrl}/${repo}/pull/6` });

    // A run that stopped after opening (the task not told): the pull request from fix/3 is found by its head and
    // handed over, not opened again.
    const again = await solver.solve(task(repo, 3));
    expect(again).toMatchObject({ $case: 'reused', prUrl: `${sim.apiUrl}/${repo}/pull/6`, pullState: 'open' });
    expect(
      world.pulls(textkit as NonNullable<typeof textkit>, { states: ['OPEN', 'MERGED', 'CLOSED'] }, 0, 10).total,
    ).toBe(2);
    expect(world.pulls(textkit as NonNullable<typeof textkit>, { states: ['OPEN'] }, 0, 10).total).toBe(1);
    // The task follows it already: nothing to do.
    const following = await solver.solve(task(repo, 3, { state: 'tracking', prUrl: `${sim.apiUrl}/${repo}/pull/6` }));
    expect(following).toMatchObject({ $case: 'submitted-before', state: 'tracking' });
  });

  it('says which task did not take its fix, naming the task', async () => {
    const solver = createReferenceSolver({ github, tasks, forkOwner: SOLVER_LOGIN });
    const textkit = world.repoAt(0);
    const repo = `${textkit?.owner ?? ''}/${textkit?.name ?? ''}`;
    // Never drawn: no workflow runs under its id.
    await expect(solver.solve(task(repo, 5))).rejects.toMatchObject({
      code: 'hand-off-failed',
      message: expect.stringContaining(`no running task gh-${repo.replace('/', '-')}-5`) as string,
    });
  });

  it('leaves a task whose fix the fork does not carry drawn, and says why', async () => {
    const solver = createReferenceSolver({ github, tasks, forkOwner: SOLVER_LOGIN });
    const textkit = world.repoAt(0);
    const repo = `${textkit?.owner ?? ''}/${textkit?.name ?? ''}`;
    expect(await solver.solve(task(repo, 4))).toEqual({
      $case: 'no-fix',
      taskId: `gh-${repo.replace('/', '-')}-4`,
      reason: `${SOLVER_LOGIN}/textkit has no branch fix/4`,
    });
    const stranger = createReferenceSolver({ github, tasks, forkOwner: 'nobody' });
    expect(await stranger.solve(task(repo, 3))).toMatchObject({
      $case: 'no-fix',
      reason: `nobody has no fork of ${repo}`,
    });
  });
});
