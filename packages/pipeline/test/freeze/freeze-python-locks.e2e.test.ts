// Python projects locked by uv and by poetry, frozen with `abp freeze` and no recipe. uv: detection finds pytest in the
// lock's test group, the environment installs uv from PyPI and syncs the lock into its virtualenv as locked (the lock
// holds packaging 23.2, written against PyPI as it stood at the start of 2024, where pip would take the newest).
// poetry: the environment installs poetry from PyPI into a folder of its own and installs the lock with the test group
// poetry declares, which pip would never install. The freeze reads pytest's node ids, narrowed to the new test file,
// and the bundled engines grade each task: the reference resolved, the no-op unresolved.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recipeFor } from '../../src/freeze/index.js';
import {
  expectedResults,
  expectReferenceResolvedNoopUnresolved,
  freezeFixture,
  type FrozenFixture,
} from '../support/frozen-task.js';

const UV = '0.13.9';

const range = (fixed: boolean) =>
  [
    'def add(a, b):',
    '    return a + b',
    '',
    '',
    'def clamp(value, low, high):',
    fixed
      ? '    return min(high, max(low, value))'
      : // Bug: the bounds are swapped, so every value comes back as the lower bound or past it.
        '    return max(high, min(low, value))',
    '',
  ].join('\n');

const BASE: Record<string, string> = {
  'pyproject.toml': [
    '[project]',
    'name = "rangekit"',
    'version = "0.1.0"',
    'requires-python = ">=3.11"',
    // Unpinned: pip would take the newest; the lock holds what was newest on the day it was written.
    'dependencies = ["packaging"]',
    '[dependency-groups]',
    'test = ["pytest==7.4.4"]',
    '[build-system]',
    'requires = ["setuptools>=61"]',
    'build-backend = "setuptools.build_meta"',
    '[tool.setuptools]',
    'packages = ["rangekit"]',
    '',
  ].join('\n'),
  'rangekit/__init__.py': range(false),
  'tests/test_add.py': [
    'import packaging',
    'from rangekit import add',
    '',
    '',
    'def test_adds():',
    '    assert add(2, 3) == 5',
    '',
    '',
    'def test_the_locked_version():',
    '    assert packaging.__version__ == "23.2"',
    '',
  ].join('\n'),
};

const FIX: Record<string, string> = {
  'rangekit/__init__.py': range(true),
  'tests/test_clamp.py': [
    'from rangekit import clamp',
    '',
    '',
    'def test_keeps_a_value_inside():',
    '    assert clamp(5, 0, 10) == 5',
    '',
    '',
    'def test_raises_a_value_below():',
    '    assert clamp(-1, 0, 10) == 0',
    '',
  ].join('\n'),
};

const POETRY = '2.5.1';

const POETRY_BASE: Record<string, string> = {
  'pyproject.toml': [
    '[tool.poetry]',
    'name = "rangekit"',
    'version = "0.1.0"',
    'description = ""',
    'authors = ["t <t@example.com>"]',
    'packages = [{ include = "rangekit" }]',
    '[tool.poetry.dependencies]',
    'python = ">=3.9"',
    '[tool.poetry.group.test.dependencies]',
    'pytest = "7.4.4"',
    // Named nowhere else: only poetry's own group brings it.
    'iniconfig = "2.0.0"',
    '[build-system]',
    'requires = ["poetry-core>=1.0.0"]',
    'build-backend = "poetry.core.masonry.api"',
    '',
  ].join('\n'),
  'rangekit/__init__.py': range(false),
  'tests/test_add.py': [
    'import iniconfig',
    'from rangekit import add',
    '',
    '',
    'def test_adds():',
    '    assert add(2, 3) == 5',
    '',
  ].join('\n'),
};

const POETRY_FIX: Record<string, string> = {
  'rangekit/__init__.py': range(true),
  'tests/test_clamp.py': FIX['tests/test_clamp.py'] as string,
};

let tool: string;
let frozen: FrozenFixture;
let poetryTool: string;
let poetryFrozen: FrozenFixture;

