// Reads the registry repositories' open issues from GitHub's GraphQL API into a BacklogSnapshot: a full read, or an
// incremental refresh of a previous snapshot with `filterBy: { since }`. Counts come first, so every page asks for
// exactly what is there; pages of many repositories share one aliased query, so the cost stays close to GitHub's
// documented formula of one point per hundred connection requests. Claims come from open pull requests' closing references.
import { GraphqlResponseError } from '@octokit/graphql';
import { z } from 'zod';
import type { GithubClient } from '../github/client.js';
import { registryVersion, repoFullName } from '@abp/protocol/schemas/primitives';
import { bodySignals, SIGNAL_RULES } from '@abp/protocol/backlog/body-signals';
import { BacklogError } from '@abp/protocol/backlog/errors';
import { backlogTimestamp } from '@abp/protocol/backlog/snapshot';
import type { BacklogIssue, BacklogRepo, BacklogSnapshot } from '@abp/protocol/backlog/types';
import { BACKLOG_SCHEMA_ID } from '@abp/protocol/backlog/types';

export interface BacklogFetchOptions {
  /** The registry version whose repositories these are; recorded in the snapshot. */
  registryVersion: string;
  /** "owner/name" of every repository to read, each once. */
  repos: readonly string[];
  /**
   * The clock when the read starts (RFC 3339), recorded as the snapshot's `takenAt` (truncated to the second). Read it
   * before calling: a change made during the read is then picked up again by the next refresh, never lost.
   */
  takenAt: string;
}

export interface BacklogFetch {
  snapshot: BacklogSnapshot;
  /** GraphQL calls made, and the rate-limit points GitHub charged for them (the sum of `rateLimit { cost }`). */
  cost: { requests: number; points: number };
  /** 'incremental' unless a refresh had to read everything (the previous snapshot used other signal rules). */
  mode: 'full' | 'incremental';
  /** Listed repositories GitHub does not resolve (deleted, renamed away, private); they are left out of the snapshot. */
  missing: string[];
}

/** GitHub's page limit. */
const PAGE = 100;
/** A query's connection requests (GitHub's cost before the division by 100): about ten points, well inside timeouts. */
const QUERY_REQUESTS = 1_000;
/** Aliased repository fields per query. */
const QUERY_ALIASES = 100;
/** Labels read per issue: GitHub caps an issue's labels well below this, and the page size does not change the cost. */
const LABELS = 100;
/** Closing references read per pull request; the cost is the same for any page size. */
const CLOSING_REFERENCES = 100;

const pageInfo = z.object({ hasNextPage: z.boolean(), endCursor: z.string().nullable() });
const count = z.object({ totalCount: z.int().nonnegative() });
const closingReferences = z.object({
  nodes: z.array(
    z.object({ number: z.int().positive(), repository: z.object({ nameWithOwner: z.string() }) }).nullable(),
  ),
});
const issueNode = z.object({
  number: z.int().positive(),
  title: z.string(),
  body: z.string(),
  state: z.enum(['OPEN', 'CLOSED']),
  createdAt: backlogTimestamp,
  updatedAt: backlogTimestamp,
  author: z.object({ login: z.string().min(1) }).nullable(),
  labels: z.object({ nodes: z.array(z.object({ name: z.string() }).nullable()) }),
  comments: count,
});
const recentListing = z.object({
  nodes: z.array(
    z
      .object({ number: z.int().positive(), state: z.enum(['OPEN', 'CLOSED', 'MERGED']), updatedAt: backlogTimestamp })
      .nullable(),
  ),
  pageInfo,
});
const answers = {
  counts: z.object({
    nameWithOwner: z.string(),
    openIssues: count,
    openPulls: count,
    changed: count.optional(),
    recent: recentListing.optional(),
  }),
  issues: z.object({ issues: z.object({ nodes: z.array(issueNode.nullable()), pageInfo }) }),
  pulls: z.object({
    pullRequests: z.object({
      nodes: z.array(z.object({ number: z.int().positive(), closingIssuesReferences: closingReferences }).nullable()),
      pageInfo,
    }),
  }),
  pull: z.object({
    pullRequest: z
      .object({
        number: z.int().positive(),
        state: z.enum(['OPEN', 'CLOSED', 'MERGED']),
        closingIssuesReferences: closingReferences,
      })
      .nullable(),
  }),
  recent: z.object({ pullRequests: recentListing }),
};

