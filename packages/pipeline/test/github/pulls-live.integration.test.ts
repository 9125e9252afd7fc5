// Pull requests of a live world read and judged through the real simulator over HTTP: the solver
// pushes known fixes to its fork and opens them with openFixPullRequest; the world's CI runs their
// real tests; the maintainer (or someone without write access) merges; readPullStatuses and
// readPullByUrl report what happened and judgeMerge decides. The client's throttling spaces pull
// request creations 3 s apart, as against GitHub.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGithubClient } from '../../src/github/client.js';
import type { GithubClient } from '../../src/github/client.js';
import { disclosureText, fixPullRequestBody } from '../../src/github/disclosure.js';
import {
  hasWriteAccess,
  judgeMerge,
  openFixPullRequest,
  PullRequestError,
  readPullByUrl,
  readPullStatuses,
} from '../../src/github/pulls.js';
import type { PullStatus } from '../../src/github/pulls.js';
import { Actors } from '@abp/github-sim/actors';
import { startSimulator } from '@abp/github-sim/server';
import type { RunningSimulator } from '@abp/github-sim/server';
import { createLiveCi } from '@abp/github-sim/world/live/ci';
import type { KnownFix, LiveWorld } from '@abp/github-sim/world/live/world';
import { createLiveWorld, SOLVER_LOGIN } from '@abp/github-sim/world/live/world';
import type { SimRepo } from '@abp/github-sim/world/model';
import { encodeNodeId } from '@abp/github-sim/world/node-id';
import { fixFor, pushFix } from '../../../github-sim/test/support/solver.js';

const token = 'pulls-live-token';
let root: string;
let workDir: string;
let world: LiveWorld;
let sim: RunningSimulator;
let github: GithubClient;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-github-pulls-'));
  world = await createLiveWorld({ seed: 7, dir: join(root, 'world') });
  sim = await startSimulator({ world, gitRoot: world.gitRoot, canPush: world.canPush, tokens: new Set([token]) });
  github = createGithubClient({ baseUrl: sim.apiUrl, token, maxRateLimitRetries: 0, retryAfterBaseMs: 10 }, {});
  workDir = await mkdtemp(join(root, 'work-'));
});
afterAll(async () => {
  await sim?.close();
  await rm(root, { recursive: true, force: true });
});

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return error instanceof PullRequestError ? error.code : `not a PullRequestError: ${String(error)}`;
  }
  return 'resolved';
}

function only(statuses: readonly PullStatus[]): PullStatus {
  if (statuses.length !== 1 || !statuses[0]) throw new Error(`expected one status, got ${statuses.length}`);
  return statuses[0];
}

/** Pushes a known fix to the solver's fork and opens it upstream with the body abp sends. */
async function openFix(
  repo: SimRepo,
  fix: KnownFix,
  issue: number,
): Promise<{ url: string; number: number; nodeId: string; head: string }> {
  const { head } = await pushFix(world, fix, `${sim.gitUrl}/${SOLVER_LOGIN}/${repo.name}.git`, workDir);
  const disclosure = disclosureText({
    taskId: `task-${repo.name}-${issue}`,
    engine: 'reference-solver@1',
    registryVersion: '2026Q4',
    drawSeed: 7,
  });
  const body = fixPullRequestBody({ issue, summary: fix.title, disclosure, contributing: null });
  const opened = await openFixPullRequest(github, {
    repo: `${repo.owner}/${repo.name}`,
    head: `${SOLVER_LOGIN}:${fix.branch}`,
    base: repo.defaultBranch,
    title: fix.title,
    body,
  });
  return { ...opened, head };
}

/** The world's CI runs the pull request's real test suite at its head and reports the check. */
async function runCi(repo: SimRepo, number: number): Promise<string> {
  const pull = world.pull(repo, number);
  if (!pull) throw new Error(`no pull request #${number}`);
  const conclusion = await createLiveCi(world, { workDir })(repo, pull);
  world.setChecks(repo, number, conclusion);
  return conclusion;
}

