// POST /graphql served over HTTP and driven by the real Octokit clients, as the pipeline will drive
// api.github.com: schema errors, pagination limits, cost and rateLimit, the rate-limited path through
// the throttling plugin, search paging with its cap, nodes(ids:), trees and blobs.
import { Octokit } from '@octokit/core';
import { graphql, GraphqlResponseError } from '@octokit/graphql';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultViewer } from '../../src/graphql/execute.js';
import { startSimulator, type RunningSimulator } from '../../src/server.js';
import { bandSize, graphqlFixtureWorld } from './fixture-world.js';

const ThrottledOctokit = Octokit.plugin(throttling, retry);

let server: RunningSimulator;
/** The simulator reads its tokens on every request: `client()` adds each one it mints. */
const tokens = new Set(['cost-token', 'good']);
let tokenCount = 0;

/** A client with its own token, so each test starts from a full `graphql` bucket. */
function client(): typeof graphql {
  tokenCount += 1;
  const token = `test-${tokenCount}`;
  tokens.add(token);
  return graphql.defaults({ baseUrl: server.apiUrl, headers: { authorization: `token ${token}` } });
}

/** The GitHub errors of a rejected call (a GraphqlResponseError carries them with the partial data). */
async function rejection(call: Promise<unknown>): Promise<GraphqlResponseError<unknown>> {
  const error = await call.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof GraphqlResponseError))
    throw new Error(`expected a GraphqlResponseError, got ${String(error)}`);
  return error;
}

beforeAll(async () => {
  server = await startSimulator({ world: graphqlFixtureWorld(), tokens });
});

afterAll(async () => {
  await server.close();
});

