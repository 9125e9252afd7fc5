// Three JavaScript runners, each in a repository frozen with `abp freeze` and no recipe: jasmine and lab, read through a
// reporter of abp's own (jasmine's specs named by file, suites and title; lab's tests by title alone, under the
// project's own 100% coverage threshold and lint, which are no verdict on the tests), and bun test, read by its junit
// report, with bun itself in the environment beside Node. Detection finds each runner behind the test script, the
// environment installs it from the npm registry, and the bundled engines grade each task: the reference resolved, the
// no-op unresolved.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recipeFor, type PublishedTask } from '../../src/freeze/index.js';
import {
  expectedResults,
  expectReferenceResolvedNoopUnresolved,
  fixtureRepository,
  freezeWithCli,
} from '../support/frozen-task.js';

const manifest = (name: string, test: string, devDependencies: Record<string, string>) =>
  `${JSON.stringify({ name, version: '1.0.0', private: true, scripts: { test }, devDependencies }, null, 2)}\n`;

const BUGGY = [
  'exports.add = (a, b) => a + b;',
  '// Bug: the bounds are swapped, so every value comes back as the lower bound or past it.',
  'exports.clamp = (value, low, high) => Math.max(high, Math.min(low, value));',
  '',
].join('\n');
const FIXED = [
  'exports.add = (a, b) => a + b;',
  'exports.clamp = (value, low, high) => Math.min(high, Math.max(low, value));',
  '',
].join('\n');

const JASMINE = {
  base: {
    'package.json': manifest('rangekit-jasmine', 'jasmine', { jasmine: '5.13.0' }),
    'spec/support/jasmine.json': '{ "spec_dir": "spec", "spec_files": ["**/*[sS]pec.js"] }\n',
    'src/range.js': BUGGY,
    'spec/add.spec.js': [
      "const { add } = require('../src/range.js');",
      "describe('add', () => {",
      "  it('adds two numbers', () => expect(add(2, 3)).toBe(5));",
      "  it('adds negatives', () => expect(add(-2, -3)).toBe(-5));",
      '});',
      '',
    ].join('\n'),
  },
  fix: {
    'src/range.js': FIXED,
    'spec/clamp.spec.js': [
      "const { clamp } = require('../src/range.js');",
      "describe('clamp', () => {",
      "  it('keeps a value inside the range', () => expect(clamp(5, 0, 10)).toBe(5));",
      "  it('raises a value below the range', () => expect(clamp(-1, 0, 10)).toBe(0));",
      '});',
      '',
    ].join('\n'),
  },
};

const labTest = (name: string, body: string[]) =>
  [
    "'use strict';",
    "const { expect } = require('@hapi/code');",
    "const Lab = require('@hapi/lab');",
    'const { describe, it } = (exports.lab = Lab.script());',
    `describe('${name}', () => {`,
    ...body,
    '});',
    '',
  ].join('\n');

const LAB = {
  base: {
    // hapi's own test script: full coverage, lint and a test timeout.
    'package.json': manifest('rangekit-lab', 'lab -a @hapi/code -t 100 -L -m 5000', {
      '@hapi/code': '9.0.3',
      '@hapi/lab': '26.0.1',
    }),
    'lib/range.js': BUGGY,
    'test/add.js': labTest('add', [
      "  it('adds two numbers', () => { expect(require('../lib/range.js').add(2, 3)).to.equal(5); });",
      "  it('adds negatives', () => { expect(require('../lib/range.js').add(-2, -3)).to.equal(-5); });",
    ]),
  },
  fix: {
    'lib/range.js': FIXED,
    'test/clamp.js': labTest('clamp', [
      "  it('keeps a value inside the range', () => { expect(require('../lib/range.js').clamp(5, 0, 10)).to.equal(5); });",
      "  it('raises a value below the range', () => { expect(require('../lib/range.js').clamp(-1, 0, 10)).to.equal(0); });",
    ]),
  },
};

const BUN = 'bun@1.2.0';

const BUN_REPO = {
  base: {
    'package.json': `${JSON.stringify(
      {
        name: 'rangekit-bun',
        version: '1.0.0',
        private: true,
        packageManager: BUN,
        scripts: { test: 'bun test' },
        devDependencies: { 'is-number': '7.0.0' },
      },
      null,
      2,
    )}\n`,
    'src/range.ts': BUGGY,
    'test/add.test.ts': [
      "import { describe, expect, test } from 'bun:test';",
      "import isNumber from 'is-number';",
      "const { add } = require('../src/range.ts');",
      "describe('add', () => {",
      "  test('adds two numbers', () => expect(add(2, 3)).toBe(5));",
      "  test('adds negatives', () => expect(isNumber(add(-2, -3)) && add(-2, -3)).toBe(-5));",
      '});',
      '',
    ].join('\n'),
  },
  fix: {
    'src/range.ts': FIXED,
    'test/clamp.test.ts': [
      "import { describe, expect, test } from 'bun:test';",
      "const { clamp } = require('../src/range.ts');",
      "describe('clamp', () => {",
      "  test('keeps a value inside the range', () => expect(clamp(5, 0, 10)).toBe(5));",
      "  test('raises a value below the range', () => expect(clamp(-1, 0, 10)).toBe(0));",
      '});',
      '',
    ].join('\n'),
  },
};

let root: string;
const frozen: Record<
  'jasmine' | 'lab' | 'bun',
  { gitDir: string; base: string; task: PublishedTask; tasksDir: string }
