// CMake projects tested through CTest with each framework Debian ships (GoogleTest, Catch2 2, doctest), frozen with
// `abp freeze` and no recipe: detection gives the configure step with the project's own test option on and one command
// that builds what changed and runs CTest; the environment is Debian's compilers, CMake and the frameworks; each
// framework's discovery registers every test case with CTest, the freeze reads CTest's JUnit report by those names, and
// the bundled engines grade it: the reference resolved, the no-op unresolved.
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recipeFor } from '../../src/freeze/index.js';
import {
  expectedResults,
  expectReferenceResolvedNoopUnresolved,
  freezeFixture,
  type FrozenFixture,
} from '../support/frozen-task.js';

interface Framework {
  name: 'googletest' | 'catch2' | 'doctest';
  /** The CMake lines that find the framework and register one test executable's cases with CTest. */
  cmake: string[];
  /** Files every test executable is built with (a main of the framework's own), beside `test/*_test.cpp`. */
  support: Record<string, string>;
  /** A test file of two cases, each `[name, check]`. */
  tests: (cases: Array<[string, string]>) => string;
  addIds: string[];
  clampIds: string[];
}

const FRAMEWORKS: Framework[] = [
  {
    name: 'googletest',
    cmake: [
      '  find_package(GTest REQUIRED)',
      '  include(GoogleTest)',
      '  file(GLOB tests test/*_test.cpp)',
      '  foreach(test ${tests})',
      '    get_filename_component(name ${test} NAME_WE)',
      '    add_executable(${name} ${test})',
      '    target_link_libraries(${name} range GTest::gtest_main)',
      '    gtest_discover_tests(${name})',
      '  endforeach()',
    ],
    support: {},
    tests: (cases) =>
      [
        '#include <gtest/gtest.h>',
        '#include "range.h"',
        ...cases.map(([name, check]) => `TEST(${name}) { EXPECT_TRUE(${check}); }`),
        '',
      ].join('\n'),
    addIds: ['Add.Negatives', 'Add.TwoNumbers'],
    clampIds: ['Clamp.Below', 'Clamp.Inside'],
  },
  {
    name: 'catch2',
    cmake: [
      '  find_package(Catch2 REQUIRED)',
      '  include(Catch)',
      '  file(GLOB tests test/*_test.cpp)',
      '  add_executable(tests test/main.cpp ${tests})',
      '  target_link_libraries(tests range Catch2::Catch2)',
      '  catch_discover_tests(tests)',
    ],
    support: { 'test/main.cpp': '#define CATCH_CONFIG_MAIN\n#include <catch2/catch.hpp>\n' },
    tests: (cases) =>
      [
        '#include <catch2/catch.hpp>',
        '#include "range.h"',
        ...cases.map(([name, check]) => `TEST_CASE("${name.replace(', ', ': ')}") { CHECK(${check}); }`),
        '',
      ].join('\n'),
    addIds: ['Add: Negatives', 'Add: TwoNumbers'],
    clampIds: ['Clamp: Below', 'Clamp: Inside'],
  },
  {
    name: 'doctest',
    cmake: [
      '  find_package(doctest REQUIRED)',
      '  include(doctest)',
      '  file(GLOB tests test/*_test.cpp)',
      '  add_executable(tests test/main.cpp ${tests})',
      '  target_link_libraries(tests range doctest::doctest)',
      '  doctest_discover_tests(tests)',
    ],
    support: { 'test/main.cpp': '#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN\n#include <doctest/doctest.h>\n' },
    tests: (cases) =>
      [
        '#include <doctest/doctest.h>',
        '#include "range.h"',
        ...cases.map(([name, check]) => `TEST_CASE("${name.replace(', ', ' ')}") { CHECK(${check}); }`),
        '',
      ].join('\n'),
    addIds: ['Add Negatives', 'Add TwoNumbers'],
    clampIds: ['Clamp Below', 'Clamp Inside'],
  },
];

