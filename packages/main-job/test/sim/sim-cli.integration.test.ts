// `abp sim up|status|down` as a user runs it, driven by abp's own GitHub client (REST + GraphQL,
// throttling, retry, pagination) exactly as the pipeline will reach api.github.com.
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGithubClient, type GithubClient } from '@abp/pipeline/github/client';
import { isAlive } from '@abp/pipeline/dev-stack/processes';
import type { SimStatus } from '@abp/pipeline/dev-stack/sim-state';
import { runAbp } from '../support/cli.js';

describe('abp sim', () => {
  let home: string;
  let env: NodeJS.ProcessEnv;
  let status: SimStatus;
  let github: GithubClient;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'abp-sim-'));
    env = { ABP_HOME: home };
    const up = await runAbp(['sim', 'up', '--seed', '7', '--repos', '300', '--issues', '30000', '--json'], env);
    expect(up.stderr).toBe('');
    expect(up.code).toBe(0);
    status = JSON.parse(up.stdout) as SimStatus;
    github = createGithubClient({ baseUrl: status.sim?.apiUrl ?? '', token: status.token ?? '' });
  });
  afterAll(async () => {
    await runAbp(['sim', 'down'], env);
    await rm(home, { recursive: true, force: true });
  });

  it('prints the API, GraphQL and git URLs and a token kept in a private file', () => {
    expect(status.state).toBe('running');
    expect(status.sim?.apiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(status.sim?.graphqlUrl).toBe(`${status.sim?.apiUrl}/graphql`);
    expect(status.sim?.gitUrl).toBe(status.sim?.apiUrl);
    expect(status.sim?.world).toEqual({ world: 'scale', seed: 7, repos: 300, issues: 30000 });
    expect(status.token).toMatch(/^ghs_sim[0-9a-f]{36}$/);
    expect(statSync(join(home, 'run', 'sim.token')).mode & 0o777).toBe(0o600);
  });

  it('serves REST to Octokit: a star-banded search, a repository, and a paginated backlog', async () => {
    const { data: search } = await github.rest.search.repos({
      q: 'stars:10..100000',
      sort: 'stars',
      order: 'desc',
      per_page: 5,
    });
    expect(search.total_count).toBeGreaterThan(0);
    const stars = search.items.map((repo) => repo.stargazers_count);
    expect(stars).toEqual([...stars].sort((a, b) => b - a));
    const top = search.items[0];
    if (!top) throw new Error('the search found nothing');
    const owner = top.owner?.login ?? '';
    const { data: repo } = await github.rest.repos.get({ owner, repo: top.name });
    expect(repo.clone_url).toBe(`${status.sim?.gitUrl}/${top.full_name}.git`);
    expect(repo.full_name).toBe(top.full_name);
    const issues = await github.paginate(github.rest.issues.listForRepo, {
      owner,
      repo: top.name,
      state: 'all',
      per_page: 100,
    });
    const numbers = issues.map((issue) => issue.number);
    expect(new Set(numbers).size).toBe(numbers.length);
  });

  it('serves GraphQL to Octokit with the documented rateLimit, and pages with the paginate plugin', async () => {
    const result = await github.graphql<{
      rateLimit: { cost: number; limit: number; remaining: number; nodeCount: number };
      search: { repositoryCount: number };
    }>(
      'query { rateLimit { cost limit remaining nodeCount } search(type: REPOSITORY, query: "stars:>=0", first: 10) { repositoryCount } }',
    );
    expect(result.rateLimit).toMatchObject({ cost: 1, limit: 5000, nodeCount: 10 });
    expect(result.search.repositoryCount).toBeGreaterThan(0);

    const paged = await github.graphql.paginate<{ search: { nodes: Array<{ nameWithOwner: string }> } }>(
      'query ($cursor: String) { search(type: REPOSITORY, query: "stars:>=0 sort:stars", first: 100, after: $cursor) { nodes { ... on Repository { nameWithOwner } } pageInfo { hasNextPage endCursor } } }',
    );
    const names = paged.search.nodes.map((node) => node.nameWithOwner);
    expect(names.length).toBe(result.search.repositoryCount);
    expect(new Set(names).size).toBe(names.length);
  });

  it('refuses a wrong token as GitHub does', async () => {
    const stranger = createGithubClient({ baseUrl: status.sim?.apiUrl ?? '', token: 'ghs_not-the-token' });
    await expect(stranger.rest.repos.get({ owner: 'x', repo: 'y' })).rejects.toMatchObject({ status: 401 });
    await expect(stranger.graphql('{ viewer { login } }')).rejects.toMatchObject({ status: 401 });
  });

  it('refuses a fault plan with a bad field, naming the file and the field', async () => {
    const { writeFile } = await import('node:fs/promises');
    const plan = join(home, 'faults.json');
    await writeFile(plan, JSON.stringify({ seed: 1, serverErrorRate: 1.5 }));
    const other = { ABP_HOME: join(home, 'other') };
    const up = await runAbp(['sim', 'up', '--faults', plan, '--json'], other);
    expect(up.code).toBe(2);
    const { error } = JSON.parse(up.stdout) as { error: { code: string; message: string } };
    expect(error.code).toBe('invalid-setting');
    expect(error.message).toContain(`--faults ${plan}: serverErrorRate:`);
    expect(existsSync(join(home, 'other', 'run', 'sim.pid'))).toBe(false);
  });

  it('is idempotent while running, refuses another world, and stops leaving nothing behind', async () => {
    const again = await runAbp(['sim', 'up', '--seed', '7', '--repos', '300', '--issues', '30000', '--json'], env);
    expect(again.code).toBe(0);
    expect((JSON.parse(again.stdout) as SimStatus).pid).toBe(status.pid);
    const other = await runAbp(['sim', 'up', '--seed', '8', '--repos', '300', '--issues', '30000', '--json'], env);
    expect(other.code).toBe(1);
    expect((JSON.parse(other.stdout) as { error: { code: string } }).error.code).toBe('start-failed');

    const down = await runAbp(['sim', 'down', '--json'], env);
    expect(JSON.parse(down.stdout)).toEqual({ result: 'stopped' });
    expect(isAlive(status.pid ?? -1)).toBe(false);
    for (const file of ['sim.pid', 'sim.json', 'sim.token', 'sim.lock'])
      expect(existsSync(join(home, 'run', file))).toBe(false);
    const after = JSON.parse((await runAbp(['sim', 'status', '--json'], env)).stdout) as SimStatus;
    expect(after.state).toBe('stopped');
  });
});
