// The simulator's world as data: repositories, issues, pull requests and users, and the store
// interface the GraphQL and REST layers read it through. Scale worlds derive issues on demand from
// the seed (a million issues never sit in memory at once); live worlds keep mutable state.

export type IssueState = 'OPEN' | 'CLOSED';
export type PullState = 'OPEN' | 'CLOSED' | 'MERGED';
export type CheckConclusion = 'SUCCESS' | 'FAILURE' | 'PENDING';

/** What an issue really is: the ground truth the draw's eligibility filter is measured against. */
export type IssueKind = 'bug' | 'feature' | 'question' | 'feature-debate' | 'chore';

export interface SimUser {
  id: number;
  login: string;
  type: 'User' | 'Bot';
  /** Whether the user may merge into repositories it maintains (merge validity checks `mergedBy`). */
  maintainerOf: readonly number[];
}

export interface SimLabel {
  name: string;
  /** Six hex digits, no '#', as GitHub serves it. */
  color: string;
  description: string | null;
}

export interface SimFile {
  path: string;
  /** UTF-8 text content; binary files are out of scope for the simulator. */
  content: string;
}

export interface SimRepo {
  /** Database id, unique in the world; node ids are derived from it (see node-id.ts). */
  id: number;
  owner: string;
  name: string;
  description: string | null;
  stargazerCount: number;
  forkCount: number;
  primaryLanguage: string | null;
  /** SPDX id as GitHub reports `licenseInfo.spdxId`: null when there is no license, 'NOASSERTION' when unrecognized. */
  licenseSpdxId: string | null;
  isArchived: boolean;
  isFork: boolean;
  /** Set for mirrors (GitHub's `mirrorUrl`); `isMirror` is `mirrorUrl !== null`. */
  mirrorUrl: string | null;
  createdAt: string;
  updatedAt: string;
  pushedAt: string;
  defaultBranch: string;
  /** The commit the default branch points at (40 hex). */
  headOid: string;
  labels: readonly SimLabel[];
  /** Top-level and nested files of the default branch (enough for runner detection: package.json, go.mod, …). */
  files: readonly SimFile[];
  openIssueCount: number;
  closedIssueCount: number;
  /** Numbers are shared by issues and pull requests, as on GitHub. */
  pullRequestCount: number;
  /** When the most recent pull request was merged, or null if none ever was. */
  lastMergedPullAt: string | null;
}

export interface SimIssue {
  repoId: number;
  number: number;
  title: string;
  body: string;
  state: IssueState;
  stateReason: 'COMPLETED' | 'NOT_PLANNED' | 'REOPENED' | null;
  /** Label names, each one of the repository's labels. */
  labels: readonly string[];
  authorLogin: string;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  commentCount: number;
  kind: IssueKind;
}

export interface SimPull {
  repoId: number;
  number: number;
  title: string;
  body: string;
  state: PullState;
  authorLogin: string;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  mergedAt: string | null;
  mergedByLogin: string | null;
  baseRefName: string;
  baseRefOid: string;
  headRefName: string;
  headRefOid: string;
  /** The merge commit on the base branch, once merged. */
  mergeCommitOid: string | null;
  additions: number;
  deletions: number;
  changedFiles: number;
  /** Rollup of the check runs at the head commit; null when no checks ran. */
  checks: CheckConclusion | null;
  /** Issue numbers this pull request closes ("Fixes #12"). */
  closesIssues: readonly number[];
}

export interface SimComment {
  id: number;
  repoId: number;
  issueNumber: number;
  authorLogin: string;
  body: string;
  createdAt: string;
  updatedAt: string;
}

export type SortDirection = 'ASC' | 'DESC';

export interface IssueQuery {
  states?: readonly IssueState[];
  /** An issue matches when it has any of these labels (GitHub's `labels:` argument). */
  labels?: readonly string[];
  /** Only issues updated at or after this time (GitHub's `filterBy.since`). */
  since?: string;
  orderBy?: { field: 'CREATED_AT' | 'UPDATED_AT' | 'COMMENTS'; direction: SortDirection };
}

