// Resolvers of GitHub's schema over a WorldReader. Objects are plain records read by one field
// resolver: a value, or a function of (args, context). A field the simulator does not serve is a
// GraphQL error naming it (null where the schema allows), never a crash or a silent guess.
import { createHash } from 'node:crypto';
import type { GraphQLFieldResolver } from 'graphql';
import { parseRepoSearchQuery, searchResultLimit, SearchQueryError } from '../http/search-query.js';
import type {
  IssueQuery,
  PullQuery,
  SimComment,
  SimIssue,
  SimLabel,
  SimPull,
  SimRepo,
  WorldReader,
} from '../world/model.js';
import { detectedLicense } from '../world/licenses.js';
import { decodeNodeId, encodeNodeId, syntheticNodeId } from '../world/node-id.js';
import { connection, fetchArray, fetchFiltered, type Args, type Fetch, type GqlObject } from './connection.js';
import { githubError } from './errors.js';

/** The authenticated user a token stands for. */
export interface GraphqlViewer {
  id: number;
  login: string;
}

/** The `rateLimit` object of one request, after its cost was spent (or not, for dryRun). */
export interface RateLimitView {
  cost: number;
  limit: number;
  remaining: number;
  used: number;
  /** ISO 8601, as GitHub's `resetAt`. */
  resetAt: string;
  nodeCount: number;
}

export interface ResolverContext {
  world: WorldReader;
  /** Base of the simulated html urls (`url` fields), the simulator's own address. */
  baseUrl: string;
  viewer: GraphqlViewer;
  rateLimit: RateLimitView;
}

type Resolver = (args: Args, context: ResolverContext) => unknown;

export const fieldResolver: GraphQLFieldResolver<unknown, ResolverContext> = (source, args, context, info) => {
  if (typeof source === 'object' && source !== null && Object.hasOwn(source, info.fieldName)) {
    const value = (source as GqlObject)[info.fieldName];
    return typeof value === 'function' ? (value as Resolver)(args as Args, context) : value;
  }
  throw githubError('SIMULATOR_UNSUPPORTED', `The simulator does not serve ${info.parentType.name}.${info.fieldName}.`);
};

function stringArg(args: Args, name: string): string {
  const value = args[name];
  return typeof value === 'string' ? value : '';
}

function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

/** A positive 31-bit number for users the world does not know (ids must be stable per login). */
function loginNumber(login: string): number {
  return Number.parseInt(sha1(login).slice(0, 7), 16) + 1;
}

export function rootValue(): GqlObject {
  return {
    viewer: (_args: Args, context: ResolverContext) => ({
      ...userFields(context, context.viewer.login, context.viewer.id),
      __typename: 'User',
    }),
    rateLimit: (_args: Args, context: ResolverContext) => ({ ...context.rateLimit }),
    repository: (args: Args, context: ResolverContext) => {
      const owner = stringArg(args, 'owner');
      const name = stringArg(args, 'name');
      const repo = context.world.repoByName(owner, name);
      if (!repo) throw githubError('NOT_FOUND', `Could not resolve to a Repository with the name '${owner}/${name}'.`);
      return repository(repo, context);
    },
    user: (args: Args, context: ResolverContext) => {
      const login = stringArg(args, 'login');
      const user = context.world.userByLogin(login);
      if (!user) throw githubError('NOT_FOUND', `Could not resolve to a User with the login of '${login}'.`);
      return { ...userFields(context, user.login, user.id), __typename: 'User' };
    },
    node: (args: Args, context: ResolverContext) => {
      const id = stringArg(args, 'id');
      const found = nodeById(id, context);
      if (!found) throw nodeNotFound(id);
      return found;
    },
    // An unknown id is null in the list with its own NOT_FOUND error: graphql-js completes an Error item that way.
    nodes: (args: Args, context: ResolverContext) =>
      (Array.isArray(args['ids']) ? (args['ids'] as string[]) : []).map(
        (id) => nodeById(id, context) ?? nodeNotFound(id),
      ),
    search: (args: Args, context: ResolverContext) => search(args, context),
  };
}

