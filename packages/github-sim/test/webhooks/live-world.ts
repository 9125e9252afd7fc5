// A tiny live world for webhook tests: one repository, a few users, issues and pull requests held
// in arrays, and mutations that change a record and then emit its WorldEvent, as a WorldWriter does.
import type {
  Page,
  SimComment,
  SimIssue,
  SimPull,
  SimRepo,
  SimUser,
  WorldEvent,
  WorldReader,
  WorldWriter,
} from '../../src/world/model.js';

const start = Date.parse('2025-06-01T00:00:00.000Z');

function page<T>(rows: T[], offset: number, limit: number): Page<T> {
  return { total: rows.length, items: rows.slice(offset, offset + limit) };
}

function oid(n: number): string {
  return n.toString(16).padStart(40, 'a');
}

export class LiveTestWorld implements WorldReader, Pick<WorldWriter, 'onEvent'> {
  readonly seed: number;
  readonly kind = 'live' as const;
  readonly generatedAt = new Date(start).toISOString();
  readonly repo: SimRepo;
  private readonly users: SimUser[] = [
    { id: 201, login: 'acme', type: 'User', maintainerOf: [7] },
    { id: 202, login: 'maria', type: 'User', maintainerOf: [7] },
    { id: 203, login: 'solver', type: 'User', maintainerOf: [] },
    { id: 204, login: 'reporter', type: 'User', maintainerOf: [] },
  ];
  private readonly issueRows: SimIssue[] = [];
  private readonly pullRows: SimPull[] = [];
  private readonly comments_: SimComment[] = [];
  private readonly listeners = new Set<(event: WorldEvent) => void>();
  private clock = start;
  private nextNumber = 1;
  private commits = 0;

  constructor(seed = 42) {
    this.seed = seed;
    this.repo = {
      id: 7,
      owner: 'acme',
      name: 'widgets',
      description: 'Widgets for everyone',
      stargazerCount: 1234,
      forkCount: 56,
      primaryLanguage: 'TypeScript',
      licenseSpdxId: 'MIT',
      isArchived: false,
      isFork: false,
      mirrorUrl: null,
      createdAt: '2020-01-01T00:00:00.000Z',
      updatedAt: this.generatedAt,
      pushedAt: this.generatedAt,
      defaultBranch: 'main',
      headOid: oid(0),
      labels: [{ name: 'bug', color: 'd73a4a', description: "Something isn't working" }],
      files: [{ path: 'package.json', content: '{"name":"widgets"}' }],
      openIssueCount: 0,
      closedIssueCount: 0,
      pullRequestCount: 0,
      lastMergedPullAt: null,
    };
  }

