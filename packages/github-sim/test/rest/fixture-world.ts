// The REST suites' world: acme/widgets with 53 numbers shared by issues and pull requests (every
// sixth a pull request), two more hand-written repositories, and 1,050 Go repositories so search
// passes its 1,000-result window.
import type { SimComment, SimIssue, SimLabel, SimPull, SimRepo, SimUser } from '../../src/world/model.js';
import { MemoryWorld, simRepo } from '../support/memory-world.js';
import type { WorldData } from '../support/memory-world.js';

export const generatedAt = '2025-06-01T00:00:00.000Z';
const day = 24 * 3_600_000;
const at = (daysBefore: number, hours = 0): string =>
  new Date(Date.parse(generatedAt) - daysBefore * day + hours * 3_600_000).toISOString();

const labels: SimLabel[] = [
  { name: 'bug', color: 'd73a4a', description: "Something isn't working" },
  { name: 'enhancement', color: 'a2eeef', description: 'New feature or request' },
  { name: 'help wanted', color: '008672', description: 'Extra attention is needed' },
  { name: 'question', color: 'd876e3', description: null },
];

function repo(overrides: Partial<SimRepo> & Pick<SimRepo, 'id' | 'owner' | 'name'>): SimRepo {
  return simRepo({
    description: 'A repository',
    stargazerCount: 100,
    forkCount: 3,
    primaryLanguage: 'TypeScript',
    createdAt: at(900),
    updatedAt: at(2),
    pushedAt: at(1),
    labels,
    files: [{ path: 'package.json', content: '{"name":"widgets","scripts":{"test":"vitest"}}' }],
    ...overrides,
  });
}

/** Numbers shared by issues and pull requests; every sixth number of acme/widgets is a pull request. */
export const widgetsNumbers = 53;
export const widgetsPullNumbers = [6, 12, 18, 24, 30, 36, 42, 48];

function worldData(): WorldData {
  const users: SimUser[] = [
    { id: 101, login: 'alice', type: 'User', maintainerOf: [1] },
    { id: 102, login: 'bob', type: 'User', maintainerOf: [] },
    { id: 103, login: 'carol', type: 'User', maintainerOf: [] },
    { id: 104, login: 'dependabot[bot]', type: 'Bot', maintainerOf: [] },
    { id: 105, login: 'acme', type: 'User', maintainerOf: [1, 2] },
  ];
  const authors = ['bob', 'carol', 'alice', 'dependabot[bot]'];
  const issues: SimIssue[] = [];
  const pulls: SimPull[] = [];
  const comments: SimComment[] = [];
  let commentId = 9_000;
  for (let number = 1; number <= widgetsNumbers; number += 1) {
    const author = authors[number % authors.length] ?? 'bob';
    // Several items share a creation time so ties between issues and pull requests are exercised.
    const createdAt = at(400 - Math.floor(number / 2) * 5);
    const updatedAt = at(60 - (number % 17));
    const commentCount = number % 4;
    for (let c = 0; c < commentCount; c += 1) {
      comments.push({
        id: commentId++,
        repoId: 1,
        issueNumber: number,
        authorLogin: authors[(number + c) % authors.length] ?? 'bob',
        body: `Comment ${c} on #${number}`,
        createdAt: at(50 - c),
        updatedAt: at(50 - c, 1),
      });
    }
    if (widgetsPullNumbers.includes(number)) {
      const state = number % 12 === 0 ? 'MERGED' : number === 42 ? 'CLOSED' : 'OPEN';
      pulls.push({
        repoId: 1,
        number,
        title: `Fix issue ${number - 1}`,
        body: `Fixes #${number - 1}`,
        state,
        authorLogin: author,
        createdAt,
        updatedAt,
        closedAt: state === 'OPEN' ? null : at(30),
        mergedAt: state === 'MERGED' ? at(30) : null,
        mergedByLogin: state === 'MERGED' ? 'alice' : null,
        baseRefName: 'main',
        baseRefOid: 'b'.repeat(40),
        headRefName: `fix-${number - 1}`,
        headRefOid: `${number}`.padStart(40, 'c'),
        mergeCommitOid: state === 'MERGED' ? `${number}`.padStart(40, 'd') : null,
        additions: 10 + number,
        deletions: number,
        changedFiles: 2,
        checks: number === 18 ? 'FAILURE' : number === 30 ? null : 'SUCCESS',
        closesIssues: [number - 1],
      });
      continue;
    }
    const closed = number % 5 === 0;
    issues.push({
      repoId: 1,
      number,
      title: `Issue ${number}`,
      body: `Body of issue ${number}`,
      state: closed ? 'CLOSED' : 'OPEN',
      stateReason: closed ? (number % 10 === 0 ? 'NOT_PLANNED' : 'COMPLETED') : null,
      labels: [['bug'], ['enhancement'], ['bug', 'help wanted'], [], ['question']][number % 5] ?? [],
      authorLogin: author,
      createdAt,
      updatedAt,
      closedAt: closed ? at(40) : null,
      commentCount,
      kind: 'bug',
    });
  }
  const openIssues = issues.filter((issue) => issue.state === 'OPEN').length;
  const repos: SimRepo[] = [
    repo({
      id: 1,
      owner: 'acme',
      name: 'widgets',
      stargazerCount: 1_200,
      openIssueCount: openIssues,
      closedIssueCount: issues.length - openIssues,
      pullRequestCount: pulls.length,
      lastMergedPullAt: at(30),
    }),
    repo({
      id: 2,
      owner: 'acme',
      name: 'gadgets',
      description: null,
      primaryLanguage: 'Python',
      licenseSpdxId: null,
      isArchived: true,
      stargazerCount: 800,
    }),
    repo({
      id: 3,
      owner: 'forker',
      name: 'widgets',
      isFork: true,
      licenseSpdxId: 'NOASSERTION',
      stargazerCount: 5,
      mirrorUrl: 'https://example.org/widgets.git',
    }),
  ];
  // Enough Go repositories for search to pass its 1,000-result window; their owner is no known user.
  for (let i = 0; i < 1_050; i += 1) {
    repos.push(
      repo({
        id: 1_000 + i,
        owner: 'bulk',
        name: `repo-${i}`,
        primaryLanguage: 'Go',
        licenseSpdxId: 'Apache-2.0',
        stargazerCount: 10 + i,
        updatedAt: at(i % 300),
      }),
    );
  }
  return { users, repos, issues, pulls, comments };
}

export function restFixtureWorld(): MemoryWorld {
  return new MemoryWorld(worldData(), { generatedAt });
}