function nodeNotFound(id: string): Error {
  return githubError('NOT_FOUND', `Could not resolve to a node with the global id of '${id}'`);
}

function nodeById(id: string, context: ResolverContext): GqlObject | null {
  const ref = decodeNodeId(id);
  if (!ref) return null;
  const { world } = context;
  switch (ref.type) {
    case 'Repository': {
      const repo = world.repoById(ref.repoId);
      return repo ? repository(repo, context) : null;
    }
    case 'Issue': {
      const repo = world.repoById(ref.repoId);
      const issue = repo ? world.issue(repo, ref.number) : undefined;
      return repo && issue ? issueObject(repo, issue, context) : null;
    }
    case 'PullRequest': {
      const repo = world.repoById(ref.repoId);
      const pull = repo ? world.pull(repo, ref.number) : undefined;
      return repo && pull ? pullObject(repo, pull, context) : null;
    }
    case 'User': {
      const user = world.userById(ref.userId);
      return user ? actor(user.login, context) : null;
    }
  }
}

function search(args: Args, context: ResolverContext): GqlObject {
  const type = stringArg(args, 'type');
  if (type !== 'REPOSITORY') {
    throw githubError(
      'SIMULATOR_UNSUPPORTED',
      `The simulator searches repositories only (type: REPOSITORY), not ${type}.`,
    );
  }
  let plan;
  try {
    plan = parseRepoSearchQuery(stringArg(args, 'query'));
  } catch (error) {
    if (error instanceof SearchQueryError) throw githubError('UNPROCESSABLE', error.message);
    throw error;
  }
  const { search: repoSearch, residual } = plan;
  const all: Fetch<SimRepo> = (offset, limit) => context.world.searchRepos(repoSearch, offset, limit);
  const fetch = residual.length === 0 ? all : fetchFiltered(all, (repo) => residual.every((keep) => keep(repo)));
  const results = connection(args, fetch, (repo) => repository(repo, context), {
    cap: searchResultLimit,
    edgeFields: { textMatches: [] },
  });
  // SearchResultItemConnection has no totalCount: the count is repositoryCount.
  const fields = { ...results.fields };
  delete fields['totalCount'];
  return {
    ...fields,
    repositoryCount: results.total,
    issueCount: 0,
    userCount: 0,
    codeCount: 0,
    wikiCount: 0,
    discussionCount: 0,
  };
}

function userFields(context: ResolverContext, login: string, databaseId: number): GqlObject {
  return {
    id: encodeNodeId({ type: 'User', userId: databaseId }),
    databaseId,
    login,
    name: null,
    url: `${context.baseUrl}/${login}`,
    resourcePath: `/${login}`,
    avatarUrl: `${context.baseUrl}/avatars/${login}`,
  };
}

/** An author, merger or owner: the world's user or bot, an organization for unknown owners, a user otherwise. */
function actor(login: string, context: ResolverContext, role: 'actor' | 'owner' = 'actor'): GqlObject {
  const user = context.world.userByLogin(login);
  if (user) {
    // A bot cannot own a repository in GitHub's schema (RepositoryOwner is User | Organization).
    const typename = user.type === 'Bot' && role === 'actor' ? 'Bot' : 'User';
    return { ...userFields(context, user.login, user.id), __typename: typename };
  }
  if (role === 'owner') {
    return {
      __typename: 'Organization',
      id: syntheticNodeId('O', login),
      login,
      name: null,
      url: `${context.baseUrl}/${login}`,
      resourcePath: `/${login}`,
      avatarUrl: `${context.baseUrl}/avatars/${login}`,
    };
  }
  return { ...userFields(context, login, loginNumber(login)), __typename: 'User' };
}

function license(spdxId: string): GqlObject {
  const { key, name, pseudo } = detectedLicense(spdxId);
  return {
    id: syntheticNodeId('L', key),
    key,
    name,
    spdxId,
    nickname: null,
    pseudoLicense: pseudo,
    url: pseudo ? null : `http://choosealicense.com/licenses/${key}/`,
  };
}

