// The REST layer's parts without sockets: the issue/pull merge against a naive merge, search
// syntax, Link headers, secondary-limit budgets, and handler paths Octokit does not reach.
import { describe, expect, it } from 'vitest';
import type { SimRequest } from '../../src/http/exchange.js';
import { RateLimits } from '../../src/http/rate-limits.js';
import type { RestRequestError } from '../../src/rest/errors.js';
import { handleRest } from '../../src/rest/handler.js';
import type { RestContext } from '../../src/rest/handler.js';
import { listIssues } from '../../src/rest/listing.js';
import type { IssueListing } from '../../src/rest/listing.js';
import { linkHeader, readPage } from '../../src/rest/pagination.js';
import { matchRoute } from '../../src/rest/routes.js';
import { readRepoSearch } from '../../src/rest/search-params.js';
import { createsContent, SecondaryLimits } from '../../src/rest/secondary-limits.js';
import { restFixtureWorld } from './fixture-world.js';
import { convertNullable, loadGitHubOpenApi } from './openapi.js';

const world = restFixtureWorld();
const widgets = world.repoById(1);
if (!widgets) throw new Error('test data lacks acme/widgets');

function request(path: string, init: Partial<SimRequest> = {}): SimRequest {
  const url = new URL(path, 'http://sim.invalid');
  return {
    method: 'GET',
    path: url.pathname,
    query: url.searchParams,
    headers: {},
    body: '',
    token: 'unit-token',
    ...init,
  };
}

function context(overrides: Partial<RestContext> = {}): RestContext {
  let clock = Date.parse('2025-06-01T00:00:00Z');
  const now = (): number => (clock += 1);
  return { world, rateLimits: new RateLimits(now), baseUrl: 'http://127.0.0.1:4000/', now, ...overrides };
}

describe('issue listing merge', () => {
  const naive = (listing: IssueListing): number[] => {
    const all = listIssues(world, widgets, listing, 0, 1_000).items;
    return all.map((item) => (item.$case === 'issue' ? item.issue.number : item.pull.number));
  };

  it.each([
    { sort: 'created', direction: 'desc' },
    { sort: 'created', direction: 'asc' },
    { sort: 'updated', direction: 'asc' },
    { sort: 'comments', direction: 'desc' },
  ] as const)('every window equals the same slice of the full merge ($sort $direction)', ({ sort, direction }) => {
    const listing: IssueListing = { state: 'all', labels: [], since: null, sort, direction };
    const full = naive(listing);
    expect(full).toHaveLength(53);
    for (const limit of [1, 3, 7]) {
      for (let offset = 0; offset < 56; offset += 1) {
        const page = listIssues(world, widgets, listing, offset, limit);
        expect(page.total).toBe(53);
        expect(page.items.map((item) => (item.$case === 'issue' ? item.issue.number : item.pull.number))).toEqual(
          full.slice(offset, offset + limit),
        );
      }
    }
  });

  it('puts a pull request before an issue created at the same moment', () => {
    const full = naive({ state: 'all', labels: [], since: null, sort: 'created', direction: 'desc' });
    // #6 (pull request) and #7 (issue) share a creation time.
    expect(full.indexOf(6)).toBe(full.indexOf(7) - 1);
  });
});

