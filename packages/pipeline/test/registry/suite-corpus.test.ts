// Detection over the committed corpus of popular repositories (bench/corpus/repos/, listings and manifests only): it
// must keep finding what their CI runs, and every recipe it gives must be one the freeze's own runner plans read per
// test, so no repository enters the registry with a suite the freeze cannot grade. bench/detection-coverage.ts prints
// the figures by ecosystem.
import { describe, expect, it } from 'vitest';
import { parseCommandLine, planRunner } from '@abp/grader/verification';
import { registryEntrySchema } from '@abp/protocol/schemas/abp-registry';
import { recipeFor } from '../../src/freeze/recipe.js';
import { installSteps } from '../../src/registry/criteria/schema.js';
import { entryRunner } from '../../src/registry/rotation/build-registry.js';
import { detectSuite } from '../../src/registry/suites/detect-suite.js';
import { isTruthRunner, loadCorpus } from '../../../../test-support/detection-corpus.js';

const corpus = loadCorpus();

describe('detection over the corpus', () => {
  it('holds at least 100 repositories across eight ecosystems, each with its truth written', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(100);
    expect(new Set(corpus.map((entry) => entry.truth.ecosystem)).size).toBe(8);
  });

  it('finds the ecosystem, runner and package manager CI uses for at least 90% of the repositories with tests', () => {
    const withTests = corpus.filter((entry) => entry.truth.hasTests);
    const wrong = withTests.filter(({ tree, truth }) => {
      const suite = detectSuite(tree);
      return !(
        suite !== null &&
        suite.ecosystem === truth.ecosystem &&
        isTruthRunner(suite.runners[0], truth) &&
        suite.packageManager === truth.packageManager
      );
    });
    expect(wrong.length / withTests.length, wrong.map((entry) => entry.repo).join(', ')).toBeLessThanOrEqual(0.1);
  });

  it('gives only recipes whose steps read without a shell and whose test the freeze plans with a per-test report', () => {
    for (const { repo, tree } of corpus) {
      const recipe = detectSuite(tree)?.recipe;
      if (recipe === null || recipe === undefined) continue;
      // Every step runs without a shell: each must read as words, as the freeze will read it.
      for (const step of installSteps(recipe)) expect(() => parseCommandLine(step), `${repo}: ${step}`).not.toThrow();
      const plan = planRunner(parseCommandLine(recipe.test).argv, '/abp-report');
      expect(plan.report, `${repo}: ${recipe.test}`).not.toBeNull();
      expect(plan.runner, repo).toBe(recipe.runner);
    }
  });

  it('enters the registry as an entry the freeze reads back to the same recipe (the registry and the freeze agree)', async () => {
    let checked = 0;
    // GitHub's primary language need not be the suite's: numpy is "C", a gem may be "JavaScript".
    for (const [index, { repo, tree }] of corpus.entries()) {
      const recipe = detectSuite(tree)?.recipe;
      if (recipe === null || recipe === undefined) continue;
      const primaryLanguage = [null, 'C++', 'TypeScript', 'Python', 'Go', 'Rust', 'Kotlin'][index % 7] ?? null;
      const runner = registryEntrySchema.shape.runner.parse(entryRunner(recipe, primaryLanguage));
      // With an entry the freeze never looks at the checkout: no git folder is needed.
      const back = await recipeFor({ repo, gitDir: '/nonexistent', base: 'HEAD', entry: runner });
      expect({ repo, ...back }, repo).toEqual({ repo, ...recipe, install: installSteps(recipe) });
      checked += 1;
    }
    expect(checked).toBeGreaterThanOrEqual(50);
  });
});