/** One repository's backlog while it is being read. */
interface RepoState {
  /** "owner/name" as listed. */
  fullName: string;
  owner: string;
  name: string;
  /** "owner/name" as GitHub spells it now (after a rename, the new name): what closing references name. */
  nameWithOwner: string;
  issues: Map<number, BacklogIssue>;
  /** Issue number → numbers of the open pull requests in this repository that claim it. */
  claims: Map<number, Set<number>>;
  openIssues: number;
  openPulls: number;
  missing: boolean;
  /** A refresh saw an issue come back (reopened or moved in) whose claims an unchanged pull request may hold. */
  rescanClaims: boolean;
}

type Job =
  | { kind: 'counts'; state: RepoState; since: string | null }
  | { kind: 'issues'; state: RepoState; size: number; after: string | null; since: string | null; remaining: number }
  | { kind: 'pulls'; state: RepoState; size: number; after: string | null; remaining: number }
  | { kind: 'pull'; state: RepoState; number: number }
  | { kind: 'recent'; state: RepoState; after: string; since: string };

const ISSUE_FIELDS = `number title body state createdAt updatedAt author { login } labels(first: ${LABELS}) { nodes { name } } comments { totalCount }`;
const CLAIM_FIELDS = `closingIssuesReferences(first: ${CLOSING_REFERENCES}) { nodes { number repository { nameWithOwner } } }`;
const RECENT_FIELDS = 'nodes { number state updatedAt } pageInfo { hasNextPage endCursor }';

/** Connection requests a job adds to a query, by GitHub's formula: one per connection per parent item. */
function requestsOf(job: Job): number {
  switch (job.kind) {
    case 'counts':
      return job.since === null ? 2 : 4;
    case 'issues':
      return 1 + 2 * job.size;
    case 'pulls':
      return 1 + job.size;
    case 'pull':
    case 'recent':
      return 1;
  }
}

/** Exactly what is left, up to a page; a listing that grew during the read gets small pages for its stragglers. */
function pageSize(remaining: number): number {
  return remaining > 0 ? Math.min(PAGE, remaining) : 20;
}

class QueryText {
  private readonly declarations: string[] = [];
  readonly variables: Record<string, unknown> = {};

  bind(type: string, value: unknown): string {
    const name = `v${this.declarations.length}`;
    this.declarations.push(`$${name}: ${type}`);
    this.variables[name] = value;
    return `$${name}`;
  }

  field(alias: string, job: Job): string {
    const { owner, name } = job.state;
    return `${alias}: repository(owner: ${this.bind('String!', owner)}, name: ${this.bind('String!', name)}) { ${this.selection(job)} }`;
  }

  private selection(job: Job): string {
    switch (job.kind) {
      case 'counts': {
        const counts =
          'nameWithOwner openIssues: issues(states: OPEN) { totalCount } openPulls: pullRequests(states: OPEN) { totalCount }';
        if (job.since === null) return counts;
        return (
          `${counts} changed: issues(states: [OPEN, CLOSED], filterBy: { since: ${this.bind('DateTime!', job.since)} }) { totalCount } ` +
          `recent: pullRequests(first: ${PAGE}, orderBy: { field: UPDATED_AT, direction: DESC }) { ${RECENT_FIELDS} }`
        );
      }
      case 'issues': {
        const filter =
          job.since === null
            ? 'states: OPEN'
            : `states: [OPEN, CLOSED], filterBy: { since: ${this.bind('DateTime!', job.since)} }`;
        return `issues(${filter}, first: ${this.bind('Int!', job.size)}, after: ${this.bind('String', job.after)}, orderBy: { field: CREATED_AT, direction: ASC }) { nodes { ${ISSUE_FIELDS} } pageInfo { hasNextPage endCursor } }`;
      }
      case 'pulls':
        return `pullRequests(states: OPEN, first: ${this.bind('Int!', job.size)}, after: ${this.bind('String', job.after)}, orderBy: { field: CREATED_AT, direction: ASC }) { nodes { number ${CLAIM_FIELDS} } pageInfo { hasNextPage endCursor } }`;
      case 'pull':
        return `pullRequest(number: ${this.bind('Int!', job.number)}) { number state ${CLAIM_FIELDS} }`;
      case 'recent':
        return `pullRequests(first: ${PAGE}, after: ${this.bind('String', job.after)}, orderBy: { field: UPDATED_AT, direction: DESC }) { ${RECENT_FIELDS} }`;
    }
  }

