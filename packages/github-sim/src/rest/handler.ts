// The REST half of the simulator: `handleRest` answers the routes the pipeline uses (reads, pull
// request files and diffs, check runs, a user's permission on a repository, and creating a pull
// request in a world that takes writes) with GitHub's bodies and headers, applying secondary
// limits, primary limits (`x-ratelimit-*`, 403 when spent) and conditional requests (ETag, 304
// without spending) in GitHub's order.
import { createHash } from 'node:crypto';
import type { SimContext, SimRequest, SimResponse } from '../http/exchange.js';
import { rateLimitHeaders } from '../http/rate-limits.js';
import type { RateLimitState, RateResource } from '../http/rate-limits.js';
import { searchResultLimit } from '../http/search-query.js';
import type { SimPull, SimRepo } from '../world/model.js';
import { CheckRenderer, knownCommit, recordedChecks } from './checks.js';
import { gitTree } from './git-tree.js';
import { createPull, readCreatePull } from './create-pull.js';
import {
  customValidation,
  diffTooLarge,
  docs,
  invalidField,
  noCommitFor,
  notFound,
  RestRequestError,
} from './errors.js';
import type { RestErrorBody } from './errors.js';
import { listComments, listIssues, listPulls } from './listing.js';
import type { Direction, IssueListing, IssueSort, PullListing, PullSort, StateFilter } from './listing.js';
import { linkHeader, pageCount, readPage } from './pagination.js';
import { pullDiff, pullPatch, resolveCommit } from './pull-diff.js';
import type { PullDiff } from './pull-diff.js';
import { primaryLimitBody, rateBucket } from './primary-limits.js';
import type { RateBucket } from './primary-limits.js';
import { RestRenderer, githubTime } from './representations.js';
import { matchRoute } from './routes.js';
import type { RepoRef, RestRoute } from './routes.js';
import { readRepoSearch } from './search-params.js';
import { createsContent, SecondaryLimits, secondaryLimitMessage } from './secondary-limits.js';
import { gitOf } from './world-capabilities.js';

export interface RestContext extends SimContext {
  /**
   * Secondary limits. Absent: GitHub's defaults, one set per server (see `secondaryLimitsFor`);
   * null: switched off. A server that tracks requests in flight passes the instance it brackets
   * requests with (`begin`), so the concurrency limit sees them.
   */
  secondaryLimits?: SecondaryLimits | null;
  /**
   * The commit-status context under which the world's CI verdicts also appear in the combined
   * status, for CI that posts statuses (Jenkins, Travis). Absent or null: CI is GitHub Actions,
   * which reports check runs only, so the combined status of every commit is empty and pending.
   */
  ciStatusContext?: string | null;
}

/** GitHub's caps on a pull request's files listing and on its diff media types. */
export const pullFileLimits = { listedFiles: 3_000, diffFiles: 300, diffLines: 20_000 } as const;

const defaultSecondary = new WeakMap<object, SecondaryLimits>();

/** The secondary limits `handleRest` applies for this context, or null when they are off. */
export function secondaryLimitsFor(ctx: RestContext): SecondaryLimits | null {
  if (ctx.secondaryLimits !== undefined) return ctx.secondaryLimits;
  let limits = defaultSecondary.get(ctx.rateLimits);
  if (!limits) {
    limits = new SecondaryLimits(ctx.now);
    defaultSecondary.set(ctx.rateLimits, limits);
  }
  return limits;
}

interface Rendered {
  status: number;
  body: unknown;
  link?: string | null;
  lastModified?: string;
  /** A `location` header (a created resource). */
  location?: string;
  /** A non-JSON answer (a diff or patch media type): its text and content type. */
  text?: { body: string; contentType: string; mediaType: string };
}

type TextFormat = 'diff' | 'patch';

/** The diff and patch media types of `Accept` (`application/vnd.github.v3.diff`, `…github.patch`), or null for JSON. */
function textFormat(accept: string | undefined): { format: TextFormat; contentType: string } | null {
  const match = /application\/vnd\.github(\.v3)?\.(diff|patch)\b/i.exec(accept ?? '');
  if (!match) return null;
  const format = match[2]?.toLowerCase() === 'patch' ? 'patch' : 'diff';
  return { format, contentType: `application/vnd.github${match[1] ?? ''}.${format}; charset=utf-8` };
}

