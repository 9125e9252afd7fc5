// Rust suites: `cargo test` over the whole workspace (a virtual workspace has no root crate to test alone), read from
// libtest's output; a repository that runs cargo-nextest in CI runs the same libtest tests under `cargo test`.
import { isOwnTestPath, type RepoTree } from './repo-tree.js';
import { runnable, type SuiteCandidate } from './suite.js';

const RUST_TEST_FILE = /(^|\/)tests?\/.*\.rs$|(^|\/)tests?\.rs$|_tests?\.rs$/;

/** A crate's root source, whose text detection reads: a crate with only inline unit tests shows them there. */
export function isCrateRoot(path: string): boolean {
  return /(^|\/)src\/(lib|main)\.rs$/.test(path);
}

export function detectRust(tree: RepoTree): SuiteCandidate | null {
  if (!tree.paths.includes('Cargo.toml')) return null;
  const manifest = tree.text('Cargo.toml') ?? '';
  const workspace = /^\[workspace\]/m.test(manifest);
  // Unit tests live beside the code (#[cfg(test)]), so once the crate shows it has tests (an integration test file, or
  // a test in a crate root detection reads), every Rust source counts as where tests may be.
  const sources = tree.paths.filter((path) => isOwnTestPath(path) && path.endsWith('.rs'));
  const tested =
    sources.some((path) => RUST_TEST_FILE.test(path)) ||
    sources.some((path) => isCrateRoot(path) && /#\[(cfg\()?test\)?\]/.test(tree.text(path) ?? ''));
  const testFiles = tested ? sources.length : 0;
  const nextest = tree.paths.some((path) => path === '.config/nextest.toml');
  return runnable(
    {
      ecosystem: 'rust',
      packageManager: 'cargo',
      runners: nextest ? ['cargo-nextest', 'cargo-test'] : ['cargo-test'],
      testFiles,
    },
    {
      install: ['cargo fetch'],
      test: workspace ? 'cargo test --workspace --no-fail-fast' : 'cargo test --no-fail-fast',
      report: 'cargo-test-text',
    },
    'cargo-test',
  );
}
