// The REST layer's parts without sockets: the issue/pull merge against a naive merge, search
// syntax, Link headers, secondary-limit budgets, and handler paths Octokit does not reach.
import { describe, expect, it } from 'vitest';
import type { SimRequest } from '../../../simulator/http/exchange.js';
import { RateLimits } from '../../../simulator/http/rate-limits.js';
import type { RestRequestError } from '../../../simulator/rest/errors.js';
import { handleRest } from '../../../simulator/rest/handler.js';
import type { RestContext } from '../../../simulator/rest/handler.js';
import { listIssues } from '../../../simulator/rest/listing.js';
import type { IssueListing } from '../../../simulator/rest/listing.js';
import { linkHeader, readPage } from '../../../simulator/rest/pagination.js';
import { readRepoSearch } from '../../../simulator/rest/search-params.js';
import { createsContent, SecondaryLimits } from '../../../simulator/rest/secondary-limits.js';
import { restFixtureWorld } from './fixture-world.js';
import { convertNullable } from './openapi.js';

const world = restFixtureWorld();
const widgets = world.repoById(1);
if (!widgets) throw new Error('test data lacks acme/widgets');

function request(path: string, init: Partial<SimRequest> = {}): SimRequest {
  const url = new URL(path, 'http://sim.invalid');
  return { method: 'GET', path: url.pathname, query: url.searchParams, headers: {}, body: '', token: 'unit-token', ...init };
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
        expect(page.items.map((item) => (item.$case === 'issue' ? item.issue.number : item.pull.number))).toEqual(full.slice(offset, offset + limit));
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
  const read = (q: string, extra = ''): ReturnType<typeof readRepoSearch> => readRepoSearch(new URLSearchParams(`q=${encodeURIComponent(q)}${extra}`));

  it('reads star bands, language, archived and fork qualifiers', () => {
    expect(read('stars:10..20 language:"Jupyter Notebook" archived:false fork:true', '&sort=updated&order=asc')).toEqual({
      minStars: 10, maxStars: 20, language: 'Jupyter Notebook', includeArchived: false, includeForks: true, sort: 'updated', direction: 'asc',
    });
    expect(read('stars:>=100')).toMatchObject({ minStars: 100, includeArchived: true, includeForks: false, sort: 'stars', direction: 'desc' });
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
    expect(link).toBe('<http://h/search/repositories?q=stars%3A%3E1&per_page=10&page=1>; rel="prev", <http://h/search/repositories?q=stars%3A%3E1&per_page=10&page=1>; rel="first"');
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
  });
});

describe('handleRest', () => {
  it('answers null for routes it does not serve', () => {
    const ctx = context();
    expect(handleRest(request('/repos/acme/widgets/pulls/6/files'), ctx)).toBeNull();
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
      expect(Object.keys(answer?.headers ?? {})).toEqual(expect.arrayContaining(['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-used', 'x-ratelimit-reset', 'x-ratelimit-resource']));
    }
  });

  it('charges an anonymous conditional request even when it is answered 304', () => {
    const ctx = context();
    const anonymous = { token: null };
    const first = handleRest(request('/repos/acme/widgets', anonymous), ctx);
    const etag = first?.headers['etag'] ?? '';
    const second = handleRest(request('/repos/acme/widgets', { ...anonymous, headers: { 'if-none-match': `W/${etag}` } }), ctx);
    expect(second?.status).toBe(304);
    expect(second?.body).toBe('');
    expect(second?.headers['x-ratelimit-used']).toBe('2');
    expect(second?.headers['x-ratelimit-limit']).toBe('60');
  });

  it('uses the base URL without a trailing slash in every url', () => {
    const answer = handleRest(request('/repos/acme/widgets'), context());
    const body = JSON.parse(answer?.body ?? '{}') as { url: string; clone_url: string; owner: { url: string } };
    expect([body.url, body.clone_url, body.owner.url]).toEqual(['http://127.0.0.1:4000/repos/acme/widgets', 'http://127.0.0.1:4000/acme/widgets.git', 'http://127.0.0.1:4000/users/acme']);
  });

  it('can run with secondary limits switched off', () => {
    const ctx = context({ secondaryLimits: new SecondaryLimits(Date.now, { pointsPerMinute: 1 }) });
    handleRest(request('/repos/acme/widgets'), ctx);
    expect(handleRest(request('/repos/acme/widgets'), ctx)?.status).toBe(403);
    const off = context({ secondaryLimits: null });
    for (let i = 0; i < 3; i += 1) expect(handleRest(request('/repos/acme/widgets'), off)?.status).toBe(200);
  });
});

describe('OpenAPI nullable conversion', () => {
  it('turns nullable into a type union, or an anyOf when there is no type', () => {
    expect(convertNullable({ type: 'string', enum: ['a'], nullable: true })).toEqual({ type: ['string', 'null'], enum: ['a', null] });
    expect(convertNullable({ allOf: [{ $ref: '#/x' }], nullable: true })).toEqual({ anyOf: [{ allOf: [{ $ref: '#/x' }] }, { type: 'null' }] });
    expect(convertNullable({ properties: { nullable: { type: 'boolean' } } })).toEqual({ properties: { nullable: { type: 'boolean' } } });
  });
});
