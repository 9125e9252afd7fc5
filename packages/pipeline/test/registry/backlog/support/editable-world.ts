// A scale world that takes changes, for the incremental refresh: scale worlds are read-only and live worlds hold a
// handful of repositories, too few for a refresh to cost a tenth of a full read. Changed repositories are served from
// the scale world's records with the changes laid over them (same filters, orders and tie-breaks as ScaleWorld);
// every other repository is the scale world itself.
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
} from '@abp/github-sim/world/model';
import type { ScaleWorld } from '@abp/github-sim/world/scale';

type Order = { field: 'CREATED_AT' | 'UPDATED_AT' | 'COMMENTS'; direction: 'ASC' | 'DESC' };

/** ScaleWorld's order: CREATED_AT is number order; other keys tie-break by number, both in the sort's direction. */
function ordered<T extends { number: number; updatedAt: string }>(
  rows: T[],
  order: Order | undefined,
  comments: (row: T) => number,
): T[] {
  const sign = order?.direction === 'DESC' ? -1 : 1;
  const key = (row: T): number =>
    order?.field === 'UPDATED_AT' ? Date.parse(row.updatedAt) : order?.field === 'COMMENTS' ? comments(row) : 0;
  return rows.sort((a, b) => sign * (key(a) - key(b) || a.number - b.number));
}

function page<T>(rows: readonly T[], offset: number, limit: number): Page<T> {
  return { total: rows.length, items: rows.slice(offset, offset + limit) };
}

export class EditableWorld implements WorldReader {
  readonly seed: number;
  readonly kind: WorldReader['kind'];
  readonly generatedAt: string;
  /** Per repository id: issue number → its record now, or null once deleted. */
  private readonly issueChanges = new Map<number, Map<number, SimIssue | null>>();
  private readonly pullChanges = new Map<number, Map<number, SimPull>>();

  constructor(private readonly base: ScaleWorld) {
    this.seed = base.seed;
    this.kind = base.kind;
    this.generatedAt = base.generatedAt;
  }

  // ---- changes ------------------------------------------------------------------------------

  /** Adds or replaces an issue; the caller moves `updatedAt` as GitHub would. */
  setIssue(issue: SimIssue): void {
    this.changesOf(this.issueChanges, issue.repoId).set(issue.number, issue);
  }

  /** Deletes an issue the way GitHub does: it leaves every listing, with no closed record left behind. */
  deleteIssue(repo: SimRepo, number: number): void {
    this.changesOf(this.issueChanges, repo.id).set(number, null);
  }

  setPull(pull: SimPull): void {
    this.changesOf(this.pullChanges, pull.repoId).set(pull.number, pull);
  }

  /** The next number of a repository; issues and pull requests share numbers, as on GitHub. */
  nextNumber(repo: SimRepo): number {
    const numbers = [...this.allIssues(repo), ...this.allPulls(repo)].map((row) => row.number);
    return Math.max(0, ...numbers) + 1;
  }

  private changesOf<T>(changes: Map<number, Map<number, T>>, repoId: number): Map<number, T> {
    let forRepo = changes.get(repoId);
    if (forRepo === undefined) changes.set(repoId, (forRepo = new Map<number, T>()));
    return forRepo;
  }

  private allIssues(repo: SimRepo): SimIssue[] {
    const rows = new Map(
      this.base
        .issues(repo, {}, 0, this.base.issues(repo, {}, 0, 0).total)
        .items.map((issue) => [issue.number, issue as SimIssue | null]),
    );
    for (const [number, issue] of this.issueChanges.get(repo.id) ?? []) rows.set(number, issue);
    return [...rows.values()].filter((issue): issue is SimIssue => issue !== null);
  }

  private allPulls(repo: SimRepo): SimPull[] {
    const rows = new Map(
      this.base.pulls(repo, {}, 0, this.base.pulls(repo, {}, 0, 0).total).items.map((pull) => [pull.number, pull]),
    );
    for (const [number, pull] of this.pullChanges.get(repo.id) ?? []) rows.set(number, pull);
    return [...rows.values()];
  }

  // ---- WorldReader ----------------------------------------------------------------------------

  issues(repo: SimRepo, query: IssueQuery, offset: number, limit: number): Page<SimIssue> {
    if (!this.issueChanges.has(repo.id)) return this.base.issues(repo, query, offset, limit);
    const labels = query.labels?.map((name) => name.toLowerCase());
    const since = query.since === undefined ? null : Date.parse(query.since);
    const rows = this.allIssues(repo).filter(
      (issue) =>
        (query.states === undefined || query.states.length === 0 || query.states.includes(issue.state)) &&
        (labels === undefined ||
          labels.length === 0 ||
          issue.labels.some((name) => labels.includes(name.toLowerCase()))) &&
        (since === null || Date.parse(issue.updatedAt) >= since),
    );
    return page(
      ordered(rows, query.orderBy, (issue) => issue.commentCount),
      offset,
      limit,
    );
  }

  issue(repo: SimRepo, number: number): SimIssue | undefined {
    const changed = this.issueChanges.get(repo.id)?.get(number);
    return changed === undefined ? this.base.issue(repo, number) : (changed ?? undefined);
  }

  pulls(repo: SimRepo, query: PullQuery, offset: number, limit: number): Page<SimPull> {
    if (!this.pullChanges.has(repo.id)) return this.base.pulls(repo, query, offset, limit);
    const rows = this.allPulls(repo).filter(
      (pull) => query.states === undefined || query.states.length === 0 || query.states.includes(pull.state),
    );
    return page(
      ordered(rows, query.orderBy, () => 0),
      offset,
      limit,
    );
  }

  pull(repo: SimRepo, number: number): SimPull | undefined {
    return this.pullChanges.get(repo.id)?.get(number) ?? this.base.pull(repo, number);
  }

  repoCount(): number {
    return this.base.repoCount();
  }
  repoAt(index: number): SimRepo | undefined {
    return this.base.repoAt(index);
  }
  repoById(id: number): SimRepo | undefined {
    return this.base.repoById(id);
  }
  repoByName(owner: string, name: string): SimRepo | undefined {
    return this.base.repoByName(owner, name);
  }
  searchRepos(query: RepoSearch, offset: number, limit: number): Page<SimRepo> {
    return this.base.searchRepos(query, offset, limit);
  }
  comments(repo: SimRepo, number: number, offset: number, limit: number): Page<SimComment> {
    return this.base.comments(repo, number, offset, limit);
  }
  userByLogin(login: string): SimUser | undefined {
    return this.base.userByLogin(login);
  }
  userById(id: number): SimUser | undefined {
    return this.base.userById(id);
  }
}
