// Pull requests as the task lifecycle sees them: their state read in batched `nodes(ids:)` polls or
// by URL, the merger's write access, the merge verdict of spec §4.2, and opening the fix upstream.
import { GraphqlResponseError } from '@octokit/graphql';
import { z } from 'zod';
import type { GithubClient } from './client.js';
import { AbpError } from '@abp/protocol/errors';

export type PullRequestErrorCode =
  /** Not `https://<host>/<owner>/<name>/pull/<number>`. */
  | 'malformed-pull-url'
  /** A repository that is not `owner/name`, or a head that is not `forkOwner:branch`. */
  | 'invalid-input'
  /** The repository or its pull request does not exist, or the token cannot see it. */
  | 'pull-not-found'
  /** GitHub refused to open the pull request (no commits, unknown branch, …). */
  | 'pull-refused'
  /** GitHub answered a query with errors other than unknown ids. */
  | 'query-failed'
  /** GitHub's answer does not have the shape asked for. */
  | 'unexpected-answer';

export class PullRequestError extends AbpError<PullRequestErrorCode> {}

export type CheckRollup = 'SUCCESS' | 'FAILURE' | 'PENDING' | 'ERROR' | 'EXPECTED';

export interface PullStatus {
  nodeId: string;
  url: string;
  /** `owner/name` of the base repository. */
  repo: string;
  number: number;
  state: 'OPEN' | 'CLOSED' | 'MERGED';
  merged: boolean;
  mergedAt: string | null;
  /** Null until merged, and for a merger whose account was deleted. */
  mergedBy: string | null;
  baseRefName: string;
  /** Null only for a repository without a default branch (an empty one). */
  defaultBranch: string | null;
  repoArchived: boolean;
  headOid: string;
  mergeCommitOid: string | null;
  /**
   * The check and status rollup of the head commit (GitHub's `PullRequest.statusCheckRollup`): the
   * commit branch protection's required checks gate a merge on, and the one the simulator serves.
   * Null when no check ran.
   */
  checks: CheckRollup | null;
  /** Issues the pull request closes ("Fixes #12"), the first ten. */
  closesIssues: number[];
  updatedAt: string;
}

/** GraphQL queries sent and the rate-limit points GitHub charged for them (`rateLimit { cost }`). */
export interface QueryCost {
  requests: number;
  points: number;
}

/** GitHub resolves at most 100 ids in one `nodes(ids:)`. */
const NODES_PER_QUERY = 100;

const PULL_FIELDS = `
fragment PullStatusFields on PullRequest {
  id url number state merged mergedAt mergedBy { login }
  baseRefName headRefOid mergeCommit { oid } statusCheckRollup { state }
  repository { nameWithOwner isArchived defaultBranchRef { name } }
  closingIssuesReferences(first: 10) { nodes { number } }
  updatedAt
}`;

const NODES_QUERY = `query PullStatuses($ids: [ID!]!) {
  rateLimit { cost }
  nodes(ids: $ids) { ...PullStatusFields }
}
${PULL_FIELDS}`;

const BY_NUMBER_QUERY = `query PullByNumber($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) { pullRequest(number: $number) { ...PullStatusFields } }
}
${PULL_FIELDS}`;

const pullNode = z.object({
  id: z.string(),
  url: z.string(),
  number: z.int().positive(),
  state: z.enum(['OPEN', 'CLOSED', 'MERGED']),
  merged: z.boolean(),
  mergedAt: z.string().nullable(),
  mergedBy: z.object({ login: z.string() }).nullable(),
  baseRefName: z.string(),
  headRefOid: z.string(),
  mergeCommit: z.object({ oid: z.string() }).nullable(),
  statusCheckRollup: z.object({ state: z.enum(['SUCCESS', 'FAILURE', 'PENDING', 'ERROR', 'EXPECTED']) }).nullable(),
  repository: z.object({
    nameWithOwner: z.string(),
    isArchived: z.boolean(),
    defaultBranchRef: z.object({ name: z.string() }).nullable(),
  }),
  closingIssuesReferences: z.object({ nodes: z.array(z.object({ number: z.int() }).nullable()) }),
  updatedAt: z.string(),
});

