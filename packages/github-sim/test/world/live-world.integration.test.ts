// Live worlds as data: deterministic from the seed (commit oids included), laid out as the git
// server serves them, meeting the registry criteria, and read with the scale world's semantics.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isBugLabel, isOsiApproved, MERGED_PULL_WINDOW_DAYS } from '../../src/world/criteria.js';
import type { SimRepo } from '../../src/world/model.js';
import { git } from '../../src/world/live/git.js';
import type { LiveWorld } from '../../src/world/live/world.js';
import { createLiveWorld, knownFixes, LiveWorldError, SOLVER_LOGIN } from '../../src/world/live/world.js';

let root: string;
let world: LiveWorld;
let twin: LiveWorld;
let other: LiveWorld;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-live-world-'));
  [world, twin, other] = await Promise.all([
    createLiveWorld({ seed: 7, dir: join(root, 'a') }),
    createLiveWorld({ seed: 7, dir: join(root, 'b') }),
    createLiveWorld({ seed: 8, dir: join(root, 'c') }),
  ]);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function allRepos(of: LiveWorld): SimRepo[] {
  return Array.from({ length: of.repoCount() }, (_, index) => of.repoAt(index) as SimRepo);
}

const upstreams = (of: LiveWorld) => allRepos(of).filter((repo) => !repo.isFork);

async function revList(of: LiveWorld, repo: SimRepo): Promise<string> {
  return (await git(['rev-list', '--all', '--format=%H %P %an %ae %at %cn %ce %ct'], { cwd: of.gitPathOf(repo) }))
    .stdout;
}

describe('live world generation', () => {
  it('is identical for the same seed, down to every commit oid, and differs for another seed', async () => {
    expect(world.kind).toBe('live');
    expect(world.generatedAt).toBe('2026-11-01T00:00:00Z');
    expect(JSON.stringify(twin)).toBe(JSON.stringify(world));
    for (const repo of allRepos(world)) expect(await revList(twin, repo)).toBe(await revList(world, repo));
    expect(JSON.stringify(other)).not.toBe(JSON.stringify(world));
    for (const [index, repo] of upstreams(world).entries())
      expect(upstreams(other)[index]?.headOid).not.toBe(repo.headOid);
  });

  it('moves the whole history with generatedAt', async () => {
    const dir = join(root, 'june');
    const june = await createLiveWorld({ seed: 7, dir, generatedAt: '2026-06-01T00:00:00Z' });
    expect(june.generatedAt).toBe('2026-06-01T00:00:00Z');
    for (const repo of upstreams(june)) {
      expect(Date.parse(repo.lastMergedPullAt ?? '')).toBeLessThan(Date.parse('2026-06-01T00:00:00Z'));
      expect(repo.headOid).not.toBe(world.repoById(repo.id)?.headOid);
    }
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a folder that is not empty and a clock that is not a timestamp', async () => {
    const dir = join(root, 'used');
    await createLiveWorld({ seed: 1, dir: join(dir, 'inner') });
    await expect(createLiveWorld({ seed: 1, dir })).rejects.toMatchObject({ code: 'dir-not-empty' });
    await expect(createLiveWorld({ seed: 1, dir: join(root, 'fresh'), generatedAt: 'soon' })).rejects.toBeInstanceOf(
      LiveWorldError,
    );
    await rm(dir, { recursive: true, force: true });
  });

  it('writes bare repositories where the git server looks, and forks only the solver can push to', async () => {
    const repos = allRepos(world);
    expect(repos.map((repo) => repo.id)).toEqual(Array.from({ length: 16 }, (_, index) => index + 1));
    expect(new Set(upstreams(world).map((repo) => repo.primaryLanguage))).toEqual(
      new Set(['JavaScript', 'Python', 'Go', 'Rust']),
    );
    for (const repo of repos) {
      expect(world.gitPathOf(repo)).toBe(join(world.gitRoot, repo.owner, `${repo.name}.git`));
      expect((await git(['rev-parse', 'refs/heads/main'], { cwd: world.gitPathOf(repo) })).stdout.trim()).toBe(
        repo.headOid,
      );
      expect(world.canPush(repo.owner, repo.name)).toBe(repo.isFork);
    }
    for (const fork of repos.filter((repo) => repo.isFork)) {
      expect(fork.owner).toBe(SOLVER_LOGIN);
      expect(fork.headOid).toBe(world.parentOf(fork)?.headOid);
    }
    expect(world.canPush('nobody', 'textkit')).toBe(false);
  });

  it('keeps known fixes out of the served repositories: every object there is reachable', async () => {
    for (const repo of allRepos(world)) {
      const cwd = world.gitPathOf(repo);
      const reachable = new Set(
        (await git(['rev-list', '--all', '--objects'], { cwd })).stdout
          .split('\n')
          .filter(Boolean)
          .map((line) => line.slice(0, 40)),
      );
      const stored = (await git(['cat-file', '--batch-all-objects', '--batch-check=%(objectname)'], { cwd })).stdout
        .split('\n')
        .filter(Boolean);
      expect(stored.filter((oid) => !reachable.has(oid))).toEqual([]);
    }
  });
});

