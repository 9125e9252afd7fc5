// A small in-memory world for the GraphQL tests: a few hand-written repositories with files, issues,
// pulls and comments, plus a generated band of 1,200 plain repositories for search paging and the cap.
import type {
  IssueQuery,
  Page,
  PullQuery,
  RepoSearch,
  SimComment,
  SimIssue,
  SimPull,
  SimRepo,
  SimUser,
  WorldReader,
} from '../../../simulator/world/model.js';

const generatedAt = '2025-06-01T00:00:00Z';

function page<T>(items: readonly T[], offset: number, limit: number): Page<T> {
  return { total: items.length, items: items.slice(offset, offset + limit) };
}

function compare(a: string | number, b: string | number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export class ArrayWorld implements WorldReader {
  readonly seed = 7;
  readonly kind = 'live' as const;
  readonly generatedAt = generatedAt;

  constructor(
    readonly repos: SimRepo[],
    readonly issueList: SimIssue[],
    readonly pullList: SimPull[],
    readonly commentList: SimComment[],
    readonly users: SimUser[],
  ) {}

  repoCount(): number {
    return this.repos.length;
  }
  repoAt(index: number): SimRepo | undefined {
    return this.repos[index];
  }
  repoById(id: number): SimRepo | undefined {
    return this.repos.find((repo) => repo.id === id);
  }
  repoByName(owner: string, name: string): SimRepo | undefined {
    const wanted = `${owner}/${name}`.toLowerCase();
    return this.repos.find((repo) => `${repo.owner}/${repo.name}`.toLowerCase() === wanted);
  }
  searchRepos(query: RepoSearch, offset: number, limit: number): Page<SimRepo> {
    const sign = query.direction === 'asc' ? 1 : -1;
    const matches = this.repos
      .filter(
        (repo) =>
          (query.minStars === undefined || repo.stargazerCount >= query.minStars) &&
          (query.maxStars === undefined || repo.stargazerCount <= query.maxStars) &&
          (query.language === undefined || repo.primaryLanguage?.toLowerCase() === query.language.toLowerCase()) &&
          (query.includeArchived !== false || !repo.isArchived) &&
          (query.includeForks === true || !repo.isFork),
      )
      .sort(
        (a, b) =>
          sign * (query.sort === 'stars' ? compare(a.stargazerCount, b.stargazerCount) : compare(a.updatedAt, b.updatedAt)) ||
          compare(a.id, b.id),
      );
    return page(matches, offset, limit);
  }
  issues(repo: SimRepo, query: IssueQuery, offset: number, limit: number): Page<SimIssue> {
    const order = query.orderBy ?? { field: 'CREATED_AT', direction: 'ASC' };
    const sign = order.direction === 'ASC' ? 1 : -1;
    const key = (issue: SimIssue): string | number =>
      order.field === 'COMMENTS' ? issue.commentCount : order.field === 'UPDATED_AT' ? issue.updatedAt : issue.createdAt;
    const matches = this.issueList
      .filter(
        (issue) =>
          issue.repoId === repo.id &&
          (query.states === undefined || query.states.includes(issue.state)) &&
          (query.labels === undefined || query.labels.some((label) => issue.labels.includes(label))) &&
          (query.since === undefined || issue.updatedAt >= query.since),
      )
      .sort((a, b) => sign * compare(key(a), key(b)) || compare(a.number, b.number));
    return page(matches, offset, limit);
  }
  issue(repo: SimRepo, number: number): SimIssue | undefined {
    return this.issueList.find((issue) => issue.repoId === repo.id && issue.number === number);
  }
  pulls(repo: SimRepo, query: PullQuery, offset: number, limit: number): Page<SimPull> {
    const order = query.orderBy ?? { field: 'CREATED_AT', direction: 'ASC' };
    const sign = order.direction === 'ASC' ? 1 : -1;
    const matches = this.pullList
      .filter((pull) => pull.repoId === repo.id && (query.states === undefined || query.states.includes(pull.state)))
      .sort(
        (a, b) =>
          sign * (order.field === 'UPDATED_AT' ? compare(a.updatedAt, b.updatedAt) : compare(a.createdAt, b.createdAt)) ||
          compare(a.number, b.number),
      );
    return page(matches, offset, limit);
  }
  pull(repo: SimRepo, number: number): SimPull | undefined {
    return this.pullList.find((pull) => pull.repoId === repo.id && pull.number === number);
  }
  comments(repo: SimRepo, number: number, offset: number, limit: number): Page<SimComment> {
    return page(
      this.commentList.filter((comment) => comment.repoId === repo.id && comment.issueNumber === number),
      offset,
      limit,
    );
  }
  userByLogin(login: string): SimUser | undefined {
    return this.users.find((user) => user.login.toLowerCase() === login.toLowerCase());
  }
  userById(id: number): SimUser | undefined {
    return this.users.find((user) => user.id === id);
  }
}

function repo(overrides: Partial<SimRepo> & Pick<SimRepo, 'id' | 'owner' | 'name'>): SimRepo {
  return {
    description: null,
    stargazerCount: 0,
    forkCount: 0,
    primaryLanguage: null,
    licenseSpdxId: 'MIT',
    isArchived: false,
    isFork: false,
    mirrorUrl: null,
    createdAt: '2020-01-01T00:00:00Z',
    updatedAt: '2025-05-01T00:00:00Z',
    pushedAt: '2025-05-01T00:00:00Z',
    defaultBranch: 'main',
    headOid: 'a'.repeat(40),
    labels: [],
    files: [],
    openIssueCount: 0,
    closedIssueCount: 0,
    pullRequestCount: 0,
    lastMergedPullAt: null,
    ...overrides,
  };
}

function issue(overrides: Partial<SimIssue> & Pick<SimIssue, 'repoId' | 'number'>): SimIssue {
  return {
    title: `Issue ${overrides.number}`,
    body: 'Steps to reproduce…',
    state: 'OPEN',
    stateReason: null,
    labels: [],
    authorLogin: 'reporter',
    createdAt: '2025-01-01T00:00:00Z',
    updatedAt: '2025-01-02T00:00:00Z',
    closedAt: null,
    commentCount: 0,
    kind: 'bug',
    ...overrides,
  };
}

function pull(overrides: Partial<SimPull> & Pick<SimPull, 'repoId' | 'number'>): SimPull {
  return {
    title: `Fix ${overrides.number}`,
    body: '',
    state: 'OPEN',
    authorLogin: 'contributor',
    createdAt: '2025-02-01T00:00:00Z',
    updatedAt: '2025-02-02T00:00:00Z',
    closedAt: null,
    mergedAt: null,
    mergedByLogin: null,
    baseRefName: 'main',
    baseRefOid: 'a'.repeat(40),
    headRefName: `fix-${overrides.number}`,
    headRefOid: 'b'.repeat(40),
    mergeCommitOid: null,
    additions: 10,
    deletions: 2,
    changedFiles: 1,
    checks: null,
    closesIssues: [],
    ...overrides,
  };
}

/** Number of generated search-band repositories (stars 1,000..2,199, TypeScript). */
export const bandSize = 1_200;

export function fixtureWorld(): ArrayWorld {
  const widgets = repo({
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
    repo({ id: 2, owner: 'acme', name: 'gadgets', stargazerCount: 120, primaryLanguage: 'Go', licenseSpdxId: null, isArchived: true }),
    repo({ id: 3, owner: 'forker', name: 'widgets', stargazerCount: 300, primaryLanguage: 'TypeScript', isFork: true }),
    repo({ id: 4, owner: 'mirrors', name: 'gizmo', stargazerCount: 450, primaryLanguage: 'Rust', mirrorUrl: 'https://git.example.org/gizmo.git', licenseSpdxId: 'NOASSERTION' }),
    repo({ id: 5, owner: 'acme', name: 'tiny', stargazerCount: 50, primaryLanguage: 'Python' }),
  ];
  for (let index = 0; index < bandSize; index += 1) {
    repos.push(repo({ id: 100 + index, owner: 'band', name: `repo-${index}`, stargazerCount: 1_000 + index, primaryLanguage: 'TypeScript' }));
  }
  const issues: SimIssue[] = [
    issue({ repoId: 1, number: 1, title: 'Crash on empty input', labels: ['bug'], updatedAt: '2025-05-10T00:00:00Z', commentCount: 2 }),
    issue({ repoId: 1, number: 2, title: 'How do I configure it?', labels: ['question'], kind: 'question', updatedAt: '2025-03-01T00:00:00Z' }),
    issue({ repoId: 1, number: 3, title: 'Off-by-one in add', labels: ['bug', 'good first issue'], updatedAt: '2025-05-15T00:00:00Z', createdAt: '2025-01-03T00:00:00Z' }),
    issue({
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
    pull({
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
    pull({ repoId: 1, number: 6, title: 'Fix add', checks: 'FAILURE', authorLogin: 'ci-bot', headRefName: 'fix-add' }),
  ];
  const comments: SimComment[] = [
    { id: 501, repoId: 1, issueNumber: 1, authorLogin: 'maintainer', body: 'Confirmed.', createdAt: '2025-05-01T00:00:00Z', updatedAt: '2025-05-01T00:00:00Z' },
    { id: 502, repoId: 1, issueNumber: 1, authorLogin: 'reporter', body: 'Thanks!', createdAt: '2025-05-02T00:00:00Z', updatedAt: '2025-05-02T00:00:00Z' },
  ];
  const users: SimUser[] = [
    { id: 11, login: 'maintainer', type: 'User', maintainerOf: [1] },
    { id: 12, login: 'reporter', type: 'User', maintainerOf: [] },
    { id: 13, login: 'ci-bot', type: 'Bot', maintainerOf: [] },
    { id: 14, login: 'acme', type: 'User', maintainerOf: [] },
  ];
  return new ArrayWorld(repos, issues, pulls, comments, users);
}
