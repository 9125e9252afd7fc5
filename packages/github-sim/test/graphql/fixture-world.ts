// The GraphQL suite's world: a few hand-written repositories with files, issues, pulls and comments,
// plus a generated band of 1,200 plain repositories for search paging and the cap.
import type { SimComment, SimIssue, SimPull, SimRepo, SimUser } from '../../src/world/model.js';
import { MemoryWorld, simIssue, simPull, simRepo } from '../support/memory-world.js';

/** Number of generated search-band repositories (stars 1,000..2,199, TypeScript). */
export const bandSize = 1_200;

export function graphqlFixtureWorld(): MemoryWorld {
  const widgets = simRepo({
    id: 1,
    owner: 'acme',
    name: 'widgets',
    description: 'Widgets for everyone',
    stargazerCount: 250,
    forkCount: 12,
    primaryLanguage: 'TypeScript',
    licenseSpdxId: 'Apache-2.0',
    headOid: 'c0ffee'.padEnd(40, '0'),
    labels: [
      { name: 'bug', color: 'd73a4a', description: "Something isn't working" },
      { name: 'good first issue', color: '7057ff', description: null },
      { name: 'question', color: 'd876e3', description: null },
    ],
    files: [
      { path: 'package.json', content: '{"name":"widgets","scripts":{"test":"vitest run"}}\n' },
      { path: 'README.md', content: '# widgets\n' },
      { path: 'src/index.ts', content: 'export const answer = 42;\n' },
      { path: 'src/util/math.ts', content: 'export const add = (a: number, b: number) => a + b;\n' },
    ],
    openIssueCount: 3,
    closedIssueCount: 1,
    pullRequestCount: 2,
    lastMergedPullAt: '2025-05-20T00:00:00Z',
  });
  const repos: SimRepo[] = [
    widgets,
    simRepo({
      id: 2,
      owner: 'acme',
      name: 'gadgets',
      stargazerCount: 120,
      primaryLanguage: 'Go',
      licenseSpdxId: null,
      isArchived: true,
    }),
    simRepo({
      id: 3,
      owner: 'forker',
      name: 'widgets',
      stargazerCount: 300,
      primaryLanguage: 'TypeScript',
      isFork: true,
    }),
    simRepo({
      id: 4,
      owner: 'mirrors',
      name: 'gizmo',
      stargazerCount: 450,
      primaryLanguage: 'Rust',
      mirrorUrl: 'https://git.example.org/gizmo.git',
      licenseSpdxId: 'NOASSERTION',
    }),
    simRepo({ id: 5, owner: 'acme', name: 'tiny', stargazerCount: 50, primaryLanguage: 'Python' }),
  ];
  for (let index = 0; index < bandSize; index += 1) {
    repos.push(
      simRepo({
        id: 100 + index,
        owner: 'band',
        name: `repo-${index}`,
        stargazerCount: 1_000 + index,
        primaryLanguage: 'TypeScript',
      }),
    );
  }
  const issues: SimIssue[] = [
    simIssue({
      repoId: 1,
      number: 1,
      title: 'Crash on empty input',
      labels: ['bug'],
      updatedAt: '2025-05-10T00:00:00Z',
      commentCount: 2,
    }),
    simIssue({
      repoId: 1,
      number: 2,
      title: 'How do I configure it?',
      labels: ['question'],
      kind: 'question',
      updatedAt: '2025-03-01T00:00:00Z',
    }),
    simIssue({
      repoId: 1,
      number: 3,
      title: 'Off-by-one in add',
      labels: ['bug', 'good first issue'],
      updatedAt: '2025-05-15T00:00:00Z',
      createdAt: '2025-01-03T00:00:00Z',
    }),
    simIssue({
      repoId: 1,
      number: 4,
      title: 'Old closed bug',
      labels: ['bug'],
      state: 'CLOSED',
      stateReason: 'COMPLETED',
      closedAt: '2025-02-01T00:00:00Z',
      createdAt: '2024-12-01T00:00:00Z',
    }),
  ];
  const pulls: SimPull[] = [
    simPull({
      repoId: 1,
      number: 5,
      title: 'Fix crash on empty input',
      state: 'MERGED',
      mergedAt: '2025-05-20T00:00:00Z',
      closedAt: '2025-05-20T00:00:00Z',
      mergedByLogin: 'maintainer',
      mergeCommitOid: 'd'.repeat(40),
      checks: 'SUCCESS',
      closesIssues: [1],
    }),
    simPull({
      repoId: 1,
      number: 6,
      title: 'Fix add',
      checks: 'FAILURE',
      authorLogin: 'ci-bot',
      headRefName: 'fix-add',
    }),
  ];
  const comments: SimComment[] = [
    {
      id: 501,
      repoId: 1,
      issueNumber: 1,
      authorLogin: 'maintainer',
      body: 'Confirmed.',
      createdAt: '2025-05-01T00:00:00Z',
      updatedAt: '2025-05-01T00:00:00Z',
    },
    {
      id: 502,
      repoId: 1,
      issueNumber: 1,
      authorLogin: 'reporter',
      body: 'Thanks!',
      createdAt: '2025-05-02T00:00:00Z',
      updatedAt: '2025-05-02T00:00:00Z',
    },
  ];
  const users: SimUser[] = [
    { id: 11, login: 'maintainer', type: 'User', maintainerOf: [1] },
    { id: 12, login: 'reporter', type: 'User', maintainerOf: [] },
    { id: 13, login: 'ci-bot', type: 'Bot', maintainerOf: [] },
    { id: 14, login: 'acme', type: 'User', maintainerOf: [] },
  ];
  return new MemoryWorld({ repos, issues, pulls, comments, users }, { generatedAt: '2025-06-01T00:00:00Z', seed: 7 });
}
