// A served small world is dated (its clock starts at 00:00 UTC on a day, today by default), so its history stays within
// the registry's merge window whenever it runs, and the same day gives the same repositories; built for a solver, its
// forks carry every known fix as fix/<issue>, while upstream repositories still hold no fix object.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MERGED_PULL_WINDOW_DAYS } from '@abp/github-sim/world/criteria';
import { git } from '@abp/github-sim/world/live/git';
import type { SimRepo } from '@abp/github-sim/world/model';
import {
  createLiveWorld,
  knownFixes,
  LiveWorldError,
  SOLVER_LOGIN,
  solverFixBranch,
  utcDate,
  worldDateClock,
  type LiveWorld,
} from '@abp/github-sim/world/live/world';
import { runAbp } from '../support/cli.js';

let root: string;
let today: LiveWorld;
let twin: LiveWorld;

const allRepos = (of: LiveWorld): SimRepo[] =>
  Array.from({ length: of.repoCount() }, (_, index) => of.repoAt(index) as SimRepo);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-live-date-'));
  const generatedAt = worldDateClock(utcDate());
  [today, twin] = await Promise.all([
    createLiveWorld({ seed: 1, dir: join(root, 'a'), generatedAt, solverFixBranches: true }),
    createLiveWorld({ seed: 1, dir: join(root, 'b'), generatedAt, solverFixBranches: true }),
  ]);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('a dated small world', () => {
  it('reads a world date as 00:00 UTC that day and refuses what is not a calendar day', () => {
    expect(worldDateClock('2026-11-30')).toBe('2026-11-30T00:00:00Z');
    expect(utcDate(new Date('2026-11-30T23:59:59.999Z'))).toBe('2026-11-30');
    for (const bad of ['2026-02-30', '30-11-2026', '2026-11-30T00:00:00Z', 'today'])
      expect(() => worldDateClock(bad)).toThrow(LiveWorldError);
  });

  it('dated today, keeps every repository’s last merge inside the registry’s window as judged now', () => {
    const windowStart = Date.now() - MERGED_PULL_WINDOW_DAYS * 86_400_000;
    for (const repo of allRepos(today).filter((candidate) => !candidate.isFork))
      expect(Date.parse(repo.lastMergedPullAt ?? '')).toBeGreaterThanOrEqual(windowStart);
  });

  it('is the same world for the same seed and day, down to the fix branches', async () => {
    expect(JSON.stringify(twin)).toBe(JSON.stringify(today));
    for (const repo of allRepos(today)) {
      const refs = async (of: LiveWorld) =>
        (await git(['for-each-ref', '--format=%(refname) %(objectname)'], { cwd: of.gitPathOf(repo) })).stdout;
      expect(await refs(twin)).toBe(await refs(today));
    }
  });

  it('gives the solver’s forks one fix/<issue> branch per known fix, made on upstream’s head, with its title and description', async () => {
    const fixes = knownFixes(today);
    expect(fixes).toHaveLength(12);
    for (const fix of fixes) {
      const name = fix.repo.split('/')[1] ?? '';
      const fork = today.repoByName(SOLVER_LOGIN, name) as SimRepo;
      const cwd = today.gitPathOf(fork);
      const branch = solverFixBranch(fix.issue);
      expect(branch).toBe(`fix/${fix.issue}`);
      expect((await git(['rev-parse', `${branch}^`], { cwd })).stdout.trim()).toBe(fix.baseOid);
      // The branch holds exactly the known fix: its diff from the base is the fix's patch.
      expect((await git(['diff', '--no-color', '--no-ext-diff', fix.baseOid, branch], { cwd })).stdout).toBe(fix.patch);
      const message = (await git(['log', '-1', '--format=%B', branch], { cwd })).stdout;
      expect(message.split('\n')[0]).toBe(fix.title);
      expect(message).toContain(`Fixes #${fix.issue}`);
    }
  });

  it('keeps every fix out of the upstream repositories', async () => {
    for (const repo of allRepos(today).filter((candidate) => !candidate.isFork)) {
      const cwd = today.gitPathOf(repo);
      expect((await git(['for-each-ref', '--format=%(refname)', 'refs/heads'], { cwd })).stdout.trim()).toBe(
        'refs/heads/main',
      );
      const fixCommits = knownFixes(today).filter((fix) => fix.repo === `${repo.owner}/${repo.name}`);
      const stored = new Set(
        (await git(['cat-file', '--batch-all-objects', '--batch-check=%(objectname)'], { cwd })).stdout
          .split('\n')
          .filter(Boolean),
      );
      const fork = today.repoByName(SOLVER_LOGIN, repo.name) as SimRepo;
      for (const fix of fixCommits)
        expect(
          stored.has(
            (await git(['rev-parse', solverFixBranch(fix.issue)], { cwd: today.gitPathOf(fork) })).stdout.trim(),
          ),
        ).toBe(false);
    }
  });

  it('abp sim up refuses a world date that is not a day, naming the option', async () => {
    const home = join(root, 'cli-home');
    const up = await runAbp(['sim', 'up', '--world', 'small', '--world-date', '2026-13-01', '--json'], {
      ABP_HOME: home,
    });
    expect(up.code).toBe(2);
    expect((JSON.parse(up.stdout) as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'invalid-setting',
      message: expect.stringContaining('--world-date: world date "2026-13-01" is not a calendar day') as string,
    });
  });
});
