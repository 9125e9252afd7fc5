// The runners that print TAP and name no file in their ids, or only relative ones (ava, tape, QUnit), each in an npm
// repository frozen with `abp freeze` and no recipe: detection finds the runner behind the test script, the environment installs it from the npm registry at the
// version the lockfile holds, the freeze reads the TAP it prints per test, and the bundled engines grade each task: the
// reference resolved, the no-op unresolved. Each base already holds two test files, so ava names its tests by file in
// both states. node-tap, whose ids begin with the file, is read by the same reader; its real-tool tests are in
// real-runners.integration.test.ts, and its narrowing in commands.test.ts (its environment alone would add a minute here).
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PublishedTask } from '../../src/freeze/index.js';
import {
  expectedResults,
  expectReferenceResolvedNoopUnresolved,
  fixtureRepository,
  freezeWithCli,
} from '../support/frozen-task.js';

const RANGE = (fixed: boolean) =>
  [
    'exports.add = (a, b) => a + b;',
    'exports.half = (a) => a / 2;',
    fixed
      ? 'exports.clamp = (value, low, high) => Math.min(high, Math.max(low, value));'
      : // Bug: the bounds are swapped, so every value comes back as the lower bound or past it.
        'exports.clamp = (value, low, high) => Math.max(high, Math.min(low, value));',
    '',
  ].join('\n');

/** One test file in the runner's own style: `load` brings the runner in, `test` writes one test of `check`. */
interface Style {
  readonly load: string;
  readonly open: (name: string) => string;
  readonly test: (title: string, check: string) => string;
  readonly close: string;
}

const testFile = (style: Style, name: string, tests: ReadonlyArray<[string, string]>) =>
  [
    style.load,
    `const { ${name} } = require('../src/range.js');`,
    style.open(name),
    ...tests.map(([title, check]) => style.test(title, check)),
    style.close,
    '',
  ].join('\n');

const STYLES: Record<string, Style> = {
  ava: {
    load: "const test = require('ava');",
    open: () => '',
    test: (title, check) => `test('${title}', (t) => { t.true(${check}); });`,
    close: '',
  },
  tape: {
    load: "const test = require('tape');",
    open: () => '',
    test: (title, check) => `test('${title}', (t) => { t.ok(${check}); t.end(); });`,
    close: '',
  },
  qunit: {
    load: '',
    open: (name) => `QUnit.module('${name}', () => {`,
    test: (title, check) => `  QUnit.test('${title}', (assert) => { assert.ok(${check}); });`,
    close: '});',
  },
};

interface Case {
  readonly runner: 'ava' | 'tape' | 'qunit';
  readonly test: string;
  readonly devDependencies: Record<string, string>;
  /** The verification commands the freeze writes: narrowed where the ids name files. */
  readonly verification: { failToPass: string[]; passToPass: string[] };
  /** The test ids as the runner prints them. */
  readonly ids: { failToPass: string[]; passToPass: string[] };
}

const CASES: readonly Case[] = [
  {
    runner: 'ava',
    test: 'ava',
    devDependencies: { ava: '6.4.1' },
    // ava names a file only relative to the files that run: narrowed, the same test would get another id.
    verification: { failToPass: ['node_modules/.bin/ava'], passToPass: [] },
    ids: {
      failToPass: ['clamp › keeps a value inside the range', 'clamp › raises a value below the range'],
      passToPass: ['add › adds negatives', 'add › adds two numbers', 'half › halves'],
    },
  },
  {
    runner: 'tape',
    test: "tape 'test/*.js'",
    devDependencies: { tape: '5.10.2' },
    verification: { failToPass: ["node_modules/.bin/tape 'test/*.js'"], passToPass: [] },
    ids: {
      failToPass: ['keeps a value inside the range', 'raises a value below the range'],
      passToPass: ['adds negatives', 'adds two numbers', 'halves'],
    },
  },
  {
    runner: 'qunit',
    test: 'qunit',
    devDependencies: { qunit: '2.26.0' },
    verification: { failToPass: ['node_modules/.bin/qunit'], passToPass: [] },
    ids: {
      failToPass: ['clamp > keeps a value inside the range', 'clamp > raises a value below the range'],
      passToPass: ['add > adds negatives', 'add > adds two numbers', 'half > halves'],
    },
  },
];

let root: string;
const frozen = new Map<string, { task: PublishedTask; tasksDir: string }>();

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-freeze-tap-runners-'));
  for (const [index, { runner, test, devDependencies }] of CASES.entries()) {
    const style = STYLES[runner] as Style;
    const name = `rangekit-${runner}`;
    const dir = join(root, runner);
    const repo = await fixtureRepository({
      root: dir,
      name,
      base: {
        'package.json': `${JSON.stringify({ name, version: '1.0.0', private: true, scripts: { test }, devDependencies }, null, 2)}\n`,
        'src/range.js': RANGE(false),
        'test/add.test.js': testFile(style, 'add', [
          ['adds two numbers', 'add(2, 3) === 5'],
          ['adds negatives', 'add(-2, -3) === -5'],
        ]),
        'test/half.test.js': testFile(style, 'half', [['halves', 'half(4) === 2']]),
      },
      fix: {
        'src/range.js': RANGE(true),
        'test/clamp.test.js': testFile(style, 'clamp', [
          ['keeps a value inside the range', 'clamp(5, 0, 10) === 5'],
          ['raises a value below the range', 'clamp(-1, 0, 10) === 0'],
        ]),
      },
      // The lockfile as npm itself writes it, from the registry (the repository commits it; nothing is installed here).
      prepare: (checkout) =>
        execFileSync('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund'], {
          cwd: checkout,
          stdio: 'pipe',
        }),
    });
    frozen.set(
      runner,
      await freezeWithCli({
        root: dir,
        repo: `octo/${name}`,
        gitDir: repo.gitDir,
        base: repo.base,
        fix: repo.fix,
        issue: {
          number: 20 + index,
          title: 'clamp returns the wrong bound',
          body: 'clamp(-1, 0, 10) returns 10, not 0.',
        },
        pr: `https://github.com/octo/${name}/pull/${30 + index}`,
      }),
    );
  }
}, 1_800_000);

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

describe.each(CASES)('$runner, read by the TAP it prints', ({ runner, verification, ids }) => {
  it('is frozen to the runner’s own ids, with the commands narrowed where they name files', async () => {
    const { task, tasksDir } = frozen.get(runner) ?? expect.unreachable();
    expect(task.manifest.verification).toMatchObject(verification);
    expect(await expectedResults(tasksDir, task.taskId)).toMatchObject({ reportFormat: 'tap', ...ids, flaky: [] });
  });

  it('grades the reference engine resolved and the no-op engine unresolved', async () => {
    const { task, tasksDir } = frozen.get(runner) ?? expect.unreachable();
    await expectReferenceResolvedNoopUnresolved(join(root, runner), tasksDir, task.taskId);
  }, 900_000);
});
