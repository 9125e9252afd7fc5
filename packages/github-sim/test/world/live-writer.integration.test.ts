// Writing to a live world: the solver pushes a known fix to its fork over HTTP through the real
// simulator, opens a pull request, CI reports, a maintainer merges with a real merge commit, and
// the issue closes, with events in order. Also: synchronize on a new push, refused merges and
// requests, CI that runs the real suite, and the same scenario replaying identically.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/server.js';
import type { SimRepo, WorldEvent } from '../../src/world/model.js';
import { createLiveCi } from '../../src/world/live/ci.js';
import { commitAll, fixFor, openFixPull as open, pushFix as pushFixTo } from '../support/solver.js';
import { git } from '../../src/world/live/git.js';
import { runTests } from '../../src/world/live/runners.js';
import type { KnownFix, LiveWorld } from '../../src/world/live/world.js';
import { createLiveWorld, SOLVER_LOGIN } from '../../src/world/live/world.js';

const token = 'live-writer-token';
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-live-writer-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const pushFix = (world: LiveWorld, fix: KnownFix, remote: string) => pushFixTo(world, fix, remote, root);

describe('a live world behind the simulator', () => {
  let world: LiveWorld;
  let sim: RunningSimulator;
  const events: WorldEvent[] = [];

  beforeAll(async () => {
    world = await createLiveWorld({ seed: 7, dir: join(root, 'served') });
    world.onEvent((event) => events.push(event));
    sim = await startSimulator({ world, gitRoot: world.gitRoot, canPush: world.canPush, tokens: new Set([token]) });
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('takes a fix pushed over HTTP to the fork through a pull request to a real merge that closes the issue', async () => {
    const { repo, fix } = fixFor(world, 'textkit', 3);
    const forkUrl = `${sim.gitUrl}/${SOLVER_LOGIN}/textkit.git`;
    const pushed = await pushFix(world, fix, forkUrl);
    world.notePush(SOLVER_LOGIN, 'textkit');
    expect(events).toEqual([]);

    const opened = open(world, repo, fix);
    expect(opened).toMatchObject({
      number: 6,
      state: 'OPEN',
      headRefName: fix.branch,
      headRefOid: pushed.head,
      baseRefOid: repo.headOid,
      closesIssues: [3],
      checks: null,
      changedFiles: 2,
    });
    const local = (await git(['diff', '--numstat', `${repo.headOid}...HEAD`], { cwd: pushed.dir })).stdout
      .trim()
      .split('\n');
    expect(opened.additions).toBe(local.reduce((sum, line) => sum + Number(line.split('\t')[0]), 0));
    expect((await git(['rev-parse', 'refs/pull/6/head'], { cwd: world.gitPathOf(repo) })).stdout.trim()).toBe(
      pushed.head,
    );
    expect(world.headOf(repo, 6)).toMatchObject({ repo: { owner: SOLVER_LOGIN, name: 'textkit' }, branch: fix.branch });

    // A second push moves the head: synchronize, and the old verdict no longer applies.
    world.setChecks(repo, 6, 'FAILURE');
    await commitAll(world, pushed.dir, 'Re-run CI', { allowEmpty: true });
    await git(['push', '--quiet', 'origin', fix.branch], { cwd: pushed.dir, transport: 'network' });
    world.notePush(SOLVER_LOGIN, 'textkit');
    const head = (await git(['rev-parse', 'HEAD'], { cwd: pushed.dir })).stdout.trim();
    expect(world.pull(repo, 6)).toMatchObject({ headRefOid: head, checks: null });

    world.setChecks(repo, 6, 'SUCCESS');
    const merged = world.mergePull(repo, 6, repo.owner);
    expect(merged).toMatchObject({ state: 'MERGED', mergedByLogin: repo.owner });
    expect(merged.mergedAt).toBe(merged.closedAt);

    // The upstream default branch, fetched over HTTP, holds GitHub's merge commit with the fix.
    const upstreamClone = join(root, 'upstream-clone');
    await git(['clone', '--quiet', `${sim.gitUrl}/${repo.owner}/textkit.git`, upstreamClone], {
      cwd: root,
      transport: 'network',
    });
    const [oid, parents, author, committer, subject] = (
      await git(['log', '-1', '--format=%H%n%P%n%an%n%cn%n%s'], { cwd: upstreamClone })
    ).stdout
      .trim()
      .split('\n');
    expect([oid, parents, author, committer, subject]).toEqual([
      merged.mergeCommitOid,
      `${repo.headOid} ${head}`,
      repo.owner,
      'GitHub',
      `Merge pull request #6 from ${SOLVER_LOGIN}/${fix.branch}`,
    ]);
    const suite = await runTests('node-test', upstreamClone);
    expect(suite.results.find((result) => result.id === fix.failToPass[0])?.status).toBe('pass');
    expect(suite.exitCode).toBe(0);

    const after = world.repoById(repo.id);
    expect(after).toMatchObject({
      headOid: merged.mergeCommitOid,
      lastMergedPullAt: merged.mergedAt,
      openIssueCount: repo.openIssueCount - 1,
    });
    expect(after?.files.find((file) => file.path === 'src/slugify.js')?.content).toContain("normalize('NFKD')");
    expect(world.issue(repo, 3)).toMatchObject({
      state: 'CLOSED',
      stateReason: 'COMPLETED',
      closedAt: merged.mergedAt,
    });
    expect(events.map((event) => `${event.type}.${event.action}#${event.number}`)).toEqual([
      'pull_request.opened#6',
      'check_run.completed#6',
      'pull_request.synchronize#6',
      'check_run.completed#6',
      'pull_request.closed#6',
      'issues.closed#3',
    ]);
    expect(events[3]).toMatchObject({ headOid: head, conclusion: 'SUCCESS' });
    const times = events.map((event) => Date.parse(event.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));

    // The REST layer serves the merged pull request from the same world.
    const response = await fetch(`${sim.apiUrl}/repos/${repo.owner}/textkit/pulls/6`, {
      headers: { authorization: `token ${token}` },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      number: 6,
      merged_at: merged.mergedAt,
      merge_commit_sha: merged.mergeCommitOid,
    });
  });

  it('refuses pushes to upstream repositories', async () => {
    const dir = join(root, 'direct-push-clone');
    await git(['clone', '--quiet', `${sim.gitUrl}/hal-gopher/durafmt.git`, dir], { cwd: root, transport: 'network' });
    await commitAll(world, dir, 'Direct push', { allowEmpty: true });
    await expect(
      git(['push', '--quiet', 'origin', 'HEAD:main'], { cwd: dir, transport: 'network' }),
    ).rejects.toMatchObject({ code: 'git-failed', message: expect.stringMatching(/403|denied/) as unknown });
  });

  it('refuses a merge that conflicts, and leaves the base branch and the pull request as they were', async () => {
    const first = fixFor(world, 'semver-lite', 3);
    const second = fixFor(world, 'semver-lite', 4);
    const remote = world.gitPathOf(world.repoByName(SOLVER_LOGIN, 'semver-lite') as SimRepo);
    await pushFix(world, first.fix, remote);
    await pushFix(world, second.fix, remote);
    world.notePush(SOLVER_LOGIN, 'semver-lite');
    const a = open(world, first.repo, first.fix);
    const b = open(world, second.repo, second.fix);
    expect([a.number, b.number]).toEqual([6, 7]);
    world.mergePull(first.repo, a.number, first.repo.owner);
    const base = world.repoById(first.repo.id)?.headOid;
    expect(() => world.mergePull(first.repo, b.number, first.repo.owner)).toThrow(
      expect.objectContaining({ code: 'merge-conflict' }) as Error,
    );
    expect(world.repoById(first.repo.id)?.headOid).toBe(base);
    expect((await git(['rev-parse', 'main'], { cwd: world.gitPathOf(first.repo) })).stdout.trim()).toBe(base);
    expect(world.pull(first.repo, b.number)?.state).toBe('OPEN');
    expect(world.issue(first.repo, 4)?.state).toBe('OPEN');
  });

  it('answers bad requests with coded errors and closes and reopens without double events', async () => {
    const { repo, fix } = fixFor(world, 'durafmt', 3);
    const remote = world.gitPathOf(world.repoByName(SOLVER_LOGIN, 'durafmt') as SimRepo);
    expect(() => open(world, repo, fix)).toThrow(expect.objectContaining({ code: 'head-not-found' }) as Error);
    await pushFix(world, fix, remote);
    expect(() =>
      world.openPull(repo, {
        title: 't',
        body: '',
        head: `${SOLVER_LOGIN}:${fix.branch}`,
        base: 'develop',
        authorLogin: SOLVER_LOGIN,
      }),
    ).toThrow(expect.objectContaining({ code: 'base-not-found' }) as Error);
    expect(() =>
      world.openPull(repo, { title: 't', body: '', head: 'stranger:main', base: 'main', authorLogin: 'stranger' }),
    ).toThrow(expect.objectContaining({ code: 'head-not-found' }) as Error);
    expect(() =>
      world.openPull(repo, {
        title: 't',
        body: '',
        head: `${SOLVER_LOGIN}:main`,
        base: 'main',
        authorLogin: SOLVER_LOGIN,
      }),
    ).toThrow(expect.objectContaining({ code: 'no-commits' }) as Error);
    const pull = open(world, repo, fix);
    expect(pull.number).toBe(6);
    expect(() => open(world, repo, fix)).toThrow(expect.objectContaining({ code: 'pull-exists' }) as Error);

    const before = world.eventLog().length;
    expect(world.closePull(repo, pull.number).state).toBe('CLOSED');
    expect(() => world.mergePull(repo, pull.number, repo.owner)).toThrow(
      expect.objectContaining({ code: 'not-open' }) as Error,
    );
    expect(world.closeIssue(repo, 3, 'NOT_PLANNED')).toMatchObject({ state: 'CLOSED', stateReason: 'NOT_PLANNED' });
    world.closeIssue(repo, 3, 'COMPLETED');
    expect(world.reopenIssue(repo, 3)).toMatchObject({ state: 'OPEN', stateReason: 'REOPENED', closedAt: null });
    expect(
      world
        .eventLog()
        .slice(before)
        .map((event) => `${event.type}.${event.action}#${event.number}`),
    ).toEqual(['pull_request.closed#6', 'issues.closed#3', 'issues.reopened#3']);
    expect(() => world.closeIssue(repo, 2, 'COMPLETED')).toThrow(
      expect.objectContaining({ code: 'not-found' }) as Error,
    );
  });
});

describe('live CI and replays', () => {
  it('runs the real suite of a pull request: the breaking fix goes red, the clean one green', async () => {
    const world = await createLiveWorld({ seed: 7, dir: join(root, 'ci') });
    const remote = world.gitPathOf(world.repoByName(SOLVER_LOGIN, 'rangeset') as SimRepo);
    const breaking = fixFor(world, 'rangeset', 3);
    const clean = fixFor(world, 'rangeset', 4);
    await pushFix(world, breaking.fix, remote);
    await pushFix(world, clean.fix, remote);
    const red = open(world, breaking.repo, breaking.fix);
    const green = open(world, clean.repo, clean.fix);
    const flaky = world.flakyTests()[0];
    const ci = createLiveCi(world, { workDir: root, env: flaky ? { [flaky.env]: flaky.passingValue } : {} });
    expect(await Promise.all([ci(breaking.repo, red), ci(clean.repo, green)])).toEqual(['FAILURE', 'SUCCESS']);
  });

  it('fails a pull request whose dependencies will not install, and says why', async () => {
    const world = await createLiveWorld({ seed: 7, dir: join(root, 'ci-install') });
    const { repo, fix } = fixFor(world, 'mdanchor', 3);
    const broken = { ...fix, branch: 'fix/unlocked-dependency' };
    const pushed = await pushFix(world, broken, world.gitPathOf(world.repoByName(SOLVER_LOGIN, 'mdanchor') as SimRepo));
    // package.json now names a package its lockfile lacks: npm ci refuses before it fetches anything.
    const manifest = JSON.parse(await readFile(join(pushed.dir, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    };
    manifest.devDependencies['left-pad'] = '1.3.0';
    await writeFile(join(pushed.dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    await commitAll(world, pushed.dir, 'Add left-pad');
    await git(['push', '--quiet', 'origin', broken.branch], { cwd: pushed.dir, transport: 'network' });
    const failures: string[] = [];
    const ci = createLiveCi(world, {
      workDir: root,
      onInstallFailure: (_repo, pull, message) => failures.push(`#${pull.number}: ${message}`),
    });
    const pull = open(world, repo, broken);
    expect(await ci(repo, pull)).toBe('FAILURE');
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(
      new RegExp(`^#${pull.number}: npm ci --no-audit --no-fund failed in .* \\(exit \\d+\\): `),
    );
    expect(failures[0]).toMatch(/lock ?file|package-lock\.json/i);
  });

  it('replays a scenario identically for the same seed: events, merge commits and world state', async () => {
    async function scenario(dir: string): Promise<{ events: readonly WorldEvent[]; json: string }> {
      const world = await createLiveWorld({ seed: 11, dir });
      for (const [name, issue] of [
        ['textkit', 5],
        ['durafmt', 3],
        ['durafmt', 4],
      ] as const) {
        const { repo, fix } = fixFor(world, name, issue);
        await pushFix(world, fix, world.gitPathOf(world.repoByName(SOLVER_LOGIN, name) as SimRepo));
        const pull = open(world, repo, fix);
        world.setChecks(repo, pull.number, 'SUCCESS');
        world.mergePull(repo, pull.number, repo.owner);
      }
      return { events: world.eventLog(), json: JSON.stringify(world) };
    }
    const [first, second] = await Promise.all([scenario(join(root, 'replay-a')), scenario(join(root, 'replay-b'))]);
    expect(first.events).toHaveLength(12);
    expect(second.events).toEqual(first.events);
    expect(second.json).toBe(first.json);
    // Both durafmt fixes merged one after the other: they touch different hunks.
    expect(JSON.parse(first.json)).toMatchObject({
      pulls: expect.arrayContaining([expect.objectContaining({ repoId: 3, number: 7, state: 'MERGED' })]) as unknown,
    });
  });
});