describe('live world contents', () => {
  it('gives every repository a merged pull request within the window, a closed issue and labeled bugs', async () => {
    const windowStart = Date.parse(world.generatedAt) - MERGED_PULL_WINDOW_DAYS * 86_400_000;
    for (const repo of upstreams(world)) {
      expect(isOsiApproved(repo.licenseSpdxId ?? '')).toBe(true);
      expect(Date.parse(repo.lastMergedPullAt ?? '')).toBeGreaterThanOrEqual(windowStart);
      const merged = world.pulls(repo, { states: ['MERGED'] }, 0, 10).items;
      expect(merged).toHaveLength(1);
      const [pull] = merged;
      if (!pull?.mergeCommitOid) throw new Error('no merge commit');
      // The merge commit is real: two parents, the base and the pull request's head, kept as refs/pull/<n>/head.
      const parents = (
        await git(['log', '-1', '--format=%P', pull.mergeCommitOid], { cwd: world.gitPathOf(repo) })
      ).stdout.trim();
      expect(parents).toBe(`${pull.baseRefOid} ${pull.headRefOid}`);
      expect(
        (await git(['rev-parse', `refs/pull/${pull.number}/head`], { cwd: world.gitPathOf(repo) })).stdout.trim(),
      ).toBe(pull.headRefOid);
      expect(pull.additions).toBeGreaterThan(0);
      const closed = world.issues(repo, { states: ['CLOSED'] }, 0, 10).items;
      expect(closed.map((issue) => [issue.number, issue.stateReason, issue.closedAt])).toEqual([
        [1, 'COMPLETED', pull.mergedAt],
      ]);
      expect(pull.closesIssues).toEqual([1]);
      const open = world.issues(repo, { states: ['OPEN'] }, 0, 50).items;
      expect(open.length).toBe(repo.openIssueCount);
      expect(open.filter((issue) => issue.labels.length > 0).length / open.length).toBeGreaterThanOrEqual(0.5);
      expect(open.some((issue) => issue.labels.some(isBugLabel))).toBe(true);
      expect(repo.files.some((file) => file.path === '.github/workflows/ci.yml')).toBe(true);
    }
  });

  it('plants the scenarios the freeze and the draw need: fixes, a breaking fix, conflicting fixes, a flaky test, questions', () => {
    const fixes = knownFixes(world);
    expect(fixes).toHaveLength(12);
    for (const fix of fixes) {
      const repo = upstreams(world).find((candidate) => `${candidate.owner}/${candidate.name}` === fix.repo) as SimRepo;
      const issue = world.issue(repo, fix.issue);
      expect([issue?.state, issue?.kind]).toEqual(['OPEN', 'bug']);
      expect(fix.body).toContain(`Fixes #${fix.issue}`);
      expect(fix.patch).toMatch(/^diff --git /);
      expect(fix.failToPass.length).toBeGreaterThan(0);
    }
    expect(fixes.filter((fix) => fix.breaks.length > 0).map((fix) => `${fix.repo}#${fix.issue}`)).toEqual([
      'tobias-pyrite/rangeset#3',
    ]);
    expect(
      fixes
        .filter((fix) => fix.conflictsWith.length > 0)
        .map((fix) => `${fix.repo}#${fix.issue}:${fix.conflictsWith.join()}`),
    ).toEqual(['ana-ferris/semver-lite#3:4', 'ana-ferris/semver-lite#4:3']);
    expect(world.flakyTests().map((flaky) => flaky.test)).toEqual([
      'tests/test_roundtrip.py::test_format_round_trips_random_ranges',
    ]);
    const kinds = upstreams(world).flatMap((repo) =>
      world
        .issues(repo, { states: ['OPEN'] }, 0, 50)
        .items.filter(
          (issue) => !fixes.some((fix) => fix.issue === issue.number && fix.repo === `${repo.owner}/${repo.name}`),
        )
        .map((issue) => issue.kind),
    );
    expect(kinds.filter((kind) => kind === 'question')).toHaveLength(3);
    expect(world.toJSON().runners).toEqual({
      'mira-quill/textkit': 'node-test',
      'tobias-pyrite/rangeset': 'pytest',
      'hal-gopher/durafmt': 'go-test',
      'ana-ferris/semver-lite': 'cargo-test',
      'dara-okafor/mdanchor': 'vitest',
      'priya-venkat/batchkit': 'pytest',
      'ines-kovac/wordwrap': 'go-test',
      'malin-berg/tallyho': 'cargo-test',
    });
    // The repositories whose tests need third-party packages say what their CI installs from the registries first.
    expect(
      Object.fromEntries(
        upstreams(world).flatMap((repo) => {
          const install = world.installOf(repo);
          return install === undefined ? [] : [[repo.name, install]];
        }),
      ),
    ).toEqual({
      mdanchor: 'npm ci --no-audit --no-fund',
      batchkit: 'python3 -m venv .venv && .venv/bin/python -m pip install --quiet -e ".[test]"',
      wordwrap: 'go mod download',
      tallyho: 'cargo fetch',
    });
  });
});

