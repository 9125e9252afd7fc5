// A kept live world across a restart: what was opened, checked and merged before is there after, its clock goes on,
// the maintainers take up the green pull request they had not decided yet, and a damaged state file is refused by name.
import { readFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Actors } from '../../src/actors.js';
import {
  createLiveWorld,
  LiveWorldError,
  resumeLiveWorld,
  SAVED_STATE_FILE,
  savedLiveWorldDate,
  solverFixBranch,
  type LiveWorld,
} from '../../src/world/live/world.js';
import { fixFor, openFixPull } from '../support/solver.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-kept-world-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A fix pull request from the branch a world built with solverFixBranches carries. */
function openSolverFix(world: LiveWorld, repoName: string, issue: number) {
  const { repo, fix } = fixFor(world, repoName, issue);
  return { repo, pull: openFixPull(world, repo, { ...fix, branch: solverFixBranch(issue) }) };
}

describe('a kept live world', () => {
  let dir: string;
  let before: LiveWorld;

  beforeAll(async () => {
    dir = join(root, 'kept');
    before = await createLiveWorld({
      seed: 5,
      dir,
      generatedAt: '2026-11-20T00:00:00Z',
      solverFixBranches: true,
      keepState: true,
    });
  });

  it('is resumed after a restart with its pull requests, checks and merges, and its clock goes on', () => {
    const merged = openSolverFix(before, 'durafmt', 3);
    before.setChecks(merged.repo, merged.pull.number, 'SUCCESS');
    before.mergePull(merged.repo, merged.pull.number, merged.repo.owner);
    const green = openSolverFix(before, 'rangeset', 3);
    before.setChecks(green.repo, green.pull.number, 'SUCCESS');
    const lastWrite = before.pull(green.repo, green.pull.number)?.updatedAt ?? '';

    const after = resumeLiveWorld({ dir });
    expect(JSON.stringify(after)).toBe(JSON.stringify(before));
    expect(after.pull(merged.repo, merged.pull.number)).toMatchObject({ state: 'MERGED', checks: 'SUCCESS' });
    expect(after.repoById(merged.repo.id)?.headOid).toBe(before.pull(merged.repo, merged.pull.number)?.mergeCommitOid);
    // The next number and time follow on from before the restart.
    const next = openSolverFix(after, 'durafmt', 4);
    expect(next.pull.number).toBe(merged.pull.number + 1);
    expect(next.pull.createdAt > lastWrite).toBe(true);
    // Its changes are kept too: a second restart sees the pull request opened after the first.
    expect(resumeLiveWorld({ dir }).pull(next.repo, next.pull.number)?.state).toBe('OPEN');
  });

  it('lets the maintainers decide, after a restart, a green pull request left open before it', async () => {
    const world = resumeLiveWorld({ dir });
    const { repo } = fixFor(world, 'rangeset', 3);
    const green = world.pulls(repo, { states: ['OPEN'] }, 0, 10).items.find((pull) => pull.checks === 'SUCCESS');
    expect(green).toBeDefined();
    const actors = new Actors({
      world,
      ci: () => Promise.reject(new Error('a green pull request is not tested again')),
      plan: { seed: 5, reviewDelayMs: 0, closeUnmergedRate: 0 },
    });
    actors.start();
    await actors.idle();
    actors.stop();
    expect(world.pull(repo, green?.number ?? 0)?.state).toBe('MERGED');
    expect(actors.log().filter((decision) => decision.action === 'merged')).toHaveLength(1);
  });

  it('names its day, and none for a folder that keeps no world', async () => {
    expect(savedLiveWorldDate(dir)).toBe('2026-11-20');
    expect(savedLiveWorldDate(join(root, 'nothing-here'))).toBeNull();
    // A world kept only in memory leaves no state file.
    const unkept = await createLiveWorld({ seed: 5, dir: join(root, 'unkept') });
    expect(savedLiveWorldDate(unkept.gitRoot)).toBeNull();
  });

  it('refuses a damaged state file, naming it and what to do', async () => {
    const file = join(dir, SAVED_STATE_FILE);
    const good = await readFile(file, 'utf8');
    const refusal = (text: string): LiveWorldError | undefined => {
      try {
        resumeLiveWorld({ dir });
      } catch (error) {
        if (error instanceof LiveWorldError) return error;
        throw error;
      }
      expect.fail(`a state file ${text} was resumed`);
    };
    try {
      await writeFile(file, good.slice(0, 100));
      expect(refusal('cut short')).toMatchObject({ code: 'saved-state-invalid' });
      expect(refusal('cut short')?.message).toContain(file);
      expect(refusal('cut short')?.message).toContain('remove its folder');

      await writeFile(file, JSON.stringify({ ...JSON.parse(good), format: 'abp-sim-live-world/0' }));
      expect(refusal('of another format')?.message).toContain('format');

      // A repository path that leaves the world's folder is never served.
      const escaping = JSON.parse(good) as { world: { repos: Array<{ upstreamPath: string }> } };
      (escaping.world.repos[0] as { upstreamPath: string }).upstreamPath = '../../etc';
      await writeFile(file, JSON.stringify(escaping));
      expect(refusal('pointing outside')?.message).toContain('is not a folder inside');
    } finally {
      await writeFile(file, good);
    }
  });
});
