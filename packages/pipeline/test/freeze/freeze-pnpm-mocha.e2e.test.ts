// A pnpm repository whose suite is mocha behind its own script, frozen with `abp freeze` and no recipe: detection over its tree gives pnpm at the version packageManager pins and mocha from node_modules/.bin;
// the environment installs both from the npm registry (pnpm through npx), the freeze reads mocha per test by its
// xunit report, and the bundled engines grade it: the reference resolved, the no-op unresolved.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recipeFor, type PublishedTask } from '../../src/freeze/index.js';
import { fixtureRepository, freezeWithCli, referenceAndNoop } from '../support/frozen-task.js';

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

let root: string;
let repoDir: string;
let baseCommit: string;
let task: PublishedTask;
let tasksDir: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-freeze-pnpm-mocha-'));
  const repo = await fixtureRepository({
    root,
    name: 'rangekit',
    base: BASE,
    fix: FIX,
    // The lockfile as pnpm itself writes it, from the registry (the repository commits it; nothing is installed here).
    prepare: (dir) => execFileSync('npx', ['--yes', PNPM, 'install', '--lockfile-only'], { cwd: dir, stdio: 'pipe' }),
  });
  repoDir = repo.gitDir;
  baseCommit = repo.base;
  ({ task, tasksDir } = await freezeWithCli({
    root,
    repo: 'octo/rangekit',
    gitDir: repo.gitDir,
    base: repo.base,
    fix: repo.fix,
    issue: { number: 7, title: 'clamp returns the wrong bound', body: 'clamp(-1, 0, 10) returns 10, not 0.' },
    pr: 'https://github.com/octo/rangekit/pull/8',
  }));
}, 900_000);

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

describe('a pnpm repository whose suite is mocha, frozen with the detected recipe', () => {
  it('is detected as pnpm at the pinned version and mocha from node_modules/.bin', async () => {
    expect(await recipeFor({ repo: 'octo/rangekit', gitDir: repoDir, base: baseCommit, entry: null })).toEqual({
      runner: 'mocha',
      ecosystem: 'node',
      install: [`npx --yes ${PNPM} install --frozen-lockfile`],
      test: "node_modules/.bin/mocha 'test/**/*.test.js'",
      report: 'junit-xml',
    });
  });

  it('freezes the new clamp tests as FAIL_TO_PASS and the add tests as PASS_TO_PASS, by mocha’s own titles', async () => {
    // One command: mocha is not narrowed to the new file (its --grep matches titles, not the ids it reports).
    expect(task.manifest.verification).toMatchObject({
      failToPass: ["node_modules/.bin/mocha 'test/**/*.test.js'"],
      passToPass: [],
    });
    const expected = JSON.parse(
      await readFile(join(tasksDir, task.taskId, 'held-out', 'expected-results.json'), 'utf8'),
    ) as { failToPass: string[]; passToPass: string[]; flaky: string[]; reportFormat: string };
    // mocha's ids as its xunit report gives them: the suite's title, then the test's.
    expect(expected).toMatchObject({
      reportFormat: 'junit-xml',
      failToPass: ['clamp::keeps a value inside the range', 'clamp::raises a value below the range'],
      passToPass: ['add::adds negatives', 'add::adds two numbers'],
      flaky: [],
    });
  });

  it('grades the reference engine resolved and the no-op engine unresolved', async () => {
    const graded = await referenceAndNoop(root, tasksDir, task.taskId);
    expect(graded.reference, graded.detail).toBe('resolved');
    expect(graded.noop).toBe('unresolved');
  }, 900_000);
});
