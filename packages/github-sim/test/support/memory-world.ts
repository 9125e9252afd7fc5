// A world held in plain arrays, as test data for the REST and GraphQL layers: it implements the
// WorldReader contract directly (filters, orders, pages, with ScaleWorld's tie-breaks) so the suites
// need no generator, plus factories for its rows that take overrides. Each suite brings its own rows.
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
} from '../../src/world/model.js';

export interface WorldData {
  users: SimUser[];
  repos: SimRepo[];
  issues: SimIssue[];
  pulls: SimPull[];
  comments: SimComment[];
}

export interface MemoryWorldOptions {
  generatedAt: string;
  seed?: number;
}

function page<T>(rows: readonly T[], offset: number, limit: number): Page<T> {
  return { total: rows.length, items: rows.slice(offset, offset + limit) };
}

/** Orders by `key`, ties by `tieBreak`, both in the listing's direction, as ScaleWorld orders. */
function byKey<T>(
  key: (row: T) => number,
  direction: 'ASC' | 'DESC',
  tieBreak: (row: T) => number,
): (a: T, b: T) => number {
  const sign = direction === 'ASC' ? 1 : -1;
  return (a, b) => sign * (key(a) - key(b) || tieBreak(a) - tieBreak(b));
}

const sameText = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

export class MemoryWorld implements WorldReader {
  readonly seed: number;
  readonly kind = 'live' as const;
  readonly generatedAt: string;
  private readonly repos: readonly SimRepo[];

  constructor(
    private readonly data: WorldData,
    options: MemoryWorldOptions,
  ) {
    this.seed = options.seed ?? 1;
    this.generatedAt = options.generatedAt;
    this.repos = [...data.repos].sort((a, b) => a.id - b.id);
  }

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
    return this.repos.find((repo) => sameText(repo.owner, owner) && sameText(repo.name, name));
  }

  searchRepos(query: RepoSearch, offset: number, limit: number): Page<SimRepo> {
    const rows = this.repos
      .filter((repo) => query.minStars === undefined || repo.stargazerCount >= query.minStars)
      .filter((repo) => query.maxStars === undefined || repo.stargazerCount <= query.maxStars)
      .filter(
        (repo) =>
          query.language === undefined ||
          (repo.primaryLanguage !== null && sameText(repo.primaryLanguage, query.language)),
      )
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
    const order = query.orderBy ?? { field: 'CREATED_AT', direction: 'ASC' };
    const key = (issue: SimIssue): number =>
      order.field === 'COMMENTS'
        ? issue.commentCount
        : Date.parse(order.field === 'CREATED_AT' ? issue.createdAt : issue.updatedAt);
    const since = query.since === undefined ? null : Date.parse(query.since);
    const labels = query.labels;
    const rows = this.data.issues
      .filter((issue) => issue.repoId === repo.id)
      .filter((issue) => query.states === undefined || query.states.includes(issue.state))
      .filter(
        (issue) =>
          labels === undefined || issue.labels.some((label) => labels.some((wanted) => sameText(label, wanted))),
      )
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
      .sort(
        byKey(
          (pull) => Date.parse(order.field === 'CREATED_AT' ? pull.createdAt : pull.updatedAt),
          order.direction,
          (pull) => pull.number,
        ),
      );
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
    return this.data.users.find((user) => sameText(user.login, login));
  }
  userById(id: number): SimUser | undefined {
    return this.data.users.find((user) => user.id === id);
  }
}

// --- Row factories: plain defaults, each suite overrides what its assertions depend on ----------

export function simRepo(overrides: Partial<SimRepo> & Pick<SimRepo, 'id' | 'owner' | 'name'>): SimRepo {
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

export function simIssue(overrides: Partial<SimIssue> & Pick<SimIssue, 'repoId' | 'number'>): SimIssue {
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

export function simPull(overrides: Partial<SimPull> & Pick<SimPull, 'repoId' | 'number'>): SimPull {
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
