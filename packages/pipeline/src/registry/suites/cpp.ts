// C and C++ suites through CMake's CTest: the tests the project registers (add_test, or GoogleTest's, Catch2's and
// doctest's discovery), configured with the project's own test options switched on and built against the frameworks
// Debian packages (find_package finds them offline). One command builds what changed and runs CTest, so a patch is
// always tested as built; CTest writes the JUnit report. A project that fetches a dependency while it configures or
// builds (FetchContent, ExternalProject, CPM) cannot build offline, where verification runs: found, not runnable.
import { isOwnTestPath, manifestsNamed, type RepoTree } from './repo-tree.js';
import { commandLine } from './script-words.js';
import { notRunnable, runnable, type SuiteCandidate } from './suite.js';

/** Where the build goes, inside the checkout: a folder no project commits, so it never meets a file of the repository. */
const BUILD_DIR = '.abp-build';

const REGISTERS_TESTS =
  /\b(enable_testing|add_test|gtest_discover_tests|gtest_add_tests|catch_discover_tests|doctest_discover_tests)\s*\(|include\s*\(\s*CTest\s*\)/i;
const FETCHES = /\b(FetchContent_Declare|ExternalProject_Add|CPMAddPackage)\s*\(([^)]*)\)/gi;
/**
 * Options that switch a project's own tests on, as projects name them (FMT_TEST, SPDLOG_BUILD_TESTS, JSON_BuildTests,
 * gtest_build_tests).
 */
const TEST_OPTION = /((^|_)(BUILD_?)?TESTS?|WITH_?TESTS|BUILD_?TESTING|BuildTests)$/i;
/** Test options that need what an environment lacks (a GPU, a sanitizer runtime) or only add slow extras. */
const OTHER_OPTION = /CUDA|SANITI|FUZZ|BENCH|EXPENSIVE|EXTRA|COVERAGE|CONFIGURE|INSTALL/i;

export function detectCpp(tree: RepoTree): SuiteCandidate | null {
  if (!tree.paths.includes('CMakeLists.txt')) return null;
  const cmake = manifestsNamed(tree, 'CMakeLists.txt')
    .map((path) => tree.text(path) ?? '')
    .join('\n');
  const frameworks = [
    /\bGTest\b|gtest|googletest/i.test(cmake) ? 'googletest' : null,
    /Catch2|catch_discover_tests/i.test(cmake) ? 'catch2' : null,
    /doctest/i.test(cmake) ? 'doctest' : null,
  ].filter((name): name is string => name !== null);
  const testFiles = tree.paths.filter(
    (path) => isOwnTestPath(path) && /(^|\/)tests?\/.*\.(c|cc|cpp|cxx)$|_test\.(cc|cpp)$/.test(path),
  ).length;
  const base = { ecosystem: 'cpp' as const, packageManager: 'cmake', runners: ['ctest', ...frameworks], testFiles };
  if (!REGISTERS_TESTS.test(cmake)) return notRunnable(base, 'its CMake files register no tests with CTest');
  const fetched = [...cmake.matchAll(FETCHES)]
    .filter((call) => /\b(GIT_REPOSITORY|URL)\b/.test(call[2] ?? '') && !/\bFIND_PACKAGE_ARGS\b/.test(call[2] ?? ''))
    .map((call) => (call[2] ?? '').trim().split(/\s+/)[0] ?? '');
  if (fetched.length > 0)
    return notRunnable(
      base,
      `it fetches ${[...new Set(fetched)].join(', ')} while it configures or builds, and verification runs offline`,
    );
  // Options of every CMake file the project owns: googletest declares gtest_build_tests in googletest/CMakeLists.txt.
  const options = [...cmake.matchAll(/\boption\s*\(\s*([A-Za-z0-9_]+)/g)]
    .map((match) => match[1] ?? '')
    .filter((name) => TEST_OPTION.test(name) && !OTHER_OPTION.test(name));
  const defines = ['-DBUILD_TESTING=ON', ...[...new Set(options)].sort().map((name) => `-D${name}=ON`)];
  return runnable(base, {
    install: [commandLine(['cmake', '-S', '.', '-B', BUILD_DIR, '-G', 'Ninja', ...defines])],
    test: commandLine([
      'ctest',
      '--build-and-test',
      '.',
      BUILD_DIR,
      '--build-generator',
      'Ninja',
      '--build-noclean',
      '--build-options',
      ...defines,
      '--test-command',
      'ctest',
      '--output-on-failure',
    ]),
    report: 'junit-xml',
  });
}