function repository(repo: SimRepo, context: ResolverContext): GqlObject {
  const url = `${context.baseUrl}/${repo.owner}/${repo.name}`;
  const { world } = context;
  return {
    __typename: 'Repository',
    id: encodeNodeId({ type: 'Repository', repoId: repo.id }),
    databaseId: repo.id,
    name: repo.name,
    nameWithOwner: `${repo.owner}/${repo.name}`,
    owner: () => actor(repo.owner, context, 'owner'),
    description: repo.description,
    url,
    resourcePath: `/${repo.owner}/${repo.name}`,
    homepageUrl: null,
    licenseInfo: repo.licenseSpdxId === null ? null : license(repo.licenseSpdxId),
    isArchived: repo.isArchived,
    isFork: repo.isFork,
    isMirror: repo.mirrorUrl !== null,
    mirrorUrl: repo.mirrorUrl,
    isPrivate: false,
    isDisabled: false,
    isLocked: false,
    isTemplate: false,
    isEmpty: repo.files.length === 0,
    visibility: 'PUBLIC',
    hasIssuesEnabled: true,
    pushedAt: repo.pushedAt,
    createdAt: repo.createdAt,
    updatedAt: repo.updatedAt,
    stargazerCount: repo.stargazerCount,
    forkCount: repo.forkCount,
    primaryLanguage:
      repo.primaryLanguage === null
        ? null
        : { id: syntheticNodeId('LA', repo.primaryLanguage), name: repo.primaryLanguage, color: null },
    defaultBranchRef: () => defaultBranchRef(repo, context),
    object: (args: Args) => gitObject(repo, args, context),
    labels: (args: Args) => connection(args, fetchArray(repo.labels), (label) => labelObject(repo, label)).fields,
    label: (args: Args) => {
      const name = stringArg(args, 'name').toLowerCase();
      const label = repo.labels.find((candidate) => candidate.name.toLowerCase() === name);
      return label ? labelObject(repo, label) : null;
    },
    issues: (args: Args) => issueConnection(repo, args, context),
    issue: (args: Args) => {
      const number = Number(args['number']);
      const issue = world.issue(repo, number);
      if (!issue) throw githubError('NOT_FOUND', `Could not resolve to an Issue with the number of ${number}.`);
      return issueObject(repo, issue, context);
    },
    pullRequests: (args: Args) => pullConnection(repo, args, context),
    pullRequest: (args: Args) => {
      const number = Number(args['number']);
      const pull = world.pull(repo, number);
      if (!pull) throw githubError('NOT_FOUND', `Could not resolve to a PullRequest with the number of ${number}.`);
      return pullObject(repo, pull, context);
    },
    issueOrPullRequest: (args: Args) => {
      const number = Number(args['number']);
      const issue = world.issue(repo, number);
      if (issue) return issueObject(repo, issue, context);
      const pull = world.pull(repo, number);
      if (pull) return pullObject(repo, pull, context);
      throw githubError('NOT_FOUND', `Could not resolve to an issue or pull request with the number of ${number}.`);
    },
  };
}

function labelObject(repo: SimRepo, label: SimLabel): GqlObject {
  return {
    id: syntheticNodeId('LA', `${repo.id}:${label.name}`),
    name: label.name,
    color: label.color,
    description: label.description,
    isDefault: false,
  };
}

const unsupportedIssueFilters = [
  'assignee',
  'createdBy',
  'mentioned',
  'milestone',
  'milestoneNumber',
  'viewerSubscribed',
] as const;

function orderOf(value: unknown): { field: string; direction: 'ASC' | 'DESC' } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { field, direction } = value as { field?: unknown; direction?: unknown };
  return typeof field === 'string' ? { field, direction: direction === 'ASC' ? 'ASC' : 'DESC' } : undefined;
}

function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : undefined;
}

