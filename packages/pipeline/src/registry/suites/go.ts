// Go suites: every package of the module, `go test ./...` from its root (from the workspace's, with a go.work), read
// by `go test -json`. A repository whose modules sit below the root without a go.work is tested from its first one.
import { folderOf, isOwnTestPath, manifestsNamed, type RepoTree } from './repo-tree.js';
import { runnable, type SuiteCandidate } from './suite.js';

export function detectGo(tree: RepoTree): SuiteCandidate | null {
  const modules = manifestsNamed(tree, 'go.mod');
  const first = modules[0];
  if (first === undefined) return null;
  const testFiles = tree.paths.filter((path) => isOwnTestPath(path) && path.endsWith('_test.go')).length;
  const root = tree.paths.includes('go.work') ? '' : folderOf(first);
  return runnable(
    { ecosystem: 'go', packageManager: 'go', runners: ['go-test'], testFiles },
    {
      install: [root === '' ? 'go mod download' : `go -C ${root} mod download`],
      test: root === '' ? 'go test ./...' : `go -C ${root} test ./...`,
      report: 'go-test-json',
    },
  );
}
