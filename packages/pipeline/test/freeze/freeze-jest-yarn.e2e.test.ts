// jest in a Yarn 4 repository (node-modules linker, the version `packageManager` pins), frozen with `abp freeze` and no
// recipe: detection finds jest behind the test script and Yarn behind the lockfile, the environment installs the locked
// tree with Yarn itself from the npm registry (an immutable install), the freeze reads jest's own JSON report, ids by
// file and title path, and narrows the FAIL_TO_PASS command to the new test file, and the bundled engines grade the
// task: the reference resolved, the no-op unresolved.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recipeFor } from '../../src/freeze/index.js';
import {
  expectedResults,
  expectReferenceResolvedNoopUnresolved,
  freezeFixture,
  type FrozenFixture,
} from '../support/frozen-task.js';

const YARN = '4.5.3';

const range = (fixed: boolean) =>
  [
    'exports.add = (a, b) => a + b;',
    fixed
      ? 'exports.clamp = (value, low, high) => Math.min(high, Math.max(low, value));'
      : // Bug: the bounds are swapped, so every value comes back as the lower bound or past it.
        'exports.clamp = (value, low, high) => Math.max(high, Math.min(low, value));',
    '',
  ].join('\n');

const BASE: Record<string, string> = {
  'package.json': `${JSON.stringify(
    {
      name: 'rangekit-jest',
      version: '1.0.0',
      private: true,
      packageManager: `yarn@${YARN}`,
      scripts: { test: 'jest' },
      devDependencies: { jest: '30.5.2' },
    },
    null,
    2,
  )}\n`,
  '.yarnrc.yml': 'nodeLinker: node-modules\n',
  'src/range.js': range(false),
  'test/add.test.js': [
    "const { add } = require('../src/range.js');",
    "describe('add', () => {",
    "  test('adds two numbers', () => expect(add(2, 3)).toBe(5));",
    "  test('adds negatives', () => expect(add(-2, -3)).toBe(-5));",
    '});',
    '',
  ].join('\n'),
};

const FIX: Record<string, string> = {
  'src/range.js': range(true),
  'test/clamp.test.js': [
    "const { clamp } = require('../src/range.js');",
    "describe('clamp', () => {",
    "  test('keeps a value inside the range', () => expect(clamp(5, 0, 10)).toBe(5));",
    "  test('raises a value below the range', () => expect(clamp(-1, 0, 10)).toBe(0));",
    '});',
    '',
  ].join('\n'),
};

let frozen: FrozenFixture;

beforeAll(async () => {
  frozen = await freezeFixture({
    label: 'jest-yarn',
    repo: 'octo/rangekit-jest',
    base: BASE,
    fix: FIX,
    // The lockfile as Yarn itself writes it, from the registry (the repository commits it; nothing is linked here).
    prepare: (checkout) => {
      execFileSync('npx', ['--yes', `@yarnpkg/cli-dist@${YARN}`, 'install', '--mode=update-lockfile'], {
        cwd: checkout,
        stdio: 'pipe',
        env: { ...process.env, YARN_ENABLE_TELEMETRY: '0', YARN_ENABLE_GLOBAL_CACHE: '0' },
      });
      // Yarn's own cache and state stay out of the commit, as a repository's .gitignore keeps them.
      rmSync(join(checkout, '.yarn'), { recursive: true, force: true });
    },
    issue: 15,
  });
}, 1_200_000);

afterAll(async () => {
  if (frozen) await rm(frozen.root, { recursive: true, force: true });
});

describe('jest in a Yarn 4 repository, frozen with the detected recipe', () => {
  it('installs with the Yarn the repository pins, immutably, and runs jest from node_modules', async () => {
    expect(
      await recipeFor({ repo: 'octo/rangekit-jest', gitDir: frozen.gitDir, base: frozen.base, entry: null }),
    ).toEqual({
      runner: 'jest',
      ecosystem: 'node',
      install: [`npx --yes @yarnpkg/cli-dist@${YARN} install --immutable`],
      test: 'node_modules/.bin/jest',
      report: 'jest-json',
    });
  });

  it('freezes jest’s own ids, file and title path, with the FAIL_TO_PASS command narrowed to the new file', async () => {
    expect(frozen.task.manifest.verification).toMatchObject({
      failToPass: ['node_modules/.bin/jest test/clamp.test.js'],
      passToPass: ['node_modules/.bin/jest'],
    });
    expect(await expectedResults(frozen.tasksDir, frozen.task.taskId)).toMatchObject({
      reportFormat: 'jest-json',
      failToPass: [
        'test/clamp.test.js › clamp › keeps a value inside the range',
        'test/clamp.test.js › clamp › raises a value below the range',
      ],
      passToPass: ['test/add.test.js › add › adds negatives', 'test/add.test.js › add › adds two numbers'],
      flaky: [],
    });
  });

  it('grades the reference engine resolved and the no-op engine unresolved', async () => {
    await expectReferenceResolvedNoopUnresolved(frozen.root, frozen.tasksDir, frozen.task.taskId);
  }, 900_000);
});
