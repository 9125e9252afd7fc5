// Shared by the discovery suites: a client without the throttle's one-GraphQL-call-a-second pacing (so a 3,000
// repository rotation fits a test; the production client is exercised on its own), and the world's own ranking.
import { AbpOctokit, type GithubClient } from '../../../src/github/client.js';
import type { SearchHit } from '../../../src/registry/discovery/search.js';
import type { WorldReader } from '@abp/github-sim/world/model';

export function unthrottledClient(apiUrl: string, token: string): GithubClient {
  return new AbpOctokit({
    auth: token,
    baseUrl: apiUrl,
    throttle: { enabled: false },
    retry: { retryAfterBaseValue: 10 },
  });
}

/** Every repository of the world, forks included, by stars descending and then name: what discovery must find. */
export function worldRanking(world: WorldReader): SearchHit[] {
  const hits: SearchHit[] = [];
  for (let index = 0; index < world.repoCount(); index++) {
    const repo = world.repoAt(index);
    if (repo !== undefined)
      hits.push({ nameWithOwner: `${repo.owner}/${repo.name}`, stargazerCount: repo.stargazerCount });
  }
  return hits.sort(
    (a, b) =>
      b.stargazerCount - a.stargazerCount ||
      (a.nameWithOwner < b.nameWithOwner ? -1 : a.nameWithOwner > b.nameWithOwner ? 1 : 0),
  );
}
