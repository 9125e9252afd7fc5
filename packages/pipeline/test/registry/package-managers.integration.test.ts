// Each package manager as a repository declares it, with the real tool from its registry: a JavaScript project's
// lockfile is written by its own tool, and a Python project's test extras, dependency group and test requirements come
// from PyPI; detection reads the tree as a freeze does, and the install steps it plans run as the freeze runs them (one
// command line at a time, no shell), after which the planned test command leaves a report the grader reads per test.
// Yarn's Plug'n'Play, which keeps no node_modules, is refused with the reason.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCommandLine, planRunner, readPlannedReport } from '@abp/grader/verification';
import { installSteps } from '../../src/registry/criteria/schema.js';
import { detectSuite, isReadManifest } from '../../src/registry/suites/detect-suite.js';

const TAPE = '5.10.2';
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-package-managers-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

interface Ran {
  exitCode: number;
  stdout: Buffer;
  stderr: string;
}

function run(argv: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<Ran> {
  const [file = '', ...args] = argv;
  return new Promise((resolve, reject) => {
    // The host's registry settings reach the tools as they reach the freeze's environment; CI=true would make Yarn 2+
    // refuse to write the lockfile the test starts from.
    const childEnv = { ...process.env, CI: '', YARN_ENABLE_IMMUTABLE_INSTALLS: 'false', ...env };
    execFile(
      file,
      args,
      { cwd, env: childEnv, encoding: 'buffer', maxBuffer: 64 << 20, timeout: 300_000 },
      (error, stdout, stderr) => {
        if (error !== null && typeof error.code !== 'number') {
          reject(new Error(`${argv.join(' ')} could not run: ${error.message}`));
          return;
        }
        resolve({ exitCode: error === null ? 0 : (error.code as number), stdout, stderr: stderr.toString('utf8') });
      },
    );
  });
}

async function must(argv: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<void> {
  const ran = await run(argv, cwd, env);
  if (ran.exitCode !== 0) throw new Error(`${argv.join(' ')} exited ${ran.exitCode}:\n${ran.stderr}`);
}

async function writeFiles(dir: string, files: Readonly<Record<string, string>>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
}

/** A project whose suite is tape, with the files the package manager asks for besides package.json. */
async function project(name: string, packageManager: string, more: Record<string, string> = {}): Promise<string> {
  const dir = join(root, name);
  const files: Record<string, string> = {
    'package.json': `${JSON.stringify(
      {
        name,
        version: '1.0.0',
        private: true,
        packageManager,
        scripts: { test: 'tape test/*.js' },
        devDependencies: { tape: TAPE },
      },
      null,
      2,
    )}\n`,
    'src/add.js': 'exports.add = (a, b) => a + b;\n',
    'test/add.test.js': [
      "const test = require('tape');",
      "const { add } = require('../src/add.js');",
      "test('adds two numbers', (t) => { t.equal(add(2, 3), 5); t.end(); });",
      "test('adds negatives', (t) => { t.equal(add(-2, -3), -6); t.end(); });",
      '',
    ].join('\n'),
    ...more,
  };
  await writeFiles(dir, files);
  return dir;
}

/** The tree as a freeze gives it to detection: every file but what an install wrote, manifests read. */
async function treeOf(dir: string) {
  const paths = (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .filter((path) => !path.startsWith('node_modules/'))
    .sort();
  const texts = new Map<string, string>();
  for (const path of paths.filter(isReadManifest)) texts.set(path, await readFile(join(dir, path), 'utf8'));
  return { paths, text: (path: string) => texts.get(path) };
}

/** Detection's recipe installed and run as the freeze runs it, in a copy without the node_modules the lockfile made. */
async function installAndTest(dir: string, expectedInstall: string[]) {
  await rm(join(dir, 'node_modules'), { recursive: true, force: true });
  const suite = detectSuite(await treeOf(dir));
  expect(suite?.recipe?.install).toEqual(expectedInstall);
  for (const step of installSteps(suite?.recipe ?? { install: [] })) {
    const command = parseCommandLine(step);
    await must(command.argv, dir, command.env);
  }
  const reportDir = await mkdtemp(join(root, 'report-'));
  const plan = planRunner(parseCommandLine(suite?.recipe?.test ?? '').argv, reportDir);
  const ran = await run(plan.argv, dir, plan.env);
  const report = await readPlannedReport(
    plan.report ?? { format: 'junit-xml', source: { kind: 'stdout' } },
    { stdout: ran.stdout, stdoutTruncated: false, stderr: ran.stderr },
    { checkout: dir, hostPath: (path) => path },
  );
  return { suite, ran, tests: Object.fromEntries(report.tests.map((test) => [test.id, test.status])) };
}

describe('JavaScript package managers, each the real tool from the npm registry', () => {
  it(
    'yarn 1: its lockfile, a frozen install of the version packageManager pins, tape read per test',
    { timeout: 600_000 },
    async () => {
      const dir = await project('classic', 'yarn@1.22.22');
      await must(['npx', '--yes', 'yarn@1.22.22', 'install', '--no-progress'], dir);
      const { suite, tests } = await installAndTest(dir, ['npx --yes yarn@1.22.22 install --frozen-lockfile']);
      expect(suite).toMatchObject({ packageManager: 'yarn-classic', runners: ['tape'] });
      expect(suite?.recipe?.test).toBe("node_modules/.bin/tape 'test/*.js'");
      expect(tests).toEqual({ 'adds negatives': 'fail', 'adds two numbers': 'pass' });
    },
  );

  it(
    'yarn 4 with node-modules: an immutable install; with Plug’n’Play, refused and why',
    { timeout: 600_000 },
    async () => {
      const dir = await project('berry', 'yarn@4.5.3', { '.yarnrc.yml': 'nodeLinker: node-modules\n' });
      await must(['npx', '--yes', '@yarnpkg/cli-dist@4.5.3', 'install'], dir);
      const { suite, tests } = await installAndTest(dir, ['npx --yes @yarnpkg/cli-dist@4.5.3 install --immutable']);
      expect(suite?.packageManager).toBe('yarn-berry');
      expect(tests).toEqual({ 'adds negatives': 'fail', 'adds two numbers': 'pass' });

      await writeFile(join(dir, '.yarnrc.yml'), 'nodeLinker: pnp\n');
      expect(detectSuite(await treeOf(dir))).toMatchObject({
        recipe: null,
        unsupported: expect.stringContaining("Plug'n'Play") as unknown,
      });
    },
  );

  it('bun: its text lockfile and a frozen install by the bun packageManager pins', { timeout: 600_000 }, async () => {
    const dir = await project('bun', 'bun@1.2.0');
    await must(['npx', '--yes', 'bun@1.2.0', 'install'], dir);
    expect((await readdir(dir)).filter((name) => name.startsWith('bun.lock'))).toEqual(['bun.lock']);
    const { suite, tests } = await installAndTest(dir, ['npx --yes bun@1.2.0 install --frozen-lockfile']);
    expect(suite?.packageManager).toBe('bun');
    expect(tests).toEqual({ 'adds negatives': 'fail', 'adds two numbers': 'pass' });
  });
});

/** Detection's recipe for a Python project installed into its own virtualenv and run, as the freeze's Python base does. */
async function pythonInstallAndTest(dir: string, expectedInstall: string[]) {
  const suite = detectSuite(await treeOf(dir));
  expect(suite?.recipe?.install).toEqual(expectedInstall);
  // The environment's virtualenv, as the freeze's Python base has it: first on PATH.
  await must(['python3', '-m', 'venv', join(dir, '.venv')], dir);
  const venv = { PATH: `${join(dir, '.venv', 'bin')}:${process.env.PATH ?? ''}`, VIRTUAL_ENV: join(dir, '.venv') };
  for (const step of installSteps(suite?.recipe ?? { install: [] })) {
    const command = parseCommandLine(step);
    await must(command.argv, dir, { ...venv, ...command.env });
  }
  const reportDir = await mkdtemp(join(root, 'report-'));
  const plan = planRunner(parseCommandLine(suite?.recipe?.test ?? '').argv, reportDir);
  for (const file of plan.files) await writeFile(join(reportDir, file.name), file.text);
  const ran = await run(plan.argv, dir, { ...venv, ...plan.env });
  const report = await readPlannedReport(
    plan.report ?? { format: 'junit-xml', source: { kind: 'stdout' } },
    { stdout: ran.stdout, stdoutTruncated: false, stderr: ran.stderr },
    { checkout: dir, hostPath: (path) => path },
  );
  return Object.fromEntries(report.tests.map((test) => [test.id, test.status]));
}

describe('Python test dependencies, from PyPI into the project virtualenv', () => {
  it(
    'installs the test extra, the dev dependency group and the test requirements, then pytest reads per test',
    { timeout: 600_000 },
    async () => {
      const dir = join(root, 'pyproject');
      const files: Record<string, string> = {
        'pyproject.toml': [
          '[project]',
          'name = "rangekit"',
          'version = "0.1.0"',
          '[project.optional-dependencies]',
          'tests = ["six==1.16.0"]',
          '[dependency-groups]',
          'dev = ["iniconfig==2.0.0"]',
          '[build-system]',
          'requires = ["setuptools>=61"]',
          'build-backend = "setuptools.build_meta"',
          '[tool.setuptools]',
          'packages = ["rangekit"]',
          '',
        ].join('\n'),
        'requirements-test.txt': 'packaging==24.2\n',
        'rangekit/__init__.py': 'def add(a, b):\n    return a + b\n',
        'tests/test_add.py': [
          'import iniconfig, packaging, six',
          'from rangekit import add',
          '',
          'def test_adds():',
          '    assert add(2, 3) == 5',
          '',
          'def test_negatives():',
          '    assert add(-2, -3) == -6',
          '',
        ].join('\n'),
      };
      await writeFiles(dir, files);
      const tests = await pythonInstallAndTest(dir, [
        "python -m pip install 'pip>=25.1'",
        "python -m pip install -e '.[tests]'",
        'python -m pip install --group dev',
        'python -m pip install -r requirements-test.txt',
        'python -m pip install pytest',
      ]);
      expect(tests).toEqual({
        'tests/test_add.py::test_adds': 'pass',
        'tests/test_add.py::test_negatives': 'fail',
      });
    },
  );

  it(
    'installs a poetry.lock with poetry run from a folder of its own: the test group comes, poetry stays out of the virtualenv',
    { timeout: 600_000 },
    async () => {
      const dir = join(root, 'poetry-project');
      await writeFiles(dir, {
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
          // Named nowhere else: only poetry's own group brings it.
          'iniconfig = "2.0.0"',
          '[build-system]',
          'requires = ["poetry-core>=1.0.0"]',
          'build-backend = "poetry.core.masonry.api"',
          '',
        ].join('\n'),
        'rangekit/__init__.py': 'def add(a, b):\n    return a + b\n',
        'tests/test_add.py': [
          'import importlib.util, iniconfig',
          'from rangekit import add',
          '',
          'def test_adds():',
          '    assert add(2, 3) == 5',
          '',
          'def test_poetry_is_not_in_the_suite_environment():',
          '    assert importlib.util.find_spec("poetry") is None',
          '',
        ].join('\n'),
      });
      // The lock as poetry itself writes it.
      const tool = join(root, 'poetry-tool');
      await must(['python3', '-m', 'venv', tool], root);
      await must([join(tool, 'bin', 'python'), '-m', 'pip', 'install', 'poetry==2.5.1'], root);
      await must([join(tool, 'bin', 'poetry'), 'lock'], dir);
      const tests = await pythonInstallAndTest(dir, [
        'python -m pip install --target .abp-poetry poetry==2.5.1',
        'PYTHONPATH=.abp-poetry python -m poetry install --no-interaction --with test',
        'python -m pip install pytest',
      ]);
      expect(tests).toEqual({
        'tests/test_add.py::test_adds': 'pass',
        'tests/test_add.py::test_poetry_is_not_in_the_suite_environment': 'pass',
      });
    },
  );

  it(
    'installs what the tox test environment installs (deps, a requirement file, an extra), then pytest reads per test',
    { timeout: 600_000 },
    async () => {
      const dir = join(root, 'tox-project');
      await writeFiles(dir, {
        'pyproject.toml': [
          '[project]',
          'name = "rangekit"',
          'version = "0.1.0"',
          '[project.optional-dependencies]',
          'socks = ["six==1.16.0"]',
          '[build-system]',
          'requires = ["setuptools>=61"]',
          'build-backend = "setuptools.build_meta"',
          '[tool.setuptools]',
          'packages = ["rangekit"]',
          '',
        ].join('\n'),
        // Nothing the tests import is named anywhere but here: only tox's test environment brings it.
        'tox.ini': [
          '[tox]',
          'envlist = py3',
          '[base]',
          'deps = iniconfig==2.0.0',
          '[testenv]',
          'extras = socks',
          'deps =',
          '    {[base]deps}',
          '    -r{toxinidir}/ci/needs.txt',
          'commands = pytest {posargs}',
          '',
        ].join('\n'),
        'ci/needs.txt': 'packaging==24.2\n',
        'rangekit/__init__.py': 'def add(a, b):\n    return a + b\n',
        'tests/test_add.py': [
          'import iniconfig, packaging, six',
          'from rangekit import add',
          '',
          'def test_adds():',
          '    assert add(2, 3) == 5',
          '',
          'def test_the_versions_tox_names():',
          '    assert (packaging.__version__, six.__version__) == ("24.2", "1.16.0")',
          '',
        ].join('\n'),
      });
      const tests = await pythonInstallAndTest(dir, [
        "python -m pip install -e '.[socks]'",
        'python -m pip install -r ci/needs.txt',
        'python -m pip install iniconfig==2.0.0',
        'python -m pip install pytest',
      ]);
      expect(tests).toEqual({
        'tests/test_add.py::test_adds': 'pass',
        'tests/test_add.py::test_the_versions_tox_names': 'pass',
      });
    },
  );

  it(
    'installs a uv.lock as locked, never re-resolved: uv from PyPI syncs the test group into the same virtualenv',
    { timeout: 600_000 },
    async () => {
      const dir = join(root, 'uv-project');
      const files: Record<string, string> = {
        'pyproject.toml': [
          '[project]',
          'name = "rangekit"',
          'version = "0.1.0"',
          'requires-python = ">=3.9"',
          // Unpinned: pip would take the newest, the lock holds what was newest on the day it was written.
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
        'rangekit/__init__.py': 'def add(a, b):\n    return a + b\n',
        'tests/test_add.py': [
          'import packaging',
          'from rangekit import add',
          '',
          'def test_adds():',
          '    assert add(2, 3) == 5',
          '',
          'def test_locked_version():',
          '    assert packaging.__version__ == "23.2"',
          '',
        ].join('\n'),
      };
      await writeFiles(dir, files);
      // The lock as uv itself writes it, from PyPI as it stood at the start of 2024 (packaging 23.2).
      const tool = join(root, 'uv-tool');
      await must(['python3', '-m', 'venv', tool], root);
      await must([join(tool, 'bin', 'python'), '-m', 'pip', 'install', 'uv==0.13.9'], root);
      await must([join(tool, 'bin', 'uv'), 'lock', '--exclude-newer', '2024-01-01T00:00:00Z'], dir);
      const tests = await pythonInstallAndTest(dir, [
        'python -m pip install uv==0.13.9',
        'UV_PYTHON_DOWNLOADS=never uv sync --active --frozen --inexact --no-cache --group test',
        'python -m pip install pytest',
      ]);
      expect(tests).toEqual({
        'tests/test_add.py::test_adds': 'pass',
        'tests/test_add.py::test_locked_version': 'pass',
      });
    },
  );
});
