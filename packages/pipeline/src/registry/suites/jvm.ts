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
      install: [`${wrapper} -B -q -DskipTests install`],
      test: `${wrapper} -B -fae test`,
      report: 'junit-xml',
    },
  );
}
