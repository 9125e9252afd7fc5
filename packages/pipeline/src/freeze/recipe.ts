// Which runner recipe a freeze uses for a repository: the registry entry's (what the rotation judged it by), else the
// committed per-repository override, else detection over the repository's tree at the base commit (registry/suites/),
// the same detection a rotation judges candidates by.
import { parseCommandLine } from '@abp/grader/verification';
import { planRunner } from '@abp/grader/verification';
import { loadCriteria } from '../registry/criteria/load.js';
import { detectSuite, manifestsToRead } from '../registry/suites/detect-suite.js';
import { ecosystemOfLanguage } from '../registry/suites/suite.js';
import type { RunnerRecipe } from '../registry/criteria/schema.js';
import type { RegistryEntry } from '@abp/protocol/schemas/abp-registry';
import { FreezeError } from './errors.js';
import { git as runGit } from '@abp/grader/execution';

async function git(gitDir: string, args: string[]): Promise<string> {
  return (await runGit(['-C', gitDir, ...args], { cwd: gitDir })).stdout.toString('utf8');
}

/**
 * A registry entry's runner as a recipe; the runner's name is read from its test command, as the grader plans it.
 * Install steps stay a list (commands run without a shell: joined with "&&" they would be refused); the suite is one
 * command, since the freeze reads one report per run.
 */
function fromEntry(repo: string, runner: RegistryEntry['runner']): RunnerRecipe {
  const [test, ...more] = runner.test;
  if (test === undefined || more.length > 0) {
    throw new FreezeError(
      'invalid-input',
      `${repo}: the registry entry's runner.test holds ${runner.test.length} commands; the freeze runs the suite as one command whose report it reads, so give one (build steps belong in runner.install)`,
    );
  }
  const name = planRunner(parseCommandLine(test).argv, '/').runner;
  return {
    runner: name === 'plain' ? 'custom' : name,
    ecosystem: ecosystemOfLanguage(runner.language),
    install: [...runner.install],
    test,
    report: runner.reportFormat,
  };
}

export async function recipeFor(where: {
  repo: string;
  gitDir: string;
  base: string;
  entry: RegistryEntry['runner'] | null;
}): Promise<RunnerRecipe> {
  if (where.entry !== null) return fromEntry(where.repo, where.entry);
  const criteria = await loadCriteria();
  const override = criteria.overrides.find((candidate) => candidate.repo.toLowerCase() === where.repo.toLowerCase());
  if (override !== undefined) return override.runner;
  // `<mode> <type> <id> <size>\t<path>` for every file: sizes pick the manifests detection reads, as a rotation's do.
  const files = (await git(where.gitDir, ['-c', 'core.quotePath=false', 'ls-tree', '-r', '-l', '-z', where.base]))
    .split('\0')
    .flatMap((line) => {
      const tab = line.indexOf('\t');
      const [, type, , size] = line.slice(0, tab).split(/\s+/);
      return tab === -1 || type !== 'blob' ? [] : [{ path: line.slice(tab + 1), size: Number(size) }];
    });
  const texts = new Map<string, string>();
  for (const path of manifestsToRead(files))
    texts.set(path, await git(where.gitDir, ['show', `${where.base}:${path}`]));
  const suite = detectSuite({ paths: files.map((file) => file.path), text: (path) => texts.get(path) });
  if (suite?.recipe) return suite.recipe;
  throw new FreezeError(
    'unsupported-runner',
    `${where.repo}: no runner recipe at ${where.base} (${suite === null ? 'no manifest of a supported ecosystem' : `${suite.ecosystem}, ${suite.runners.join(' and ') || 'no runner found'}: ${suite.unsupported ?? ''}`}); add an override to packages/pipeline/data/criteria-overrides.json (docs/registry.md)`,
  );
}
