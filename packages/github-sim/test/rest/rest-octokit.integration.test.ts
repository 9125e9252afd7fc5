// The REST simulator driven by the project's real Octokit (rest + throttling + retry): bodies
// validate against GitHub's OpenAPI description, Link headers drive paginate, ETags answer 304
// for free, and primary and secondary limits reach the throttling plugin's handlers.
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/server.js';
import type { RunningSimulator, SimulatorOptions } from '../../src/server.js';
import { generatedAt, restFixtureWorld, widgetsNumbers, widgetsPullNumbers } from './fixture-world.js';
import { loadGitHubOpenApi } from './openapi.js';

const SimOctokit = Octokit.plugin(throttling, retry);
type SimOctokitClient = InstanceType<typeof SimOctokit>;

interface LimitEvent {
  kind: 'primary' | 'secondary';
  retryAfter: number;
  url: string;
}

interface ClientOptions {
  token?: string | null;
  /** Answer to the plugin's handlers: retry (true) or give up (false). */
  retryOnLimit?: boolean;
}

function client(baseUrl: string, events: LimitEvent[] = [], options: ClientOptions = {}): SimOctokitClient {
  const token = options.token === undefined ? 'sim-token' : options.token;
  const onLimit =
    (kind: LimitEvent['kind']) =>
    (retryAfter: number, request: { url: string }, _octokit: unknown, retryCount: number) => {
      events.push({ kind, retryAfter, url: request.url });
      return (options.retryOnLimit ?? false) && retryCount === 0;
    };
  return new SimOctokit({
    baseUrl,
    ...(token === null ? {} : { auth: token }),
    // Retry waits are scaled down so a retry after `retry-after: 1` takes 10 ms.
    throttle: { onRateLimit: onLimit('primary'), onSecondaryRateLimit: onLimit('secondary'), retryAfterBaseValue: 10 },
    retry: { retries: 0 },
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
  });
}

const world = restFixtureWorld();
const openapi = loadGitHubOpenApi();

async function server(options: Partial<SimulatorOptions> = {}): Promise<RunningSimulator> {
  return startSimulator({ world, tokens: new Set(['sim-token']), ...options });
}

function expectConforms(path: string, status: number, body: unknown): void {
  expect(openapi.check(path, 'get', status, body)).toEqual([]);
}

async function rejection(
  promise: Promise<unknown>,
): Promise<{ status: number; response: { headers: Record<string, string | undefined>; data: unknown } }> {
  try {
    await promise;
  } catch (error) {
    return error as { status: number; response: { headers: Record<string, string | undefined>; data: unknown } };
  }
  throw new Error('expected the request to fail');
}