describe('search syntax', () => {
  const read = (q: string, extra = ''): ReturnType<typeof readRepoSearch> =>
    readRepoSearch(new URLSearchParams(`q=${encodeURIComponent(q)}${extra}`));

  it('reads star bands, language, archived and fork qualifiers', () => {
    expect(
      read('stars:10..20 language:"Jupyter Notebook" archived:false fork:true', '&sort=updated&order=asc'),
    ).toEqual({
      minStars: 10,
      maxStars: 20,
      language: 'Jupyter Notebook',
      includeArchived: false,
      includeForks: true,
      sort: 'updated',
      direction: 'asc',
    });
    expect(read('stars:>=100')).toMatchObject({
      minStars: 100,
      includeArchived: true,
      includeForks: false,
      sort: 'stars',
      direction: 'desc',
    });
    expect(read('stars:>100 stars:<=500')).toMatchObject({ minStars: 101, maxStars: 500 });
    expect(read('stars:*..9')).toMatchObject({ maxStars: 9 });
  });

  it.each(['', 'free text', 'stars:lots', 'fork:only', 'topic:cli'])('refuses %j with a 422', (q) => {
    expect(() => read(q)).toThrow(expect.objectContaining({ status: 422 }) as Error);
  });

  it('reads a sort: qualifier in q, which the sort and order parameters override', () => {
    expect(read('stars:>1 sort:updated-asc')).toMatchObject({ sort: 'updated', direction: 'asc' });
    expect(read('stars:>1 sort:updated-asc', '&sort=stars')).toMatchObject({ sort: 'stars', direction: 'asc' });
    expect(read('stars:>1 sort:updated-asc', '&order=desc')).toMatchObject({ sort: 'updated', direction: 'desc' });
  });

  it('names the filters REST search cannot apply over the index in its 422', () => {
    const refusal = (() => {
      try {
        read('stars:>1 archived:true mirror:true');
      } catch (error) {
        return error as RestRequestError;
      }
      throw new Error('expected a refusal');
    })();
    expect(refusal.code).toBe('unsupported-query');
    expect(refusal.body.errors?.[0]?.message).toContain('archived:true mirror:true');
    expect(() => read('is:private')).toThrow(expect.objectContaining({ code: 'unsupported-query' }) as Error);
    expect(() => read('fork:maybe')).toThrow(expect.objectContaining({ code: 'validation-failed' }) as Error);
  });
});

describe('pagination', () => {
  it('clamps per_page to 100 and defaults unparsable values', () => {
    expect(readPage(new URLSearchParams('per_page=500&page=3'))).toEqual({ perPage: 100, page: 3, offset: 200 });
    expect(readPage(new URLSearchParams('per_page=abc&page=-1'))).toEqual({ perPage: 30, page: 1, offset: 0 });
  });

  it('keeps the query and moves page last', () => {
    const link = linkHeader('http://h/search/repositories', new URLSearchParams('page=2&q=stars:>1&per_page=10'), 2, 2);
    expect(link).toBe(
      '<http://h/search/repositories?q=stars%3A%3E1&per_page=10&page=1>; rel="prev", <http://h/search/repositories?q=stars%3A%3E1&per_page=10&page=1>; rel="first"',
    );
  });
});

describe('secondary limits', () => {
  it('counts content creation per minute and POSTs as five points', () => {
    let clock = 0;
    const limits = new SecondaryLimits(() => clock, { contentPerMinute: 2, pointsPerMinute: 15 });
    const create = { token: 't', method: 'POST', createsContent: true };
    expect(limits.admit(create).$case).toBe('allowed');
    expect(limits.admit(create).$case).toBe('allowed');
    expect(limits.admit(create)).toEqual({ $case: 'limited', reason: 'content-creation', retryAfterSeconds: 60 });
    expect(limits.admit({ token: 't', method: 'GET', createsContent: false }).$case).toBe('allowed');
    expect(limits.admit({ token: 't', method: 'PATCH', createsContent: false })).toMatchObject({ reason: 'points' });
    clock = 60_000;
    expect(limits.admit(create).$case).toBe('allowed');
  });

  it('tracks requests in flight per token, ending each once', () => {
    const limits = new SecondaryLimits(() => 0, { maxConcurrent: 1 });
    const end = limits.begin('t');
    limits.begin('t');
    expect(limits.admit({ token: 't', method: 'GET', createsContent: false })).toMatchObject({ reason: 'concurrency' });
    end();
    end();
    expect(limits.inFlight('t')).toBe(1);
    expect(limits.admit({ token: 'other', method: 'GET', createsContent: false }).$case).toBe('allowed');
  });

  it('knows which routes create content', () => {
    expect(createsContent('POST', '/repos/a/b/pulls')).toBe(true);
    expect(createsContent('POST', '/repos/a/b/issues/3/comments')).toBe(true);
    expect(createsContent('GET', '/repos/a/b/pulls')).toBe(false);
    expect(createsContent('POST', '/repos/a/b/check-runs')).toBe(false);
    expect(createsContent('POST', '/repositories/7/pulls')).toBe(true);
  });
});