beforeAll(async () => {
  // uv itself, from PyPI, to write the lock the repository commits.
  tool = await mkdtemp(join(tmpdir(), 'abp-uv-tool-'));
  execFileSync('python3', ['-m', 'venv', tool]);
  execFileSync(join(tool, 'bin', 'python'), ['-m', 'pip', 'install', '-q', `uv==${UV}`]);
  frozen = await freezeFixture({
    label: 'uv',
    repo: 'octo/rangekit',
    base: BASE,
    fix: FIX,
    prepare: (checkout) =>
      execFileSync(join(tool, 'bin', 'uv'), ['lock', '--exclude-newer', '2024-01-01T00:00:00Z'], {
        cwd: checkout,
        stdio: 'pipe',
      }),
    issue: 17,
  });
  // poetry itself, from PyPI, to write the lock the second repository commits.
  poetryTool = await mkdtemp(join(tmpdir(), 'abp-poetry-tool-'));
  execFileSync('python3', ['-m', 'venv', poetryTool]);
  execFileSync(join(poetryTool, 'bin', 'python'), ['-m', 'pip', 'install', '-q', `poetry==${POETRY}`]);
  poetryFrozen = await freezeFixture({
    label: 'poetry',
    repo: 'octo/rangekit-poetry',
    base: POETRY_BASE,
    fix: POETRY_FIX,
    prepare: (checkout) => execFileSync(join(poetryTool, 'bin', 'poetry'), ['lock'], { cwd: checkout, stdio: 'pipe' }),
    issue: 27,
  });
}, 1_800_000);

afterAll(async () => {
  if (frozen) await rm(frozen.root, { recursive: true, force: true });
  if (tool) await rm(tool, { recursive: true, force: true });
  if (poetryFrozen) await rm(poetryFrozen.root, { recursive: true, force: true });
  if (poetryTool) await rm(poetryTool, { recursive: true, force: true });
});

describe('a uv-locked Python project, frozen with the detected recipe', () => {
  it('installs uv from PyPI and syncs the lock with its test group, never re-resolving it', async () => {
    expect(await recipeFor({ repo: 'octo/rangekit', gitDir: frozen.gitDir, base: frozen.base, entry: null })).toEqual({
      runner: 'pytest',
      ecosystem: 'python',
      install: [
        `python -m pip install uv==${UV}`,
        'UV_PYTHON_DOWNLOADS=never uv sync --active --frozen --inexact --no-cache --group test',
        // pytest is already there, from the lock: pip leaves it as it is.
        'python -m pip install pytest',
      ],
      test: 'python -m pytest',
      report: 'junit-xml',
    });
  });

  it('freezes pytest’s node ids, with the FAIL_TO_PASS command narrowed to the new file', async () => {
    expect(frozen.task.manifest.verification).toMatchObject({
      failToPass: ['python -m pytest tests/test_clamp.py'],
      passToPass: ['python -m pytest'],
    });
    expect(await expectedResults(frozen.tasksDir, frozen.task.taskId)).toMatchObject({
      reportFormat: 'junit-xml',
      failToPass: ['tests/test_clamp.py::test_keeps_a_value_inside', 'tests/test_clamp.py::test_raises_a_value_below'],
      // test_the_locked_version passes only where the lock, not a fresh resolution, was installed.
      passToPass: ['tests/test_add.py::test_adds', 'tests/test_add.py::test_the_locked_version'],
      flaky: [],
    });
  });

  it('grades the reference engine resolved and the no-op engine unresolved', async () => {
    await expectReferenceResolvedNoopUnresolved(frozen.root, frozen.tasksDir, frozen.task.taskId);
  }, 900_000);
});

describe('a poetry-locked Python project, frozen with the detected recipe', () => {
  it('installs poetry from PyPI into a folder of its own and installs the lock with the test group', async () => {
    expect(
      await recipeFor({
        repo: 'octo/rangekit-poetry',
        gitDir: poetryFrozen.gitDir,
        base: poetryFrozen.base,
        entry: null,
      }),
    ).toEqual({
      runner: 'pytest',
      ecosystem: 'python',
      install: [
        `python -m pip install --target .abp-poetry poetry==${POETRY}`,
        'PYTHONPATH=.abp-poetry python -m poetry install --no-interaction --with test',
        'python -m pip install pytest',
      ],
      test: 'python -m pytest',
      report: 'junit-xml',
    });
  });

  it('freezes pytest’s node ids: the test importing what only the poetry group brings passes', async () => {
    expect(await expectedResults(poetryFrozen.tasksDir, poetryFrozen.task.taskId)).toMatchObject({
      reportFormat: 'junit-xml',
      failToPass: ['tests/test_clamp.py::test_keeps_a_value_inside', 'tests/test_clamp.py::test_raises_a_value_below'],
      passToPass: ['tests/test_add.py::test_adds'],
      flaky: [],
    });
  });

  it('grades the reference engine resolved and the no-op engine unresolved', async () => {
    await expectReferenceResolvedNoopUnresolved(poetryFrozen.root, poetryFrozen.tasksDir, poetryFrozen.task.taskId);
  }, 900_000);
});