  // --- WorldReader ---------------------------------------------------------------------------
  repoCount(): number {
    return 1;
  }
  repoAt(index: number): SimRepo | undefined {
    return index === 0 ? this.repo : undefined;
  }
  repoById(id: number): SimRepo | undefined {
    return id === this.repo.id ? this.repo : undefined;
  }
  repoByName(owner: string, name: string): SimRepo | undefined {
    return owner.toLowerCase() === 'acme' && name.toLowerCase() === 'widgets' ? this.repo : undefined;
  }
  searchRepos(): Page<SimRepo> {
    return { total: 1, items: [this.repo] };
  }
  issues(_repo: SimRepo, _query: unknown, offset: number, limit: number): Page<SimIssue> {
    return page(this.issueRows, offset, limit);
  }
  issue(repo: SimRepo, number: number): SimIssue | undefined {
    return this.issueRows.find((row) => row.repoId === repo.id && row.number === number);
  }
  pulls(repo: SimRepo, query: { states?: readonly string[] }, offset: number, limit: number): Page<SimPull> {
    const rows = this.pullRows.filter(
      (row) => row.repoId === repo.id && (query.states === undefined || query.states.includes(row.state)),
    );
    return page(rows, offset, limit);
  }
  pull(repo: SimRepo, number: number): SimPull | undefined {
    return this.pullRows.find((row) => row.repoId === repo.id && row.number === number);
  }
  comments(repo: SimRepo, number: number, offset: number, limit: number): Page<SimComment> {
    return page(
      this.comments_.filter((row) => row.repoId === repo.id && row.issueNumber === number),
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

  // --- Mutations that emit events --------------------------------------------------------------
  onEvent(listener: (event: WorldEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private tick(): string {
    this.clock += 60_000;
    return new Date(this.clock).toISOString();
  }

  private emit(event: WorldEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  openIssue(title: string): SimIssue {
    const at = this.tick();
    const issue: SimIssue = {
      repoId: this.repo.id,
      number: this.nextNumber++,
      title,
      body: `${title}: steps to reproduce…`,
      state: 'OPEN',
      stateReason: null,
      labels: ['bug'],
      authorLogin: 'reporter',
      createdAt: at,
      updatedAt: at,
      closedAt: null,
      commentCount: 0,
      kind: 'bug',
    };
    this.issueRows.push(issue);
    return issue;
  }

  closeIssue(number: number, reason: 'COMPLETED' | 'NOT_PLANNED' = 'COMPLETED'): void {
    const issue = this.issueRows.find((row) => row.number === number);
    if (!issue) throw new Error(`no issue #${number}`);
    const at = this.tick();
    Object.assign(issue, { state: 'CLOSED', stateReason: reason, closedAt: at, updatedAt: at });
    this.emit({ type: 'issues', action: 'closed', repoId: this.repo.id, number, at });
  }

  reopenIssue(number: number): void {
    const issue = this.issueRows.find((row) => row.number === number);
    if (!issue) throw new Error(`no issue #${number}`);
    const at = this.tick();
    Object.assign(issue, { state: 'OPEN', stateReason: 'REOPENED', closedAt: null, updatedAt: at });
    this.emit({ type: 'issues', action: 'reopened', repoId: this.repo.id, number, at });
  }

  openPull(fixes: number): SimPull {
    const at = this.tick();
    const pull: SimPull = {
      repoId: this.repo.id,
      number: this.nextNumber++,
      title: `Fix #${fixes}`,
      body: `Fixes #${fixes}`,
      state: 'OPEN',
      authorLogin: 'solver',
      createdAt: at,
      updatedAt: at,
      closedAt: null,
      mergedAt: null,
      mergedByLogin: null,
      baseRefName: 'main',
      baseRefOid: this.repo.headOid,
      headRefName: `fix-${fixes}`,
      headRefOid: oid(++this.commits),
      mergeCommitOid: null,
      additions: 10,
      deletions: 2,
      changedFiles: 2,
      checks: null,
      closesIssues: [fixes],
    };
    this.pullRows.push(pull);
    this.emit({ type: 'pull_request', action: 'opened', repoId: this.repo.id, number: pull.number, at });
    return pull;
  }

  private pullRow(number: number): SimPull {
    const pull = this.pullRows.find((row) => row.number === number);
    if (!pull) throw new Error(`no pull request #${number}`);
    return pull;
  }

  push(number: number): void {
    const pull = this.pullRow(number);
    const at = this.tick();
    Object.assign(pull, { headRefOid: oid(++this.commits), updatedAt: at, checks: null });
    this.emit({ type: 'pull_request', action: 'synchronize', repoId: this.repo.id, number, at });
  }

  setChecks(number: number, conclusion: 'SUCCESS' | 'FAILURE' | 'PENDING'): void {
    const pull = this.pullRow(number);
    const at = this.tick();
    Object.assign(pull, { checks: conclusion, updatedAt: at });
    this.emit({
      type: 'check_run',
      action: 'completed',
      repoId: this.repo.id,
      number,
      headOid: pull.headRefOid,
      conclusion,
      at,
    });
  }

  merge(number: number, by = 'maria'): void {
    const pull = this.pullRow(number);
    const at = this.tick();
    const mergeCommit = oid(++this.commits);
    Object.assign(pull, {
      state: 'MERGED',
      mergedAt: at,
      closedAt: at,
      updatedAt: at,
      mergedByLogin: by,
      mergeCommitOid: mergeCommit,
    });
    Object.assign(this.repo, { headOid: mergeCommit, lastMergedPullAt: at });
    this.emit({ type: 'pull_request', action: 'closed', repoId: this.repo.id, number, at });
  }

  closePull(number: number): void {
    const pull = this.pullRow(number);
    const at = this.tick();
    Object.assign(pull, { state: 'CLOSED', closedAt: at, updatedAt: at });
    this.emit({ type: 'pull_request', action: 'closed', repoId: this.repo.id, number, at });
  }

  /** A scenario touching every webhook: two issues, a pull request pushed, checked, merged, another closed. */
  playScenario(): void {
    const first = this.openIssue('Widget explodes');
    const second = this.openIssue('Widget is blue');
    const fix = this.openPull(first.number);
    this.setChecks(fix.number, 'FAILURE');
    this.push(fix.number);
    this.setChecks(fix.number, 'SUCCESS');
    this.merge(fix.number);
    this.closeIssue(first.number);
    const other = this.openPull(second.number);
    this.closePull(other.number);
    this.closeIssue(second.number, 'NOT_PLANNED');
    this.reopenIssue(second.number);
  }
}