describe('live world reads', () => {
  const textkit = () => world.repoByName('MIRA-QUILL', 'TextKit') as SimRepo;

  it('resolves names case-insensitively, and owners are users who maintain their repositories', () => {
    const repo = textkit();
    expect(repo.name).toBe('textkit');
    expect(world.userByLogin(repo.owner)?.maintainerOf).toContain(repo.id);
    const solver = world.userByLogin(SOLVER_LOGIN);
    expect(solver?.maintainerOf).toEqual([9, 10, 11, 12, 13, 14, 15, 16]);
    expect(world.userById(solver?.id ?? 0)?.login).toBe(SOLVER_LOGIN);
    for (const issue of upstreams(world).flatMap((r) => world.issues(r, {}, 0, 50).items))
      expect(world.userByLogin(issue.authorLogin)).toBeDefined();
  });

  it('numbers issues and pull requests together, and looks each up only as what it is', () => {
    const repo = textkit();
    expect(world.issues(repo, {}, 0, 50).items.map((issue) => issue.number)).toEqual([1, 3, 4, 5]);
    expect(world.pulls(repo, {}, 0, 50).items.map((pull) => pull.number)).toEqual([2]);
    expect(world.issue(repo, 2)).toBeUndefined();
    expect(world.pull(repo, 3)).toBeUndefined();
    expect(world.pull(repo, 2)?.state).toBe('MERGED');
  });

  it('filters and orders issues as the scale world does', () => {
    const repo = textkit();
    const all = world.issues(repo, {}, 0, 50).items;
    expect(world.issues(repo, { labels: ['BUG'] }, 0, 50).items.map((issue) => issue.number)).toEqual([1, 3, 5]);
    expect(
      world
        .issues(repo, { labels: ['question', 'good first issue'], states: ['OPEN'] }, 0, 50)
        .items.map((issue) => issue.number),
    ).toEqual([4, 5]);
    const byUpdate = world.issues(repo, { orderBy: { field: 'UPDATED_AT', direction: 'DESC' } }, 0, 50).items;
    expect(byUpdate.map((issue) => issue.number)).toEqual(
      [...all]
        .sort((a, b) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt) || b.number - a.number)
        .map((issue) => issue.number),
    );
    const byComments = world.issues(repo, { orderBy: { field: 'COMMENTS', direction: 'DESC' } }, 0, 50).items;
    expect(byComments.map((issue) => issue.commentCount)).toEqual(
      [...all.map((issue) => issue.commentCount)].sort((a, b) => b - a),
    );
    const since = byUpdate[1]?.updatedAt ?? '';
    expect(
      world
        .issues(repo, { since }, 0, 50)
        .items.map((issue) => issue.number)
        .sort(),
    ).toEqual(
      byUpdate
        .slice(0, 2)
        .map((issue) => issue.number)
        .sort(),
    );
    const page = world.issues(repo, {}, 1, 2);
    expect([page.total, page.items.map((issue) => issue.number)]).toEqual([4, [3, 4]]);
    expect(() => world.issues(repo, {}, -1, 2)).toThrow(RangeError);
  });

  it('serves comments oldest first after the issue was opened', () => {
    const repo = textkit();
    const issue = world.issue(repo, 3);
    const comments = world.comments(repo, 3, 0, 10);
    expect(comments.total).toBe(issue?.commentCount);
    const times = comments.items.map((comment) => Date.parse(comment.createdAt));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times[0]).toBeGreaterThan(Date.parse(issue?.createdAt ?? ''));
    expect(Date.parse(issue?.updatedAt ?? '')).toBe(times[times.length - 1]);
  });

  it('searches like GitHub: forks only when asked, ordered with ties by id', () => {
    const byStars = world.searchRepos({ sort: 'stars', direction: 'desc' }, 0, 20);
    expect(byStars.total).toBe(8);
    const stars = byStars.items.map((repo) => repo.stargazerCount);
    expect(stars).toEqual([...stars].sort((a, b) => b - a));
    expect(world.searchRepos({ sort: 'stars', direction: 'asc', includeForks: true }, 0, 20).total).toBe(16);
    expect(
      world.searchRepos({ sort: 'updated', direction: 'desc', language: 'go' }, 0, 20).items.map((repo) => repo.name),
    ).toEqual(['durafmt', 'wordwrap']);
    expect(world.searchRepos({ sort: 'stars', direction: 'desc', minStars: 100_000 }, 0, 20).total).toBe(0);
  });

  it('returns copies, so a caller cannot change the world by editing a record', () => {
    const repo = textkit();
    const issue = world.issue(repo, 3) as { title: string };
    issue.title = 'changed';
    expect(world.issue(repo, 3)?.title).not.toBe('changed');
  });
});
