// Suites found but not runnable here: Ruby (gems come from rubygems.org) and PHP (packages from Packagist), neither
// of which these machines reach. Found all the same, so coverage counts them honestly.
import { isOwnTestPath, manifestsNamed, type RepoTree } from './repo-tree.js';
import { notRunnable, type SuiteCandidate } from './suite.js';

export function detectRuby(tree: RepoTree): SuiteCandidate | null {
  // A Gemfile anywhere of the repository's own (Homebrew keeps its in Library/Homebrew), or a gemspec at the root.
  if (manifestsNamed(tree, 'Gemfile').length === 0 && !tree.paths.some((path) => /^[^/]+\.gemspec$/.test(path)))
    return null;
  const specs = tree.paths.filter((path) => isOwnTestPath(path) && /_spec\.rb$/.test(path)).length;
  const tests = tree.paths.filter(
    (path) => isOwnTestPath(path) && /(^|\/)test\/(.*\/)?(test_[^/]*|[^/]*_test)\.rb$/.test(path),
  ).length;
  return notRunnable(
    {
      ecosystem: 'ruby',
      packageManager: 'bundler',
      runners:
        specs >= tests ? ['rspec', ...(tests > 0 ? ['minitest'] : [])] : ['minitest', ...(specs > 0 ? ['rspec'] : [])],
      testFiles: specs + tests,
    },
    'gems come from rubygems.org, which these machines cannot reach',
  );
}

export function detectPhp(tree: RepoTree): SuiteCandidate | null {
  if (!tree.paths.includes('composer.json')) return null;
  const composer = tree.text('composer.json') ?? '';
  return notRunnable(
    {
      ecosystem: 'php',
      packageManager: 'composer',
      runners: [/pestphp\/pest/.test(composer) ? 'pest' : 'phpunit'],
      testFiles: tree.paths.filter((path) => isOwnTestPath(path) && /(^|\/)tests?\/.*Test\.php$/.test(path)).length,
    },
    'packages come from Packagist, which these machines cannot reach',
  );
}
