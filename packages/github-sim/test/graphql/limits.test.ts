// analyzeQuery against GitHub's documented examples (docs.github.com, "Rate limits and node limits
// for the GraphQL API"), each cost and node count computed by hand in the comment above it.
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { analyzeQuery } from '../../src/graphql/limits.js';
import { githubSchema } from '../../src/graphql/schema.js';

// Building the 1.2 MB schema takes about 0.2 s on this machine (measured 189 ms with performance.now);
// it happens once per process and every later call returns the same instance.
const schema = githubSchema();

function analyze(query: string, variables: Record<string, unknown> = {}) {
  return analyzeQuery(schema, parse(query), variables);
}

describe('githubSchema', () => {
  it('is built once and shared', () => {
    expect(githubSchema()).toBe(schema);
    expect(schema.getQueryType()?.getFields()['rateLimit']).toBeDefined();
  });
});

describe('analyzeQuery', () => {
  it("GitHub's simple node example: 50 repositories + 50 × 10 issues", () => {
    // nodes: 50 + 50×10 = 550; requests: 1 (repositories) + 50 (issues, once per repository) = 51 → 0.51 → minimum 1.
    const analysis = analyze(`query {
      viewer {
        repositories(first: 50) {
          edges { repository: node { name
            issues(first: 10) { totalCount edges { node { title bodyHTML } } } } }
        }
      }
    }`);
    expect(analysis.errors).toEqual([]);
    expect(analysis.nodeCount).toBe(550);
    expect(analysis.requestCount).toBe(51);
    expect(analysis.cost).toBe(1);
  });

  it("GitHub's complex node example: 22,060 nodes", () => {
    // nodes: 50 repos + 50×20 PRs (1,000) + 50×20×10 PR comments (10,000) + 50×20 issues (1,000)
    //        + 50×20×10 issue comments (10,000) + 10 followers = 22,060.
    // requests: 1 + 50 + 1,000 + 50 + 1,000 + 1 = 2,102 → 21.02 → 21 points.
    const analysis = analyze(`query {
      viewer {
        repositories(first: 50) {
          edges { repository: node { name
            pullRequests(first: 20) { edges { pullRequest: node { title
              comments(first: 10) { edges { comment: node { bodyHTML } } } } } }
            issues(first: 20) { totalCount edges { issue: node { title bodyHTML
              comments(first: 10) { edges { comment: node { bodyHTML } } } } } } } }
        }
        followers(first: 10) { edges { follower: node { login } } }
      }
    }`);
    expect(analysis.errors).toEqual([]);
    expect(analysis.nodeCount).toBe(22_060);
    expect(analysis.requestCount).toBe(2_102);
    expect(analysis.cost).toBe(21);
  });

  it("GitHub's cost example: 100 repositories × 50 issues × 60 labels costs 51 points", () => {
    // requests: 1 + 100 + 100×50 = 5,101 → 51.01 → 51; nodes: 100 + 5,000 + 300,000 = 305,100.
    const analysis = analyze(
      `query($repos: Int!) {
        viewer { login
          repositories(first: $repos) { edges { node { id
            issues(first: 50) { edges { node { id
              labels(first: 60) { edges { node { id name } } } } } } } } }
        }
      }`,
      { repos: 100 },
    );
    expect(analysis.errors).toEqual([]);
    expect(analysis.requestCount).toBe(5_101);
    expect(analysis.cost).toBe(51);
    expect(analysis.nodeCount).toBe(305_100);
  });

  it('search with an inline fragment multiplies nested connections by the search page', () => {
    // requests: search 1 + issues 100 (one per repository) + labels 100×20 = 2,101 → 21.
    // nodes: 100 + 100×20 + 100×20×5 = 12,100.
    const analysis = analyze(`{
      search(type: REPOSITORY, query: "stars:>10", first: 100) {
        repositoryCount
        nodes { ... on Repository { name issues(first: 20) { nodes { labels(first: 5) { nodes { name } } } } } }
      }
      rateLimit { cost }
    }`);
    expect(analysis.errors).toEqual([]);
    expect(analysis.requestCount).toBe(2_101);
    expect(analysis.cost).toBe(21);
    expect(analysis.nodeCount).toBe(12_100);
  });

  it('merges a connection selected twice through a fragment and honours @skip', () => {
    // One `issues(first: 30)` connection under repository: 1 request, 30 nodes; the skipped `pullRequests` adds nothing.
    const analysis = analyze(
      `query($skip: Boolean!) {
        repository(owner: "a", name: "b") {
          issues(first: 30) { totalCount }
          ...Issues
          pullRequests(first: 100) @skip(if: $skip) { nodes { id } }
        }
      }
      fragment Issues on Repository { issues(first: 30) { nodes { title } } }`,
      { skip: true },
    );
    expect(analysis.errors).toEqual([]);
    expect(analysis.requestCount).toBe(1);
    expect(analysis.nodeCount).toBe(30);
    expect(analysis.cost).toBe(1);
  });

  it('rejects more than 500,000 nodes with GitHub message', () => {
    // 100 + 100×100 + 100×100×100 = 1,010,100 nodes.
    const analysis = analyze(`{
      viewer { repositories(first: 100) { nodes {
        issues(first: 100) { nodes { labels(first: 100) { nodes { name } } } } } } }
    }`);
    expect(analysis.nodeCount).toBe(1_010_100);
    expect(analysis.errors).toEqual([
      {
        type: 'MAX_NODE_LIMIT_EXCEEDED',
        message: 'This query requests up to 1,010,100 possible nodes which exceeds the maximum limit of 500,000.',
      },
    ]);
  });

  it('requires first or last on a connection that selects nodes or edges, not on a bare totalCount', () => {
    const missing = analyze('{ repository(owner: "a", name: "b") { issues(states: OPEN) { nodes { title } } } }');
    expect(missing.errors).toEqual([
      {
        type: 'MISSING_PAGINATION_BOUNDARIES',
        path: ['repository', 'issues'],
        locations: [{ line: 1, column: 39 }],
        message: 'You must provide a `first` or `last` value to properly paginate the `issues` connection.',
      },
    ]);
    const countOnly = analyze('{ repository(owner: "a", name: "b") { issues(states: OPEN) { totalCount } } }');
    expect(countOnly.errors).toEqual([]);
    expect(countOnly.nodeCount).toBe(0);
    expect(countOnly.cost).toBe(1);
  });

  it('rejects first above 100 and below 1, with variables resolved', () => {
    const query = 'query($n: Int) { repository(owner: "a", name: "b") { issues(first: $n) { nodes { title } } } }';
    expect(analyze(query, { n: 101 }).errors).toMatchObject([
      {
        type: 'EXCESSIVE_PAGINATION',
        path: ['repository', 'issues'],
        message: 'Requesting 101 records on the `issues` connection exceeds the `first` limit of 100 records.',
      },
    ]);
    expect(analyze(query, { n: 0 }).errors).toHaveLength(1);
    expect(analyze(query, { n: 100 }).errors).toEqual([]);
    expect(analyze(query, { n: 100 }).nodeCount).toBe(100);
  });

  it('reports a variable that does not coerce in graphql-ruby words', () => {
    const analysis = analyze('query($n: Int!) { viewer { login } }', {});
    expect(analysis.errors).toMatchObject([{ message: 'Variable $n of type Int! was provided invalid value' }]);
  });

  it('sees rateLimit(dryRun: true)', () => {
    expect(analyze('{ rateLimit(dryRun: true) { cost } }').dryRun).toBe(true);
    expect(analyze('{ rateLimit { cost } }').dryRun).toBe(false);
  });
});