describe('handleRest', () => {
  it('answers null for routes it does not serve', () => {
    const ctx = context();
    expect(handleRest(request('/repos/acme/widgets/pulls/6/commits'), ctx)).toBeNull();
    expect(handleRest(request('/repos/acme/widgets/issues', { method: 'POST' }), ctx)).toBeNull();
    expect(handleRest(request('/user'), ctx)).toBeNull();
  });

  it('serves repositories by id, as its Link headers name them', () => {
    const ctx = context();
    const byId = handleRest(request('/repositories/1/issues?state=all&per_page=100'), ctx);
    const byName = handleRest(request('/repos/acme/widgets/issues?state=all&per_page=100'), ctx);
    expect(byId?.status).toBe(200);
    expect(byId?.body).toBe(byName?.body);
    expect(byId?.headers['etag']).toBe(byName?.headers['etag']);
  });

  it('puts x-ratelimit headers on every answer, including 404 and 422', () => {
    const ctx = context();
    for (const path of ['/repos/acme/none', '/search/repositories?q=words', '/repos/acme/widgets/issues?state=bogus']) {
      const answer = handleRest(request(path), ctx);
      expect(answer?.status).toBeGreaterThanOrEqual(404);
      expect(Object.keys(answer?.headers ?? {})).toEqual(
        expect.arrayContaining([
          'x-ratelimit-limit',
          'x-ratelimit-remaining',
          'x-ratelimit-used',
          'x-ratelimit-reset',
          'x-ratelimit-resource',
        ]),
      );
    }
  });

  it('charges an anonymous conditional request even when it is answered 304', () => {
    const ctx = context();
    const anonymous = { token: null };
    const first = handleRest(request('/repos/acme/widgets', anonymous), ctx);
    const etag = first?.headers['etag'] ?? '';
    const second = handleRest(
      request('/repos/acme/widgets', { ...anonymous, headers: { 'if-none-match': `W/${etag}` } }),
      ctx,
    );
    expect(second?.status).toBe(304);
    expect(second?.body).toBe('');
    expect(second?.headers['x-ratelimit-used']).toBe('2');
    expect(second?.headers['x-ratelimit-limit']).toBe('60');
  });

  it('uses the base URL without a trailing slash in every url', () => {
    const answer = handleRest(request('/repos/acme/widgets'), context());
    const body = JSON.parse(answer?.body ?? '{}') as { url: string; clone_url: string; owner: { url: string } };
    expect([body.url, body.clone_url, body.owner.url]).toEqual([
      'http://127.0.0.1:4000/repos/acme/widgets',
      'http://127.0.0.1:4000/acme/widgets.git',
      'http://127.0.0.1:4000/users/acme',
    ]);
  });

  it('can run with secondary limits switched off', () => {
    const ctx = context({ secondaryLimits: new SecondaryLimits(Date.now, { pointsPerMinute: 1 }) });
    handleRest(request('/repos/acme/widgets'), ctx);
    expect(handleRest(request('/repos/acme/widgets'), ctx)?.status).toBe(403);
    const off = context({ secondaryLimits: null });
    for (let i = 0; i < 3; i += 1) expect(handleRest(request('/repos/acme/widgets'), off)?.status).toBe(200);
  });
});

