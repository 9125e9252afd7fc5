// A small world held in plain arrays, as test data for the REST layer: it implements the
// WorldReader contract directly (filters, orders, pages) so the REST tests need no generator.
import type {
  IssueQuery,
  Page,
  PullQuery,
  RepoSearch,
  SimComment,
  SimIssue,
  SimLabel,
  SimPull,
  SimRepo,
  SimUser,
  WorldReader,
} from '../../../simulator/world/model.js';

export interface WorldData {
  users: SimUser[];
  repos: SimRepo[];
  issues: SimIssue[];
  pulls: SimPull[];
  comments: SimComment[];
}

function page<T>(rows: T[], offset: number, limit: number): Page<T> {
  return { total: rows.length, items: rows.slice(offset, offset + limit) };
}

function byKey<T>(key: (row: T) => number, direction: 'ASC' | 'DESC', tieBreak: (row: T) => number): (a: T, b: T) => number {
  const sign = direction === 'ASC' ? 1 : -1;
  return (a, b) => sign * (key(a) - key(b) || tieBreak(a) - tieBreak(b));
}

export class MemoryWorld implements WorldReader {
  readonly seed = 1;
  readonly kind = 'live' as const;

  constructor(
    private readonly data: WorldData,
    readonly generatedAt: string,
  ) {}

  repoCount(): number {
    return this.data.repos.length;
  }
  repoAt(index: number): SimRepo | undefined {
    return [...this.data.repos].sort((a, b) => a.id - b.id)[index];
  }
  repoById(id: number): SimRepo | undefined {
    return this.data.repos.find((repo) => repo.id === id);
  }
  repoByName(owner: string, name: string): SimRepo | undefined {
    return this.data.repos.find((repo) => repo.owner.toLowerCase() === owner.toLowerCase() && repo.name.toLowerCase() === name.toLowerCase());
  }

  searchRepos(query: RepoSearch, offset: number, limit: number): Page<SimRepo> {
    const rows = this.data.repos
      .filter((repo) => query.minStars === undefined || repo.stargazerCount >= query.minStars)
      .filter((repo) => query.maxStars === undefined || repo.stargazerCount <= query.maxStars)
      .filter((repo) => query.language === undefined || repo.primaryLanguage?.toLowerCase() === query.language.toLowerCase())
      .filter((repo) => query.includeArchived !== false || !repo.isArchived)
      .filter((repo) => query.includeForks === true || !repo.isFork)
      .sort(
        byKey(
          (repo) => (query.sort === 'stars' ? repo.stargazerCount : Date.parse(repo.updatedAt)),
          query.direction === 'asc' ? 'ASC' : 'DESC',
          (repo) => repo.id,
        ),
      );
    return page(rows, offset, limit);
  }

  issues(repo: SimRepo, query: IssueQuery, offset: number, limit: number): Page<SimIssue> {
    const order = query.orderBy ?? { field: 'CREATED_AT', direction: 'DESC' };
    const key = (issue: SimIssue): number =>
      order.field === 'COMMENTS' ? issue.commentCount : Date.parse(order.field === 'CREATED_AT' ? issue.createdAt : issue.updatedAt);
    const since = query.since === undefined ? null : Date.parse(query.since);
    const rows = this.data.issues
      .filter((issue) => issue.repoId === repo.id)
      .filter((issue) => query.states === undefined || query.states.includes(issue.state))
      .filter((issue) => query.labels === undefined || issue.labels.some((label) => query.labels?.includes(label)))
      .filter((issue) => since === null || Date.parse(issue.updatedAt) >= since)
      .sort(byKey(key, order.direction, (issue) => issue.number));
    return page(rows, offset, limit);
  }

  issue(repo: SimRepo, number: number): SimIssue | undefined {
    return this.data.issues.find((issue) => issue.repoId === repo.id && issue.number === number);
  }

  pulls(repo: SimRepo, query: PullQuery, offset: number, limit: number): Page<SimPull> {
    const order = query.orderBy ?? { field: 'CREATED_AT', direction: 'ASC' };
    const rows = this.data.pulls
      .filter((pull) => pull.repoId === repo.id)
      .filter((pull) => query.states === undefined || query.states.includes(pull.state))
      .sort(byKey((pull) => Date.parse(order.field === 'CREATED_AT' ? pull.createdAt : pull.updatedAt), order.direction, (pull) => pull.number));
    return page(rows, offset, limit);
  }

