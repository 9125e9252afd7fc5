// JVM suites: Maven runs every module's Surefire tests from the root's reactor and leaves JUnit XML in each module's
// target/surefire-reports; Gradle is found but not runnable here, since its distributions come from
// services.gradle.org, which these machines cannot reach (Maven Central does not serve them).
import { isOwnTestPath, type RepoTree } from './repo-tree.js';
import { notRunnable, runnable, type SuiteCandidate } from './suite.js';

const TEST_FILE = /(^|\/)src\/test\/(java|kotlin|scala|groovy)\/.*\.(java|kt|scala|groovy)$/;
const GRADLE_BUILD = /^(build|settings)\.gradle(\.kts)?$/;

export function detectJvm(tree: RepoTree): SuiteCandidate | null {
  const maven = tree.paths.includes('pom.xml');
  const gradle = tree.paths.some((path) => GRADLE_BUILD.test(path));
  if (!maven && !gradle) return null;
  const testFiles = tree.paths.filter((path) => isOwnTestPath(path) && TEST_FILE.test(path)).length;
  if (gradle && !maven)
    return notRunnable(
      { ecosystem: 'jvm', packageManager: 'gradle', runners: ['gradle'], testFiles },
      'Gradle distributions come from services.gradle.org, which these machines cannot reach',
    );
  const wrapper = tree.paths.includes('mvnw') ? './mvnw' : 'mvn';
  return runnable(
    { ecosystem: 'jvm', packageManager: 'maven', runners: ['maven-surefire'], testFiles },
    {
      // The install runs the tests once, their failures ignored: Surefire fetches its test-framework provider only when
      // tests run, and the graded runs have no network. `test`, not `install`: the base commit's own artifacts must not
      // land in the local repository, where a module would later find them in place of its sibling's code.
      install: [`${wrapper} -B -q test -Dmaven.test.failure.ignore=true`],
      // Failures ignored in the graded runs too: a module whose tests fail would otherwise stop the reactor before the
      // modules that depend on it, and their tests, never run, would read as failing. The reports are the verdict.
      test: `${wrapper} -B -fae test -Dmaven.test.failure.ignore=true`,
      report: 'junit-xml',
    },
  );
}
