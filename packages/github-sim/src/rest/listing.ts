// REST's issue, pull request and comment listings over the world's store. REST's issue listing
// holds pull requests too and matches *all* given labels, while the store lists issues and pulls
// apart and matches *any* label; this module bridges both without loading a whole backlog.
import type {
  IssueQuery,
  IssueState,
  Page,
  PullState,
  SimComment,
  SimIssue,
  SimPull,
  SimRepo,
  WorldReader,
} from '../world/model.js';
import { pullHead } from './world-capabilities.js';

export type IssueSort = 'created' | 'updated' | 'comments';
export type PullSort = 'created' | 'updated' | 'popularity' | 'long-running';
export type Direction = 'asc' | 'desc';
export type StateFilter = 'open' | 'closed' | 'all';

export interface IssueListing {
  state: StateFilter;
  labels: readonly string[];
  since: string | null;
  sort: IssueSort;
  direction: Direction;
}

export interface PullListing {
  state: StateFilter;
  /** `base` branch name, or null. */
  base: string | null;
  /** `head` as `user:ref` (or a bare ref), or null. */
  head: string | null;
  sort: PullSort;
  direction: Direction;
}

export type IssueOrPull = { $case: 'issue'; issue: SimIssue } | { $case: 'pull'; pull: SimPull; commentCount: number };

const issueStates: Record<StateFilter, readonly IssueState[]> = {
  open: ['OPEN'],
  closed: ['CLOSED'],
  all: ['OPEN', 'CLOSED'],
};
const pullStates: Record<StateFilter, readonly PullState[]> = {
  open: ['OPEN'],
  closed: ['CLOSED', 'MERGED'],
  all: ['OPEN', 'CLOSED', 'MERGED'],
};

const orderField = { created: 'CREATED_AT', updated: 'UPDATED_AT', comments: 'COMMENTS' } as const;

interface Keyed {
  createdAt: string;
  updatedAt: string;
}

function sortKey(item: Keyed, comments: number, sort: IssueSort): number {
  switch (sort) {
    case 'created':
      return Date.parse(item.createdAt);
    case 'updated':
      return Date.parse(item.updatedAt);
    case 'comments':
      return comments;
  }
}

/** Whether key `a` comes no later than key `b` in the listing's direction. */
function noLater(a: number, b: number, direction: Direction): boolean {
  return direction === 'asc' ? a <= b : a >= b;
}

function allPulls(world: WorldReader, repo: SimRepo, states: readonly PullState[]): SimPull[] {
  const total = world.pulls(repo, { states }, 0, 0).total;
  return total === 0 ? [] : world.pulls(repo, { states }, 0, total).items;
}

function commentTotal(world: WorldReader, repo: SimRepo, number: number): number {
  return world.comments(repo, number, 0, 0).total;
}