function issueConnection(repo: SimRepo, args: Args, context: ResolverContext): GqlObject {
  const filterBy = (
    typeof args['filterBy'] === 'object' && args['filterBy'] !== null ? args['filterBy'] : {}
  ) as Record<string, unknown>;
  for (const name of unsupportedIssueFilters) {
    // viewerSubscribed defaults to false in GitHub's schema: only a filter that narrows is refused.
    if (filterBy[name] !== undefined && filterBy[name] !== null && filterBy[name] !== false) {
      throw githubError('SIMULATOR_UNSUPPORTED', `The simulator does not filter issues by filterBy.${name}.`);
    }
  }
  const query: IssueQuery = {};
  const states = stringList(args['states']) ?? stringList(filterBy['states']);
  if (states) Object.assign(query, { states });
  const labels = stringList(args['labels']) ?? stringList(filterBy['labels']);
  if (labels) query.labels = labels;
  if (typeof filterBy['since'] === 'string') query.since = filterBy['since'];
  const order = orderOf(args['orderBy']);
  if (order) Object.assign(query, { orderBy: order });
  const fetch: Fetch<SimIssue> = (offset, limit) => context.world.issues(repo, query, offset, limit);
  return connection(args, fetch, (issue) => issueObject(repo, issue, context)).fields;
}

function pullConnection(repo: SimRepo, args: Args, context: ResolverContext): GqlObject {
  if ((stringList(args['labels']) ?? []).length > 0) {
    throw githubError('SIMULATOR_UNSUPPORTED', 'The simulator does not filter pull requests by labels.');
  }
  const query: PullQuery = {};
  const states = stringList(args['states']);
  if (states) Object.assign(query, { states });
  const order = orderOf(args['orderBy']);
  if (order) {
    if (order.field === 'COMMENTS')
      throw githubError('SIMULATOR_UNSUPPORTED', 'The simulator does not order pull requests by COMMENTS.');
    Object.assign(query, { orderBy: order });
  }
  const baseRefName = args['baseRefName'];
  const headRefName = args['headRefName'];
  const all: Fetch<SimPull> = (offset, limit) => context.world.pulls(repo, query, offset, limit);
  const fetch =
    typeof baseRefName === 'string' || typeof headRefName === 'string'
      ? fetchFiltered(
          all,
          (pull) =>
            (typeof baseRefName !== 'string' || pull.baseRefName === baseRefName) &&
            (typeof headRefName !== 'string' || pull.headRefName === headRefName),
        )
      : all;
  return connection(args, fetch, (pull) => pullObject(repo, pull, context)).fields;
}

function commentObject(comment: SimComment, issueUrl: string, context: ResolverContext): GqlObject {
  return {
    id: syntheticNodeId('IC', `${comment.id}`),
    databaseId: comment.id,
    body: comment.body,
    bodyText: comment.body,
    author: () => actor(comment.authorLogin, context),
    createdAt: comment.createdAt,
    updatedAt: comment.updatedAt,
    url: `${issueUrl}#issuecomment-${comment.id}`,
  };
}

function commentConnection(
  repo: SimRepo,
  number: number,
  url: string,
  args: Args,
  context: ResolverContext,
): GqlObject {
  const fetch: Fetch<SimComment> = (offset, limit) => context.world.comments(repo, number, offset, limit);
  return connection(args, fetch, (comment) => commentObject(comment, url, context)).fields;
}

function repoLabels(repo: SimRepo, names: readonly string[]): SimLabel[] {
  return names.map(
    (name) => repo.labels.find((label) => label.name === name) ?? { name, color: 'ededed', description: null },
  );
}

function issueObject(repo: SimRepo, issue: SimIssue, context: ResolverContext): GqlObject {
  const url = `${context.baseUrl}/${repo.owner}/${repo.name}/issues/${issue.number}`;
  return {
    __typename: 'Issue',
    id: encodeNodeId({ type: 'Issue', repoId: repo.id, number: issue.number }),
    number: issue.number,
    title: issue.title,
    body: issue.body,
    bodyText: issue.body,
    state: issue.state,
    stateReason: issue.stateReason,
    closed: issue.state === 'CLOSED',
    locked: false,
    url,
    resourcePath: `/${repo.owner}/${repo.name}/issues/${issue.number}`,
    createdAt: issue.createdAt,
    updatedAt: issue.updatedAt,
    closedAt: issue.closedAt,
    author: () => actor(issue.authorLogin, context),
    labels: (args: Args) =>
      connection(args, fetchArray(repoLabels(repo, issue.labels)), (label) => labelObject(repo, label)).fields,
    comments: (args: Args) => commentConnection(repo, issue.number, url, args, context),
    repository: () => repository(repo, context),
  };
}