describe('authentication and GitHub-shaped errors', () => {
  it('answers an anonymous call with 401 as GitHub does', async () => {
    const anonymous = graphql.defaults({ baseUrl: server.apiUrl });
    await expect(anonymous('{ viewer { login } }')).rejects.toMatchObject({
      status: 401,
      response: { data: { message: 'This endpoint requires you to be authenticated.' } },
    });
  });

  it('answers a token the simulator does not know with 401 Bad credentials', async () => {
    const bad = graphql.defaults({ baseUrl: server.apiUrl, headers: { authorization: 'bearer bad' } });
    await expect(bad('{ viewer { login } }')).rejects.toMatchObject({
      status: 401,
      response: { data: { message: 'Bad credentials' } },
    });
    const good = graphql.defaults({ baseUrl: server.apiUrl, headers: { authorization: 'bearer good' } });
    await expect(good('{ viewer { login } }')).resolves.toEqual({ viewer: { login: defaultViewer.login } });
  });

  it('reports variables that do not coerce, and serves introspection', async () => {
    const error = await rejection(
      client()('query($n: Int!) { repository(owner: "acme", name: "widgets") { issues(first: $n) { totalCount } } }', {
        n: 'ten',
      }),
    );
    expect(error.errors).toMatchObject([{ message: 'Variable $n of type Int! was provided invalid value' }]);
    await expect(client()('{ __type(name: "RateLimit") { fields { name } } }')).resolves.toMatchObject({
      __type: { fields: expect.arrayContaining([{ name: 'nodeCount' }]) as unknown },
    });
  });

  it('answers a mutation it does not serve with a clear error', async () => {
    const error = await rejection(
      client()('mutation { addStar(input: { starrableId: "R_kgDOMQ" }) { clientMutationId } }'),
    );
    expect(error.errors).toMatchObject([{ type: 'SIMULATOR_UNSUPPORTED', path: ['addStar'] }]);
  });

  it('rejects a field the schema does not have (undefinedField)', async () => {
    const error = await rejection(client()('query {\n  repository(owner: "acme", name: "widgets") { nope }\n}'));
    expect(error.errors).toEqual([
      {
        path: ['query', 'repository', 'nope'],
        extensions: { code: 'undefinedField', typeName: 'Repository', fieldName: 'nope' },
        locations: [{ line: 2, column: 48 }],
        message: "Field 'nope' doesn't exist on type 'Repository'",
      },
    ]);
    expect(error.data).toBeUndefined();
  });

  it('rejects a missing required argument (missingRequiredArguments)', async () => {
    const error = await rejection(client()('query Named { repository(owner: "acme") { name } }'));
    expect(error.errors).toEqual([
      {
        path: ['query Named', 'repository'],
        extensions: { code: 'missingRequiredArguments', className: 'Field', name: 'repository', arguments: 'name' },
        locations: [{ line: 1, column: 15 }],
        message: "Field 'repository' is missing required arguments: name",
      },
    ]);
  });

  it('rejects an argument the field does not accept (argumentNotAccepted)', async () => {
    const error = await rejection(client()('{ repository(owner: "acme", name: "widgets", branch: "x") { name } }'));
    expect(error.errors).toMatchObject([
      {
        path: ['query', 'repository', 'branch'],
        extensions: { code: 'argumentNotAccepted', name: 'repository', typeName: 'Field', argumentName: 'branch' },
        message: "Field 'repository' doesn't accept argument 'branch'",
      },
    ]);
  });

  it('reports a parse error in graphql-ruby words', async () => {
    const error = await rejection(client()('{ viewer { login }} }'));
    expect(error.errors).toEqual([
      { locations: [{ line: 1, column: 21 }], message: 'Parse error on "}" (RCURLY) at [1, 21]' },
    ]);
  });

  it('rejects a connection without first/last and one over 100', async () => {
    const missing = await rejection(
      client()('{ repository(owner: "acme", name: "widgets") { issues { nodes { title } } } }'),
    );
    expect(missing.errors).toMatchObject([
      {
        type: 'MISSING_PAGINATION_BOUNDARIES',
        message: 'You must provide a `first` or `last` value to properly paginate the `issues` connection.',
      },
    ]);
    const excessive = await rejection(
      client()(
        'query($n: Int!) { repository(owner: "acme", name: "widgets") { issues(first: $n) { nodes { title } } } }',
        { n: 101 },
      ),
    );
    expect(excessive.errors).toMatchObject([
      {
        type: 'EXCESSIVE_PAGINATION',
        message: 'Requesting 101 records on the `issues` connection exceeds the `first` limit of 100 records.',
      },
    ]);
  });

  it('rejects a query over the node limit', async () => {
    const error = await rejection(
      client()(
        '{ search(type: REPOSITORY, query: "stars:>1", first: 100) { nodes { ... on Repository { issues(first: 100) { nodes { labels(first: 100) { nodes { name } } } } } } } }',
      ),
    );
    expect(error.errors).toMatchObject([{ type: 'MAX_NODE_LIMIT_EXCEEDED' }]);
  });

  it('answers a field the simulator does not serve with null and a clear error', async () => {
    const error = await rejection(client()('{ repository(owner: "acme", name: "widgets") { name diskUsage } }'));
    expect(error.data).toEqual({ repository: { name: 'widgets', diskUsage: null } });
    expect(error.errors).toMatchObject([
      {
        type: 'SIMULATOR_UNSUPPORTED',
        path: ['repository', 'diskUsage'],
        message: 'The simulator does not serve Repository.diskUsage.',
      },
    ]);
  });

  it('answers an unknown repository with NOT_FOUND', async () => {
    const error = await rejection(client()('{ repository(owner: "acme", name: "nothing") { name } }'));
    expect(error.data).toEqual({ repository: null });
    expect(error.errors).toEqual([
      {
        type: 'NOT_FOUND',
        path: ['repository'],
        locations: [{ line: 1, column: 3 }],
        message: "Could not resolve to a Repository with the name 'acme/nothing'.",
      },
    ]);
  });
});

