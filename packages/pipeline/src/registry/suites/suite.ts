// What test-suite detection finds in a repository: its ecosystem, the package manager it declares, the runner its own
// scripts and CI call, and, when the freeze can install, run and read that runner per test here, the recipe to do it.

import type { RunnerRecipe } from '../criteria/schema.js';
import type { RepoTree } from './repo-tree.js';

/**
 * The version of what detection answers for a tree. Criteria name it (`suiteDetection`), so a registry says which
 * detection judged its entries; raised whenever the same tree would get another suite or recipe.
 */
export const SUITE_DETECTION = 'abp-suites/1';

export const ECOSYSTEMS = ['node', 'python', 'go', 'rust', 'jvm', 'cpp', 'ruby', 'php'] as const;
export type Ecosystem = (typeof ECOSYSTEMS)[number];

export interface SuiteCandidate {
  ecosystem: Ecosystem;
  /** npm, pnpm, yarn-classic, yarn-berry, bun, pip, poetry, uv, pdm, hatch, go, cargo, maven, gradle, cmake, bundler, composer. */
  packageManager: string;
  /** The runners the suite uses, the main one first (jest, pytest, go-test, maven-surefire, ctest and googletest, …). */
  runners: string[];
  /** Test files of this ecosystem in the tree: where the tests are decides between ecosystems. */
  testFiles: number;
  /** How the freeze installs, runs and reads it; null when it cannot here, and `unsupported` says why. */
  recipe: RunnerRecipe | null;
  unsupported: string | null;
}

// A registry entry names a language (GitHub's, lower-cased) rather than an ecosystem; these are the languages whose
// ecosystem is not spelled the same.
const ECOSYSTEM_OF_LANGUAGE: Readonly<Record<string, string>> = {
  javascript: 'node',
  typescript: 'node',
  java: 'jvm',
  kotlin: 'jvm',
  scala: 'jvm',
  'c++': 'cpp',
  c: 'cpp',
};
const LANGUAGE_OF_ECOSYSTEM: Readonly<Record<string, string>> = { node: 'javascript', jvm: 'java', cpp: 'c++' };

/** The ecosystem a registry entry's language builds an environment for. */
export function ecosystemOfLanguage(language: string): string {
  return ECOSYSTEM_OF_LANGUAGE[language] ?? language;
}

/**
 * The language a registry entry records for a suite: the repository's own when it is of the suite's ecosystem, else
 * the ecosystem's (a Python suite in a repository GitHub calls C++ is recorded as python, so the freeze builds Python).
 */
export function entryLanguage(ecosystem: string, primaryLanguage: string | null): string {
  const language = (primaryLanguage ?? '').toLowerCase().replace(/[^a-z0-9+#-]+/g, '-');
  return /^[a-z]/.test(language) && ecosystemOfLanguage(language) === ecosystem
    ? language
    : (LANGUAGE_OF_ECOSYSTEM[ecosystem] ?? ecosystem);
}

/** One ecosystem's detector: its candidate when the tree has that ecosystem's manifest, else null. */
export type EcosystemDetector = (tree: RepoTree) => SuiteCandidate | null;

/** A candidate the freeze can run, with its recipe; `runner` is the one the freeze runs, by default the main one. */
export function runnable(
  base: Omit<SuiteCandidate, 'recipe' | 'unsupported'>,
  recipe: Omit<RunnerRecipe, 'ecosystem' | 'runner'>,
  runner: string = base.runners[0] ?? 'unknown',
): SuiteCandidate {
  return { ...base, recipe: { runner, ecosystem: base.ecosystem, ...recipe }, unsupported: null };
}

/** A candidate found but not runnable here, with the reason an operator reads. */
export function notRunnable(base: Omit<SuiteCandidate, 'recipe' | 'unsupported'>, why: string): SuiteCandidate {
  return { ...base, recipe: null, unsupported: why };
}