export interface PullQuery {
  states?: readonly PullState[];
  orderBy?: { field: 'CREATED_AT' | 'UPDATED_AT'; direction: SortDirection };
}

export interface RepoSearch {
  /** Inclusive star band, the way star-banded discovery gets past the 1,000-result cap. */
  minStars?: number;
  maxStars?: number;
  language?: string;
  includeArchived?: boolean;
  includeForks?: boolean;
  sort: 'stars' | 'updated';
  direction: 'asc' | 'desc';
}

/** A page of a listing: `total` is the size of the whole filtered listing. */
export interface Page<T> {
  total: number;
  items: T[];
}

/** Read access to a world: everything the GraphQL and REST layers serve comes through here. */
export interface WorldReader {
  readonly seed: number;
  readonly kind: 'scale' | 'live';
  /** The world's clock at generation: ages ("merged in the last 30 days") are relative to it. */
  readonly generatedAt: string;
  repoCount(): number;
  /** Repositories in id order. */
  repoAt(index: number): SimRepo | undefined;
  repoById(id: number): SimRepo | undefined;
  /** Case-insensitive, as GitHub resolves `owner/name`. */
  repoByName(owner: string, name: string): SimRepo | undefined;
  searchRepos(query: RepoSearch, offset: number, limit: number): Page<SimRepo>;
  issues(repo: SimRepo, query: IssueQuery, offset: number, limit: number): Page<SimIssue>;
  issue(repo: SimRepo, number: number): SimIssue | undefined;
  pulls(repo: SimRepo, query: PullQuery, offset: number, limit: number): Page<SimPull>;
  pull(repo: SimRepo, number: number): SimPull | undefined;
  /** Comments of an issue or pull request, oldest first. */
  comments(repo: SimRepo, number: number, offset: number, limit: number): Page<SimComment>;
  userByLogin(login: string): SimUser | undefined;
  userById(id: number): SimUser | undefined;
}

/** What happened in a live world: the source of webhook deliveries and of the actors' work. */
export type WorldEvent =
  | {
      type: 'pull_request';
      action: 'opened' | 'synchronize' | 'closed' | 'reopened';
      repoId: number;
      number: number;
      at: string;
    }
  | {
      type: 'check_run';
      action: 'completed';
      repoId: number;
      number: number;
      headOid: string;
      conclusion: CheckConclusion;
      at: string;
    }
  | { type: 'issues'; action: 'closed' | 'reopened'; repoId: number; number: number; at: string };

/**
 * Changes to a live world, made by the REST routes (a solver opening a pull request) and by the
 * actors (CI, maintainers, issue authors). Every change is recorded as a WorldEvent.
 */
export interface WorldWriter {
  /** Opens a pull request; `head` is `branch` in the same repository or `forkOwner:branch`. */
  openPull(
    repo: SimRepo,
    input: { title: string; body: string; head: string; base: string; authorLogin: string },
  ): SimPull;
  /** A push to a fork moved the head of open pull requests from it (fires `synchronize`). */
  notePush(owner: string, name: string): void;
  /** CI's verdict on a pull request's current head commit. */
  setChecks(repo: SimRepo, number: number, conclusion: CheckConclusion): SimPull;
  /** Merges into the base branch with a real git merge commit in the upstream repository. */
  mergePull(repo: SimRepo, number: number, mergedByLogin: string): SimPull;
  closePull(repo: SimRepo, number: number): SimPull;
  closeIssue(repo: SimRepo, number: number, reason: 'COMPLETED' | 'NOT_PLANNED'): SimIssue;
  reopenIssue(repo: SimRepo, number: number): SimIssue;
  /** Events from now on, in order; returns the unsubscribe function. */
  onEvent(listener: (event: WorldEvent) => void): () => void;
}

/** Whether a world takes changes (live worlds do; scale worlds are read-only). */
export function isWorldWriter(world: WorldReader): world is WorldReader & WorldWriter {
  return (
    typeof (world as Partial<WorldWriter>).openPull === 'function' &&
    typeof (world as Partial<WorldWriter>).notePush === 'function'
  );
}
