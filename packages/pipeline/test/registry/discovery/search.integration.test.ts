// Star-banded search over real HTTP: bands each hold fewer than GitHub's 1,000-result cap, together they return the
// world's repositories exactly once, ranked; `top` and `minStars` stop early; a drifting ranking repeats nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiscoveryError } from '../../../src/registry/discovery/errors.js';
import {
  bandQuery,
  SEARCH_RESULT_CAP,
  searchCandidates,
  type SearchResult,
} from '../../../src/registry/discovery/search.js';
import { noFaults } from '@abp/github-sim/faults';
import { startSimulator, type RunningSimulator } from '@abp/github-sim/server';
import { createScaleWorld, type ScaleWorld } from '@abp/github-sim/world/scale';
import { MemoryWorld, simRepo } from '../../../../github-sim/test/support/memory-world.js';
import { unthrottledClient, worldRanking } from './support.js';

const TOKEN = 'search-token';

let world: ScaleWorld;
let sim: RunningSimulator;
let full: SearchResult;

beforeAll(async () => {
  world = createScaleWorld({ seed: 2026, repos: 3_000, issues: 0 });
  sim = await startSimulator({ world, tokens: new Set([TOKEN]) });
  full = await searchCandidates(unthrottledClient(sim.apiUrl, TOKEN), { top: 3_000 });
});

afterAll(async () => {
  await sim.close();
});

function inBand(stars: number, band: { minStars: number; maxStars: number | null }): boolean {
  return stars >= band.minStars && (band.maxStars === null || stars <= band.maxStars);
}

describe('searchCandidates over a 3,000-repository world', () => {
  it('returns every repository once, forks and archived ones included, by stars then name', () => {
    const ranking = worldRanking(world);
    expect(full.hits).toEqual(ranking);
    expect(new Set(full.hits.map((hit) => hit.nameWithOwner.toLowerCase())).size).toBe(3_000);
  });

  it('reads bands that each hold fewer than 1,000 and together cover every star count once', () => {
    const stars = worldRanking(world).map((hit) => hit.stargazerCount);
    expect(full.splits).toBeGreaterThan(0);
    expect(full.bands.length).toBe(full.splits + 1);
    full.bands.forEach((band, index) => {
      expect(band.repositoryCount).toBeLessThan(SEARCH_RESULT_CAP);
      expect(band.repositoryCount).toBe(stars.filter((count) => inBand(count, band)).length);
      expect(band.found).toBe(band.repositoryCount);
      // Most starred first, each band starting where the one above ended.
      const above = full.bands[index - 1];
      expect(band.maxStars).toBe(above === undefined ? null : above.minStars - 1);
    });
    expect(full.bands.at(-1)?.minStars).toBe(0);
  });

  it('charges a page per 100 results of each band and one page per split', () => {
    const pages = full.bands.reduce((sum, band) => sum + Math.max(1, Math.ceil(band.repositoryCount / 100)), 0);
    expect(full.cost).toEqual({ requests: pages + full.splits, points: pages + full.splits });
  });

  it('stops once the top repositories are known', async () => {
    const top = await searchCandidates(unthrottledClient(sim.apiUrl, TOKEN), { top: 500 });
    expect(top.hits).toEqual(worldRanking(world).slice(0, 500));
    expect(top.cost.requests).toBeLessThan(full.cost.requests);
  });

  it('leaves out repositories under minStars', async () => {
    const starred = await searchCandidates(unthrottledClient(sim.apiUrl, TOKEN), { top: 3_000, minStars: 100 });
    expect(starred.hits).toEqual(worldRanking(world).filter((hit) => hit.stargazerCount >= 100));
    expect(starred.bands.every((band) => band.minStars >= 100)).toBe(true);
  });

  it('refuses a top or minStars out of range', async () => {
    const github = unthrottledClient(sim.apiUrl, TOKEN);
    for (const options of [{ top: 0 }, { top: 1.5 }, { top: 10, minStars: -1 }]) {
      const error = await searchCandidates(github, options).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(DiscoveryError);
      expect((error as DiscoveryError).code).toBe('invalid-options');
    }
  });
});

describe('searchCandidates on hard rankings', () => {
  it('names a star count held by more repositories than one search returns', async () => {
    const repos = Array.from({ length: SEARCH_RESULT_CAP + 1 }, (_, index) =>
      simRepo({ id: index + 1, owner: 'crowd', name: `repo-${index}`, stargazerCount: 7 }),
    );
    const crowded = await startSimulator({
      world: new MemoryWorld(
        { users: [], repos, issues: [], pulls: [], comments: [] },
        { generatedAt: '2026-11-01T00:00:00Z' },
      ),
      tokens: new Set([TOKEN]),
    });
    try {
      const error = await searchCandidates(unthrottledClient(crowded.apiUrl, TOKEN), { top: 2_000 }).catch(
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(DiscoveryError);
      expect((error as DiscoveryError).code).toBe('band-over-cap');
      expect((error as DiscoveryError).message).toContain(bandQuery({ minStars: 7, maxStars: null }));
    } finally {
      await crowded.close();
    }
  });

  it('repeats nothing when the ranking drifts between pages, and reports the results the drift pushed out', async () => {
    const small = createScaleWorld({ seed: 5, repos: 400, issues: 0 });
    const drifting = await startSimulator({
      world: small,
      tokens: new Set([TOKEN]),
      faults: { ...noFaults, seed: 4, shiftingSearchRate: 0.5 },
    });
    try {
      const result = await searchCandidates(unthrottledClient(drifting.apiUrl, TOKEN), { top: 400 });
      const names = result.hits.map((hit) => hit.nameWithOwner);
      expect(new Set(names).size).toBe(names.length);
      const known = new Set(worldRanking(small).map((hit) => hit.nameWithOwner));
      expect(names.every((name) => known.has(name))).toBe(true);
      // The simulator's drift repeats a result per shift and pushes as many off the band's last page (this seed: one).
      expect(result.bands).toEqual([{ minStars: 0, maxStars: null, repositoryCount: 400, found: names.length }]);
      expect(names.length).toBeLessThan(400);
    } finally {
      await drifting.close();
    }
  });
});