  text(fields: readonly string[]): string {
    return `query Backlog(${this.declarations.join(', ')}) {\n  ${fields.join('\n  ')}\n  rateLimit { cost }\n}`;
  }
}

/** Runs jobs in packed, aliased queries, one query at a time, until no job is left; handlers may queue more. */
class Reader {
  readonly cost = { requests: 0, points: 0 };

  constructor(private readonly github: GithubClient) {}

  async drain(queue: Job[], handle: (job: Job, data: unknown) => Job[]): Promise<void> {
    while (queue.length > 0) {
      const batch: Job[] = [];
      let requests = 0;
      while (queue.length > 0 && batch.length < QUERY_ALIASES) {
        const next = queue[0] as Job;
        if (batch.length > 0 && requests + requestsOf(next) > QUERY_REQUESTS) break;
        batch.push(next);
        requests += requestsOf(next);
        queue.shift();
      }
      const data = await this.query(batch);
      batch.forEach((job, index) => {
        const answer = data[`j${index}`];
        if (answer === null || answer === undefined) {
          job.state.missing = true;
          return;
        }
        queue.push(...handle(job, answer));
      });
    }
  }

  private async query(batch: readonly Job[]): Promise<Record<string, unknown>> {
    const text = new QueryText();
    const fields = batch.map((job, index) => text.field(`j${index}`, job));
    const query = text.text(fields);
    this.cost.requests++;
    let data: Record<string, unknown>;
    try {
      data = await this.github.graphql<Record<string, unknown>>(query, text.variables);
    } catch (error) {
      // Something unknown (a repository, a pull request) is null with an error of its own; the rest of the answer stands.
      const unresolved =
        error instanceof GraphqlResponseError &&
        error.errors !== undefined &&
        error.errors.every((entry) => entry.type === 'NOT_FOUND');
      if (!unresolved) {
        const detail =
          error instanceof GraphqlResponseError
            ? error.errors?.map((entry) => entry.message).join('; ')
            : (error as Error).message;
        throw new BacklogError(
          'github-query-failed',
          `GitHub refused a backlog query over ${batch.map((job) => job.state.fullName).join(', ')}: ${detail}`,
          { cause: error },
        );
      }
      data = (error as GraphqlResponseError<Record<string, unknown> | undefined>).data ?? {};
    }
    const rateLimit = z.object({ cost: z.number() }).nullable().optional().safeParse(data['rateLimit']);
    this.cost.points += rateLimit.success ? (rateLimit.data?.cost ?? 0) : 0;
    return data;
  }
}

function parse<T>(schema: z.ZodType<T>, data: unknown, job: Job): T {
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    const problem = parsed.error.issues[0];
    throw new BacklogError(
      'github-query-failed',
      `GitHub's answer for ${job.state.fullName} (${job.kind}) does not have the expected shape at ${problem?.path.join('.') ?? ''}: ${problem?.message ?? ''}`,
    );
  }
  return parsed.data;
}

function toIssue(node: z.infer<typeof issueNode>): BacklogIssue {
  return {
    number: node.number,
    title: node.title,
    labels: [...new Set(node.labels.nodes.flatMap((label) => (label === null ? [] : [label.name])))].sort(),
    // GitHub shows a deleted account as "ghost".
    author: node.author?.login ?? 'ghost',
    createdAt: node.createdAt,
    updatedAt: node.updatedAt,
    comments: node.comments.totalCount,
    claimedBy: [],
    signals: bodySignals(node.title, node.body),
  };
}

/** Records the issues a pull request claims in its own repository (a closing reference elsewhere claims nothing here). */
function addClaims(state: RepoState, pull: number, references: z.infer<typeof closingReferences>): void {
  const own = state.nameWithOwner.toLowerCase();
  for (const reference of references.nodes) {
    if (reference === null || reference.repository.nameWithOwner.toLowerCase() !== own) continue;
    let claimants = state.claims.get(reference.number);
    if (claimants === undefined) state.claims.set(reference.number, (claimants = new Set()));
    claimants.add(pull);
  }
}

function dropClaims(state: RepoState, pull: number): void {
  for (const claimants of state.claims.values()) claimants.delete(pull);
}

function fullJobs(state: RepoState): Job[] {
  const jobs: Job[] = [];
  if (state.openIssues > 0)
    jobs.push({
      kind: 'issues',
      state,
      size: pageSize(state.openIssues),
      after: null,
      since: null,
      remaining: state.openIssues,
    });
  if (state.openPulls > 0) jobs.push(pullsJob(state));
  return jobs;
}