describe('REST simulator against Octokit', () => {
  let sim: RunningSimulator;
  let octokit: SimOctokitClient;

  beforeAll(async () => {
    sim = await server();
    octokit = client(sim.apiUrl);
  });
  afterAll(async () => {
    await sim.close();
  });

  describe('response bodies conform to the OpenAPI description', () => {
    it('GET /rate_limit', async () => {
      const { data, headers } = await octokit.rest.rateLimit.get();
      expectConforms('/rate_limit', 200, data);
      expect(data.resources.core.limit).toBe(5_000);
      expect(data.resources.search.limit).toBe(30);
      expect(data.resources.graphql?.limit).toBe(5_000);
      expect(headers['x-ratelimit-resource']).toBe('core');
    });

    it('GET /search/repositories', async () => {
      const { data, headers } = await octokit.rest.search.repos({
        q: 'stars:>=500 archived:false',
        sort: 'stars',
        order: 'desc',
      });
      expectConforms('/search/repositories', 200, data);
      expect(data.items.map((repo) => repo.full_name)).toEqual(
        ['acme/widgets', 'bulk/repo-1049', 'bulk/repo-1048'].concat(data.items.slice(3).map((repo) => repo.full_name)),
      );
      expect(data.items.some((repo) => repo.archived)).toBe(false);
      expect(data.incomplete_results).toBe(false);
      expect(headers['x-ratelimit-resource']).toBe('search');
      expect(headers['x-ratelimit-limit']).toBe('30');
    });

    it('GET /repos/{owner}/{repo} for licensed, unlicensed, unrecognized-license and unknown-owner repositories', async () => {
      for (const [owner, repo] of [
        ['acme', 'widgets'],
        ['ACME', 'Gadgets'],
        ['forker', 'widgets'],
        ['bulk', 'repo-7'],
      ] as const) {
        const { data } = await octokit.rest.repos.get({ owner, repo });
        expectConforms('/repos/{owner}/{repo}', 200, data);
      }
      const { data: widgets } = await octokit.rest.repos.get({ owner: 'acme', repo: 'widgets' });
      expect(widgets.license?.spdx_id).toBe('MIT');
      expect(widgets.url).toBe(`${sim.apiUrl}/repos/acme/widgets`);
      expect(widgets.node_id).toMatch(/^R_/);
      const openPulls = widgetsPullNumbers.filter((n) => n % 12 !== 0 && n !== 42).length;
      expect(widgets.open_issues_count).toBe((world.repoById(1)?.openIssueCount ?? 0) + openPulls);
      const { data: gadgets } = await octokit.rest.repos.get({ owner: 'acme', repo: 'gadgets' });
      expect([gadgets.license, gadgets.description, gadgets.archived]).toEqual([null, null, true]);
    });

    it('GET /repos/{owner}/{repo}/git/trees/{tree_sha} by branch, recursively; an unknown tree is 404', async () => {
      const { data } = await octokit.rest.git.getTree({
        owner: 'acme',
        repo: 'widgets',
        tree_sha: 'main',
        recursive: '1',
      });
      expectConforms('/repos/{owner}/{repo}/git/trees/{tree_sha}', 200, data);
      expect(data.tree.map((entry) => [entry.path, entry.type, entry.size])).toEqual([['package.json', 'blob', 46]]);
      expect(data.truncated).toBe(false);
      const bySha = await octokit.rest.git.getTree({ owner: 'acme', repo: 'widgets', tree_sha: data.sha });
      expect(bySha.data.sha).toBe(data.sha);
      const missing = await rejection(
        octokit.rest.git.getTree({ owner: 'acme', repo: 'widgets', tree_sha: 'f'.repeat(40) }),
      );
      expect(missing.status).toBe(404);
    });

    it('GET /repos/{owner}/{repo}/issues lists pull requests with a pull_request key', async () => {
      const { data } = await octokit.rest.issues.listForRepo({
        owner: 'acme',
        repo: 'widgets',
        state: 'all',
        per_page: 100,
      });
      expectConforms('/repos/{owner}/{repo}/issues', 200, data);
      expect(data).toHaveLength(widgetsNumbers);
      const pullNumbers = data.filter((item) => item.pull_request !== undefined).map((item) => item.number);
      expect(pullNumbers.sort((a, b) => a - b)).toEqual(widgetsPullNumbers);
      const merged = data.find((item) => item.number === 12);
      expect(merged?.pull_request?.merged_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    });

    it('GET /repos/{owner}/{repo}/issues/{number} for an issue and for a pull request', async () => {
      const issue = await octokit.rest.issues.get({ owner: 'acme', repo: 'widgets', issue_number: 2 });
      expectConforms('/repos/{owner}/{repo}/issues/{issue_number}', 200, issue.data);
      expect(issue.data.labels.map((label) => (typeof label === 'string' ? label : label.name))).toEqual([
        'bug',
        'help wanted',
      ]);
      expect(issue.data.pull_request).toBeUndefined();
      const pull = await octokit.rest.issues.get({ owner: 'acme', repo: 'widgets', issue_number: 12 });
      expectConforms('/repos/{owner}/{repo}/issues/{issue_number}', 200, pull.data);
      expect(pull.data.pull_request?.url).toBe(`${sim.apiUrl}/repos/acme/widgets/pulls/12`);
      expect(pull.data.state).toBe('closed');
    });

    it('GET /repos/{owner}/{repo}/issues/{number}/comments', async () => {
      const { data } = await octokit.rest.issues.listComments({ owner: 'acme', repo: 'widgets', issue_number: 3 });
      expectConforms('/repos/{owner}/{repo}/issues/{issue_number}/comments', 200, data);
      expect(data).toHaveLength(3);
    });

    it('GET /repos/{owner}/{repo}/pulls and /pulls/{number}', async () => {
      const list = await octokit.rest.pulls.list({ owner: 'acme', repo: 'widgets', state: 'all' });
      expectConforms('/repos/{owner}/{repo}/pulls', 200, list.data);
      expect(list.data.map((pull) => pull.number)).toEqual([...widgetsPullNumbers].reverse());
      for (const number of [12, 18, 30, 42]) {
        const { data } = await octokit.rest.pulls.get({ owner: 'acme', repo: 'widgets', pull_number: number });
        expectConforms('/repos/{owner}/{repo}/pulls/{pull_number}', 200, data);
      }
      const merged = await octokit.rest.pulls.get({ owner: 'acme', repo: 'widgets', pull_number: 12 });
      expect([merged.data.merged, merged.data.merged_by?.login, merged.data.state]).toEqual([true, 'alice', 'closed']);
      const failing = await octokit.rest.pulls.get({ owner: 'acme', repo: 'widgets', pull_number: 18 });
      expect([failing.data.mergeable_state, failing.data.merged]).toEqual(['unstable', false]);
    });

    it('answers a missing repository, issue or pull request with GitHub 404 body', async () => {
      const missing = [
        octokit.rest.repos.get({ owner: 'acme', repo: 'nope' }),
        octokit.rest.issues.get({ owner: 'acme', repo: 'widgets', issue_number: 999 }),
        octokit.rest.pulls.get({ owner: 'acme', repo: 'widgets', pull_number: 3 }),
      ];
      const errors = await Promise.all(missing.map(rejection));
      expect(errors.map((error) => error.status)).toEqual([404, 404, 404]);
      expect(errors[0]?.response.data).toEqual({
        message: 'Not Found',
        documentation_url: 'https://docs.github.com/rest/repos/repos#get-a-repository',
        status: '404',
      });
      expectConforms('/repos/{owner}/{repo}', 404, errors[0]?.response.data);
      expectConforms('/repos/{owner}/{repo}/pulls/{pull_number}', 404, errors[2]?.response.data);
    });
  });

  describe('pagination', () => {
    it('writes the link header in GitHub format, naming the repository by id', async () => {
      const { headers } = await octokit.rest.issues.listForRepo({
        owner: 'acme',
        repo: 'widgets',
        state: 'all',
        per_page: 7,
        page: 2,
      });
      const at = (page: number): string => `<${sim.apiUrl}/repositories/1/issues?state=all&per_page=7&page=${page}>`;
      expect(headers.link).toBe(
        `${at(1)}; rel="prev", ${at(3)}; rel="next", ${at(8)}; rel="last", ${at(1)}; rel="first"`,
      );
      const first = await octokit.rest.issues.listForRepo({
        owner: 'acme',
        repo: 'widgets',
        state: 'all',
        per_page: 7,
      });
      expect(first.headers.link).toBe(`${at(2)}; rel="next", ${at(8)}; rel="last"`);
      const only = await octokit.rest.issues.listForRepo({
        owner: 'acme',
        repo: 'widgets',
        state: 'all',
        per_page: 100,
      });
      expect(only.headers.link).toBeUndefined();
    });

    it.each([
      { sort: 'created', direction: 'desc' },
      { sort: 'created', direction: 'asc' },
      { sort: 'updated', direction: 'desc' },
      { sort: 'comments', direction: 'asc' },
    ] as const)('paginate walks every issue and pull request once ($sort $direction)', async ({ sort, direction }) => {
      const all = await octokit.paginate(octokit.rest.issues.listForRepo, {
        owner: 'acme',
        repo: 'widgets',
        state: 'all',
        sort,
        direction,
        per_page: 4,
      });
      const numbers = all.map((item) => item.number);
      expect(new Set(numbers).size).toBe(numbers.length);
      expect([...numbers].sort((a, b) => a - b)).toEqual(Array.from({ length: widgetsNumbers }, (_, i) => i + 1));
      const keys = all.map((item) =>
        sort === 'comments' ? item.comments : Date.parse(sort === 'created' ? item.created_at : item.updated_at),
      );
      const ordered = [...keys].sort((a, b) => (direction === 'asc' ? a - b : b - a));
      expect(keys).toEqual(ordered);
    });

    it('matches all given labels and filters by since, as REST does', async () => {
      const both = await octokit.paginate(octokit.rest.issues.listForRepo, {
        owner: 'acme',
        repo: 'widgets',
        state: 'all',
        labels: 'bug,help wanted',
        per_page: 2,
      });
      expect(both.length).toBeGreaterThan(0);
      for (const issue of both) {
        expect(issue.labels.map((label) => (typeof label === 'string' ? label : label.name))).toEqual(
          expect.arrayContaining(['bug', 'help wanted']),
        );
      }
      const bugs = await octokit.paginate(octokit.rest.issues.listForRepo, {
        owner: 'acme',
        repo: 'widgets',
        state: 'all',
        labels: 'bug',
        per_page: 5,
      });
      expect(bugs.length).toBeGreaterThan(both.length);
      const since = new Date(Date.parse(generatedAt) - 50 * 86_400_000).toISOString();
      const recent = await octokit.paginate(octokit.rest.issues.listForRepo, {
        owner: 'acme',
        repo: 'widgets',
        state: 'all',
        since,
        per_page: 5,
      });
      expect(recent.length).toBeGreaterThan(0);
      expect(recent.length).toBeLessThan(widgetsNumbers);
      expect(recent.every((item) => Date.parse(item.updated_at) >= Date.parse(since))).toBe(true);
    });

    it('paginates pull requests and comments', async () => {
      const pulls = await octokit.paginate(octokit.rest.pulls.list, {
        owner: 'acme',
        repo: 'widgets',
        state: 'all',
        per_page: 3,
      });
      expect(pulls.map((pull) => pull.number)).toEqual([...widgetsPullNumbers].reverse());
      const closed = await octokit.paginate(octokit.rest.pulls.list, {
        owner: 'acme',
        repo: 'widgets',
        state: 'closed',
        sort: 'updated',
        per_page: 2,
      });
      expect(closed.map((pull) => pull.number).sort((a, b) => a - b)).toEqual([12, 24, 36, 42, 48]);
      const comments = await octokit.paginate(octokit.rest.issues.listComments, {
        owner: 'acme',
        repo: 'widgets',
        issue_number: 7,
        per_page: 1,
      });
      expect(comments.map((comment) => comment.id)).toEqual([...new Set(comments.map((comment) => comment.id))]);
      expect(comments).toHaveLength(3);
    });
  });

  describe('search', () => {
    it('serves only the first 1,000 results: the last link stops there and the next page is 422', async () => {
      const first = await octokit.rest.search.repos({ q: 'language:go stars:>=10', per_page: 100 });
      expect(first.data.total_count).toBe(1_050);
      expect(first.headers.link).toContain('page=10>; rel="last"');
      const beyond = await rejection(
        octokit.rest.search.repos({ q: 'language:go stars:>=10', per_page: 100, page: 11 }),
      );
      expect(beyond.status).toBe(422);
      expect(beyond.response.data).toMatchObject({ message: 'Only the first 1000 search results are available' });
      expect(openapi.check('/search/repositories', 'get', 422, beyond.response.data)).toEqual([]);
    });

    it('paginates a star band with link headers', async () => {
      const items = await octokit.paginate(octokit.rest.search.repos, {
        q: 'language:Go stars:100..219',
        sort: 'stars',
        order: 'asc',
        per_page: 100,
      });
      expect(items.map((repo) => repo.stargazers_count)).toEqual(Array.from({ length: 120 }, (_, i) => 100 + i));
    });

    it('refuses a query the world cannot answer rather than ignoring part of it', async () => {
      const error = await rejection(octokit.rest.search.repos({ q: 'widgets stars:>1' }));
      expect(error.status).toBe(422);
    });
  });

  describe('conditional requests', () => {
    it('answers a matching If-None-Match with 304 and spends nothing', async () => {
      const first = await octokit.rest.repos.get({ owner: 'acme', repo: 'widgets' });
      const etag = first.headers.etag;
      expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
      const before = (await octokit.rest.rateLimit.get()).data.resources.core;
      const notModified = await rejection(
        octokit.rest.repos.get({ owner: 'acme', repo: 'widgets', headers: { 'if-none-match': etag } }),
      );
      expect(notModified.status).toBe(304);
      expect(notModified.response.headers['x-ratelimit-remaining']).toBe(String(before.remaining));
      const after = (await octokit.rest.rateLimit.get()).data.resources.core;
      expect(after.used).toBe(before.used);
      const changed = await octokit.rest.repos.get({
        owner: 'acme',
        repo: 'widgets',
        headers: { 'if-none-match': '"stale"' },
      });
      expect(changed.status).toBe(200);
      expect((await octokit.rest.rateLimit.get()).data.resources.core.used).toBe(before.used + 1);
    });

    it('gives listings an ETag too', async () => {
      const first = await octokit.rest.issues.listForRepo({ owner: 'acme', repo: 'widgets', per_page: 5 });
      const error = await rejection(
        octokit.rest.issues.listForRepo({
          owner: 'acme',
          repo: 'widgets',
          per_page: 5,
          headers: { 'if-none-match': first.headers.etag },
        }),
      );
      expect(error.status).toBe(304);
    });
  });

  it('serves anonymous callers from the 60-an-hour bucket', async () => {
    const anonymous = client(sim.apiUrl, [], { token: null });
    const { headers } = await anonymous.rest.repos.get({ owner: 'acme', repo: 'widgets' });
    expect([headers['x-ratelimit-limit'], headers['x-ratelimit-used'], headers['x-ratelimit-resource']]).toEqual([
      '60',
      '1',
      'core',
    ]);
    const { data } = await anonymous.rest.rateLimit.get();
    expect([data.resources.core.limit, data.resources.search.limit]).toEqual([60, 10]);
  });
});

describe('primary rate limits', () => {
  it('answers a spent bucket with 403, remaining 0 and no retry-after; the plugin waits for the reset', async () => {
    const sim = await server({ rateLimits: { core: { limit: 3, windowSeconds: 120 } } });
    const { rateLimits } = sim.context;
    try {
      const events: LimitEvent[] = [];
      const octokit = client(sim.apiUrl, events);
      for (let i = 0; i < 3; i += 1) await octokit.rest.repos.get({ owner: 'acme', repo: 'widgets' });
      const { reset } = rateLimits.peek('sim-token', 'core');
      const error = await rejection(octokit.rest.repos.get({ owner: 'acme', repo: 'widgets' }));
      expect(error.status).toBe(403);
      expect(error.response.headers['x-ratelimit-remaining']).toBe('0');
      expect(error.response.headers['retry-after']).toBeUndefined();
      expect(error.response.data).toMatchObject({
        message: expect.stringMatching(/^API rate limit exceeded for user ID \d+\.$/) as unknown,
      });
      expect(events).toHaveLength(1);
      const expected = reset - Math.floor(Date.now() / 1000) + 1;
      expect(events[0]?.kind).toBe('primary');
      expect(Math.abs((events[0]?.retryAfter ?? 0) - expected)).toBeLessThanOrEqual(1);
      // /rate_limit still answers, without spending.
      const { data } = await octokit.rest.rateLimit.get();
      expect([data.resources.core.remaining, data.resources.core.used]).toEqual([0, 3]);
    } finally {
      await sim.close();
    }
  });

  it('limits search from its own bucket', async () => {
    const sim = await server({ rateLimits: { search: { limit: 1, windowSeconds: 60 } } });
    try {
      const events: LimitEvent[] = [];
      const octokit = client(sim.apiUrl, events);
      await octokit.rest.search.repos({ q: 'stars:>1' });
      const error = await rejection(octokit.rest.search.repos({ q: 'stars:>1' }));
      expect([error.status, error.response.headers['x-ratelimit-resource']]).toEqual([403, 'search']);
      expect(events.map((event) => event.kind)).toEqual(['primary']);
      // The core bucket is untouched by searching.
      expect((await octokit.rest.repos.get({ owner: 'acme', repo: 'widgets' })).status).toBe(200);
    } finally {
      await sim.close();
    }
  });
});

describe('secondary rate limits', () => {
  it('answers too many points a minute with retry-after and the secondary-limit message', async () => {
    const sim = await server({ secondaryLimits: { pointsPerMinute: 3 } });
    try {
      const events: LimitEvent[] = [];
      const octokit = client(sim.apiUrl, events);
      for (let i = 0; i < 3; i += 1) await octokit.rest.issues.get({ owner: 'acme', repo: 'widgets', issue_number: 1 });
      const error = await rejection(octokit.rest.issues.get({ owner: 'acme', repo: 'widgets', issue_number: 1 }));
      expect(error.status).toBe(403);
      const retryAfter = Number(error.response.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(error.response.data).toMatchObject({
        message: expect.stringContaining('exceeded a secondary rate limit') as unknown,
      });
      expect(events).toEqual([{ kind: 'secondary', retryAfter, url: '/repos/{owner}/{repo}/issues/{issue_number}' }]);
    } finally {
      await sim.close();
    }
  });

  it('answers more concurrent requests than allowed, and the plugin retries after retry-after', async () => {
    const sim = await server({
      secondaryLimits: { maxConcurrent: 2, concurrencyRetryAfterSeconds: 1 },
      responseDelayMs: 150,
    });
    const { secondaryLimits } = sim.context;
    try {
      const events: LimitEvent[] = [];
      const octokit = client(sim.apiUrl, events, { retryOnLimit: true });
      const answers = await Promise.all(
        [1, 2, 3].map((issue_number) => octokit.rest.issues.get({ owner: 'acme', repo: 'widgets', issue_number })),
      );
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
      expect(events).toEqual([
        { kind: 'secondary', retryAfter: 1, url: '/repos/{owner}/{repo}/issues/{issue_number}' },
      ]);
      expect(secondaryLimits?.inFlight('sim-token')).toBe(0);
    } finally {
      await sim.close();
    }
  });
});