let requestCounter = 0;
function requestId(now: number): string {
  requestCounter = (requestCounter + 1) % 0x1_0000_0000;
  return `${requestCounter.toString(16).toUpperCase().padStart(8, '0')}:${Math.floor(now / 1000)
    .toString(16)
    .toUpperCase()}`;
}

function strongEtag(body: string): string {
  return `"${createHash('sha256').update(body).digest('hex')}"`;
}

/** `If-None-Match` compares weakly (RFC 9110): `W/"x"` matches `"x"`, and `*` matches anything. */
function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(',').some((candidate) => {
    const tag = candidate.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

function oneOf<T extends string>(
  query: URLSearchParams,
  name: string,
  allowed: readonly T[],
  fallback: T,
  resource: string,
  doc: string,
): T {
  const raw = query.get(name);
  if (raw === null || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw)) throw invalidField(resource, name, doc);
  return raw as T;
}

function readSince(query: URLSearchParams, resource: string, doc: string): string | null {
  const raw = query.get('since');
  if (raw === null || raw === '') return null;
  if (Number.isNaN(Date.parse(raw))) throw invalidField(resource, 'since', doc);
  return new Date(raw).toISOString();
}

const routeDocs: Record<RestRoute['$case'], string> = {
  'rate-limit': docs.rateLimit,
  'search-repos': docs.searchRepos,
  repo: docs.getRepo,
  issues: docs.listIssues,
  issue: docs.getIssue,
  'issue-comments': docs.listComments,
  pulls: docs.listPulls,
  pull: docs.getPull,
  'create-pull': docs.createPull,
  'pull-files': docs.listPullFiles,
  'check-runs': docs.checkRunsForRef,
  'combined-status': docs.combinedStatus,
  'collaborator-permission':
    'https://docs.github.com/rest/collaborators/collaborators#get-repository-permissions-for-a-user',
  'git-tree': docs.getTree,
};

class RestExchange {
  private readonly renderer: RestRenderer;

  constructor(
    private readonly request: SimRequest,
    private readonly ctx: RestContext,
    private readonly bucket: RateBucket,
  ) {
    this.renderer = new RestRenderer(ctx, bucket.authenticated);
  }

  private repo(ref: RepoRef, doc: string): SimRepo {
    const repo = ref.by === 'id' ? this.ctx.world.repoById(ref.id) : this.ctx.world.repoByName(ref.owner, ref.name);
    if (!repo) throw notFound(doc);
    return repo;
  }

  private paged(url: string, total: number, items: unknown[], page: number, perPage: number): Rendered {
    return { status: 200, body: items, link: linkHeader(url, this.request.query, page, pageCount(total, perPage)) };
  }

  /** The bare repository behind `repo`; a world without git (scale) cannot serve file contents. */
  private gitPath(repo: SimRepo, doc: string): string {
    const git = gitOf(this.ctx.world);
    // Loudly rather than with invented content: a stage that needs diffs runs against a live world.
    if (git === null)
      throw customValidation(
        'PullRequest',
        'This world keeps no git content (a scale world): files and diffs are served by live worlds',
        doc,
      );
    return git.gitPathOf(repo);
  }

  private diffOf(repo: SimRepo, number: number, doc: string): { pull: SimPull; diff: PullDiff; path: string } {
    const pull = this.ctx.world.pull(repo, number);
    if (!pull) throw notFound(doc);
    const path = this.gitPath(repo, doc);
    return { pull, diff: pullDiff(path, pull.baseRefOid, pull.headRefOid), path };
  }

  /** A commit of `repo` named by sha, short sha, branch or tag; 422 "No commit found" as GitHub answers otherwise. */
  private commit(repo: SimRepo, ref: string, doc: string): string {
    const git = gitOf(this.ctx.world);
    const sha = git === null ? knownCommit(this.ctx.world, repo, ref) : resolveCommit(git.gitPathOf(repo), ref);
    if (sha === null) throw noCommitFor(ref, doc);
    return sha;
  }

  render(route: RestRoute): Rendered {
    const { world } = this.ctx;
    const query = this.request.query;
    const doc = routeDocs[route.$case];
    switch (route.$case) {
      case 'rate-limit':
        return { status: 200, body: this.rateLimitOverview() };
      case 'search-repos': {
        const search = readRepoSearch(query);
        const { perPage, page, offset } = readPage(query);
        if (offset >= searchResultLimit) {
          throw new RestRequestError('search-window', 422, {
            message: `Only the first ${searchResultLimit} search results are available`,
            documentation_url: docs.searchWindow,
            status: '422',
          });
        }
        const found = world.searchRepos(search, offset, Math.min(perPage, searchResultLimit - offset));
        const reachable = Math.min(found.total, searchResultLimit);
        return {
          status: 200,
          body: {
            total_count: found.total,
            incomplete_results: false,
            items: found.items.map((repo) => this.renderer.searchItem(repo)),
          },
          link: linkHeader(`${this.renderer.api}/search/repositories`, query, page, pageCount(reachable, perPage)),
        };
      }
      case 'repo': {
        const repo = this.repo(route.repo, doc);
        return { status: 200, body: this.renderer.fullRepository(repo), lastModified: repo.updatedAt };
      }
      case 'issues': {
        const repo = this.repo(route.repo, doc);
        const listing: IssueListing = {
          state: oneOf<StateFilter>(query, 'state', ['open', 'closed', 'all'], 'open', 'Issue', doc),
          labels: (query.get('labels') ?? '')
            .split(',')
            .map((label) => label.trim())
            .filter((label) => label !== ''),
          since: readSince(query, 'Issue', doc),
          sort: oneOf<IssueSort>(query, 'sort', ['created', 'updated', 'comments'], 'created', 'Issue', doc),
          direction: oneOf<Direction>(query, 'direction', ['asc', 'desc'], 'desc', 'Issue', doc),
        };
        const { perPage, page, offset } = readPage(query);
        const found = listIssues(world, repo, listing, offset, perPage);
        const items = found.items.map((item) =>
          item.$case === 'issue'
            ? this.renderer.issue(repo, item.issue, false)
            : this.renderer.pullAsIssue(repo, item.pull, item.commentCount, false),
        );
        return this.paged(`${this.renderer.repoCanonical(repo)}/issues`, found.total, items, page, perPage);
      }
      case 'issue': {
        const repo = this.repo(route.repo, doc);
        const issue = world.issue(repo, route.number);
        if (issue) return { status: 200, body: this.renderer.issue(repo, issue, true), lastModified: issue.updatedAt };
        // The issues API answers for pull requests too, as issues with a `pull_request` key.
        const pull = world.pull(repo, route.number);
        if (!pull) throw notFound(doc);
        const comments = world.comments(repo, pull.number, 0, 0).total;
        return {
          status: 200,
          body: this.renderer.pullAsIssue(repo, pull, comments, true),
          lastModified: pull.updatedAt,
        };
      }
      case 'issue-comments': {
        const repo = this.repo(route.repo, doc);
        if (!world.issue(repo, route.number) && !world.pull(repo, route.number)) throw notFound(doc);
        const since = readSince(query, 'IssueComment', doc);
        const { perPage, page, offset } = readPage(query);
        const found = listComments(world, repo, route.number, since, offset, perPage);
        const items = found.items.map((comment) => this.renderer.comment(repo, comment));
        return this.paged(
          `${this.renderer.repoCanonical(repo)}/issues/${route.number}/comments`,
          found.total,
          items,
          page,
          perPage,
        );
      }
      case 'pulls': {
        const repo = this.repo(route.repo, doc);
        const sort = oneOf<PullSort>(
          query,
          'sort',
          ['created', 'updated', 'popularity', 'long-running'],
          'created',
          'PullRequest',
          doc,
        );
        // GitHub's default direction is desc for `created` and asc for every other sort.
        const listing: PullListing = {
          state: oneOf<StateFilter>(query, 'state', ['open', 'closed', 'all'], 'open', 'PullRequest', doc),
          base: query.get('base'),
          head: query.get('head'),
          sort,
          direction: oneOf<Direction>(
            query,
            'direction',
            ['asc', 'desc'],
            sort === 'created' ? 'desc' : 'asc',
            'PullRequest',
            doc,
          ),
        };
        const { perPage, page, offset } = readPage(query);
        const found = listPulls(world, repo, listing, this.ctx.now(), offset, perPage);
        const items = found.items.map((pull) => this.renderer.pullSimple(repo, pull));
        return this.paged(`${this.renderer.repoCanonical(repo)}/pulls`, found.total, items, page, perPage);
      }
      case 'pull': {
        const repo = this.repo(route.repo, doc);
        const pull = world.pull(repo, route.number);
        if (!pull) throw notFound(doc);
        const media = textFormat(this.request.headers['accept']);
        if (media !== null) return this.pullText(repo, pull.number, media.format, media.contentType, doc);
        const comments = world.comments(repo, pull.number, 0, 0).total;
        return { status: 200, body: this.renderer.pull(repo, pull, comments), lastModified: pull.updatedAt };
      }
      case 'create-pull': {
        const repo = this.repo(route.repo, doc);
        const created = createPull(world, repo, readCreatePull(this.request.body));
        const url = `${this.renderer.repoApi(repo)}/pulls/${created.number}`;
        return { status: 201, body: this.renderer.pull(repo, created, 0), location: url };
      }
      case 'pull-files': {
        const repo = this.repo(route.repo, doc);
        const { pull, diff } = this.diffOf(repo, route.number, doc);
        // GitHub lists at most 3,000 files; later pages come back empty.
        const listed = diff.files.slice(0, pullFileLimits.listedFiles);
        const { perPage, page, offset } = readPage(query);
        const items = listed.slice(offset, offset + perPage).map((file) => this.renderer.diffEntry(repo, pull, file));
        return this.paged(
          `${this.renderer.repoCanonical(repo)}/pulls/${pull.number}/files`,
          listed.length,
          items,
          page,
          perPage,
        );
      }
      case 'git-tree': {
        const repo = this.repo(route.repo, doc);
        const url = this.renderer.repoApi(repo);
        // Any value of `recursive` lists the whole tree, as GitHub documents it.
        const listing = gitTree(repo, url, query.has('recursive'));
        const known = [repo.defaultBranch, `refs/heads/${repo.defaultBranch}`, 'HEAD', repo.headOid, listing.sha];
        if (!known.includes(route.ref)) throw notFound(doc);
        return { status: 200, body: listing };
      }
      case 'check-runs': {
        const repo = this.repo(route.repo, doc);
        const sha = this.commit(repo, route.ref, doc);
        const name = query.get('check_name');
        const status = oneOf(query, 'status', ['queued', 'in_progress', 'completed'], 'any', 'CheckRun', doc);
        // Validated but moot: the world keeps one run per pull request and commit, so latest is all.
        oneOf(query, 'filter', ['latest', 'all'], 'latest', 'CheckRun', doc);
        const checks = new CheckRenderer(world, this.renderer);
        const runs = recordedChecks(world, repo, sha)
          .map((check) => checks.checkRun(repo, sha, check))
          .filter((run) => (name === null || run['name'] === name) && (status === 'any' || run['status'] === status));
        const { perPage, page, offset } = readPage(query);
        return {
          status: 200,
          body: { total_count: runs.length, check_runs: runs.slice(offset, offset + perPage) },
          link: linkHeader(
            `${this.renderer.repoCanonical(repo)}/commits/${sha}/check-runs`,
            query,
            page,
            pageCount(runs.length, perPage),
          ),
        };
      }
      case 'combined-status': {
        const repo = this.repo(route.repo, doc);
        const sha = this.commit(repo, route.ref, doc);
        const { perPage, offset } = readPage(query);
        const checks = new CheckRenderer(world, this.renderer);
        return {
          status: 200,
          body: checks.combinedStatus(repo, sha, recordedChecks(world, repo, sha), this.ctx.ciStatusContext ?? null, {
            offset,
            limit: perPage,
          }),
        };
      }
      case 'collaborator-permission': {
        const repo = this.repo(route.repo, doc);
        // GitHub answers 404 for a login that is no user; any user may read a public repository.
        const user = world.userByLogin(route.username);
        if (!user) throw notFound(doc);
        return { status: 200, body: this.renderer.collaboratorPermission(repo, user.login) };
      }
    }
  }

  /** A pull request as a unified diff or as `format-patch` mail, within GitHub's size limits. */
  private pullText(repo: SimRepo, number: number, format: TextFormat, contentType: string, doc: string): Rendered {
    const { pull, diff, path } = this.diffOf(repo, number, doc);
    if (diff.files.length > pullFileLimits.diffFiles) throw diffTooLarge('files', pullFileLimits.diffFiles);
    if (diff.changedLines > pullFileLimits.diffLines) throw diffTooLarge('lines', pullFileLimits.diffLines);
    const body = format === 'diff' ? diff.text : pullPatch(path, pull.baseRefOid, pull.headRefOid);
    return {
      status: 200,
      body: null,
      text: { body, contentType, mediaType: `github.v3; param=${format}` },
      lastModified: pull.updatedAt,
    };
  }

  private rateLimitOverview(): unknown {
    const entry = (resource: RateResource): Record<string, number> => {
      const state = this.bucket.limits.peek(this.bucket.key, resource);
      return { limit: state.limit, used: state.used, remaining: state.remaining, reset: state.reset };
    };
    const core = entry('core');
    return { resources: { core, search: entry('search'), graphql: entry('graphql') }, rate: core };
  }
}

export function handleRest(request: SimRequest, ctx: RestContext): SimResponse | null {
  const route = matchRoute(request.method, request.path);
  if (!route) return null;
  const now = ctx.now();
  const bucket = rateBucket(ctx, request.token);
  const resource: RateResource = route.$case === 'search-repos' ? 'search' : 'core';
  const common: Record<string, string> = {
    'x-github-api-version-selected': '2022-11-28',
    'x-github-media-type': 'github.v3; format=json',
    'x-github-request-id': requestId(now),
    vary: 'Accept, Authorization, Cookie, X-GitHub-OTP',
  };
  // Answers to reads may be cached for a minute; a write's answer is not cacheable.
  if (request.method.toUpperCase() === 'GET') {
    common['cache-control'] =
      route.$case === 'search-repos'
        ? 'no-cache'
        : `${bucket.authenticated ? 'private' : 'public'}, max-age=60, s-maxage=60`;
  }
  const json = (
    status: number,
    body: unknown,
    state: RateLimitState,
    extra: Record<string, string> = {},
  ): SimResponse => ({
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...common, ...rateLimitHeaders(state), ...extra },
    body: JSON.stringify(body),
  });

  // `/rate_limit` reports the buckets without spending from them or counting toward secondary limits.
  const spends = route.$case !== 'rate-limit';

  if (spends) {
    const secondary = secondaryLimitsFor(ctx);
    const verdict = secondary?.admit({
      token: request.token,
      method: request.method,
      createsContent: createsContent(request.method, request.path),
    });
    if (secondary && verdict?.$case === 'limited') {
      const id = common['x-github-request-id'] ?? '';
      const body: RestErrorBody = {
        message: secondaryLimitMessage(verdict.reason, id),
        documentation_url: docs.secondaryLimit,
        status: String(secondary.options.status),
      };
      return json(secondary.options.status, body, bucket.limits.peek(bucket.key, resource), {
        'retry-after': String(verdict.retryAfterSeconds),
      });
    }
    const before = bucket.limits.peek(bucket.key, resource);
    if (before.remaining <= 0) {
      // GitHub sends no retry-after for a spent primary limit: clients wait for x-ratelimit-reset.
      const address = request.headers['x-forwarded-for']?.split(',')[0]?.trim() ?? '127.0.0.1';
      return json(403, primaryLimitBody(bucket, address), before);
    }
  }

  let rendered: Rendered;
  try {
    rendered = new RestExchange(request, ctx, bucket).render(route);
  } catch (error) {
    if (!(error instanceof RestRequestError)) throw error;
    rendered = { status: error.status, body: error.body };
  }

  const body = rendered.text?.body ?? JSON.stringify(rendered.body);
  if (rendered.text) common['x-github-media-type'] = rendered.text.mediaType;
  const extra: Record<string, string> = {};
  if (rendered.link) extra['link'] = rendered.link;
  if (rendered.location !== undefined) extra['location'] = rendered.location;
  if (rendered.lastModified !== undefined)
    extra['last-modified'] = new Date(githubTime(rendered.lastModified)).toUTCString();
  if (rendered.status === 200) {
    const etag = strongEtag(body);
    extra['etag'] = etag;
    // A 304 to an authorized conditional request is free; GitHub charges anonymous ones as usual.
    if (etagMatches(request.headers['if-none-match'], etag)) {
      const state =
        spends && !bucket.authenticated
          ? bucket.limits.spend(bucket.key, resource, 1)
          : bucket.limits.peek(bucket.key, resource);
      const headers: Record<string, string> = { ...common, ...rateLimitHeaders(state), etag };
      if (extra['last-modified'] !== undefined) headers['last-modified'] = extra['last-modified'];
      return { status: 304, headers, body: '' };
    }
  }
  const state = spends ? bucket.limits.spend(bucket.key, resource, 1) : bucket.limits.peek(bucket.key, resource);
  const answer = json(rendered.status, rendered.body, state, extra);
  if (rendered.text) answer.headers['content-type'] = rendered.text.contentType;
  return { ...answer, body };
}
