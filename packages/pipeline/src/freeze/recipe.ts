// Which runner recipe a freeze uses for a repository: the registry entry's (what the rotation judged it by), else the
// committed per-repository override, else detection over the repository's tree at the base commit (registry/suites/),
// else the criteria's rules.
import { parseCommandLine } from '@abp/grader/verification';
import { planRunner } from '@abp/grader/verification';
import { detectRunner, readFiles } from '../registry/criteria/detect.js';
import { loadCriteria } from '../registry/criteria/load.js';
import { detectSuite, isReadManifest } from '../registry/suites/detect-suite.js';
import type { RunnerRecipe } from '../registry/criteria/schema.js';
import type { RegistryEntry } from '@abp/protocol/schemas/abp-registry';
import { FreezeError } from './errors.js';
import { git as runGit } from '@abp/grader/execution';

async function git(gitDir: string, args: string[]): Promise<string> {
  return (await runGit(['-C', gitDir, ...args], { cwd: gitDir })).stdout.toString('utf8');
}

// A registry entry names the repository's language (GitHub's, lower-cased); an environment is built per ecosystem.
const ECOSYSTEM_OF_LANGUAGE: Readonly<Record<string, string>> = {
  javascript: 'node',
  typescript: 'node',
  java: 'jvm',
  kotlin: 'jvm',
  scala: 'jvm',
};

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
    ecosystem: ECOSYSTEM_OF_LANGUAGE[runner.language] ?? runner.language,
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
  const paths = (await git(where.gitDir, ['ls-tree', '-r', '--name-only', where.base])).split('\n').filter(Boolean);
  // Detection over the whole tree first (registry/suites/): the package manager the repository declares, the runner
  // its scripts call, wherever its tests are. The criteria's rules answer where it finds no runnable suite.
  const manifests = paths
    .filter(isReadManifest)
    .sort((a, b) => a.split('/').length - b.split('/').length)
    .slice(0, MAX_MANIFESTS);
  const manifestTexts = new Map<string, string>();
  for (const path of manifests) manifestTexts.set(path, await git(where.gitDir, ['show', `${where.base}:${path}`]));
  const suite = detectSuite({ paths, text: (path) => manifestTexts.get(path) });
  if (suite?.recipe) return suite.recipe;
  const texts: Record<string, string> = {};
  for (const path of readFiles(criteria))
    if (manifestTexts.has(path) || paths.includes(path))
      texts[path] = manifestTexts.get(path) ?? (await git(where.gitDir, ['show', `${where.base}:${path}`]));
  const { ecosystem, recipe } = detectRunner({ paths, texts }, criteria);
  if (recipe !== null) return recipe;
  throw new FreezeError(
    'unsupported-runner',
    `${where.repo}: no runner recipe at ${where.base} (${suite === null ? (ecosystem ?? 'unknown ecosystem') : `${suite.ecosystem}, ${suite.runners.join(' and ') || 'no runner found'}: ${suite.unsupported ?? ''}`}); add an override to registry/criteria/overrides.json`,
  );
}

/** Manifests read for detection at most: a monorepo's package.json files, shallowest first. */
const MAX_MANIFESTS = 300;