describe('cost and rateLimit', () => {
  // requests: search 1 + issues 100 + labels 100×100 = 10,101 → 101 points; nodes 100 + 10,000 + 100,000 = 110,100.
  const expensive = `{
    search(type: REPOSITORY, query: "stars:>1", first: 100) {
      nodes { ... on Repository { issues(first: 100) { nodes { labels(first: 10) { nodes { name } } } } } }
    }
    rateLimit { cost limit remaining used resetAt nodeCount }
  }`;

  it('spends the computed cost and reports it in rateLimit and the headers', async () => {
    const octokit = new Octokit({ baseUrl: server.apiUrl, auth: 'cost-token' });
    const response = await octokit.request('POST /graphql', { query: expensive });
    const { rateLimit } = (response.data as { data: { rateLimit: Record<string, unknown> } }).data;
    expect(rateLimit).toMatchObject({ cost: 101, limit: 5_000, remaining: 4_899, used: 101, nodeCount: 110_100 });
    expect(rateLimit['resetAt']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(response.headers).toMatchObject({
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': '4899',
      'x-ratelimit-used': '101',
      'x-ratelimit-resource': 'graphql',
    });
    expect(Number(response.headers['x-ratelimit-reset'])).toBe(
      Math.floor(Date.parse(rateLimit['resetAt'] as string) / 1000),
    );

    // The simplest query still costs the minimum of one point.
    const small = await octokit.request('POST /graphql', {
      query: '{ viewer { login } rateLimit { cost used remaining } }',
    });
    expect(small.data).toEqual({
      data: { viewer: { login: defaultViewer.login }, rateLimit: { cost: 1, used: 102, remaining: 4_898 } },
    });
  });

  it('rateLimit(dryRun: true) computes the cost and spends nothing', async () => {
    const query = client();
    const dry = await query<{ rateLimit: { cost: number; used: number } }>(
      expensive.replace('rateLimit {', 'rateLimit(dryRun: true) {'),
    );
    expect(dry.rateLimit).toMatchObject({ cost: 101, used: 0 });
    const after = await query<{ rateLimit: { used: number } }>('{ rateLimit(dryRun: true) { used } }');
    expect(after.rateLimit.used).toBe(0);
  });

  it('answers RATE_LIMITED once the bucket is spent, and the throttling plugin sees it', async () => {
    const limited = await startSimulator({
      world: graphqlFixtureWorld(),
      tokens: new Set(['small-bucket']),
      rateLimits: { graphql: { limit: 2, windowSeconds: 3_600 } },
    });
    const seen: { retryAfter: number; retryCount: number }[] = [];
    try {
      const octokit = new ThrottledOctokit({
        baseUrl: limited.apiUrl,
        auth: 'small-bucket',
        throttle: {
          onRateLimit: (retryAfter, _options, _octokit, retryCount) => {
            seen.push({ retryAfter, retryCount });
            return false;
          },
          onSecondaryRateLimit: () => false,
        },
      });
      const query = '{ viewer { login } }';
      await octokit.graphql(query);
      await octokit.graphql(query);
      const error = await octokit.request('POST /graphql', { query }).then(
        () => null,
        (thrown: unknown) =>
          thrown as { message: string; response: { status: number; headers: Record<string, string>; data: unknown } },
      );
      expect(error?.message).toBe('GraphQL Rate Limit Exceeded');
      expect(error?.response.status).toBe(200);
      expect(error?.response.data).toEqual({
        errors: [{ type: 'RATE_LIMITED', message: `API rate limit exceeded for user ID ${defaultViewer.id}.` }],
      });
      expect(error?.response.headers).toMatchObject({
        'x-ratelimit-remaining': '0',
        'x-ratelimit-used': '2',
        'x-ratelimit-resource': 'graphql',
      });
      expect(seen).toHaveLength(1);
      // The window resets an hour after the first call: the plugin is told to wait about that long.
      expect(seen[0]?.retryAfter).toBeGreaterThan(3_500);
      expect(seen[0]?.retryCount).toBe(0);
    } finally {
      await limited.close();
    }
  });
});

interface SearchPage {
  search: {
    repositoryCount: number;
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
    nodes: { nameWithOwner: string; stargazerCount: number }[];
  };
}

describe('search(type: REPOSITORY)', () => {
  const searchQuery = `query($q: String!, $after: String) {
    search(type: REPOSITORY, query: $q, first: 100, after: $after) {
      repositoryCount
      pageInfo { hasNextPage endCursor }
      nodes { ... on Repository { nameWithOwner stargazerCount } }
    }
  }`;

  it('applies star bands, fork and archived qualifiers and sorts by stars', async () => {
    const query = client();
    const names = async (q: string) =>
      (await query<SearchPage>(searchQuery, { q })).search.nodes.map((repo) => repo.nameWithOwner);
    expect(await names('stars:100..500 sort:stars')).toEqual(['mirrors/gizmo', 'acme/widgets', 'acme/gadgets']);
    expect(await names('stars:100..500 archived:false')).toEqual(['mirrors/gizmo', 'acme/widgets']);
    expect(await names('stars:100..500 fork:true sort:stars-asc')).toEqual([
      'acme/gadgets',
      'acme/widgets',
      'forker/widgets',
      'mirrors/gizmo',
    ]);
    expect(await names('stars:100..500 fork:only')).toEqual(['forker/widgets']);
    expect(await names('stars:>=100 language:go')).toEqual(['acme/gadgets']);
  });

  it('pages with cursors and stops at the 1,000-result cap while repositoryCount tells the truth', async () => {
    const query = client();
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const page: SearchPage = await query<SearchPage>(searchQuery, {
        q: 'stars:1000..2199 language:TypeScript sort:stars-asc',
        after,
      });
      pages += 1;
      expect(page.search.repositoryCount).toBe(bandSize);
      seen.push(...page.search.nodes.map((repo) => repo.nameWithOwner));
      if (!page.search.pageInfo.hasNextPage) break;
      after = page.search.pageInfo.endCursor;
    }
    expect(pages).toBe(10);
    expect(seen).toHaveLength(1_000);
    expect(new Set(seen).size).toBe(1_000);
    expect(seen[0]).toBe('band/repo-0');
    expect(seen[999]).toBe('band/repo-999');
  });

  it('refuses search terms it cannot honour', async () => {
    const error = await rejection(client()(searchQuery, { q: 'widgets in:name' }));
    expect(error.errors).toMatchObject([{ type: 'UNPROCESSABLE', path: ['search'] }]);
  });
});

