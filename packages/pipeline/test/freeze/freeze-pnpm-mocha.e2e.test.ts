// A pnpm repository whose suite is mocha behind its own script, frozen with `abp freeze` and no recipe: detection over its tree gives pnpm at the version packageManager pins and mocha from node_modules/.bin;
// the environment installs both from the npm registry (pnpm through npx), the freeze reads mocha per test by its
// xunit report, and the bundled engines grade it: the reference resolved, the no-op unresolved.
import { execFileSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recipeFor } from '../../src/freeze/index.js';
import {
  expectedResults,
  expectReferenceResolvedNoopUnresolved,
  freezeFixture,
  type FrozenFixture,
} from '../support/frozen-task.js';

const PNPM = 'pnpm@9.15.9';

const BASE: Record<string, string> = {
  'package.json': `${JSON.stringify(
    {
      name: 'rangekit',
      version: '1.0.0',
      private: true,
      packageManager: PNPM,
      scripts: { test: 'mocha "test/**/*.test.js"' },
      devDependencies: { mocha: '10.8.2' },
    },
    null,
    2,
  )}\n`,
  'src/range.js': [
    'exports.add = (a, b) => a + b;',
    '// Bug: the bounds are swapped, so every value comes back as the lower bound or past it.',
    'exports.clamp = (value, low, high) => Math.max(high, Math.min(low, value));',
    '',
  ].join('\n'),
  'test/add.test.js': [
    "const assert = require('node:assert');",
    "const { add } = require('../src/range.js');",
    "describe('add', () => {",
    "  it('adds two numbers', () => assert.strictEqual(add(2, 3), 5));",
    "  it('adds negatives', () => assert.strictEqual(add(-2, -3), -5));",
    '});',
    '',
  ].join('\n'),
};

const FIX: Record<string, string> = {
  'src/range.js': [
    'exports.add = (a, b) => a + b;',
    'exports.clamp = (value, low, high) => Math.min(high, Math.max(low, value));',
    '',
  ].join('\n'),
  'test/clamp.test.js': [
    "const assert = require('node:assert');",
    "const { clamp } = require('../src/range.js');",
    "describe('clamp', () => {",
    "  it('keeps a value inside the range', () => assert.strictEqual(clamp(5, 0, 10), 5));",
    "  it('raises a value below the range', () => assert.strictEqual(clamp(-1, 0, 10), 0));",
    '});',
    '',
  ].join('\n'),
};

let frozen: FrozenFixture;

beforeAll(async () => {
  frozen = await freezeFixture({
    label: 'pnpm-mocha',
    repo: 'octo/rangekit',
    base: BASE,
    fix: FIX,
    // The lockfile as pnpm itself writes it, from the registry (the repository commits it; nothing is installed here).
    prepare: (dir) => execFileSync('npx', ['--yes', PNPM, 'install', '--lockfile-only'], { cwd: dir, stdio: 'pipe' }),
    issue: 7,
  });
}, 900_000);

afterAll(async () => {
  if (frozen) await rm(frozen.root, { recursive: true, force: true });
});

describe('a pnpm repository whose suite is mocha, frozen with the detected recipe', () => {
  it('is detected as pnpm at the pinned version and mocha from node_modules/.bin', async () => {
    expect(await recipeFor({ repo: 'octo/rangekit', gitDir: frozen.gitDir, base: frozen.base, entry: null })).toEqual({
      runner: 'mocha',
      ecosystem: 'node',
      install: [`npx --yes ${PNPM} install --frozen-lockfile`],
      test: "node_modules/.bin/mocha 'test/**/*.test.js'",
      report: 'junit-xml',
    });
  });

  it('freezes the new clamp tests as FAIL_TO_PASS and the add tests as PASS_TO_PASS, by mocha’s own titles', async () => {
    // One command: mocha is not narrowed to the new file (its --grep matches titles, not the ids it reports).
    expect(frozen.task.manifest.verification).toMatchObject({
      failToPass: ["node_modules/.bin/mocha 'test/**/*.test.js'"],
      passToPass: [],
    });
    // mocha's ids as its xunit report gives them: the suite's title, then the test's.
    expect(await expectedResults(frozen.tasksDir, frozen.task.taskId)).toMatchObject({
      reportFormat: 'junit-xml',
      failToPass: ['clamp::keeps a value inside the range', 'clamp::raises a value below the range'],
      passToPass: ['add::adds negatives', 'add::adds two numbers'],
      flaky: [],
    });
  });

  it('grades the reference engine resolved and the no-op engine unresolved', async () => {
    await expectReferenceResolvedNoopUnresolved(frozen.root, frozen.tasksDir, frozen.task.taskId);
  }, 900_000);
});
