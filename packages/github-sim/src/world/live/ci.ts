// Checkouts of live-world commits and a CI that runs a pull request's real test suite: what the
// reference solver, the CI actor and the tests share. The planted flaky tests draw their
// environment value from (world seed, pull request, head commit), so a scenario replays with the
// same verdicts while different pull requests still see the flake.

import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { CheckConclusion, SimPull, SimRepo } from '../model.js';
import { hash3 } from '../random.js';
import { git } from './git.js';
import type { SuiteRun } from './runners.js';
import { installDependencies, runTests } from './runners.js';
import type { LiveWorld } from './world.js';

/** Clones a world repository into `dir` and checks out `commit` (any commit in it, e.g. a refs/pull head). */
export async function checkout(world: LiveWorld, repo: SimRepo, commit: string, dir: string): Promise<void> {
  await git(['clone', '--quiet', '--no-checkout', world.gitPathOf(repo), dir], { cwd: world.gitRoot });
  await git(['checkout', '--quiet', '--detach', commit], { cwd: dir });
}

/** Applies a known fix's patch to a checkout; `only` limits it to these paths (e.g. the test part). */
export async function applyPatch(dir: string, patch: string, only?: readonly string[]): Promise<void> {
  // An empty `only` selects nothing; without this check git would apply the whole patch.
  if (only !== undefined && only.length === 0) return;
  const include = only?.map((path) => `--include=${path}`) ?? [];
  await git(['apply', '--whitespace=nowarn', ...include, '-'], { cwd: dir, input: patch });
}

/** Environment values for the flaky tests of a repository, drawn from the seed and `salt`. */
export function flakyEnv(world: LiveWorld, repo: SimRepo, salt: number): Record<string, string> {
  const env: Record<string, string> = {};
  for (const flaky of world.flakyTests()) {
    if (flaky.repo === `${repo.owner}/${repo.name}`) env[flaky.env] = String(hash3(world.seed >>> 0, repo.id, salt));
  }
  return env;
}

export interface LiveCiOptions {
  /** Where checkouts are made (removed after each run). */
  workDir: string;
  /** Extra environment for every run; overrides the seeded flaky values. */
  env?: Readonly<Record<string, string>>;
  /** Called with each finished run, e.g. to keep logs. */
  onRun?: (repo: SimRepo, pull: SimPull, run: SuiteRun) => void;
  /** Called when the install step failed (its command, exit and output tail), before the check goes red. */
  onInstallFailure?: (repo: SimRepo, pull: SimPull, message: string) => void;
}

/** Runs a pull request's tests and says how they went (the shape the CI actor takes). */
export type LiveCi = (repo: SimRepo, pull: SimPull) => Promise<CheckConclusion>;

/** CI for live worlds: checks out the pull request's head and runs its real test suite. */
export function createLiveCi(world: LiveWorld, options: LiveCiOptions): LiveCi {
  return async (repo: SimRepo, pull: SimPull): Promise<CheckConclusion> => {
    const runner = world.runnerOf(repo);
    if (runner === undefined) return 'FAILURE';
    const dir = await mkdtemp(join(options.workDir, `ci-${repo.name}-${pull.number}-`));
    try {
      await checkout(world, repo, pull.headRefOid, dir);
      const install = world.installOf(repo);
      // A dependency that will not install fails the check, as a hosted runner's failed install step does.
      if (
        install !== undefined &&
        !(await installDependencies(install, dir).then(
          () => true,
          (error: unknown) => {
            options.onInstallFailure?.(repo, pull, error instanceof Error ? error.message : String(error));
            return false;
          },
        ))
      )
        return 'FAILURE';
      const salt = pull.number * 0x10000 + Number.parseInt(pull.headRefOid.slice(0, 4), 16);
      const run = await runTests(runner, dir, { env: { ...flakyEnv(world, repo, salt), ...options.env } });
      options.onRun?.(repo, pull, run);
      const failed = run.results.some((result) => result.status === 'fail' || result.status === 'error');
      return run.exitCode === 0 && !failed && run.results.length > 0 ? 'SUCCESS' : 'FAILURE';
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };
}
