// A Maven multi-module build tested with JUnit 5 through Surefire, frozen with `abp freeze` and no recipe: detection
// gives the reactor's install and test commands, the environment is Debian's JDK and Maven with the plugins, the
// libraries and Surefire's JUnit provider fetched from Maven Central by the install into the image's own repository,
// the freeze reads every module's Surefire reports in runs that have no network, and the bundled engines grade the
// task: the reference resolved, the no-op unresolved.
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recipeFor } from '../../src/freeze/index.js';
import {
  expectedResults,
  expectReferenceResolvedNoopUnresolved,
  freezeFixture,
  type FrozenFixture,
} from '../support/frozen-task.js';

const pom = (body: string[]) =>
  [
    '<project xmlns="http://maven.apache.org/POM/4.0.0">',
    '  <modelVersion>4.0.0</modelVersion>',
    ...body,
    '</project>',
    '',
  ].join('\n');
const PARENT =
  '<parent><groupId>com.example</groupId><artifactId>rangekit</artifactId><version>1.0.0</version></parent>';

const javaTest = (pkg: string, name: string, imports: string[], tests: string[]) =>
  [
    `package com.example.${pkg};`,
    'import static org.junit.jupiter.api.Assertions.assertEquals;',
    'import org.junit.jupiter.api.Test;',
    ...imports,
    `class ${name} {`,
    ...tests.map((test) => `  @Test void ${test}`),
    '}',
    '',
  ].join('\n');

const range = (fixed: boolean) =>
  [
    'package com.example.range;',
    'public final class Range {',
    '  public static int add(int a, int b) { return a + b; }',
    fixed
      ? '  public static int clamp(int value, int low, int high) { return Math.min(high, Math.max(low, value)); }'
      : // Bug: the bounds are swapped, so every value comes back as the upper bound or past it.
        '  public static int clamp(int value, int low, int high) { return Math.max(high, Math.min(low, value)); }',
    '}',
    '',
  ].join('\n');

const BASE: Record<string, string> = {
  'pom.xml': pom([
    '  <groupId>com.example</groupId><artifactId>rangekit</artifactId><version>1.0.0</version>',
    '  <packaging>pom</packaging>',
    '  <modules><module>range</module><module>text</module></modules>',
    '  <properties>',
    '    <maven.compiler.release>17</maven.compiler.release>',
    '    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>',
    '  </properties>',
    '  <dependencies><dependency>',
    '    <groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter</artifactId><version>5.11.4</version>',
    '    <scope>test</scope>',
    '  </dependency></dependencies>',
    // Maven 3.8's default compiler plugin knows no `release`, and its default Surefire no JUnit 5: pinned, as projects do.
    '  <build><plugins>',
    '    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId>',
    '      <version>3.13.0</version></plugin>',
    '    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-surefire-plugin</artifactId>',
    '      <version>3.5.2</version></plugin>',
    '  </plugins></build>',
  ]),
  'range/pom.xml': pom([`  ${PARENT}`, '  <artifactId>range</artifactId>']),
  'range/src/main/java/com/example/range/Range.java': range(false),
  'range/src/test/java/com/example/range/AddTest.java': javaTest(
    'range',
    'AddTest',
    [],
    ['twoNumbers() { assertEquals(5, Range.add(2, 3)); }', 'negatives() { assertEquals(-5, Range.add(-2, -3)); }'],
  ),
  // A second module that uses the first through the reactor, not through the local repository.
  'text/pom.xml': pom([
    `  ${PARENT}`,
    '  <artifactId>text</artifactId>',
    '  <dependencies><dependency>',
    '    <groupId>com.example</groupId><artifactId>range</artifactId><version>${project.version}</version>',
    '  </dependency></dependencies>',
  ]),
  'text/src/main/java/com/example/text/Label.java': [
    'package com.example.text;',
    'import com.example.range.Range;',
    'public final class Label {',
    '  public static String sum(int a, int b) { return a + " + " + b + " = " + Range.add(a, b); }',
    '}',
    '',
  ].join('\n'),
  'text/src/test/java/com/example/text/LabelTest.java': javaTest(
    'text',
    'LabelTest',
    [],
    ['namesTheSum() { assertEquals("2 + 3 = 5", Label.sum(2, 3)); }'],
  ),
};

const FIX: Record<string, string> = {
  'range/src/main/java/com/example/range/Range.java': range(true),
  'range/src/test/java/com/example/range/ClampTest.java': javaTest(
    'range',
    'ClampTest',
    [],
    ['inside() { assertEquals(5, Range.clamp(5, 0, 10)); }', 'below() { assertEquals(0, Range.clamp(-1, 0, 10)); }'],
  ),
};

let frozen: FrozenFixture;

beforeAll(async () => {
  frozen = await freezeFixture({
    label: 'maven',
    repo: 'octo/rangekit',
    base: BASE,
    fix: FIX,
    issue: 9,
  });
}, 1_200_000);

afterAll(async () => {
  if (frozen) await rm(frozen.root, { recursive: true, force: true });
});

describe('a Maven multi-module build whose suite is JUnit 5 through Surefire, frozen with the detected recipe', () => {
  it('is installed by one test run of the reactor, which fetches Surefire’s provider, and tested by another', async () => {
    expect(await recipeFor({ repo: 'octo/rangekit', gitDir: frozen.gitDir, base: frozen.base, entry: null })).toEqual({
      runner: 'maven-surefire',
      ecosystem: 'jvm',
      install: ['mvn -B -q test -Dmaven.test.failure.ignore=true'],
      test: 'mvn -B -fae test -Dmaven.test.failure.ignore=true',
      report: 'junit-xml',
    });
  });

  it('freezes the new clamp tests as FAIL_TO_PASS and every module’s other tests as PASS_TO_PASS, by class and method', async () => {
    expect(frozen.task.manifest.verification).toMatchObject({
      failToPass: ['mvn -B -fae test -Dmaven.test.failure.ignore=true'],
      passToPass: [],
    });
    expect(await expectedResults(frozen.tasksDir, frozen.task.taskId)).toMatchObject({
      reportFormat: 'junit-xml',
      failToPass: ['com.example.range.ClampTest::below', 'com.example.range.ClampTest::inside'],
      passToPass: [
        'com.example.range.AddTest::negatives',
        'com.example.range.AddTest::twoNumbers',
        'com.example.text.LabelTest::namesTheSum',
      ],
      flaky: [],
    });
  });

  it('grades the reference engine resolved and the no-op engine unresolved', async () => {
    await expectReferenceResolvedNoopUnresolved(frozen.root, frozen.tasksDir, frozen.task.taskId);
  }, 900_000);
});
