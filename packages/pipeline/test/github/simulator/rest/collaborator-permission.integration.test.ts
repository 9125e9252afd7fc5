// `GET /repos/{owner}/{repo}/collaborators/{username}/permission` through abp's own Octokit: the
// owner administers, maintainers write, other users read a public repository, and an unknown user
// or repository is GitHub's 404. Bodies are checked against GitHub's OpenAPI description.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGithubClient } from '../../../../src/github/client.js';
import type { GithubClient } from '../../../../src/github/client.js';
import { matchRoute } from '@abp/github-sim/rest/routes';
import { startSimulator } from '@abp/github-sim/server';
import type { RunningSimulator } from '@abp/github-sim/server';
import { restFixtureWorld } from '../../../../../github-sim/test/rest/fixture-world.js';
import { loadGitHubOpenApi } from '../../../../../github-sim/test/rest/openapi.js';

const openapi = loadGitHubOpenApi();
const path = '/repos/{owner}/{repo}/collaborators/{username}/permission';
let sim: RunningSimulator;
let octokit: GithubClient;

beforeAll(async () => {
  sim = await startSimulator({ world: restFixtureWorld(), tokens: new Set(['perm-token']) });
  octokit = createGithubClient(
    { baseUrl: sim.apiUrl, token: 'perm-token', maxRateLimitRetries: 0, retryAfterBaseMs: 10 },
    {},
  );
});
afterAll(async () => {
  await sim?.close();
});

async function statusOf(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
  } catch (error) {
    return (error as { status: number }).status;
  }
  throw new Error('expected the request to fail');
}

describe('a user’s permission on a repository', () => {
  it('matches the route with a percent-encoded login, GET only', () => {
    expect(matchRoute('GET', '/repos/acme/widgets/collaborators/dependabot%5Bbot%5D/permission')).toEqual({
      $case: 'collaborator-permission',
      repo: { by: 'name', owner: 'acme', name: 'widgets' },
      username: 'dependabot[bot]',
    });
    expect(matchRoute('GET', '/repositories/1/collaborators/alice/permission')).toMatchObject({
      $case: 'collaborator-permission',
      repo: { by: 'id', id: 1 },
    });
    expect(matchRoute('POST', '/repos/acme/widgets/collaborators/alice/permission')).toBeNull();
    expect(matchRoute('GET', '/repos/acme/widgets/collaborators/alice')).toBeNull();
  });

  it('is admin for the owner, write for a maintainer, read for anyone else', async () => {
    const roles: Record<string, string> = {};
    for (const username of ['acme', 'alice', 'bob', 'dependabot[bot]']) {
      const answer = await octokit.rest.repos.getCollaboratorPermissionLevel({
        owner: 'acme',
        repo: 'widgets',
        username,
      });
      expect(openapi.check(path, 'get', 200, answer.data)).toEqual([]);
      expect(answer.data.user?.login).toBe(username);
      expect(answer.data.role_name).toBe(answer.data.permission);
      expect(answer.data.user?.permissions?.push).toBe(answer.data.permission !== 'read');
      roles[username] = answer.data.permission;
    }
    expect(roles).toEqual({ acme: 'admin', alice: 'write', bob: 'read', 'dependabot[bot]': 'read' });
    // alice maintains widgets only; the owner maintains gadgets as well.
    expect(
      (await octokit.rest.repos.getCollaboratorPermissionLevel({ owner: 'acme', repo: 'gadgets', username: 'alice' }))
        .data.permission,
    ).toBe('read');
  });

  it('answers 404 for a login that is no user and for an unknown repository', async () => {
    expect(
      await statusOf(
        octokit.rest.repos.getCollaboratorPermissionLevel({ owner: 'acme', repo: 'widgets', username: 'nobody-here' }),
      ),
    ).toBe(404);
    expect(
      await statusOf(
        octokit.rest.repos.getCollaboratorPermissionLevel({ owner: 'acme', repo: 'no-such-repo', username: 'alice' }),
      ),
    ).toBe(404);
  });
});
