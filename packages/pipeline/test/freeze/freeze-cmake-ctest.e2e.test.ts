// A CMake project tested with GoogleTest through CTest, frozen with `abp freeze` and no recipe: detection gives the
// configure step with the project's own test option on and one command that builds what changed and runs CTest; the
// environment is Debian's compilers, CMake and GoogleTest; the freeze reads CTest's JUnit report, and the bundled
// engines grade it: the reference resolved, the no-op unresolved.
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recipeFor } from '../../src/freeze/index.js';
import {
  expectedResults,
  expectReferenceResolvedNoopUnresolved,
  freezeFixture,
  type FrozenFixture,
} from '../support/frozen-task.js';

const BASE: Record<string, string> = {
  'CMakeLists.txt': [
    'cmake_minimum_required(VERSION 3.21)',
    'project(rangekit CXX)',
    'option(RANGEKIT_BUILD_TESTS "Build the tests" OFF)',
    'add_library(range src/range.cpp)',
    'target_include_directories(range PUBLIC src)',
    'if(RANGEKIT_BUILD_TESTS)',
    '  enable_testing()',
    '  find_package(GTest REQUIRED)',
    '  include(GoogleTest)',
    '  file(GLOB tests test/*_test.cpp)',
    '  foreach(test ${tests})',
    '    get_filename_component(name ${test} NAME_WE)',
    '    add_executable(${name} ${test})',
    '    target_link_libraries(${name} range GTest::gtest_main)',
    '    gtest_discover_tests(${name})',
    '  endforeach()',
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
  'test/add_test.cpp': [
    '#include <gtest/gtest.h>',
    '#include "range.h"',
    'TEST(Add, TwoNumbers) { EXPECT_EQ(add(2, 3), 5); }',
    'TEST(Add, Negatives) { EXPECT_EQ(add(-2, -3), -5); }',
    '',
  ].join('\n'),
};

const FIX: Record<string, string> = {
  'src/range.cpp': [
    '#include "range.h"',
    '#include <algorithm>',
    'int add(int a, int b) { return a + b; }',
    'int clamp(int value, int low, int high) { return std::min(high, std::max(low, value)); }',
    '',
  ].join('\n'),
  'test/clamp_test.cpp': [
    '#include <gtest/gtest.h>',
    '#include "range.h"',
    'TEST(Clamp, Inside) { EXPECT_EQ(clamp(5, 0, 10), 5); }',
    'TEST(Clamp, Below) { EXPECT_EQ(clamp(-1, 0, 10), 0); }',
    '',
  ].join('\n'),
};

const BUILD = '-DBUILD_TESTING=ON -DRANGEKIT_BUILD_TESTS=ON';
const TEST = `ctest --build-and-test . .abp-build --build-generator Ninja --build-noclean --build-options ${BUILD} --test-command ctest --output-on-failure`;

let frozen: FrozenFixture;

beforeAll(async () => {
  frozen = await freezeFixture({
    label: 'cmake-ctest',
    repo: 'octo/rangekit',
    base: BASE,
    fix: FIX,
    issue: 7,
  });
}, 900_000);

afterAll(async () => {
  if (frozen) await rm(frozen.root, { recursive: true, force: true });
});

describe('a CMake project whose suite is GoogleTest through CTest, frozen with the detected recipe', () => {
  it('is configured with its own test option on, and tested by one command that builds and runs CTest', async () => {
    expect(await recipeFor({ repo: 'octo/rangekit', gitDir: frozen.gitDir, base: frozen.base, entry: null })).toEqual({
      runner: 'ctest',
      ecosystem: 'cpp',
      install: [`cmake -S . -B .abp-build -G Ninja ${BUILD}`],
      test: TEST,
      report: 'junit-xml',
    });
  });

  it('freezes the new clamp tests as FAIL_TO_PASS and the add tests as PASS_TO_PASS, by the names CTest gives them', async () => {
    expect(frozen.task.manifest.verification).toMatchObject({ failToPass: [TEST], passToPass: [] });
    expect(await expectedResults(frozen.tasksDir, frozen.task.taskId)).toMatchObject({
      reportFormat: 'junit-xml',
      failToPass: ['Clamp.Below', 'Clamp.Inside'],
      passToPass: ['Add.Negatives', 'Add.TwoNumbers'],
      flaky: [],
    });
  });

  it('grades the reference engine resolved and the no-op engine unresolved', async () => {
    await expectReferenceResolvedNoopUnresolved(frozen.root, frozen.tasksDir, frozen.task.taskId);
  }, 900_000);
});