function toStatus(node: z.infer<typeof pullNode>): PullStatus {
  return {
    nodeId: node.id,
    url: node.url,
    repo: node.repository.nameWithOwner,
    number: node.number,
    state: node.state,
    merged: node.merged,
    mergedAt: node.mergedAt,
    mergedBy: node.mergedBy?.login ?? null,
    baseRefName: node.baseRefName,
    defaultBranch: node.repository.defaultBranchRef?.name ?? null,
    repoArchived: node.repository.isArchived,
    headOid: node.headRefOid,
    mergeCommitOid: node.mergeCommit?.oid ?? null,
    checks: node.statusCheckRollup?.state ?? null,
    closesIssues: node.closingIssuesReferences.nodes.flatMap((issue) => (issue === null ? [] : [issue.number])),
    updatedAt: node.updatedAt,
  };
}

function readPull(data: unknown, what: string): PullStatus {
  const parsed = pullNode.safeParse(data);
  if (parsed.success) return toStatus(parsed.data);
  const issue = parsed.error.issues[0];
  throw new PullRequestError(
    'unexpected-answer',
    `GitHub's answer for ${what} does not have the shape asked for at ${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`,
  );
}

function errorDetail(error: unknown): string {
  if (error instanceof GraphqlResponseError) return (error.errors ?? []).map((entry) => entry.message).join('; ');
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs a query whose unresolvable parts GitHub answers NOT_FOUND (null, with an error each): the
 * rest of the answer stands. Any other error is a `query-failed`.
 */
async function queryAllowingNotFound(
  github: GithubClient,
  query: string,
  variables: Record<string, unknown>,
  what: string,
): Promise<{ data: Record<string, unknown>; notFound: boolean }> {
  try {
    return { data: await github.graphql<Record<string, unknown>>(query, variables), notFound: false };
  } catch (error) {
    const errors = error instanceof GraphqlResponseError ? (error.errors ?? []) : [];
    if (errors.length === 0 || !errors.every((entry) => entry.type === 'NOT_FOUND')) {
      throw new PullRequestError('query-failed', `GitHub failed ${what}: ${errorDetail(error)}`, { cause: error });
    }
    return { data: (error as GraphqlResponseError<Record<string, unknown> | undefined>).data ?? {}, notFound: true };
  }
}

const rateLimitAnswer = z.object({ rateLimit: z.object({ cost: z.number().nonnegative() }) });

/**
 * The state of many pull requests by node id, in batches of 100 (one rate-limit point each), in
 * the order of first mention; repeated ids are read once. Ids GitHub cannot resolve (deleted, not
 * visible, not pull requests) are `missing`, not errors.
 */
export async function readPullStatuses(
  github: GithubClient,
  nodeIds: readonly string[],
): Promise<{ statuses: PullStatus[]; missing: string[]; cost: QueryCost }> {
  const ids = [...new Set(nodeIds)];
  const statuses: PullStatus[] = [];
  const missing: string[] = [];
  const cost: QueryCost = { requests: 0, points: 0 };
  // One batch after another: GitHub's secondary limits punish concurrent requests from one token.
  for (let start = 0; start < ids.length; start += NODES_PER_QUERY) {
    const batch = ids.slice(start, start + NODES_PER_QUERY);
    const what = `the state of ${batch.length} pull requests (from ${batch[0] ?? ''})`;
    const { data } = await queryAllowingNotFound(github, NODES_QUERY, { ids: batch }, what);
    cost.requests += 1;
    const rateLimit = rateLimitAnswer.safeParse(data);
    cost.points += rateLimit.success ? rateLimit.data.rateLimit.cost : 0;
    const nodes = z.array(z.unknown()).length(batch.length).safeParse(data['nodes']);
    if (!nodes.success)
      throw new PullRequestError('unexpected-answer', `GitHub's answer to ${what} does not hold one node per id`);
    batch.forEach((id, index) => {
      const node = nodes.data[index];
      // Null: not resolved. An object without fields: a node of another type than PullRequest.
      if (typeof node !== 'object' || node === null || !('id' in node)) missing.push(id);
      // Keyed by the id asked for: GitHub may answer a legacy id with the pull request's new-format one.
      else statuses.push({ ...readPull(node, `pull request ${id}`), nodeId: id });
    });
  }
  return { statuses, missing, cost };
}

const PULL_URL_PATH = /^\/([A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)\/([A-Za-z0-9._-]+)\/pull\/([1-9]\d*)\/?$/;

/** Owner, name and number of a pull request's web URL (`https://github.com/octo/repo/pull/12`). */
export function parsePullUrl(url: string): { owner: string; name: string; number: number } {
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    parsed = null;
  }
  const match =
    parsed !== null && (parsed.protocol === 'https:' || parsed.protocol === 'http:')
      ? PULL_URL_PATH.exec(parsed.pathname)
      : null;
  const number = Number(match?.[3]);
  if (!match || !Number.isSafeInteger(number)) {
    throw new PullRequestError(
      'malformed-pull-url',
      `${JSON.stringify(url)} is not a pull request URL: give its web address, e.g. https://github.com/octo/repo/pull/12`,
    );
  }
  return { owner: match[1] ?? '', name: match[2] ?? '', number };
}

/** The state of one pull request named by its web URL. */
export async function readPullByUrl(github: GithubClient, url: string): Promise<PullStatus> {
  const { owner, name, number } = parsePullUrl(url);
  const what = `pull request ${owner}/${name}#${number}`;
  const { data, notFound } = await queryAllowingNotFound(
    github,
    BY_NUMBER_QUERY,
    { owner, name, number },
    `reading ${what}`,
  );
  const pull = z.object({ repository: z.object({ pullRequest: z.unknown() }).nullable() }).safeParse(data);
  if (notFound || !pull.success || pull.data.repository === null || pull.data.repository.pullRequest === null) {
    throw new PullRequestError(
      'pull-not-found',
      `${what} (${url}) does not exist or the token cannot see it: check the URL, and that GITHUB_TOKEN can read ${owner}/${name}`,
    );
  }
  return readPull(pull.data.repository.pullRequest, what);
}

function splitRepo(repo: string): { owner: string; name: string } {
  const [owner, name, ...rest] = repo.split('/');
  if (!owner || !name || rest.length > 0)
    throw new PullRequestError(
      'invalid-input',
      `${JSON.stringify(repo)} is not a repository: write it as owner/name, e.g. octo/repo`,
    );
  return { owner, name };
}

function httpStatus(error: unknown): number | undefined {
  return typeof error === 'object' && error !== null && 'status' in error && typeof error.status === 'number'
    ? error.status
    : undefined;
}

/**
 * Whether `login` may push to `repo` (`owner/name`): GitHub's write, maintain or admin role. A login
 * GitHub does not know is no writer.
 */
export async function hasWriteAccess(github: GithubClient, repo: string, login: string): Promise<boolean> {
  const { owner, name } = splitRepo(repo);
  try {
    const answer = await github.rest.repos.getCollaboratorPermissionLevel({ owner, repo: name, username: login });
    // GitHub reports the maintain role as write here (its role_name says maintain); custom roles as their base role.
    return ['admin', 'maintain', 'write'].includes(answer.data.permission);
  } catch (error) {
    if (httpStatus(error) === 404) return false;
    throw error;
  }
}

export type MergeVerdict =
  | { accepted: true }
  | {
      accepted: false;
      reason: 'not-merged' | 'not-default-branch' | 'merger-without-write-access' | 'checks-not-green';
      detail: string;
    };

/**
 * Whether a pull request's merge makes its fix verified (spec §4.2): merged, into the default
 * branch, by someone with write access, with the checks green. The first failing condition decides.
 */
export function judgeMerge(status: PullStatus, mergerHasWriteAccess: boolean): MergeVerdict {
  const pull = `${status.repo}#${status.number}`;
  if (!status.merged)
    return { accepted: false, reason: 'not-merged', detail: `${pull} is ${status.state.toLowerCase()}, not merged` };
  if (status.baseRefName !== status.defaultBranch) {
    return {
      accepted: false,
      reason: 'not-default-branch',
      detail: `${pull} was merged into ${status.baseRefName}, not the default branch ${status.defaultBranch ?? '(none)'}`,
    };
  }
  if (!mergerHasWriteAccess) {
    return {
      accepted: false,
      reason: 'merger-without-write-access',
      detail: `${pull} was merged by ${status.mergedBy ?? 'a deleted account'}, who has no write access to ${status.repo}`,
    };
  }
  if (status.checks !== 'SUCCESS') {
    return {
      accepted: false,
      reason: 'checks-not-green',
      detail: `${pull} was merged with its checks ${status.checks ?? 'never run'} at ${status.headOid}`,
    };
  }
  return { accepted: true };
}

export interface FixPullRequest {
  /** The upstream repository, `owner/name`. */
  repo: string;
  /** `forkOwner:branch`. */
  head: string;
  /** The branch to merge into, normally the default branch. */
  base: string;
  title: string;
  body: string;
}

/**
 * Opens the fix pull request upstream. Idempotent: when an open pull request from the same head
 * into the same base exists already (a retried activity), that one is returned.
 */
export async function openFixPullRequest(
  github: GithubClient,
  input: FixPullRequest,
): Promise<{ url: string; number: number; nodeId: string }> {
  const { owner, name } = splitRepo(input.repo);
  if (!/^[^:\s]+:[^:\s]+$/.test(input.head)) {
    throw new PullRequestError(
      'invalid-input',
      `${JSON.stringify(input.head)} is not a fork's branch: write it as forkOwner:branch, e.g. abp-solver:fix-12`,
    );
  }
  try {
    const created = await github.rest.pulls.create({
      owner,
      repo: name,
      head: input.head,
      base: input.base,
      title: input.title,
      body: input.body,
    });
    return { url: created.data.html_url, number: created.data.number, nodeId: created.data.node_id };
  } catch (error) {
    if (httpStatus(error) !== 422) throw error;
    const messages = validationMessages(error);
    if (messages.some((message) => message.startsWith('A pull request already exists'))) {
      const open = await github.rest.pulls.list({
        owner,
        repo: name,
        head: input.head,
        base: input.base,
        state: 'open',
      });
      const existing = open.data[0];
      if (existing) return { url: existing.html_url, number: existing.number, nodeId: existing.node_id };
    }
    throw new PullRequestError(
      'pull-refused',
      `GitHub refused to open a pull request from ${input.head} into ${input.repo}:${input.base}: ${messages.join('; ') || 'validation failed'}`,
      {
        cause: error,
      },
    );
  }
}

const validationBody = z.object({
  message: z.string().optional(),
  errors: z
    .array(z.object({ message: z.string().optional(), field: z.string().optional(), code: z.string().optional() }))
    .optional(),
});

/** The reasons in GitHub's 422 body ("Validation Failed" and one entry per problem). */
function validationMessages(error: unknown): string[] {
  const response = typeof error === 'object' && error !== null && 'response' in error ? error.response : undefined;
  const body = validationBody.safeParse(
    typeof response === 'object' && response !== null && 'data' in response ? response.data : undefined,
  );
  if (!body.success) return [];
  const entries = (body.data.errors ?? []).map(
    (entry) => entry.message ?? `${entry.field ?? '?'} is ${entry.code ?? 'invalid'}`,
  );
  return entries.length > 0 ? entries : body.data.message === undefined ? [] : [body.data.message];
}
