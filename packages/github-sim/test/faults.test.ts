// Seeded faults: the same seed gives the same schedule; bursts have their length; a drifting
// search really repeats results across pages.
import { describe, expect, it } from 'vitest';
import { FaultInjector, noFaults, withShiftingSearch, type Fault, type FaultPlan } from '../src/faults.js';
import type { WorldReader } from '../src/world/model.js';
import { createScaleWorld } from '../src/world/scale.js';

function schedule(plan: FaultPlan, requests: number): Fault[] {
  const injector = new FaultInjector(plan);
  return Array.from({ length: requests }, () => injector.next());
}

const stormy: FaultPlan = {
  ...noFaults,
  seed: 11,
  serverErrorRate: 0.05,
  serverErrorBurst: 3,
  slowRate: 0.05,
  slowMs: 2_000,
  secondaryLimitRate: 0.02,
  secondaryLimitBurst: 2,
};

describe('fault injection', () => {
  it('replays the same schedule for the same seed, and another for another seed', () => {
    const first = schedule(stormy, 500);
    expect(schedule(stormy, 500)).toEqual(first);
    expect(schedule({ ...stormy, seed: 12 }, 500)).not.toEqual(first);
    const kinds = new Set(first.map((fault) => fault.kind));
    expect(kinds).toEqual(new Set(['none', 'server-error', 'slow', 'secondary-limit']));
  });

  it('injects nothing with the default plan', () => {
    expect(schedule(noFaults, 1_000).every((fault) => fault.kind === 'none')).toBe(true);
  });

  it('answers every request of a burst with the fault', () => {
    const faults = schedule({ ...noFaults, seed: 3, serverErrorRate: 0.01, serverErrorBurst: 4 }, 5_000);
    // Runs of server errors come in multiples of the burst length (bursts may abut).
    const runs: number[] = [];
    let run = 0;
    for (const fault of [...faults, { kind: 'none' } as const]) {
      if (fault.kind === 'server-error') run += 1;
      else if (run > 0) {
        runs.push(run);
        run = 0;
      }
    }
    expect(runs.length).toBeGreaterThan(10);
    expect(runs.every((length) => length % 4 === 0)).toBe(true);
  });

  it('makes paging through a search repeat results when the ranking drifts', () => {
    const world = createScaleWorld({ seed: 5, repos: 400, issues: 2_000 });
    const query = { sort: 'stars', direction: 'desc' } as const;
    const page = (reader: WorldReader, offset: number) =>
      reader.searchRepos(query, offset, 50).items.map((repo) => repo.id);
    const stable = [0, 50, 100, 150].flatMap((offset) => page(world, offset));
    expect(new Set(stable).size).toBe(stable.length);
    const drifting = withShiftingSearch(world, { ...noFaults, seed: 5, shiftingSearchRate: 1 });
    const paged = [0, 50, 100, 150].flatMap((offset) => page(drifting, offset));
    expect(new Set(paged).size).toBeLessThan(paged.length);
    // Everything else about the world is untouched.
    expect(drifting.repoAt(0)).toEqual(world.repoAt(0));
  });
});