function base(framework: Framework): Record<string, string> {
  return {
    'CMakeLists.txt': [
      'cmake_minimum_required(VERSION 3.21)',
      'project(rangekit CXX)',
      'option(RANGEKIT_BUILD_TESTS "Build the tests" OFF)',
      'add_library(range src/range.cpp)',
      'target_include_directories(range PUBLIC src)',
      'if(RANGEKIT_BUILD_TESTS)',
      '  enable_testing()',
      ...framework.cmake,
      'endif()',
      '',
    ].join('\n'),
    'src/range.h': 'int add(int a, int b);\nint clamp(int value, int low, int high);\n',
    'src/range.cpp': [
      '#include "range.h"',
      '#include <algorithm>',
      'int add(int a, int b) { return a + b; }',
      '// Bug: the bounds are swapped, so every value comes back as the upper bound or past it.',
      'int clamp(int value, int low, int high) { return std::max(high, std::min(low, value)); }',
      '',
    ].join('\n'),
    ...framework.support,
    'test/add_test.cpp': framework.tests([
      ['Add, TwoNumbers', 'add(2, 3) == 5'],
      ['Add, Negatives', 'add(-2, -3) == -5'],
    ]),
  };
}

function fix(framework: Framework): Record<string, string> {
  return {
    'src/range.cpp': [
      '#include "range.h"',
      '#include <algorithm>',
      'int add(int a, int b) { return a + b; }',
      'int clamp(int value, int low, int high) { return std::min(high, std::max(low, value)); }',
      '',
    ].join('\n'),
    'test/clamp_test.cpp': framework.tests([
      ['Clamp, Inside', 'clamp(5, 0, 10) == 5'],
      ['Clamp, Below', 'clamp(-1, 0, 10) == 0'],
    ]),
  };
}

const BUILD = '-DBUILD_TESTING=ON -DRANGEKIT_BUILD_TESTS=ON';
const TEST = `ctest --build-and-test . .abp-build --build-generator Ninja --build-noclean --build-options ${BUILD} --test-command ctest --output-on-failure`;

const frozen = new Map<string, FrozenFixture>();

beforeAll(async () => {
  // One after another: the three share the Debian base, built by the first.
  for (const [index, framework] of FRAMEWORKS.entries())
    frozen.set(
      framework.name,
      await freezeFixture({
        label: `cmake-${framework.name}`,
        repo: 'octo/rangekit',
        base: base(framework),
        fix: fix(framework),
        issue: 7 + 10 * index,
      }),
    );
}, 1_800_000);

afterAll(async () => {
  for (const fixture of frozen.values()) await rm(fixture.root, { recursive: true, force: true });
});

describe.each(FRAMEWORKS)(
  'a CMake project whose suite is $name through CTest, frozen with the detected recipe',
  (framework) => {
    it('is configured with its own test option on, and tested by one command that builds and runs CTest', async () => {
      const fixture = frozen.get(framework.name) ?? expect.unreachable();
      expect(
        await recipeFor({ repo: 'octo/rangekit', gitDir: fixture.gitDir, base: fixture.base, entry: null }),
      ).toEqual({
        runner: 'ctest',
        ecosystem: 'cpp',
        install: [`cmake -S . -B .abp-build -G Ninja ${BUILD}`],
        test: TEST,
        report: 'junit-xml',
      });
    });

    it('freezes the new clamp tests as FAIL_TO_PASS and the add tests as PASS_TO_PASS, by the names CTest gives them', async () => {
      const fixture = frozen.get(framework.name) ?? expect.unreachable();
      expect(fixture.task.manifest.verification).toMatchObject({ failToPass: [TEST], passToPass: [] });
      expect(await expectedResults(fixture.tasksDir, fixture.task.taskId)).toMatchObject({
        reportFormat: 'junit-xml',
        failToPass: framework.clampIds,
        passToPass: framework.addIds,
        flaky: [],
      });
    });

    it('grades the reference engine resolved and the no-op engine unresolved', async () => {
      const fixture = frozen.get(framework.name) ?? expect.unreachable();
      await expectReferenceResolvedNoopUnresolved(fixture.root, fixture.tasksDir, fixture.task.taskId);
    }, 900_000);
  },
);
