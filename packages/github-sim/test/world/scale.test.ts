import { describe, expect, it } from 'vitest';
import type { IssueQuery, SimIssue, SimRepo } from '../../src/world/model.js';
import type { ScaleWorld } from '../../src/world/scale.js';
import { createScaleWorld, DEFAULT_GENERATED_AT } from '../../src/world/scale.js';

function allRepos(world: ScaleWorld): SimRepo[] {
  return Array.from({ length: world.repoCount() }, (_, index) => world.repoAt(index) as SimRepo);
}

/** The repository with the most issues: the one pagination and ordering are hardest on. */
function biggest(world: ScaleWorld): SimRepo {
  return allRepos(world).reduce((best, repo) =>
    repo.openIssueCount + repo.closedIssueCount > best.openIssueCount + best.closedIssueCount ? repo : best,
  );
}

function pageThrough<T>(fetch: (offset: number, limit: number) => { total: number; items: T[] }, size: number): T[] {
  const items: T[] = [];
  for (let offset = 0; ; offset += size) {
    const page = fetch(offset, size);
    items.push(...page.items);
    if (offset + size >= page.total) return items;
  }
}

const small = { seed: 11, repos: 200, issues: 20_000 };

describe('scale world generation', () => {
  it('is identical for the same seed whatever order records are read in', () => {
    const first = createScaleWorld(small);
    const second = createScaleWorld(small);
    expect(first.kind).toBe('scale');
    expect(first.generatedAt).toBe(DEFAULT_GENERATED_AT);
    expect(JSON.stringify(allRepos(second))).toBe(JSON.stringify(allRepos(first)));
    const sampled = [0, 7, 42, 199].map((index) => first.repoAt(index) as SimRepo);
    // The second world reads in reverse order, after other repositories' backlogs were built.
    const read = (world: ScaleWorld, repo: SimRepo) =>
      JSON.stringify([
        world.issues(repo, { orderBy: { field: 'UPDATED_AT', direction: 'DESC' } }, 5, 30),
        world.pulls(repo, {}, 0, 20),
        world.comments(repo, 1, 0, 10),
        world.issue(repo, 3) ?? world.pull(repo, 3),
      ]);
    const expected = sampled.map((repo) => read(first, repo));
    const actual = [...sampled]
      .reverse()
      .map((repo) => read(second, repo))
      .reverse();
    expect(actual).toEqual(expected);
    expect(first.userByLogin((first.repoAt(0) as SimRepo).owner)).toEqual(
      second.userByLogin((second.repoAt(0) as SimRepo).owner),
    );

    const other = createScaleWorld({ ...small, seed: 12 });
    expect(JSON.stringify(allRepos(other))).not.toBe(JSON.stringify(allRepos(first)));
  });

  it('spreads exactly the requested issues over repositories with a heavy tail', () => {
    const world = createScaleWorld({ seed: 5, repos: 500, issues: 50_000 });
    const repos = allRepos(world);
    const counts = repos.map((repo) => repo.openIssueCount + repo.closedIssueCount);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(50_000);
    expect(world.totals().issues).toBe(50_000);
    counts.sort((a, b) => b - a);
    const topTenth = counts.slice(0, 50).reduce((a, b) => a + b, 0);
    expect(topTenth / 50_000).toBeGreaterThan(0.3);
    expect(counts.filter((count) => count === 0).length).toBeGreaterThan(0);
    for (const repo of repos.slice(0, 60)) {
      expect(world.issues(repo, { states: ['OPEN'] }, 0, 0).total).toBe(repo.openIssueCount);
      expect(world.issues(repo, { states: ['CLOSED'] }, 0, 0).total).toBe(repo.closedIssueCount);
      expect(world.issues(repo, {}, 0, 0).total).toBe(repo.openIssueCount + repo.closedIssueCount);
      expect(world.pulls(repo, {}, 0, 0).total).toBe(repo.pullRequestCount);
    }
  });

  it('shares one number sequence between issues and pull requests', () => {
    const world = createScaleWorld(small);
    for (const repo of allRepos(world).slice(0, 40)) {
      const total = repo.openIssueCount + repo.closedIssueCount + repo.pullRequestCount;
      const issueNumbers = pageThrough((offset, limit) => world.issues(repo, {}, offset, limit), 100).map(
        (issue) => issue.number,
      );
      const pullNumbers = pageThrough((offset, limit) => world.pulls(repo, {}, offset, limit), 100).map(
        (pull) => pull.number,
      );
      expect([...issueNumbers, ...pullNumbers].sort((a, b) => a - b)).toEqual(
        Array.from({ length: total }, (_, index) => index + 1),
      );
      for (const n of [1, Math.ceil(total / 2), total]) {
        if (total === 0) continue;
        expect(world.issue(repo, n) === undefined).toBe(world.pull(repo, n) !== undefined);
      }
      expect(world.issue(repo, total + 1)).toBeUndefined();
      expect(world.pull(repo, 0)).toBeUndefined();
    }
  });

  it('builds the full 5,000-repository, 1,000,000-issue world lazily', () => {
    // How long it takes is bench/sim-scale-world.ts's to say.
    const world = createScaleWorld({ seed: 1, repos: 5_000, issues: 1_000_000 });
    expect(world.repoCount()).toBe(5_000);
    const totals = world.totals();
    expect(totals.issues).toBe(1_000_000);
    expect(totals.pulls).toBeGreaterThan(100_000);
    const repo = biggest(world);
    const open = world.issues(repo, { states: ['OPEN'] }, 0, 100);
    expect(open.total).toBe(repo.openIssueCount);
    expect(open.items).toHaveLength(Math.min(100, repo.openIssueCount));
  });
});