function pullsJob(state: RepoState): Job {
  return { kind: 'pulls', state, size: pageSize(state.openPulls), after: null, remaining: state.openPulls };
}

/** Handles one job's answer and returns the jobs it leads to. */
function handle(job: Job, data: unknown): Job[] {
  const { state } = job;
  switch (job.kind) {
    case 'counts': {
      const answer = parse(answers.counts, data, job);
      state.nameWithOwner = answer.nameWithOwner;
      state.openIssues = answer.openIssues.totalCount;
      state.openPulls = answer.openPulls.totalCount;
      if (job.since === null) return fullJobs(state);
      const jobs: Job[] = [];
      const changed = answer.changed?.totalCount ?? 0;
      if (changed > 0)
        jobs.push({
          kind: 'issues',
          state,
          size: pageSize(changed),
          after: null,
          since: job.since,
          remaining: changed,
        });
      if (answer.recent !== undefined) jobs.push(...recentPulls(state, answer.recent, job.since));
      return jobs;
    }
    case 'recent':
      return recentPulls(state, parse(answers.recent, data, job).pullRequests, job.since);
    case 'issues': {
      const { nodes, pageInfo: page } = parse(answers.issues, data, job).issues;
      for (const node of nodes) {
        if (node === null) continue;
        if (node.state === 'CLOSED') {
          state.issues.delete(node.number);
          continue;
        }
        // Back in the open listing though opened before the previous snapshot: reopened, or moved here.
        if (job.since !== null && !state.issues.has(node.number) && node.createdAt < job.since)
          state.rescanClaims = true;
        state.issues.set(node.number, toIssue(node));
      }
      const remaining = job.remaining - nodes.length;
      return page.hasNextPage && page.endCursor !== null
        ? [{ ...job, size: pageSize(remaining), after: page.endCursor, remaining }]
        : [];
    }
    case 'pulls': {
      const { nodes, pageInfo: page } = parse(answers.pulls, data, job).pullRequests;
      for (const node of nodes) if (node !== null) addClaims(state, node.number, node.closingIssuesReferences);
      const remaining = job.remaining - nodes.length;
      return page.hasNextPage && page.endCursor !== null
        ? [{ ...job, size: pageSize(remaining), after: page.endCursor, remaining }]
        : [];
    }
    case 'pull': {
      const pull = parse(answers.pull, data, job).pullRequest;
      if (pull !== null && pull.state === 'OPEN') addClaims(state, pull.number, pull.closingIssuesReferences);
      return [];
    }
  }
}

/**
 * Pull requests updated since the previous snapshot, newest first: each loses the claims it had, and an open one is
 * read again for the claims it has now. Older pull requests are unchanged, and so are their claims.
 */
function recentPulls(state: RepoState, listing: z.infer<typeof recentListing>, since: string): Job[] {
  const jobs: Job[] = [];
  let reachedOlder = false;
  for (const node of listing.nodes) {
    if (node === null) continue;
    if (node.updatedAt < since) {
      reachedOlder = true;
      break;
    }
    dropClaims(state, node.number);
    if (node.state === 'OPEN') jobs.push({ kind: 'pull', state, number: node.number });
  }
  if (!reachedOlder && listing.pageInfo.hasNextPage && listing.pageInfo.endCursor !== null)
    jobs.push({ kind: 'recent', state, after: listing.pageInfo.endCursor, since });
  return jobs;
}

function checkOptions(options: BacklogFetchOptions): { names: string[]; takenAt: string } {
  const bad = (message: string): BacklogError => new BacklogError('invalid-fetch-options', message);
  if (!registryVersion.safeParse(options.registryVersion).success)
    throw bad(
      `registryVersion ${JSON.stringify(options.registryVersion)} is not a registry version; pass e.g. "abp-registry/2026Q4"`,
    );
  const seen = new Set<string>();
  for (const name of options.repos) {
    if (!repoFullName.safeParse(name).success)
      throw bad(
        `"${name}" is not a repository "owner/name"; list repositories as the registry does, e.g. "vercel/next.js"`,
      );
    if (seen.has(name.toLowerCase())) throw bad(`${name} is listed twice; list each repository once`);
    seen.add(name.toLowerCase());
  }
  // A time without a zone would be read in the machine's zone: require one.
  const ms = /^\d{4}-\d{2}-\d{2}T[^Z+]*(?:Z|[+-]\d{2}:\d{2})$/.test(options.takenAt)
    ? Date.parse(options.takenAt)
    : Number.NaN;
  if (!Number.isFinite(ms))
    throw bad(
      `takenAt ${JSON.stringify(options.takenAt)} is not an RFC 3339 time with a zone; pass e.g. new Date().toISOString()`,
    );
  return { names: [...options.repos].sort(), takenAt: `${new Date(ms).toISOString().slice(0, 19)}Z` };
}

