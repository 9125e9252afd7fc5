// The solver's side of a live world in tests: clone its fork over HTTP, commit a known fix on a
// branch, push. Git runs asynchronously: the simulator serving it runs in the same process.
import { join } from 'node:path';
import { applyPatch } from '../../src/world/live/ci.js';
import { git, userIdentity } from '../../src/world/live/git.js';
import type { KnownFix, LiveWorld } from '../../src/world/live/world.js';
import { knownFixes, SOLVER_LOGIN } from '../../src/world/live/world.js';
import type { SimRepo } from '../../src/world/model.js';

let clones = 0;

export function fixFor(world: LiveWorld, repoName: string, issue: number): { repo: SimRepo; fix: KnownFix } {
  const fix = knownFixes(world).find(
    (candidate) => candidate.repo.endsWith(`/${repoName}`) && candidate.issue === issue,
  );
  const repo = fix && world.repoByName(fix.repo.split('/')[0] ?? '', repoName);
  if (!fix || !repo) throw new Error(`no known fix for ${repoName}#${issue}`);
  return { repo, fix };
}

/** Commits everything as the solver, two hours after the world's clock, so oids replay. */
export async function commitAll(
  world: LiveWorld,
  dir: string,
  message: string,
  options: { allowEmpty?: boolean } = {},
): Promise<void> {
  const solver = {
    identity: userIdentity(SOLVER_LOGIN, world.userByLogin(SOLVER_LOGIN)?.id ?? 0),
    at: Date.parse(world.generatedAt) / 1000 + 7_200,
  };
  await git(['add', '-A'], { cwd: dir });
  await git(['commit', '--quiet', ...(options.allowEmpty ? ['--allow-empty'] : []), '-m', message], {
    cwd: dir,
    author: solver,
    committer: solver,
  });
}

export async function pushFix(
  world: LiveWorld,
  fix: KnownFix,
  remote: string,
  workDir: string,
): Promise<{ dir: string; head: string }> {
  const dir = join(workDir, `clone-${process.pid}-${clones++}`);
  await git(['clone', '--quiet', remote, dir], { cwd: workDir, transport: 'network' });
  await git(['checkout', '--quiet', '-b', fix.branch], { cwd: dir });
  await applyPatch(dir, fix.patch);
  await commitAll(world, dir, fix.commitMessage);
  await git(['push', '--quiet', 'origin', fix.branch], { cwd: dir, transport: 'network' });
  return { dir, head: (await git(['rev-parse', 'HEAD'], { cwd: dir })).stdout.trim() };
}

export function openFixPull(world: LiveWorld, repo: SimRepo, fix: KnownFix) {
  return world.openPull(repo, {
    title: fix.title,
    body: fix.body,
    head: `${SOLVER_LOGIN}:${fix.branch}`,
    base: 'main',
    authorLogin: SOLVER_LOGIN,
  });
}
