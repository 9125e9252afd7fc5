// The backlog read over real HTTP and real GraphQL from the simulator: a 300-repository scale world read in full is
// the world's open backlog exactly, its eligibility agrees with the world's ground-truth issue kinds, and an
// incremental refresh after changes costs under a tenth of a full read and equals a full read at the same time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AbpOctokit, createGithubClient, type GithubClient } from '../../../src/github/client.js';
import { bodySignals } from '@abp/protocol/backlog/body-signals';
import { eligiblePool, issueVerdict, type EligibilityReason } from '@abp/protocol/backlog/eligibility';
import { BacklogError } from '@abp/protocol/backlog/errors';
import { fetchSnapshot, refreshSnapshot, type BacklogFetch } from '../../../src/registry/backlog-fetch.js';
import { snapshotDigest } from '@abp/protocol/backlog/snapshot';
import type { BacklogIssue, BacklogSnapshot } from '@abp/protocol/backlog/types';
import { startSimulator, type RunningSimulator } from '@abp/github-sim/server';
import type { SimIssue, SimPull, SimRepo } from '@abp/github-sim/world/model';
import { createScaleWorld, type ScaleWorld } from '@abp/github-sim/world/scale';
import { EditableWorld } from './support/editable-world.js';

const TOKEN = 'backlog-token';
const REGISTRY = 'abp-registry/2026Q4';
const HOUR = 3_600_000;

let scale: ScaleWorld;
let world: EditableWorld;
let sim: RunningSimulator;
let github: GithubClient;
let names: string[];
/** The first snapshot's takenAt: a minute after the world's clock, as a read starts after the data it reads. */
let t0: string;
let first: BacklogFetch;
/** The open pull request, older than the first snapshot, that claims a closed issue the refresh test reopens. */
let dormantClaim: { repo: SimRepo; issue: number; pull: number };