function newState(fullName: string): RepoState {
  const [owner = '', name = ''] = fullName.split('/');
  return {
    fullName,
    owner,
    name,
    nameWithOwner: fullName,
    issues: new Map(),
    claims: new Map(),
    openIssues: 0,
    openPulls: 0,
    missing: false,
    rescanClaims: false,
  };
}

function finish(
  reader: Reader,
  options: BacklogFetchOptions,
  takenAt: string,
  states: readonly RepoState[],
  mode: BacklogFetch['mode'],
): BacklogFetch {
  const repos: BacklogRepo[] = states
    .filter((state) => !state.missing)
    .map((state) => ({
      repo: state.fullName,
      issues: [...state.issues.values()]
        .sort((a, b) => a.number - b.number)
        .map((issue) => ({ ...issue, claimedBy: [...(state.claims.get(issue.number) ?? [])].sort((a, b) => a - b) })),
    }));
  return {
    snapshot: {
      schema: BACKLOG_SCHEMA_ID,
      registryVersion: options.registryVersion,
      takenAt,
      signalRules: SIGNAL_RULES,
      repos,
    },
    cost: { ...reader.cost },
    mode,
    missing: states.filter((state) => state.missing).map((state) => state.fullName),
  };
}

/** Reads every listed repository's open issues and the open pull requests that claim them. */
export async function fetchSnapshot(github: GithubClient, options: BacklogFetchOptions): Promise<BacklogFetch> {
  const { names, takenAt } = checkOptions(options);
  const reader = new Reader(github);
  const states = names.map(newState);
  await reader.drain(
    states.map((state) => ({ kind: 'counts', state, since: null })),
    handle,
  );
  return finish(reader, options, takenAt, states, 'full');
}

/**
 * Brings `previous` up to date at `options.takenAt`, reading only what changed since `previous.takenAt`:
 * - issues updated since, open and closed (GitHub's `filterBy.since` compares `updatedAt`, which closing, reopening,
 *   editing, labelling and commenting all move): an open one replaces its old record, a closed one is dropped;
 * - pull requests updated since (newest first, until an older one): their old claims are dropped and the open ones'
 *   closing references read again;
 * - then, per repository, the merged open-issue count must equal GitHub's `totalCount`. A difference (an issue deleted
 *   or transferred away, which leaves no trace in the listing) or an issue that came back (whose claims an unchanged
 *   pull request may hold) makes that repository be read in full. Repositories new to the list are read in full.
 * The result equals a full read at the same time. A previous snapshot with other signal rules is not refreshed: the
 * whole backlog is read again (`mode: 'full'`).
 */
export async function refreshSnapshot(
  github: GithubClient,
  previous: BacklogSnapshot,
  options: BacklogFetchOptions,
): Promise<BacklogFetch> {
  if (previous.signalRules !== SIGNAL_RULES) return fetchSnapshot(github, options);
  const { names, takenAt } = checkOptions(options);
  const reader = new Reader(github);
  const before = new Map(previous.repos.map((entry) => [entry.repo, entry]));
  const states = names.map(newState);
  const incremental = new Set<RepoState>();
  const jobs: Job[] = states.map((state) => {
    const old = before.get(state.fullName);
    if (old === undefined) return { kind: 'counts', state, since: null };
    incremental.add(state);
    for (const issue of old.issues) {
      state.issues.set(issue.number, issue);
      if (issue.claimedBy.length > 0) state.claims.set(issue.number, new Set(issue.claimedBy));
    }
    return { kind: 'counts', state, since: previous.takenAt };
  });
  await reader.drain(jobs, handle);

  const repairs: Job[] = [];
  for (const state of incremental) {
    if (state.missing) continue;
    if (state.issues.size !== state.openIssues) {
      state.issues.clear();
      state.claims.clear();
      repairs.push(...fullJobs(state));
    } else if (state.rescanClaims) {
      state.claims.clear();
      if (state.openPulls > 0) repairs.push(pullsJob(state));
    }
  }
  await reader.drain(repairs, handle);
  return finish(reader, options, takenAt, states, 'incremental');
}
