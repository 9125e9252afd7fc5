// The same seed gives the same world, byte for byte, through every layer a client sees.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../src/server.js';
import { createScaleWorld } from '../src/world/scale.js';

const token = 'ghs_determinism';

async function serve(seed: number): Promise<RunningSimulator> {
  // A fixed clock: rate-limit reset times are part of what a client sees.
  return startSimulator({
    world: createScaleWorld({ seed, repos: 120, issues: 6_000 }),
    tokens: new Set([token]),
    now: () => Date.parse('2026-11-01T00:00:00Z'),
  });
}

async function transcript(simulator: RunningSimulator): Promise<string[]> {
  const requests: Array<[string, RequestInit?]> = [
    ['/search/repositories?q=stars:0..100000&sort=stars&order=desc&per_page=30'],
    ['/search/repositories?q=stars:0..100000&sort=updated&order=asc&per_page=30&page=2'],
    [
      '/graphql',
      {
        method: 'POST',
        body: JSON.stringify({
          query:
            '{ search(type: REPOSITORY, query: "stars:>=0 sort:stars", first: 20) { nodes { ... on Repository { nameWithOwner licenseInfo { spdxId } issues(first: 20, states: OPEN) { totalCount nodes { number title labels(first: 5) { nodes { name } } } } pullRequests(first: 10, states: MERGED) { nodes { number mergedAt mergeCommit { oid } } } } } } }',
        }),
      },
    ],
  ];
  const bodies: string[] = [];
  for (const [path, init] of requests) {
    const response = await fetch(`${simulator.apiUrl}${path}`, {
      ...init,
      headers: { authorization: `token ${token}` },
    });
    // Urls embed the port, which differs between two servers: compare without it.
    bodies.push((await response.text()).replaceAll(new URL(simulator.apiUrl).host, 'simulator'));
  }
  return bodies;
}

describe('world determinism', () => {
  let first: RunningSimulator;
  let second: RunningSimulator;
  let other: RunningSimulator;
  beforeAll(async () => {
    [first, second, other] = await Promise.all([serve(42), serve(42), serve(43)]);
  });
  afterAll(async () => {
    await Promise.all([first?.close(), second?.close(), other?.close()]);
  });

  it('serves byte-identical REST and GraphQL answers for the same seed, and different ones for another', async () => {
    const [a, b, c] = await Promise.all([transcript(first), transcript(second), transcript(other)]);
    expect(a.every((body) => body.length > 1_000)).toBe(true);
    expect(b).toEqual(a);
    expect(c).not.toEqual(a);
  });
});