describe('repository', () => {
  it('serves the registry fields', async () => {
    const data = await client()<{ repository: unknown; gizmo: unknown; gadgets: unknown }>(`{
      repository(owner: "ACME", name: "widgets") {
        id databaseId name nameWithOwner owner { __typename login } description url
        licenseInfo { spdxId key name } isArchived isFork isMirror mirrorUrl pushedAt createdAt updatedAt
        stargazerCount forkCount primaryLanguage { name } defaultBranchRef { name target { oid } }
        labels(first: 2) { totalCount nodes { name color } }
      }
      gizmo: repository(owner: "mirrors", name: "gizmo") { isMirror mirrorUrl licenseInfo { spdxId key name } owner { __typename login } }
      gadgets: repository(owner: "acme", name: "gadgets") { isArchived licenseInfo { spdxId } }
    }`);
    expect(data.repository).toEqual({
      id: expect.stringMatching(/^R_/) as unknown,
      databaseId: 1,
      name: 'widgets',
      nameWithOwner: 'acme/widgets',
      owner: { __typename: 'User', login: 'acme' },
      description: 'Widgets for everyone',
      url: `${server.apiUrl}/acme/widgets`,
      licenseInfo: { spdxId: 'Apache-2.0', key: 'apache-2.0', name: 'Apache License 2.0' },
      isArchived: false,
      isFork: false,
      isMirror: false,
      mirrorUrl: null,
      pushedAt: '2025-05-01T00:00:00Z',
      createdAt: '2020-01-01T00:00:00Z',
      updatedAt: '2025-05-01T00:00:00Z',
      stargazerCount: 250,
      forkCount: 12,
      primaryLanguage: { name: 'TypeScript' },
      defaultBranchRef: { name: 'main', target: { oid: 'c0ffee'.padEnd(40, '0') } },
      labels: {
        totalCount: 3,
        nodes: [
          { name: 'bug', color: 'd73a4a' },
          { name: 'good first issue', color: '7057ff' },
        ],
      },
    });
    expect(data.gizmo).toEqual({
      isMirror: true,
      mirrorUrl: 'https://git.example.org/gizmo.git',
      licenseInfo: { spdxId: 'NOASSERTION', key: 'other', name: 'Other' },
      owner: { __typename: 'Organization', login: 'mirrors' },
    });
    expect(data.gadgets).toEqual({ isArchived: true, licenseInfo: null });
  });

  it('lists issues by state, label and filterBy.since, with cursors', async () => {
    const query = client();
    const issuesQuery = `query($after: String) {
      repository(owner: "acme", name: "widgets") {
        open: issues(first: 1, after: $after, states: OPEN, orderBy: { field: CREATED_AT, direction: ASC }) {
          totalCount pageInfo { hasNextPage endCursor } edges { cursor node { number } }
        }
        bugs: issues(first: 10, labels: ["bug"]) { totalCount nodes { number labels(first: 5) { nodes { name } } } }
        recent: issues(first: 10, filterBy: { since: "2025-05-01T00:00:00Z", labels: ["bug"], states: [OPEN] }) { nodes { number } }
        issue(number: 1) { title state author { login } comments(first: 10) { totalCount nodes { body author { login } } } }
      }
    }`;
    type Result = {
      repository: {
        open: {
          totalCount: number;
          pageInfo: { hasNextPage: boolean; endCursor: string };
          edges: { cursor: string; node: { number: number } }[];
        };
        bugs: { totalCount: number; nodes: { number: number; labels: { nodes: { name: string }[] } }[] };
        recent: { nodes: { number: number }[] };
        issue: unknown;
      };
    };
    const first = await query<Result>(issuesQuery);
    expect(first.repository.open).toMatchObject({
      totalCount: 3,
      pageInfo: { hasNextPage: true },
      edges: [{ node: { number: 1 } }],
    });
    expect(first.repository.open.edges[0]?.cursor).toBe(first.repository.open.pageInfo.endCursor);
    expect(first.repository.bugs.totalCount).toBe(3);
    expect(first.repository.bugs.nodes.map((issue) => issue.number)).toEqual([4, 1, 3]);
    expect(first.repository.bugs.nodes[2]?.labels.nodes).toEqual([{ name: 'bug' }, { name: 'good first issue' }]);
    expect(first.repository.recent.nodes).toEqual([{ number: 1 }, { number: 3 }]);
    expect(first.repository.issue).toEqual({
      title: 'Crash on empty input',
      state: 'OPEN',
      author: { login: 'reporter' },
      comments: {
        totalCount: 2,
        nodes: [
          { body: 'Confirmed.', author: { login: 'maintainer' } },
          { body: 'Thanks!', author: { login: 'reporter' } },
        ],
      },
    });
    const second = await query<Result>(issuesQuery, { after: first.repository.open.pageInfo.endCursor });
    expect(second.repository.open.edges.map((edge) => edge.node.number)).toEqual([2]);
    const third = await query<Result>(issuesQuery, { after: second.repository.open.pageInfo.endCursor });
    expect(third.repository.open).toMatchObject({ pageInfo: { hasNextPage: false }, edges: [{ node: { number: 3 } }] });
  });

  it('counts issues without first when only totalCount is asked, as GitHub allows', async () => {
    const data = await client()<{ repository: { open: { totalCount: number }; closed: { totalCount: number } } }>(
      '{ repository(owner: "acme", name: "widgets") { open: issues(states: OPEN) { totalCount } closed: issues(states: [CLOSED]) { totalCount } } }',
    );
    expect(data.repository).toEqual({ open: { totalCount: 3 }, closed: { totalCount: 1 } });
  });

  it('serves pull request merge fields', async () => {
    const data = await client()<{ repository: { merged: unknown; pullRequest: unknown } }>(`{
      repository(owner: "acme", name: "widgets") {
        merged: pullRequests(first: 10, states: [MERGED], orderBy: { field: UPDATED_AT, direction: DESC }) {
          totalCount
          nodes {
            number title state merged mergedAt mergedBy { login } mergeCommit { oid }
            baseRefName baseRefOid headRefName headRefOid mergeStateStatus statusCheckRollup { state }
            url author { login } createdAt updatedAt closedAt additions deletions changedFiles
            closingIssuesReferences(first: 5) { nodes { number } }
          }
        }
        pullRequest(number: 6) { state merged mergedBy { login } mergeCommit { oid } mergeStateStatus statusCheckRollup { state } author { __typename login } }
      }
    }`);
    expect(data.repository.merged).toEqual({
      totalCount: 1,
      nodes: [
        {
          number: 5,
          title: 'Fix crash on empty input',
          state: 'MERGED',
          merged: true,
          mergedAt: '2025-05-20T00:00:00Z',
          mergedBy: { login: 'maintainer' },
          mergeCommit: { oid: 'd'.repeat(40) },
          baseRefName: 'main',
          baseRefOid: 'a'.repeat(40),
          headRefName: 'fix-5',
          headRefOid: 'b'.repeat(40),
          mergeStateStatus: 'UNKNOWN',
          statusCheckRollup: { state: 'SUCCESS' },
          url: `${server.apiUrl}/acme/widgets/pull/5`,
          author: { login: 'contributor' },
          createdAt: '2025-02-01T00:00:00Z',
          updatedAt: '2025-02-02T00:00:00Z',
          closedAt: '2025-05-20T00:00:00Z',
          additions: 10,
          deletions: 2,
          changedFiles: 1,
          closingIssuesReferences: { nodes: [{ number: 1 }] },
        },
      ],
    });
    expect(data.repository.pullRequest).toEqual({
      state: 'OPEN',
      merged: false,
      mergedBy: null,
      mergeCommit: null,
      mergeStateStatus: 'UNSTABLE',
      statusCheckRollup: { state: 'FAILURE' },
      author: { __typename: 'Bot', login: 'ci-bot' },
    });
  });

  it('reads trees and blobs through object(expression:)', async () => {
    const data = await client()<Record<string, unknown>>(`{
      repository(owner: "acme", name: "widgets") {
        root: object(expression: "HEAD:") { ... on Tree { entries { name path type } } }
        src: object(expression: "main:src") { ... on Tree { entries { name path type } } }
        manifest: object(expression: "HEAD:package.json") { ... on Blob { text byteSize isBinary } }
        missing: object(expression: "HEAD:nothing.txt") { id }
        otherBranch: object(expression: "dev:README.md") { id }
      }
    }`);
    const manifest = '{"name":"widgets","scripts":{"test":"vitest run"}}\n';
    expect(data['repository']).toEqual({
      root: {
        entries: [
          { name: 'README.md', path: 'README.md', type: 'blob' },
          { name: 'package.json', path: 'package.json', type: 'blob' },
          { name: 'src', path: 'src', type: 'tree' },
        ],
      },
      src: {
        entries: [
          { name: 'index.ts', path: 'src/index.ts', type: 'blob' },
          { name: 'util', path: 'src/util', type: 'tree' },
        ],
      },
      manifest: { text: manifest, byteSize: manifest.length, isBinary: false },
      missing: null,
      otherBranch: null,
    });
  });
});