describe('a fix merged by the maintainer after green CI', () => {
  it('is opened once from the fork, read open, then read merged with its merger, merge commit and checks, and accepted', async () => {
    const { repo, fix } = fixFor(world, 'textkit', 3);
    const opened = await openFix(repo, fix, 3);
    expect(opened.url).toBe(`${sim.apiUrl}/${repo.owner}/textkit/pull/${opened.number}`);
    const upstream = world.pull(repo, opened.number);
    expect(upstream?.authorLogin).toBe(SOLVER_LOGIN);
    expect(upstream?.body.startsWith('Fixes #3\n\n')).toBe(true);
    expect(upstream?.body).toContain('**Disclosure.**');

    // A retried activity opens nothing new: the open pull request from the same head is returned.
    const again = await openFixPullRequest(github, {
      repo: `${repo.owner}/textkit`,
      head: `${SOLVER_LOGIN}:${fix.branch}`,
      base: 'main',
      title: fix.title,
      body: 'retry',
    });
    expect(again).toEqual({ url: opened.url, number: opened.number, nodeId: opened.nodeId });
    expect(world.pulls(repo, { states: ['OPEN'] }, 0, 100).total).toBe(1);

    const before = await readPullStatuses(github, [opened.nodeId]);
    expect(before.missing).toEqual([]);
    expect(before.statuses).toEqual([
      expect.objectContaining({
        nodeId: opened.nodeId,
        repo: `${repo.owner}/textkit`,
        state: 'OPEN',
        merged: false,
        mergedBy: null,
        mergeCommitOid: null,
        checks: null,
        headOid: opened.head,
        closesIssues: [3],
      }),
    ]);
    expect(judgeMerge(only(before.statuses), false)).toMatchObject({ accepted: false, reason: 'not-merged' });

    const actors = new Actors({
      world,
      ci: createLiveCi(world, { workDir }),
      plan: { seed: 7, reviewDelayMs: 0, closeUnmergedRate: 0 },
    });
    actors.start();
    try {
      await actors.idle();
    } finally {
      actors.stop();
    }
    expect(actors.log().map((decision) => decision.action)).toEqual(['checks', 'merged']);

    const status = await readPullByUrl(github, opened.url);
    const merged = world.pull(repo, opened.number);
    expect(status).toEqual({
      nodeId: opened.nodeId,
      url: opened.url,
      repo: `${repo.owner}/textkit`,
      number: opened.number,
      state: 'MERGED',
      merged: true,
      mergedAt: merged?.mergedAt,
      mergedBy: repo.owner,
      baseRefName: 'main',
      defaultBranch: 'main',
      repoArchived: false,
      headOid: opened.head,
      mergeCommitOid: world.repoByName(repo.owner, 'textkit')?.headOid,
      checks: 'SUCCESS',
      closesIssues: [3],
      updatedAt: merged?.updatedAt,
    });
    expect(status.mergeCommitOid).toMatch(/^[0-9a-f]{40}$/);
    expect((await readPullStatuses(github, [opened.nodeId])).statuses).toEqual([status]);

    const writer = await hasWriteAccess(github, status.repo, status.mergedBy ?? '');
    expect(writer).toBe(true);
    expect(judgeMerge(status, writer)).toEqual({ accepted: true });
  });
});

describe('merges that do not count', () => {
  it('rejects a green fix merged by a user without write access', async () => {
    const { repo, fix } = fixFor(world, 'rangeset', 4);
    const opened = await openFix(repo, fix, 4);
    expect(await runCi(repo, opened.number)).toBe('SUCCESS');
    world.mergePull(repo, opened.number, 'kenji-dev');

    const status = await readPullByUrl(github, opened.url);
    expect(status).toMatchObject({
      state: 'MERGED',
      merged: true,
      mergedBy: 'kenji-dev',
      checks: 'SUCCESS',
      baseRefName: 'main',
      defaultBranch: 'main',
    });
    const writer = await hasWriteAccess(github, status.repo, 'kenji-dev');
    expect(writer).toBe(false);
    expect(judgeMerge(status, writer)).toMatchObject({
      accepted: false,
      reason: 'merger-without-write-access',
      detail: expect.stringContaining('kenji-dev') as string,
    });
    // The repository's second maintainer writes; a login GitHub does not know does not.
    expect(await hasWriteAccess(github, status.repo, 'ines-ranges')).toBe(true);
    expect(await hasWriteAccess(github, status.repo, 'no-such-user')).toBe(false);
  });

  it('rejects a fix merged by the maintainer although CI failed', async () => {
    const { repo, fix } = fixFor(world, 'rangeset', 3);
    expect(fix.breaks.length).toBeGreaterThan(0);
    const opened = await openFix(repo, fix, 3);
    expect(await runCi(repo, opened.number)).toBe('FAILURE');
    world.mergePull(repo, opened.number, repo.owner);

    const status = only((await readPullStatuses(github, [opened.nodeId])).statuses);
    expect(status).toMatchObject({
      state: 'MERGED',
      mergedBy: repo.owner,
      checks: 'FAILURE',
      mergeCommitOid: world.repoByName(repo.owner, 'rangeset')?.headOid,
    });
    const writer = await hasWriteAccess(github, `${repo.owner}/rangeset`, repo.owner);
    expect(writer).toBe(true);
    expect(judgeMerge(status, writer)).toMatchObject({
      accepted: false,
      reason: 'checks-not-green',
      detail: expect.stringContaining('FAILURE') as string,
    });
  });
});