  pull(repo: SimRepo, number: number): SimPull | undefined {
    return this.data.pulls.find((pull) => pull.repoId === repo.id && pull.number === number);
  }

  comments(repo: SimRepo, number: number, offset: number, limit: number): Page<SimComment> {
    const rows = this.data.comments
      .filter((comment) => comment.repoId === repo.id && comment.issueNumber === number)
      .sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || a.id - b.id);
    return page(rows, offset, limit);
  }

  userByLogin(login: string): SimUser | undefined {
    return this.data.users.find((user) => user.login.toLowerCase() === login.toLowerCase());
  }
  userById(id: number): SimUser | undefined {
    return this.data.users.find((user) => user.id === id);
  }
}

// --- Test data -------------------------------------------------------------------------------

export const generatedAt = '2025-06-01T00:00:00.000Z';
const day = 24 * 3_600_000;
const at = (daysBefore: number, hours = 0): string => new Date(Date.parse(generatedAt) - daysBefore * day + hours * 3_600_000).toISOString();

const labels: SimLabel[] = [
  { name: 'bug', color: 'd73a4a', description: "Something isn't working" },
  { name: 'enhancement', color: 'a2eeef', description: 'New feature or request' },
  { name: 'help wanted', color: '008672', description: 'Extra attention is needed' },
  { name: 'question', color: 'd876e3', description: null },
];

function repo(overrides: Partial<SimRepo> & Pick<SimRepo, 'id' | 'owner' | 'name'>): SimRepo {
  return {
    description: 'A repository',
    stargazerCount: 100,
    forkCount: 3,
    primaryLanguage: 'TypeScript',
    licenseSpdxId: 'MIT',
    isArchived: false,
    isFork: false,
    mirrorUrl: null,
    createdAt: at(900),
    updatedAt: at(2),
    pushedAt: at(1),
    defaultBranch: 'main',
    headOid: 'a'.repeat(40),
    labels,
    files: [{ path: 'package.json', content: '{"name":"widgets","scripts":{"test":"vitest"}}' }],
    openIssueCount: 0,
    closedIssueCount: 0,
    pullRequestCount: 0,
    lastMergedPullAt: null,
    ...overrides,
  };
}

/** Numbers shared by issues and pull requests; every sixth number of acme/widgets is a pull request. */
export const widgetsNumbers = 53;
export const widgetsPullNumbers = [6, 12, 18, 24, 30, 36, 42, 48];

export function testWorldData(): WorldData {
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
      comments.push({ id: commentId++, repoId: 1, issueNumber: number, authorLogin: authors[(number + c) % authors.length] ?? 'bob', body: `Comment ${c} on #${number}`, createdAt: at(50 - c), updatedAt: at(50 - c, 1) });
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
    repo({ id: 1, owner: 'acme', name: 'widgets', stargazerCount: 1_200, openIssueCount: openIssues, closedIssueCount: issues.length - openIssues, pullRequestCount: pulls.length, lastMergedPullAt: at(30) }),
    repo({ id: 2, owner: 'acme', name: 'gadgets', description: null, primaryLanguage: 'Python', licenseSpdxId: null, isArchived: true, stargazerCount: 800 }),
    repo({ id: 3, owner: 'forker', name: 'widgets', isFork: true, licenseSpdxId: 'NOASSERTION', stargazerCount: 5, mirrorUrl: 'https://example.org/widgets.git' }),
  ];
  // Enough Go repositories for search to pass its 1,000-result window; their owner is no known user.
  for (let i = 0; i < 1_050; i += 1) {
    repos.push(repo({ id: 1_000 + i, owner: 'bulk', name: `repo-${i}`, primaryLanguage: 'Go', licenseSpdxId: 'Apache-2.0', stargazerCount: 10 + i, updatedAt: at(i % 300) }));
  }
  return { users, repos, issues, pulls, comments };
}