function mergeStateStatus(pull: SimPull): string {
  if (pull.state !== 'OPEN') return 'UNKNOWN';
  // Without branch protection in the world, failing or pending checks leave the PR mergeable but unstable.
  return pull.checks === 'FAILURE' || pull.checks === 'PENDING' ? 'UNSTABLE' : 'CLEAN';
}

function commitObject(repo: SimRepo, oid: string, context: ResolverContext, tree?: () => GqlObject): GqlObject {
  return {
    __typename: 'Commit',
    id: syntheticNodeId('C', `${repo.id}:${oid}`),
    oid,
    abbreviatedOid: oid.slice(0, 7),
    url: `${context.baseUrl}/${repo.owner}/${repo.name}/commit/${oid}`,
    ...(tree ? { tree } : {}),
  };
}

function pullObject(repo: SimRepo, pull: SimPull, context: ResolverContext): GqlObject {
  const url = `${context.baseUrl}/${repo.owner}/${repo.name}/pull/${pull.number}`;
  return {
    __typename: 'PullRequest',
    id: encodeNodeId({ type: 'PullRequest', repoId: repo.id, number: pull.number }),
    number: pull.number,
    title: pull.title,
    body: pull.body,
    bodyText: pull.body,
    state: pull.state,
    closed: pull.state !== 'OPEN',
    merged: pull.state === 'MERGED',
    mergedAt: pull.mergedAt,
    mergedBy: () => (pull.mergedByLogin === null ? null : actor(pull.mergedByLogin, context)),
    mergeCommit: pull.mergeCommitOid === null ? null : commitObject(repo, pull.mergeCommitOid, context),
    baseRefName: pull.baseRefName,
    baseRefOid: pull.baseRefOid,
    headRefName: pull.headRefName,
    headRefOid: pull.headRefOid,
    isDraft: false,
    isCrossRepository: false,
    mergeStateStatus: mergeStateStatus(pull),
    mergeable: pull.state === 'OPEN' ? 'MERGEABLE' : 'UNKNOWN',
    statusCheckRollup:
      pull.checks === null ? null : { id: syntheticNodeId('SCR', `${repo.id}:${pull.headRefOid}`), state: pull.checks },
    url,
    permalink: url,
    resourcePath: `/${repo.owner}/${repo.name}/pull/${pull.number}`,
    author: () => actor(pull.authorLogin, context),
    createdAt: pull.createdAt,
    updatedAt: pull.updatedAt,
    closedAt: pull.closedAt,
    additions: pull.additions,
    deletions: pull.deletions,
    changedFiles: pull.changedFiles,
    labels: (args: Args) => connection(args, fetchArray<SimLabel>([]), (label) => labelObject(repo, label)).fields,
    comments: (args: Args) => commentConnection(repo, pull.number, url, args, context),
    closingIssuesReferences: (args: Args) => {
      const issues = pull.closesIssues.flatMap((number) => context.world.issue(repo, number) ?? []);
      return connection(args, fetchArray(issues), (issue) => issueObject(repo, issue, context)).fields;
    },
    repository: () => repository(repo, context),
  };
}

function defaultBranchRef(repo: SimRepo, context: ResolverContext): GqlObject {
  return {
    id: syntheticNodeId('REF', `${repo.id}:${repo.defaultBranch}`),
    name: repo.defaultBranch,
    prefix: 'refs/heads/',
    target: () => commitObject(repo, repo.headOid, context, () => treeObject(repo, '', context)),
    repository: () => repository(repo, context),
  };
}

/**
 * `object(expression: "REV:path")` and `object(oid:)` (the head commit or a blob of its tree); REV is HEAD, the default
 * branch or the head commit.
 */