describe('reading many pull requests', () => {
  it('batches ids 100 to a query, reads repeated ids once, reports unknown ids as missing and the cost in points', async () => {
    const known: string[] = [];
    for (const name of ['textkit', 'rangeset', 'durafmt', 'semver-lite']) {
      const { repo } = fixFor(world, name, 3);
      const pulls = await github.rest.pulls.list({ owner: repo.owner, repo: name, state: 'all', per_page: 100 });
      known.push(...pulls.data.map((pull) => pull.node_id));
    }
    expect(known.length).toBeGreaterThanOrEqual(7);
    const textkit = fixFor(world, 'textkit', 3).repo;
    const unknown = Array.from({ length: 120 }, (_, index) =>
      encodeNodeId({ type: 'PullRequest', repoId: textkit.id, number: 5_000 + index }),
    );
    const issueId = encodeNodeId({ type: 'Issue', repoId: textkit.id, number: 3 });
    const ids = [...known, ...unknown, ...known, issueId, 'not-a-node-id'];

    const read = await readPullStatuses(github, ids);
    const unique = new Set(ids).size;
    expect(unique).toBe(known.length + 122);
    expect(read.cost).toEqual({ requests: Math.ceil(unique / 100), points: Math.ceil(unique / 100) });
    expect(read.statuses.map((status) => status.nodeId)).toEqual(known);
    expect(read.missing).toEqual([...unknown, issueId, 'not-a-node-id']);
    for (const status of read.statuses) {
      const [owner = '', name = ''] = status.repo.split('/');
      const repo = world.repoByName(owner, name);
      const pull = repo && world.pull(repo, status.number);
      expect(status).toMatchObject({
        state: pull?.state,
        mergedBy: pull?.mergedByLogin,
        headOid: pull?.headRefOid,
        mergeCommitOid: pull?.mergeCommitOid,
        checks: pull?.checks,
      });
    }
    expect(await readPullStatuses(github, [])).toEqual({ statuses: [], missing: [], cost: { requests: 0, points: 0 } });
  });

  it('refuses a URL that names no pull request, and one that is no URL', async () => {
    const { repo } = fixFor(world, 'textkit', 3);
    expect(await codeOf(readPullByUrl(github, `${sim.apiUrl}/${repo.owner}/textkit/pull/4999`))).toBe('pull-not-found');
    expect(await codeOf(readPullByUrl(github, `${sim.apiUrl}/nobody/nothing/pull/1`))).toBe('pull-not-found');
    expect(await codeOf(readPullByUrl(github, `${repo.owner}/textkit#3`))).toBe('malformed-pull-url');
  });

  it('refuses to open a pull request without commits, or from a head that is no fork branch', async () => {
    const { repo } = fixFor(world, 'durafmt', 3);
    expect(
      await codeOf(
        openFixPullRequest(github, {
          repo: `${repo.owner}/durafmt`,
          head: `${SOLVER_LOGIN}:main`,
          base: 'main',
          title: 'Nothing',
          body: 'Fixes #3',
        }),
      ),
    ).toBe('pull-refused');
    expect(
      await codeOf(
        openFixPullRequest(github, {
          repo: `${repo.owner}/durafmt`,
          head: 'main',
          base: 'main',
          title: 'Nothing',
          body: '',
        }),
      ),
    ).toBe('invalid-input');
    expect(
      await codeOf(
        openFixPullRequest(github, {
          repo: 'durafmt',
          head: `${SOLVER_LOGIN}:main`,
          base: 'main',
          title: 'Nothing',
          body: '',
        }),
      ),
    ).toBe('invalid-input');
  });
});