describe('scale world queries', () => {
  const world = createScaleWorld({ seed: 21, repos: 300, issues: 40_000 });
  const repo = biggest(world);
  const bugLabel = repo.labels.find((label) => /bug/i.test(label.name))?.name ?? repo.labels[0]!.name;

  const queries: IssueQuery[] = [
    {},
    { states: ['OPEN'] },
    { states: ['CLOSED'], orderBy: { field: 'CREATED_AT', direction: 'DESC' } },
    { orderBy: { field: 'UPDATED_AT', direction: 'DESC' } },
    { states: ['OPEN'], orderBy: { field: 'COMMENTS', direction: 'ASC' } },
    { labels: [bugLabel.toUpperCase()], orderBy: { field: 'UPDATED_AT', direction: 'ASC' } },
    { states: ['OPEN', 'CLOSED'], since: '2026-06-01T00:00:00Z', orderBy: { field: 'UPDATED_AT', direction: 'DESC' } },
  ];

  it('pages issue listings that concatenate to the whole listing, filtered and ordered', () => {
    const everything = pageThrough((offset, limit) => world.issues(repo, {}, offset, limit), 500);
    for (const query of queries) {
      const whole = world.issues(repo, query, 0, 100_000);
      const paged = pageThrough((offset, limit) => world.issues(repo, query, offset, limit), 37);
      expect(paged.map((issue) => issue.number)).toEqual(whole.items.map((issue) => issue.number));
      expect(new Set(paged.map((issue) => issue.number)).size).toBe(paged.length);
      const expected = everything.filter(
        (issue) =>
          (query.states === undefined || query.states.includes(issue.state)) &&
          (query.labels === undefined ||
            issue.labels.some((name) => query.labels!.some((wanted) => wanted.toLowerCase() === name.toLowerCase()))) &&
          (query.since === undefined || issue.updatedAt >= query.since),
      );
      expect(whole.total).toBe(expected.length);
      expect(new Set(paged.map((issue) => issue.number))).toEqual(new Set(expected.map((issue) => issue.number)));
      const field = query.orderBy?.field ?? 'CREATED_AT';
      const sign = query.orderBy?.direction === 'DESC' ? -1 : 1;
      const key = (issue: SimIssue) =>
        field === 'COMMENTS'
          ? issue.commentCount
          : Date.parse(field === 'UPDATED_AT' ? issue.updatedAt : issue.createdAt);
      for (let i = 1; i < paged.length; i++) {
        const [previous, current] = [paged[i - 1]!, paged[i]!];
        expect(sign * (key(current) - key(previous) || current.number - previous.number)).toBeGreaterThan(0);
      }
    }
    expect(world.issues(repo, { labels: ['no such label'] }, 0, 10).total).toBe(0);
    expect(world.issues(repo, {}, 1_000_000, 10)).toEqual({ total: everything.length, items: [] });
  });

  it('pages pull requests by state and order', () => {
    const all = pageThrough((offset, limit) => world.pulls(repo, {}, offset, limit), 100);
    for (const state of ['OPEN', 'CLOSED', 'MERGED'] as const) {
      const listed = pageThrough(
        (offset, limit) =>
          world.pulls(repo, { states: [state], orderBy: { field: 'UPDATED_AT', direction: 'DESC' } }, offset, limit),
        29,
      );
      expect(listed.every((pull) => pull.state === state)).toBe(true);
      expect(listed.length).toBe(all.filter((pull) => pull.state === state).length);
      for (let i = 1; i < listed.length; i++) expect(listed[i - 1]!.updatedAt >= listed[i]!.updatedAt).toBe(true);
    }
    const newestFirst = world
      .pulls(repo, { orderBy: { field: 'CREATED_AT', direction: 'DESC' } }, 0, 5)
      .items.map((pull) => pull.number);
    expect(newestFirst).toEqual(
      all
        .map((pull) => pull.number)
        .reverse()
        .slice(0, 5),
    );
  });

  it('serves comments oldest first within the thread', () => {
    const issue = world.issues(repo, { orderBy: { field: 'COMMENTS', direction: 'DESC' } }, 0, 1).items[0]!;
    const comments = pageThrough((offset, limit) => world.comments(repo, issue.number, offset, limit), 7);
    expect(comments).toHaveLength(issue.commentCount);
    expect(new Set(comments.map((comment) => comment.id)).size).toBe(comments.length);
    for (let i = 1; i < comments.length; i++) expect(comments[i - 1]!.createdAt <= comments[i]!.createdAt).toBe(true);
    expect(comments.at(-1)?.createdAt).toBe(issue.updatedAt);
    expect(comments[0]!.createdAt >= issue.createdAt).toBe(true);
    expect(world.comments(repo, 10_000_000, 0, 10)).toEqual({ total: 0, items: [] });
  });

  it('searches repositories by star band and language, sorted with a stable tiebreak', () => {
    const repos = allRepos(world);
    const stars = pageThrough(
      (offset, limit) => world.searchRepos({ sort: 'stars', direction: 'desc' }, offset, limit),
      30,
    );
    expect(stars.length).toBe(repos.filter((candidate) => !candidate.isFork).length);
    for (let i = 1; i < stars.length; i++) {
      const [previous, current] = [stars[i - 1]!, stars[i]!];
      expect(
        previous.stargazerCount > current.stargazerCount ||
          (previous.stargazerCount === current.stargazerCount && previous.id > current.id),
      ).toBe(true);
    }
    const band = world.searchRepos(
      { minStars: 10, maxStars: 100, sort: 'stars', direction: 'asc', includeForks: true, includeArchived: false },
      0,
      1_000,
    );
    expect(band.total).toBe(
      repos.filter(
        (candidate) => candidate.stargazerCount >= 10 && candidate.stargazerCount <= 100 && !candidate.isArchived,
      ).length,
    );
    expect(
      band.items.every(
        (candidate) => candidate.stargazerCount >= 10 && candidate.stargazerCount <= 100 && !candidate.isArchived,
      ),
    ).toBe(true);
    const python = world.searchRepos(
      { language: 'python', sort: 'updated', direction: 'desc', includeForks: true },
      0,
      1_000,
    );
    expect(python.total).toBe(repos.filter((candidate) => candidate.primaryLanguage === 'Python').length);
    for (let i = 1; i < python.items.length; i++)
      expect(python.items[i - 1]!.updatedAt >= python.items[i]!.updatedAt).toBe(true);
    // Star bands partition the listing: how discovery gets past the 1,000-result cap.
    const bands = [
      [0, 9],
      [10, 99],
      [100, 999],
      [1_000, Number.MAX_SAFE_INTEGER],
    ] as const;
    const banded = bands.flatMap(([minStars, maxStars]) =>
      pageThrough(
        (offset, limit) =>
          world.searchRepos(
            { minStars, maxStars, sort: 'stars', direction: 'desc', includeForks: true },
            offset,
            limit,
          ),
        100,
      ),
    );
    expect(new Set(banded.map((candidate) => candidate.id))).toEqual(new Set(repos.map((candidate) => candidate.id)));
  });

  it('looks repositories and users up case-insensitively', () => {
    const target = world.repoAt(17)!;
    expect(world.repoByName(target.owner.toUpperCase(), target.name.toLowerCase())).toBe(target);
    expect(world.repoByName(target.owner, `${target.name}-missing`)).toBeUndefined();
    expect(world.repoById(target.id)).toBe(target);
    expect(world.repoById(0)).toBeUndefined();
    const owner = world.userByLogin(target.owner.toUpperCase());
    expect(owner?.login).toBe(target.owner);
    expect(owner?.maintainerOf).toContain(target.id);
    expect(world.userById(owner!.id)).toBe(owner);
    expect(world.userByLogin('dependabot[bot]')?.type).toBe('Bot');
    const names = allRepos(world).map((candidate) => `${candidate.owner}/${candidate.name}`.toLowerCase());
    expect(new Set(names).size).toBe(names.length);
  });

  it('rejects malformed pages and timestamps', () => {
    expect(() => world.issues(repo, {}, -1, 10)).toThrow(RangeError);
    expect(() => world.searchRepos({ sort: 'stars', direction: 'desc' }, 0, 1.5)).toThrow(RangeError);
    expect(() => world.issues(repo, { since: 'yesterday' }, 0, 10)).toThrow(RangeError);
    expect(() => createScaleWorld({ seed: 1, repos: 0, issues: 10 })).toThrow(RangeError);
    expect(() => createScaleWorld({ seed: 1, repos: 1, issues: 10, generatedAt: 'soon' })).toThrow(
      /2026-11-01T00:00:00Z/,
    );
  });
});