export function listIssues(
  world: WorldReader,
  repo: SimRepo,
  listing: IssueListing,
  offset: number,
  limit: number,
): Page<IssueOrPull> {
  const query: IssueQuery = {
    states: issueStates[listing.state],
    orderBy: { field: orderField[listing.sort], direction: listing.direction === 'asc' ? 'ASC' : 'DESC' },
  };
  if (listing.since !== null) query.since = listing.since;
  const asIssue = (issue: SimIssue): IssueOrPull => ({ $case: 'issue', issue });

  if (listing.labels.length > 0) {
    // The world's pull requests carry no labels, so a label filter leaves issues only.
    const [first, ...rest] = listing.labels;
    const page = world.issues(repo, { ...query, labels: [first ?? ''] }, 0, 0);
    if (rest.length === 0) {
      const items = world.issues(repo, { ...query, labels: [first ?? ''] }, offset, limit).items;
      return { total: page.total, items: items.map(asIssue) };
    }
    // All-of-several labels: scan the first label's (smaller, superset) listing in chunks.
    const matches: SimIssue[] = [];
    let total = 0;
    const chunk = 1_000;
    for (let at = 0; at < page.total; at += chunk) {
      for (const issue of world.issues(repo, { ...query, labels: [first ?? ''] }, at, chunk).items) {
        if (!rest.every((label) => issue.labels.includes(label))) continue;
        if (total >= offset && matches.length < limit) matches.push(issue);
        total += 1;
      }
    }
    return { total, items: matches.map(asIssue) };
  }

  const since = listing.since === null ? null : Date.parse(listing.since);
  const pulls = allPulls(world, repo, pullStates[listing.state])
    .filter((pull) => since === null || Date.parse(pull.updatedAt) >= since)
    .map((pull) => {
      const commentCount = listing.sort === 'comments' ? commentTotal(world, repo, pull.number) : 0;
      return { pull, commentCount, key: sortKey(pull, commentCount, listing.sort) };
    })
    .sort((a, b) => {
      if (a.key !== b.key) return listing.direction === 'asc' ? a.key - b.key : b.key - a.key;
      return listing.direction === 'asc' ? a.pull.number - b.pull.number : b.pull.number - a.pull.number;
    });
  const issueTotal = world.issues(repo, query, 0, 0).total;
  const total = issueTotal + pulls.length;
  if (offset >= total || limit <= 0) return { total, items: [] };

  const issueKey = (issue: SimIssue): number => sortKey(issue, issue.commentCount, listing.sort);
  const issueAt = (index: number): SimIssue | undefined => world.issues(repo, query, index, 1).items[0];
  // The merged order puts a pull request first when keys tie. `splitAfter(j)`: with j pull
  // requests among the first `offset` items, issue i-1 comes before pull request j (monotone in j).
  const splitAfter = (j: number): boolean => {
    const i = offset - j;
    if (j >= pulls.length || i <= 0) return true;
    const previousIssue = issueAt(i - 1);
    const pull = pulls[j];
    if (previousIssue === undefined || pull === undefined) return true;
    return !noLater(pull.key, issueKey(previousIssue), listing.direction);
  };
  let low = Math.max(0, offset - issueTotal);
  let high = Math.min(pulls.length, offset);
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (splitAfter(middle)) high = middle;
    else low = middle + 1;
  }
  const issues = world.issues(repo, query, offset - low, limit).items;
  const items: IssueOrPull[] = [];
  let i = 0;
  let j = low;
  while (items.length < limit) {
    const issue = issues[i];
    const pull = pulls[j];
    if (issue === undefined && pull === undefined) break;
    if (pull !== undefined && (issue === undefined || noLater(pull.key, issueKey(issue), listing.direction))) {
      const commentCount =
        listing.sort === 'comments' ? pull.commentCount : commentTotal(world, repo, pull.pull.number);
      items.push({ $case: 'pull', pull: pull.pull, commentCount });
      j += 1;
    } else if (issue !== undefined) {
      items.push(asIssue(issue));
      i += 1;
    }
  }
  return { total, items };
}

/** GitHub's `head` filter: `user:ref`, where `user` owns the head's repository (a fork in live worlds). */
function headMatches(world: WorldReader, pull: SimPull, repo: SimRepo, head: string): boolean {
  const colon = head.indexOf(':');
  if (colon < 0) return pull.headRefName === head;
  const owner = pullHead(world, repo, pull.number, pull.headRefName).repo?.owner ?? pull.authorLogin;
  return head.slice(0, colon).toLowerCase() === owner.toLowerCase() && pull.headRefName === head.slice(colon + 1);
}

/** REST's pull request listing, sorted here (the store orders by created/updated only). */
export function listPulls(
  world: WorldReader,
  repo: SimRepo,
  listing: PullListing,
  now: number,
  offset: number,
  limit: number,
): Page<SimPull> {
  const monthMs = 30 * 24 * 3_600_000;
  const rows = allPulls(world, repo, pullStates[listing.state])
    .filter((pull) => listing.base === null || pull.baseRefName === listing.base)
    .filter((pull) => listing.head === null || headMatches(world, pull, repo, listing.head))
    // long-running: open for more than a month with activity in the last month, as GitHub defines it.
    .filter(
      (pull) =>
        listing.sort !== 'long-running' ||
        (now - Date.parse(pull.createdAt) > monthMs && now - Date.parse(pull.updatedAt) < monthMs),
    )
    .map((pull) => {
      const key =
        listing.sort === 'updated'
          ? Date.parse(pull.updatedAt)
          : listing.sort === 'popularity'
            ? commentTotal(world, repo, pull.number)
            : Date.parse(pull.createdAt);
      return { pull, key };
    })
    .sort((a, b) => {
      if (a.key !== b.key) return listing.direction === 'asc' ? a.key - b.key : b.key - a.key;
      return listing.direction === 'asc' ? a.pull.number - b.pull.number : b.pull.number - a.pull.number;
    });
  return { total: rows.length, items: rows.slice(offset, offset + limit).map((row) => row.pull) };
}

export function listComments(
  world: WorldReader,
  repo: SimRepo,
  number: number,
  since: string | null,
  offset: number,
  limit: number,
): Page<SimComment> {
  if (since === null) return world.comments(repo, number, offset, limit);
  const sinceMs = Date.parse(since);
  const total = world.comments(repo, number, 0, 0).total;
  const kept = world
    .comments(repo, number, 0, total)
    .items.filter((comment) => Date.parse(comment.updatedAt) >= sinceMs);
  return { total: kept.length, items: kept.slice(offset, offset + limit) };
}
