// The polling fallback's budget (issue 7): one round over 2,000 tracked pull requests costs at most
// 20 GraphQL points, as the simulator charges by GitHub's rules, and reads every one as the world
// holds it. The client spaces GraphQL requests a second apart, so a round takes about 20 s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGithubClient } from '../../src/github/client.js';
import { readPullStatuses } from '../../src/github/pulls.js';
import { startSimulator } from '@abp/github-sim/server';
import type { RunningSimulator } from '@abp/github-sim/server';
import { encodeNodeId } from '@abp/github-sim/world/node-id';
import { createScaleWorld } from '@abp/github-sim/world/scale';
import type { SimPull } from '@abp/github-sim/world/model';

const world = createScaleWorld({ seed: 3, repos: 40, issues: 8_000 });
let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ world, tokens: new Set(['poll-token']) });
});
afterAll(async () => {
  await sim?.close();
});

/** The first `count` pull requests of the world, repository by repository. */
function trackedPulls(count: number): Array<{ id: string; repo: string; pull: SimPull }> {
  const tracked: Array<{ id: string; repo: string; pull: SimPull }> = [];
  for (let index = 0; index < world.repoCount() && tracked.length < count; index += 1) {
    const repo = world.repoAt(index);
    if (!repo) continue;
    for (const pull of world.pulls(repo, {}, 0, count - tracked.length).items) {
      tracked.push({
        id: encodeNodeId({ type: 'PullRequest', repoId: repo.id, number: pull.number }),
        repo: `${repo.owner}/${repo.name}`,
        pull,
      });
    }
  }
  return tracked;
}

describe('polling 2,000 tracked pull requests', () => {
  it(
    'takes 20 queries and at most 20 points, and reads each pull request as the world holds it',
    { timeout: 120_000 },
    async () => {
      const tracked = trackedPulls(2_000);
      expect(tracked).toHaveLength(2_000);
      const github = createGithubClient(
        { baseUrl: sim.apiUrl, token: 'poll-token', maxRateLimitRetries: 0, retryAfterBaseMs: 10 },
        {},
      );

      const { statuses, missing, cost } = await readPullStatuses(
        github,
        tracked.map((entry) => entry.id),
      );
      expect(missing).toEqual([]);
      expect(cost.requests).toBe(20);
      // One point per query of 100: the budget is met exactly, and the points are really counted.
      expect(cost.points).toBe(20);
      const used = await github.rest.rateLimit.get();
      expect(used.data.resources.graphql?.used).toBe(cost.points);

      expect(statuses.map((status) => status.nodeId)).toEqual(tracked.map((entry) => entry.id));
      expect(new Set(statuses.map((status) => status.state))).toEqual(new Set(['OPEN', 'CLOSED', 'MERGED']));
      statuses.forEach((status, index) => {
        const { repo, pull } = tracked[index] ?? { repo: '', pull: null };
        expect(status).toMatchObject({
          repo,
          number: pull?.number,
          state: pull?.state,
          merged: pull?.state === 'MERGED',
          mergedBy: pull?.mergedByLogin,
          baseRefName: pull?.baseRefName,
          headOid: pull?.headRefOid,
          mergeCommitOid: pull?.mergeCommitOid,
          checks: pull?.checks,
        });
      });
    },
  );
});
