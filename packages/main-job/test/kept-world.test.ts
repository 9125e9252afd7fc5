// Which small world a data directory's simulator serves on start: the one it keeps while recent enough for the registry
// criteria, otherwise one dated today. Read from the kept world's state file, as the simulator writes it.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAVED_STATE_FILE } from '@abp/github-sim/world/live/world';
import { KEPT_WORLD_MAX_AGE_DAYS, keptWorldDate, smallWorldFolder } from '../src/sim-stack.js';

let home: string;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'abp-kept-world-date-'));
  const world = join(smallWorldFolder(home, 1), 'world');
  await mkdir(world, { recursive: true });
  const state = { format: 'abp-sim-live-world/1', seed: 1, generatedAt: '2026-12-01T00:00:00Z', clockMs: 0 };
  await writeFile(join(world, SAVED_STATE_FILE), JSON.stringify({ ...state, world: { users: [], repos: [] } }));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('keptWorldDate', () => {
  it('resumes the kept world for a week, then lets a fresh one be built', () => {
    expect(KEPT_WORLD_MAX_AGE_DAYS).toBe(7);
    expect(keptWorldDate(home, 1, '2026-12-01')).toBe('2026-12-01');
    expect(keptWorldDate(home, 1, '2026-12-08')).toBe('2026-12-01');
    expect(keptWorldDate(home, 1, '2026-12-09')).toBeNull();
    // A kept world dated after today (a clock set back) is not resumed either.
    expect(keptWorldDate(home, 1, '2026-11-30')).toBeNull();
  });

  it('has nothing to resume for another seed', () => {
    expect(keptWorldDate(home, 2, '2026-12-01')).toBeNull();
  });
});