function iso(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

function repoOf(name: string): SimRepo {
  const [owner = '', repo = ''] = name.split('/');
  const found = world.repoByName(owner, repo);
  if (found === undefined) throw new Error(`${name} is not in the world`);
  return found;
}

function all<T>(list: (offset: number, limit: number) => { total: number; items: T[] }): T[] {
  return list(0, list(0, 0).total).items;
}

function openIssues(repo: SimRepo): SimIssue[] {
  return all((offset, limit) => world.issues(repo, { states: ['OPEN'] }, offset, limit));
}

function openPulls(repo: SimRepo): SimPull[] {
  return all((offset, limit) => world.pulls(repo, { states: ['OPEN'] }, offset, limit));
}

/** The world's claims: the open pull requests whose closing references name each issue. */
function worldClaims(repo: SimRepo): Map<number, number[]> {
  const claims = new Map<number, number[]>();
  for (const pull of openPulls(repo))
    for (const issue of pull.closesIssues)
      claims.set(
        issue,
        [...(claims.get(issue) ?? []), pull.number].sort((a, b) => a - b),
      );
  return claims;
}

/** The throttling plugin spaces GraphQL calls a second apart, as GitHub asks; nothing here depends on that pacing. */
function unthrottledClient(): GithubClient {
  return new AbpOctokit({ auth: TOKEN, baseUrl: sim.apiUrl, throttle: { enabled: false } });
}

function read(takenAt: string, repos: readonly string[] = names): Promise<BacklogFetch> {
  return fetchSnapshot(github, { registryVersion: REGISTRY, repos, takenAt });
}

/** An open pull request opened at `at` whose body closes `closes`. */
function openPull(repo: SimRepo, number: number, at: string, closes: number): SimPull {
  return {
    repoId: repo.id,
    number,
    title: `Fix #${closes}`,
    body: `Fixes #${closes}`,
    state: 'OPEN',
    authorLogin: 'contributor',
    createdAt: at,
    updatedAt: at,
    closedAt: null,
    mergedAt: null,
    mergedByLogin: null,
    baseRefName: repo.defaultBranch,
    baseRefOid: 'a'.repeat(40),
    headRefName: `fix-${closes}`,
    headRefOid: 'b'.repeat(40),
    mergeCommitOid: null,
    additions: 3,
    deletions: 1,
    changedFiles: 1,
    checks: null,
    closesIssues: [closes],
  };
}

function issueCount(snapshot: BacklogSnapshot): number {
  return snapshot.repos.reduce((sum, entry) => sum + entry.issues.length, 0);
}

function issueAt(snapshot: BacklogSnapshot, repo: string, number: number): BacklogIssue | undefined {
  return snapshot.repos.find((entry) => entry.repo === repo)?.issues.find((issue) => issue.number === number);
}

beforeAll(async () => {
  scale = createScaleWorld({ seed: 424_242, repos: 300, issues: 30_000 });
  world = new EditableWorld(scale);
  t0 = iso(Date.parse(world.generatedAt) + 60_000);
  names = Array.from({ length: world.repoCount() }, (_, index) => {
    const repo = world.repoAt(index) as SimRepo;
    return `${repo.owner}/${repo.name}`;
  });

  // An open pull request from before the first snapshot that closes an issue which is closed by then: the refresh
  // test reopens the issue, and nothing else about the pull request changes.
  const repo = names
    .map(repoOf)
    .find(
      (candidate) =>
        all((offset, limit) => world.issues(candidate, { states: ['CLOSED'] }, offset, limit)).length > 0 &&
        openIssues(candidate).length > 0,
    );
  if (repo === undefined) throw new Error('the world has no repository with a closed issue');
  const closed = all((offset, limit) => world.issues(repo, { states: ['CLOSED'] }, offset, limit))[0] as SimIssue;
  const pull = world.nextNumber(repo);
  world.setPull(openPull(repo, pull, iso(Date.parse(t0) - 5 * 24 * HOUR), closed.number));
  dormantClaim = { repo, issue: closed.number, pull };

  sim = await startSimulator({ world, tokens: new Set([TOKEN]) });
  github = unthrottledClient();
  first = await read(t0);
});

afterAll(async () => {
  await sim.close();
});

describe('a full snapshot of a 300-repository scale world', () => {
  it('holds every open issue of every repository once, with the fields the world serves', () => {
    expect(first.missing).toEqual([]);
    expect(first.snapshot.repos.map((entry) => entry.repo)).toEqual([...names].sort());
    expect(first.snapshot.takenAt).toBe(t0);
    expect(issueCount(first.snapshot)).toBe(scale.totals().openIssues);
    for (const entry of first.snapshot.repos) {
      const repo = repoOf(entry.repo);
      const open = openIssues(repo);
      expect(entry.issues.map((issue) => issue.number)).toEqual(open.map((issue) => issue.number));
      open.forEach((issue, index) => {
        expect(entry.issues[index]).toMatchObject({
          title: issue.title,
          labels: [...issue.labels].sort(),
          author: issue.authorLogin,
          createdAt: issue.createdAt,
          updatedAt: issue.updatedAt,
          comments: issue.commentCount,
          signals: bodySignals(issue.title, issue.body),
        });
      });
    }
  });

  it('records the open pull requests that claim each issue', () => {
    let claimed = 0;
    for (const entry of first.snapshot.repos) {
      const claims = worldClaims(repoOf(entry.repo));
      for (const issue of entry.issues)
        expect(issue.claimedBy, `${entry.repo}#${issue.number}`).toEqual(claims.get(issue.number) ?? []);
      claimed += entry.issues.filter((issue) => issue.claimedBy.length > 0).length;
    }
    expect(claimed).toBeGreaterThan(50);
  });

  it('reads the same digest twice, at the same cost', async () => {
    const served = sim.apiRequests();
    const again = await read(t0);
    expect(sim.apiRequests() - served).toBe(again.cost.requests);
    expect(snapshotDigest(again.snapshot)).toBe(snapshotDigest(first.snapshot));
    expect(again.cost).toEqual(first.cost);
    // The documented formula: about two connection requests per open issue, one per open pull request.
    expect(first.cost.points).toBeGreaterThan((2 * issueCount(first.snapshot)) / 100);
  });

  it('agrees exactly with the ground-truth kind of every open issue', () => {
    // Bugs are eligible unless claimed; every other kind is rejected for what it is. Chores carry no reproduction;
    // those labeled as documentation are out of scope first.
    const expected = (issue: SimIssue, claimed: boolean): EligibilityReason | null => {
      switch (issue.kind) {
        case 'bug':
          return claimed ? 'claimed' : null;
        case 'question':
          return 'question';
        case 'feature-debate':
          return 'feature-debate';
        case 'feature':
          return 'feature-request';
        case 'chore':
          return issue.labels.includes('documentation') ? 'out-of-scope' : 'not-reproducible';
      }
    };
    const byKind = new Map<string, { agree: number; total: number }>();
    for (const entry of first.snapshot.repos) {
      const repo = repoOf(entry.repo);
      for (const issue of entry.issues) {
        const truth = world.issue(repo, issue.number) as SimIssue;
        const tally = byKind.get(truth.kind) ?? { agree: 0, total: 0 };
        tally.total++;
        if (issueVerdict(issue) === expected(truth, issue.claimedBy.length > 0)) tally.agree++;
        byKind.set(truth.kind, tally);
      }
    }
    expect([...byKind.keys()].sort()).toEqual(['bug', 'chore', 'feature', 'feature-debate', 'question']);
    for (const [kind, tally] of byKind)
      expect(`${kind}: ${tally.agree}/${tally.total}`).toBe(`${kind}: ${tally.total}/${tally.total}`);
  });

  it('rejects every issue of an opted-out repository and keeps it out of the pool', () => {
    const [optedOut, other] = first.snapshot.repos.filter((entry) =>
      entry.issues.some((issue) => issueVerdict(issue) === null),
    );
    if (optedOut === undefined || other === undefined)
      throw new Error('the world has too few repositories with eligible issues');
    const { pool, rejected } = eligiblePool(first.snapshot, { optOuts: new Set([optedOut.repo.toUpperCase()]) });
    expect(pool.repos.map((entry) => entry.repo)).not.toContain(optedOut.repo);
    expect(pool.repos.map((entry) => entry.repo)).toContain(other.repo);
    expect(rejected.filter((entry) => entry.repo === optedOut.repo)).toEqual(
      optedOut.issues.map((issue) => ({ repo: optedOut.repo, number: issue.number, reason: 'opted-out' })),
    );
    expect(rejected.filter((entry) => entry.reason === 'opted-out')).toHaveLength(optedOut.issues.length);
  });
});

describe('an incremental refresh after the world changed', () => {
  const t1 = (): string => iso(Date.parse(t0) + HOUR);
  /** (repo, number) of every issue whose snapshot line the changes alter. */
  const changedLines = new Set<string>();
  let dropped: { repo: string; number: number }[] = [];

  beforeAll(() => {
    const at = t1();
    const dormantRepo = `${dormantClaim.repo.owner}/${dormantClaim.repo.name}`;
    const candidates = first.snapshot.repos.filter((entry) => entry.issues.length >= 3 && entry.repo !== dormantRepo);
    const [closing, editing, adding, claiming, deleting] = [0, 1, 2, 3, 4].map((index) => candidates[index * 7]);
    if (!closing || !editing || !adding || !claiming || !deleting)
      throw new Error('the world has too few repositories with open issues');
    const unclaiming = candidates.find(
      (entry) =>
        ![closing, editing, adding, claiming, deleting].includes(entry) &&
        entry.issues.some((issue) => issue.claimedBy.length > 0),
    );
    if (unclaiming === undefined) throw new Error('the world has no claimed issue');
    const sim = (name: string, number: number): SimIssue => world.issue(repoOf(name), number) as SimIssue;

    // Reopened: the pull request that claims it did not change.
    const reopened = world.issue(dormantClaim.repo, dormantClaim.issue) as SimIssue;
    world.setIssue({ ...reopened, state: 'OPEN', stateReason: 'REOPENED', closedAt: null, updatedAt: at });
    changedLines.add(`${dormantClaim.repo.owner}/${dormantClaim.repo.name}#${dormantClaim.issue}`);

    // Closed: leaves the backlog.
    const closed = closing.issues[1] as BacklogIssue;
    world.setIssue({
      ...sim(closing.repo, closed.number),
      state: 'CLOSED',
      stateReason: 'COMPLETED',
      closedAt: at,
      updatedAt: at,
    });
    dropped.push({ repo: closing.repo, number: closed.number });

    // Edited: a new title and label turn it into a question.
    const edited = editing.issues[0] as BacklogIssue;
    world.setIssue({
      ...sim(editing.repo, edited.number),
      title: 'How do I configure the cache?',
      labels: ['question'],
      updatedAt: at,
    });
    changedLines.add(`${editing.repo}#${edited.number}`);

    // Opened: a new bug report.
    const addRepo = repoOf(adding.repo);
    const number = world.nextNumber(addRepo);
    world.setIssue({
      repoId: addRepo.id,
      number,
      title: 'cache crashes on empty input',
      body: '### Steps to reproduce\n1. Call get("")\n2. See the crash',
      state: 'OPEN',
      stateReason: null,
      labels: [],
      authorLogin: 'reporter',
      createdAt: at,
      updatedAt: at,
      closedAt: null,
      commentCount: 0,
      kind: 'bug',
    });
    changedLines.add(`${adding.repo}#${number}`);

    // Claimed: a new pull request closes an unclaimed issue.
    const claimRepo = repoOf(claiming.repo);
    const target = claiming.issues.find((issue) => issue.claimedBy.length === 0) as BacklogIssue;
    world.setPull(openPull(claimRepo, world.nextNumber(claimRepo), at, target.number));
    changedLines.add(`${claiming.repo}#${target.number}`);

    // Unclaimed: the pull requests that claimed an issue are closed without merging.
    const claimedIssue = unclaiming.issues.find((issue) => issue.claimedBy.length > 0) as BacklogIssue;
    const unclaimRepo = repoOf(unclaiming.repo);
    for (const number of claimedIssue.claimedBy)
      world.setPull({ ...(world.pull(unclaimRepo, number) as SimPull), state: 'CLOSED', closedAt: at, updatedAt: at });
    changedLines.add(`${unclaiming.repo}#${claimedIssue.number}`);

    // Deleted: gone from every listing without a trace; only the open-issue count tells.
    const deleted = deleting.issues[2] as BacklogIssue;
    world.deleteIssue(repoOf(deleting.repo), deleted.number);
    dropped.push({ repo: deleting.repo, number: deleted.number });
    dropped = dropped.sort((a, b) => (a.repo < b.repo ? -1 : 1));
  });

  it('equals a full read at the same time, for under a tenth of its points', async () => {
    const refreshed = await refreshSnapshot(github, first.snapshot, {
      registryVersion: REGISTRY,
      repos: names,
      takenAt: t1(),
    });
    const full = await read(t1());
    expect(refreshed.mode).toBe('incremental');
    expect(snapshotDigest(refreshed.snapshot)).toBe(snapshotDigest(full.snapshot));
    expect(refreshed.cost.points).toBeLessThanOrEqual(full.cost.points / 10);
    expect(refreshed.cost.requests).toBeLessThan(full.cost.requests);
    expect(
      issueAt(refreshed.snapshot, `${dormantClaim.repo.owner}/${dormantClaim.repo.name}`, dormantClaim.issue)
        ?.claimedBy,
    ).toEqual([dormantClaim.pull]);
    for (const { repo, number } of dropped) expect(issueAt(refreshed.snapshot, repo, number)).toBeUndefined();
  });

  it('changes the digest, and exactly the changed lines, when issues change', async () => {
    const after = await read(t0);
    expect(snapshotDigest(after.snapshot)).not.toBe(snapshotDigest(first.snapshot));
    const lines = (snapshot: BacklogSnapshot): Map<string, string> =>
      new Map(
        snapshot.repos.flatMap((entry) =>
          entry.issues.map((issue) => [`${entry.repo}#${issue.number}`, JSON.stringify(issue)] as const),
        ),
      );
    const before = lines(first.snapshot);
    const now = lines(after.snapshot);
    const differing = [...new Set([...before.keys(), ...now.keys()])]
      .filter((key) => before.get(key) !== now.get(key))
      .sort();
    expect(differing).toEqual([...changedLines, ...dropped.map(({ repo, number }) => `${repo}#${number}`)].sort());
  });

  it('reads everything again when the previous snapshot used other signal rules', async () => {
    const stale: BacklogSnapshot = { ...first.snapshot, signalRules: 'abp-body-signals/0' };
    const refreshed = await refreshSnapshot(github, stale, {
      registryVersion: REGISTRY,
      repos: names.slice(0, 5),
      takenAt: t1(),
    });
    const full = await read(t1(), names.slice(0, 5));
    expect(refreshed.mode).toBe('full');
    expect(snapshotDigest(refreshed.snapshot)).toBe(snapshotDigest(full.snapshot));
  });

  it('reads repositories new to the list in full and drops those no longer listed', async () => {
    const previous: BacklogSnapshot = { ...first.snapshot, repos: first.snapshot.repos.slice(0, 4) };
    const kept = previous.repos.slice(2).map((entry) => entry.repo);
    const added = first.snapshot.repos.slice(4, 8).map((entry) => entry.repo);
    const repos = [...added, ...kept];
    const refreshed = await refreshSnapshot(github, previous, { registryVersion: REGISTRY, repos, takenAt: t1() });
    const full = await read(t1(), repos);
    expect(refreshed.snapshot.repos.map((entry) => entry.repo)).toEqual([...repos].sort());
    expect(snapshotDigest(refreshed.snapshot)).toBe(snapshotDigest(full.snapshot));
  });
});

describe('fetch options and GitHub answers', () => {
  it('leaves out a repository GitHub does not resolve and names it, through the production client', async () => {
    const production = createGithubClient({ baseUrl: sim.apiUrl, token: TOKEN });
    const repos = [names[0] as string, 'nobody-here/nothing-here'];
    const result = await fetchSnapshot(production, { registryVersion: REGISTRY, repos, takenAt: t0 });
    expect(result.missing).toEqual(['nobody-here/nothing-here']);
    expect(result.snapshot).toEqual((await read(t0, [names[0] as string])).snapshot);
  });

  it('refuses malformed and repeated repositories, a time that is not RFC 3339 with a zone, and a bad registry version', async () => {
    const code = async (repos: string[], takenAt = t0): Promise<unknown> =>
      fetchSnapshot(github, { registryVersion: REGISTRY, repos, takenAt }).then(
        () => 'resolved',
        (error: unknown) => (error instanceof BacklogError ? error.code : error),
      );
    await expect(code(['not a repo'])).resolves.toBe('invalid-fetch-options');
    await expect(code([names[0] as string, (names[0] as string).toUpperCase()])).resolves.toBe('invalid-fetch-options');
    await expect(code([names[0] as string], 'yesterday')).resolves.toBe('invalid-fetch-options');
    await expect(code([names[0] as string], '2026-11-01T00:00:00')).resolves.toBe('invalid-fetch-options');
    const wrongVersion = await fetchSnapshot(github, {
      registryVersion: '2026Q4',
      repos: [names[0] as string],
      takenAt: t0,
    }).catch((error: unknown) => error);
    expect((wrongVersion as BacklogError).code).toBe('invalid-fetch-options');
  });

  it('records takenAt in UTC, truncated to the second', async () => {
    const result = await fetchSnapshot(github, {
      registryVersion: REGISTRY,
      repos: [names[0] as string],
      takenAt: '2026-11-01T02:01:02.999+02:00',
    });
    expect(result.snapshot.takenAt).toBe('2026-11-01T00:01:02Z');
  });

  it('turns a refused token into github-query-failed', async () => {
    const stranger = new AbpOctokit({
      auth: 'not-a-known-token',
      baseUrl: sim.apiUrl,
      throttle: { enabled: false },
      retry: { enabled: false },
    });
    const error = await fetchSnapshot(stranger, {
      registryVersion: REGISTRY,
      repos: [names[0] as string],
      takenAt: t0,
    }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(BacklogError);
    expect((error as BacklogError).code).toBe('github-query-failed');
  });
});