> = {} as never;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-freeze-jasmine-lab-'));
  for (const [runner, files, number] of [
    ['jasmine', JASMINE, 11],
    ['lab', LAB, 12],
    ['bun', BUN_REPO, 13],
  ] as const) {
    const dir = join(root, runner);
    const repo = await fixtureRepository({
      root: dir,
      name: `rangekit-${runner}`,
      base: files.base,
      fix: files.fix,
      // The lockfile as the package manager itself writes it, from the registry (the repository commits it).
      prepare: (checkout) => {
        if (runner === 'bun') {
          execFileSync('npx', ['--yes', BUN, 'install'], { cwd: checkout, stdio: 'pipe' });
          rmSync(join(checkout, 'node_modules'), { recursive: true, force: true });
        } else
          execFileSync('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund'], {
            cwd: checkout,
            stdio: 'pipe',
          });
      },
    });
    const { task, tasksDir } = await freezeWithCli({
      root: dir,
      repo: `octo/rangekit-${runner}`,
      gitDir: repo.gitDir,
      base: repo.base,
      fix: repo.fix,
      issue: { number, title: 'clamp returns the wrong bound', body: 'clamp(-1, 0, 10) returns 10, not 0.' },
      pr: `https://github.com/octo/rangekit-${runner}/pull/${number + 1}`,
    });
    frozen[runner] = { gitDir: repo.gitDir, base: repo.base, task, tasksDir };
  }
}, 900_000);

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

const expectedOf = (runner: 'jasmine' | 'lab' | 'bun') =>
  expectedResults(frozen[runner].tasksDir, frozen[runner].task.taskId);

describe('jasmine, read through abp’s reporter', () => {
  it('is detected behind the test script and frozen by file, suites and title, narrowed to the new spec file', async () => {
    const { gitDir, base, task } = frozen.jasmine;
    expect(await recipeFor({ repo: 'octo/rangekit-jasmine', gitDir, base, entry: null })).toEqual({
      runner: 'jasmine',
      ecosystem: 'node',
      install: ['npm ci --no-audit --no-fund'],
      test: 'node_modules/.bin/jasmine',
      report: 'abp-runner-json',
    });
    expect(task.manifest.verification).toMatchObject({
      failToPass: ['node_modules/.bin/jasmine spec/clamp.spec.js'],
      passToPass: ['node_modules/.bin/jasmine'],
    });
    expect(await expectedOf('jasmine')).toMatchObject({
      reportFormat: 'abp-runner-json',
      failToPass: [
        'spec/clamp.spec.js > clamp > keeps a value inside the range',
        'spec/clamp.spec.js > clamp > raises a value below the range',
      ],
      passToPass: ['spec/add.spec.js > add > adds negatives', 'spec/add.spec.js > add > adds two numbers'],
      flaky: [],
    });
  });

  it('grades the reference engine resolved and the no-op engine unresolved', async () => {
    const { tasksDir, task } = frozen.jasmine;
    await expectReferenceResolvedNoopUnresolved(join(root, 'jasmine'), tasksDir, task.taskId);
  }, 900_000);
});

describe('lab, read through abp’s reporter', () => {
  it('is detected with the project’s own options and frozen by lab’s titles, the whole suite in one command', async () => {
    const { gitDir, base, task } = frozen.lab;
    expect(await recipeFor({ repo: 'octo/rangekit-lab', gitDir, base, entry: null })).toMatchObject({
      runner: 'lab',
      test: 'node_modules/.bin/lab -a @hapi/code -t 100 -L -m 5000',
      report: 'abp-runner-json',
    });
    expect(task.manifest.verification).toMatchObject({
      failToPass: ['node_modules/.bin/lab -a @hapi/code -t 100 -L -m 5000'],
      passToPass: [],
    });
    expect(await expectedOf('lab')).toMatchObject({
      reportFormat: 'abp-runner-json',
      failToPass: ['clamp keeps a value inside the range', 'clamp raises a value below the range'],
      passToPass: ['add adds negatives', 'add adds two numbers'],
      flaky: [],
    });
  });

  it('grades the reference engine resolved and the no-op engine unresolved', async () => {
    const { tasksDir, task } = frozen.lab;
    await expectReferenceResolvedNoopUnresolved(join(root, 'lab'), tasksDir, task.taskId);
  }, 900_000);
});

describe('bun test, read by its junit report, with bun in the environment', () => {
  it('is detected behind the test script and frozen by file, describe blocks and title, narrowed to the new file', async () => {
    const { gitDir, base, task } = frozen.bun;
    expect(await recipeFor({ repo: 'octo/rangekit-bun', gitDir, base, entry: null })).toEqual({
      runner: 'bun-test',
      ecosystem: 'node',
      install: [`npx --yes ${BUN} install --frozen-lockfile`],
      test: 'bun test',
      report: 'junit-xml',
    });
    expect(task.manifest.verification).toMatchObject({
      failToPass: ['bun test ./test/clamp.test.ts'],
      passToPass: ['bun test'],
    });
    expect(await expectedOf('bun')).toMatchObject({
      reportFormat: 'junit-xml',
      failToPass: [
        'test/clamp.test.ts > clamp > keeps a value inside the range',
        'test/clamp.test.ts > clamp > raises a value below the range',
      ],
      passToPass: ['test/add.test.ts > add > adds negatives', 'test/add.test.ts > add > adds two numbers'],
      flaky: [],
    });
  });

  it('grades the reference engine resolved and the no-op engine unresolved', async () => {
    const { tasksDir, task } = frozen.bun;
    await expectReferenceResolvedNoopUnresolved(join(root, 'bun'), tasksDir, task.taskId);
  }, 900_000);
});