describe('write, diff and check routes', () => {
  const head18 = '18'.padStart(40, 'c');

  it('matches POST /pulls, pull files and commit routes with percent-encoded refs', () => {
    expect(matchRoute('POST', '/repos/acme/widgets/pulls')).toEqual({
      $case: 'create-pull',
      repo: { by: 'name', owner: 'acme', name: 'widgets' },
    });
    expect(matchRoute('POST', '/repos/acme/widgets/issues')).toBeNull();
    expect(matchRoute('GET', '/repositories/1/pulls/6/files')).toEqual({
      $case: 'pull-files',
      repo: { by: 'id', id: 1 },
      number: 6,
    });
    expect(matchRoute('GET', '/repos/acme/widgets/issues/6/files')).toBeNull();
    expect(matchRoute('GET', '/repos/acme/widgets/commits/feature%2Fx/check-runs')).toMatchObject({
      $case: 'check-runs',
      ref: 'feature/x',
    });
    expect(matchRoute('GET', '/repos/acme/widgets/commits/main/status')).toMatchObject({
      $case: 'combined-status',
      ref: 'main',
    });
    expect(matchRoute('GET', '/repos/acme/widgets/commits/main/statuses')).toBeNull();
  });

  it('reports check runs from the pull requests of a world without an event log', () => {
    const openapi = loadGitHubOpenApi();
    const answer = handleRest(request(`/repos/acme/widgets/commits/${head18}/check-runs`), context());
    const body = JSON.parse(answer?.body ?? '{}') as {
      total_count: number;
      check_runs: { conclusion: string; pull_requests: { number: number }[] }[];
    };
    expect(openapi.check('/repos/{owner}/{repo}/commits/{ref}/check-runs', 'get', 200, body)).toEqual([]);
    expect(body.total_count).toBe(1);
    expect(body.check_runs[0]).toMatchObject({ conclusion: 'failure', pull_requests: [{ number: 18 }] });
    const filtered = handleRest(request(`/repos/acme/widgets/commits/${head18}/check-runs?status=queued`), context());
    expect(JSON.parse(filtered?.body ?? '{}')).toEqual({ total_count: 0, check_runs: [] });
    expect(handleRest(request(`/repos/acme/widgets/commits/${'e'.repeat(40)}/check-runs`), context())?.status).toBe(
      422,
    );
  });

  it('shows CI in the combined status only for a configured status context', () => {
    const openapi = loadGitHubOpenApi();
    const actions = JSON.parse(
      handleRest(request(`/repos/acme/widgets/commits/${head18}/status`), context())?.body ?? '{}',
    ) as unknown;
    expect(actions).toMatchObject({ state: 'pending', total_count: 0, statuses: [] });
    const posted = JSON.parse(
      handleRest(request(`/repos/acme/widgets/commits/${head18}/status`), context({ ciStatusContext: 'ci/test' }))
        ?.body ?? '{}',
    ) as unknown;
    expect(openapi.check('/repos/{owner}/{repo}/commits/{ref}/status', 'get', 200, posted)).toEqual([]);
    expect(posted).toMatchObject({
      state: 'failure',
      total_count: 1,
      statuses: [{ context: 'ci/test', state: 'failure' }],
    });
    const green = JSON.parse(
      handleRest(
        request(`/repos/acme/widgets/commits/${'6'.padStart(40, 'c')}/status`),
        context({ ciStatusContext: 'ci/test' }),
      )?.body ?? '{}',
    ) as unknown;
    expect(green).toMatchObject({ state: 'success' });
  });

  it('answers files and diffs of a world without git loudly, and creations with 403', () => {
    const files = handleRest(request('/repos/acme/widgets/pulls/6/files'), context());
    expect(files?.status).toBe(422);
    expect(JSON.parse(files?.body ?? '{}')).toMatchObject({
      errors: [
        { resource: 'PullRequest', code: 'custom', message: expect.stringContaining('no git content') as unknown },
      ],
    });
    expect(
      handleRest(
        request('/repos/acme/widgets/pulls/6', { headers: { accept: 'application/vnd.github.diff' } }),
        context(),
      )?.status,
    ).toBe(422);
    const create = handleRest(
      request('/repos/acme/widgets/pulls', {
        method: 'POST',
        body: JSON.stringify({ title: 't', head: 'x', base: 'main' }),
      }),
      context(),
    );
    expect([create?.status, create?.headers['cache-control']]).toEqual([403, undefined]);
    const invalid = handleRest(
      request('/repos/acme/widgets/pulls', {
        method: 'POST',
        body: JSON.stringify({ title: 7, head: 'x', base: 'main' }),
      }),
      context(),
    );
    expect(JSON.parse(invalid?.body ?? '{}')).toMatchObject({
      message: "Invalid request.\n\nFor 'properties/title', 7 is not a string.",
    });
  });
});

describe('OpenAPI nullable conversion', () => {
  it('turns nullable into a type union, or an anyOf when there is no type', () => {
    expect(convertNullable({ type: 'string', enum: ['a'], nullable: true })).toEqual({
      type: ['string', 'null'],
      enum: ['a', null],
    });
    expect(convertNullable({ allOf: [{ $ref: '#/x' }], nullable: true })).toEqual({
      anyOf: [{ allOf: [{ $ref: '#/x' }] }, { type: 'null' }],
    });
    expect(convertNullable({ properties: { nullable: { type: 'boolean' } } })).toEqual({
      properties: { nullable: { type: 'boolean' } },
    });
  });
});