describe('nodes(ids:) and node(id:)', () => {
  it('round-trips ids and answers an unknown id with null and NOT_FOUND', async () => {
    const query = client();
    const ids = await query<{ repository: { id: string; issue: { id: string }; pullRequest: { id: string } } }>(
      '{ repository(owner: "acme", name: "widgets") { id issue(number: 3) { id } pullRequest(number: 5) { id } } }',
    );
    const wanted = [ids.repository.id, ids.repository.issue.id, ids.repository.pullRequest.id, 'R_kgDOdoesnotexist'];
    const error = await rejection(
      query(
        `query($ids: [ID!]!) { nodes(ids: $ids) { __typename id
          ... on Repository { nameWithOwner } ... on Issue { number title } ... on PullRequest { number merged } } }`,
        { ids: wanted },
      ),
    );
    expect(error.data).toEqual({
      nodes: [
        { __typename: 'Repository', id: wanted[0], nameWithOwner: 'acme/widgets' },
        { __typename: 'Issue', id: wanted[1], number: 3, title: 'Off-by-one in add' },
        { __typename: 'PullRequest', id: wanted[2], number: 5, merged: true },
        null,
      ],
    });
    expect(error.errors).toEqual([
      {
        type: 'NOT_FOUND',
        path: ['nodes', 3],
        locations: [{ line: 1, column: 23 }],
        message: "Could not resolve to a node with the global id of 'R_kgDOdoesnotexist'",
      },
    ]);
    const single = await query<{ node: { login: string } }>(
      'query($id: ID!) { node(id: $id) { ... on User { login } } }',
      {
        id: 'U_kgDOMTE',
      },
    );
    expect(single.node).toEqual({ login: 'maintainer' });
  });
});