function gitObject(repo: SimRepo, args: Args, context: ResolverContext): GqlObject | null {
  const headCommit = (): GqlObject => commitObject(repo, repo.headOid, context, () => treeObject(repo, '', context));
  if (typeof args['oid'] === 'string') {
    if (args['oid'] === repo.headOid) return headCommit();
    // A blob of the head's tree by its git id, as a reader of a tree listing asks for it.
    const file = repo.files.find((candidate) => blobOid(candidate.content) === args['oid']);
    return file === undefined ? null : blobObject(repo, file.content, context);
  }
  const expression = stringArg(args, 'expression');
  const separator = expression.indexOf(':');
  const revision = separator < 0 ? expression : expression.slice(0, separator);
  const knownRevisions = ['HEAD', repo.defaultBranch, `refs/heads/${repo.defaultBranch}`, repo.headOid];
  if (!knownRevisions.includes(revision)) return null;
  if (separator < 0) return headCommit();
  const path = expression.slice(separator + 1).replace(/^\/+|\/+$/g, '');
  if (path === '') return treeObject(repo, '', context);
  const file = repo.files.find((candidate) => candidate.path === path);
  if (file) return blobObject(repo, file.content, context);
  return repo.files.some((candidate) => candidate.path.startsWith(`${path}/`)) ? treeObject(repo, path, context) : null;
}

function blobOid(content: string): string {
  // Git's own blob id, so oids agree with a clone of the same content.
  const bytes = Buffer.from(content, 'utf8');
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

function blobObject(repo: SimRepo, content: string, context: ResolverContext): GqlObject {
  const oid = blobOid(content);
  return {
    __typename: 'Blob',
    id: syntheticNodeId('B', `${repo.id}:${oid}`),
    oid,
    abbreviatedOid: oid.slice(0, 7),
    byteSize: Buffer.byteLength(content, 'utf8'),
    text: content,
    isBinary: false,
    isTruncated: false,
    repository: () => repository(repo, context),
  };
}

interface TreeChild {
  name: string;
  path: string;
  content: string | null;
}

function treeChildren(repo: SimRepo, dir: string): TreeChild[] {
  const prefix = dir === '' ? '' : `${dir}/`;
  const children = new Map<string, TreeChild>();
  for (const file of repo.files) {
    if (!file.path.startsWith(prefix)) continue;
    const [name = '', ...rest] = file.path.slice(prefix.length).split('/');
    if (!children.has(name))
      children.set(name, { name, path: `${prefix}${name}`, content: rest.length === 0 ? file.content : null });
  }
  return [...children.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function treeObject(repo: SimRepo, dir: string, context: ResolverContext): GqlObject {
  const children = treeChildren(repo, dir);
  // Not git's tree hash (that needs every subtree's), but stable for the same listing.
  const oid = sha1(
    `tree ${dir}\0${children.map((child) => `${child.name}:${child.content === null ? 'tree' : blobOid(child.content)}`).join('\n')}`,
  );
  return {
    __typename: 'Tree',
    id: syntheticNodeId('T', `${repo.id}:${oid}`),
    oid,
    abbreviatedOid: oid.slice(0, 7),
    entries: children.map((child) => treeEntry(repo, child, context)),
    repository: () => repository(repo, context),
  };
}

function treeEntry(repo: SimRepo, child: TreeChild, context: ResolverContext): GqlObject {
  const isBlob = child.content !== null;
  const extension = isBlob && child.name.lastIndexOf('.') > 0 ? child.name.slice(child.name.lastIndexOf('.')) : null;
  return {
    name: child.name,
    path: child.path,
    type: isBlob ? 'blob' : 'tree',
    mode: isBlob ? 0o100644 : 0o040000,
    oid: child.content !== null ? blobOid(child.content) : () => treeObject(repo, child.path, context)['oid'],
    object: () =>
      child.content !== null ? blobObject(repo, child.content, context) : treeObject(repo, child.path, context),
    extension,
    size: child.content !== null ? Buffer.byteLength(child.content, 'utf8') : 0,
    lineCount: child.content !== null ? child.content.split('\n').length : null,
    isGenerated: false,
    language: null,
    nameRaw: Buffer.from(child.name).toString('base64'),
    pathRaw: Buffer.from(child.path).toString('base64'),
    submodule: null,
    repository: () => repository(repo, context),
  };
}
