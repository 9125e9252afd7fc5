// Each recipe against the real runner on a tiny temp project with one passing, one failing
// and one skipped test: a one-line command → parseCommandLine → planRunner → run (no shell)
// → parseReport → summarizeRun. The ids read are the ones the runner itself lists (docs/test-ids.md).
import { execFile } from 'node:child_process';
import { access, mkdir, mkdtemp, readFile, readdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestReportError, mergeReports, parseReport } from '../../src/test-reports/index.js';
import type { ParsedReport } from '../../src/test-reports/index.js';
import { parseCommandLine } from '../../src/verification/command-line.js';
import { planRunner, summarizeRun } from '../../src/verification/runner-recipes.js';
import type { CommandVerdict, RunnerPlan, VerificationRole } from '../../src/verification/runner-recipes.js';
import { sharedGoBuildCache } from '../../../../test-support/toolchain-caches.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'abp-runners-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

interface Ran {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function run(argv: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  const [file, ...args] = argv;
  if (file === undefined) throw new Error('empty argv');
  return new Promise((resolve, reject) => {
    execFile(file, args, { cwd, env, maxBuffer: 32 << 20, timeout: 120_000 }, (error, stdout, stderr) => {
      if (error !== null && typeof error.code !== 'number') {
        reject(new Error(`${argv.join(' ')} could not run: ${error.message}\n${stderr}`));
        return;
      }
      resolve({ exitCode: error === null ? 0 : (error.code as number), stdout, stderr });
    });
  });
}

interface Verified {
  readonly plan: RunnerPlan;
  readonly ran: Ran;
  readonly reportDir: string;
  readonly report: ParsedReport | null;
  readonly verdict: CommandVerdict;
}

async function verify(
  line: string,
  role: VerificationRole,
  checkout: string,
  env: NodeJS.ProcessEnv,
): Promise<Verified> {
  const command = parseCommandLine(line);
  const reportDir = await mkdtemp(path.join(root, 'report-'));
  const plan = planRunner(command.argv, reportDir, command.env);
  for (const file of plan.files) await writeFile(path.join(reportDir, file.name), file.text);
  const ran = await run(plan.argv, checkout, { ...env, ...command.env, ...plan.env });
  let report: ParsedReport | null = null;
  let reportError: string | undefined;
  if (plan.report !== null) {
    const { format, source } = plan.report;
    try {
      if (source.kind === 'files') {
        // Every report under the folder the plan names (Surefire's, one per class), merged as the grader merges them.
        const dir = path.resolve(checkout, source.dir);
        const names = (await readdir(dir, { recursive: true })).filter((name) => source.pattern.test(name));
        const texts = await Promise.all(names.map((name) => readFile(path.join(dir, name), 'utf8')));
        report = names.length === 0 ? null : mergeReports(format, texts, { rootDir: checkout });
      } else {
        const text = source.kind === 'stdout' ? ran.stdout : await readFile(source.path, 'utf8');
        report = parseReport(format, text, { rootDir: checkout, stderr: ran.stderr });
      }
    } catch (error) {
      // A report the run never wrote is no report, as the grader reads it (planned-report.ts).
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') report = null;
      else if (!(error instanceof TestReportError)) throw error;
      else reportError = error.message;
    }
  }
  const verdict = summarizeRun({
    plan,
    role,
    exitCode: ran.exitCode,
    report,
    ...(reportError === undefined ? {} : { reportError }),
  });
  return { plan, ran, reportDir, report, verdict };
}

const statusesOf = (report: ParsedReport | null) =>
  Object.fromEntries((report?.tests ?? []).map((test) => [test.id, test.status]));

async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), content);
  }
}

const baseEnv = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8' });

describe('pytest (python3 -m pytest)', () => {
  let checkout: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    checkout = await mkdtemp(path.join(root, 'pytest-'));
    env = { ...baseEnv(), PYTHONDONTWRITEBYTECODE: '1' };
    await writeFiles(checkout, {
      'tests/test_demo.py': [
        'import pytest',
        'def test_passes():',
        '    assert 1 + 1 == 2',
        'def test_fails():',
        '    assert 1 + 1 == 3, "a < b & c"',
        '@pytest.mark.skip(reason="not now")',
        'def test_skipped():',
        '    pass',
        'class TestGroup:',
        '    @pytest.mark.parametrize("value", [1, "a b", "x::y"])',
        '    def test_each(self, value):',
        '        assert value',
        '',
      ].join('\n'),
      // A folder with a dot and a class whose tests are defined in another file: no dotted name can say where.
      'tests/sub.d/test_inherit.py':
        'from tests.test_demo import TestGroup\n\n\nclass TestMore(TestGroup):\n    pass\n',
      'tests/__init__.py': '',
    });
  });

  it('names every test by the node id pytest itself prints (--collect-only -q)', async () => {
    const result = await verify('python3 -m pytest tests -q', 'passToPass', checkout, env);
    const collected = await run(
      ['python3', '-m', 'pytest', '--collect-only', '-q', '-p', 'no:cacheprovider', 'tests'],
      checkout,
      env,
    );
    const listed = collected.stdout.split('\n').filter((line) => line.includes('::'));
    expect(listed).toHaveLength(12);
    expect(result.report?.tests.map((test) => test.id)).toEqual([...listed].sort());
    expect(listed).toContain('tests/sub.d/test_inherit.py::TestMore::test_each[x::y]');
  });

  it('reports pass, fail and skip through a junit file outside the checkout, leaving no cache behind', async () => {
    const result = await verify('python3 -m pytest tests/test_demo.py -q -k "not each"', 'failToPass', checkout, env);
    expect(result.plan.runner).toBe('pytest');
    expect(result.ran.exitCode).toBe(1);
    expect((await readdir(result.reportDir)).sort()).toEqual(['abp_pytest_node_ids.py', 'junit.xml']);
    expect(statusesOf(result.report)).toEqual({
      'tests/test_demo.py::test_fails': 'fail',
      'tests/test_demo.py::test_passes': 'pass',
      'tests/test_demo.py::test_skipped': 'skip',
    });
    expect(result.report?.tests.find((test) => test.status === 'fail')?.message).toContain('a < b & c');
    expect(result.verdict).toMatchObject({
      passed: false,
      evidence: 'report',
      tests: { total: 3, pass: 1, fail: 1, error: 0, skip: 1 },
    });
    expect(await readdir(checkout)).toEqual(['tests']);
    expect((await readdir(path.join(checkout, 'tests'))).sort()).toEqual(['__init__.py', 'sub.d', 'test_demo.py']);
  });

  it('passes a failToPass command that selects the passing test', async () => {
    const result = await verify("python3 -m pytest 'tests/test_demo.py::test_passes' -q", 'failToPass', checkout, env);
    expect(result.verdict).toEqual({
      passed: true,
      evidence: 'report',
      tests: { total: 1, pass: 1, fail: 0, error: 0, skip: 0 },
      reasons: [],
    });
  });

  it('a skip passes in passToPass but not in failToPass', async () => {
    const line = 'python3 -m pytest tests/test_demo.py -q -k "not fails and not each"';
    expect((await verify(line, 'passToPass', checkout, env)).verdict.passed).toBe(true);
    const failToPass = await verify(line, 'failToPass', checkout, env);
    expect(failToPass.ran.exitCode).toBe(0);
    expect(failToPass.verdict.passed).toBe(false);
  });
});

describe('go test', () => {
  let checkout: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    checkout = await mkdtemp(path.join(root, 'go-'));
    env = {
      ...baseEnv(),
      GOFLAGS: '-mod=mod',
      GOCACHE: sharedGoBuildCache,
      GOPATH: path.join(root, 'gopath'),
      GOTOOLCHAIN: 'local',
      GOPROXY: 'off',
    };
    await writeFiles(checkout, {
      'go.mod': 'module example.com/demo\n\ngo 1.22\n',
      'demo_test.go': [
        'package demo',
        'import "testing"',
        'func TestPasses(t *testing.T) { t.Run("sub case", func(t *testing.T) {}) }',
        'func TestFails(t *testing.T) { t.Fatal("a < b & c") }',
        'func TestSkipped(t *testing.T) { t.Skip("not now") }',
        '',
      ].join('\n'),
      'broken/broken_test.go': 'package broken\nimport "testing"\nfunc TestX(t *testing.T) { undefined() }\n',
    });
  });

  // With a cold shared cache, the first run compiles the testing package: ~13 s on an idle machine.
  it('reports pass, fail, skip and subtests from go test -json on stdout', { timeout: 120_000 }, async () => {
    const result = await verify('go test .', 'failToPass', checkout, env);
    expect(result.plan.argv).toEqual(['go', 'test', '-json', '-count=1', '.']);
    expect(result.ran.exitCode).toBe(1);
    expect(statusesOf(result.report)).toEqual({
      'example.com/demo::TestFails': 'fail',
      'example.com/demo::TestPasses': 'pass',
      'example.com/demo::TestPasses/sub_case': 'pass',
      'example.com/demo::TestSkipped': 'skip',
    });
    // go test -list prints the package's top-level tests; each is the package's id with its name.
    const listed = await run(['go', 'test', '-list', '.', '.'], checkout, env);
    const names = listed.stdout.split('\n').filter((line) => /^Test/.test(line));
    expect(names.map((name) => `example.com/demo::${name}`).sort()).toEqual(
      result.report?.tests.map((test) => test.id).filter((id) => !id.includes('/sub')),
    );
    expect(result.report?.tests[0]?.message).toContain('a < b & c');
    expect(result.verdict).toMatchObject({
      passed: false,
      evidence: 'report',
      tests: { total: 4, pass: 2, fail: 1, skip: 1 },
    });
  });

  it('a selection of passing and skipped tests passes passToPass, not failToPass', async () => {
    const line = "go test . -run 'TestPasses|TestSkipped'";
    expect((await verify(line, 'passToPass', checkout, env)).verdict.passed).toBe(true);
    const failToPass = await verify(line, 'failToPass', checkout, env);
    expect(failToPass.ran.exitCode).toBe(0);
    expect(failToPass.verdict.passed).toBe(false);
  });

  it('a package that does not compile is an error result, not an empty report', async () => {
    const result = await verify('go test ./broken', 'passToPass', checkout, env);
    expect(result.ran.exitCode).not.toBe(0);
    expect(statusesOf(result.report)).toEqual({ 'example.com/demo/broken [build failed]': 'error' });
    expect(result.verdict).toMatchObject({ passed: false, evidence: 'report', tests: { total: 1, error: 1 } });
  });
});

describe('node --test', () => {
  let checkout: string;
  beforeAll(async () => {
    checkout = await mkdtemp(path.join(root, 'node-'));
    await writeFiles(checkout, {
      'test/demo.test.mjs': [
        "import { describe, test } from 'node:test';",
        "import assert from 'node:assert/strict';",
        "describe('demo', () => {",
        "  test('passes', () => { assert.equal(1 + 1, 2); });",
        "  test('fails', () => { assert.equal(1 + 1, 3, 'a < b & c'); });",
        "  test('skipped', { skip: 'not now' }, () => {});",
        '});',
        '',
      ].join('\n'),
    });
  });

  it('reports pass, fail and skip through the junit reporter, with the spec reporter on stdout', async () => {
    const result = await verify('node --test test/demo.test.mjs', 'failToPass', checkout, baseEnv());
    expect(result.plan.runner).toBe('node-test');
    expect(result.ran.exitCode).toBe(1);
    expect(result.ran.stdout).toContain('demo');
    expect(await readdir(result.reportDir)).toEqual(['junit.xml']);
    expect(statusesOf(result.report)).toEqual({
      'demo › fails': 'fail',
      'demo › passes': 'pass',
      'demo › skipped': 'skip',
    });
    expect(result.verdict).toMatchObject({
      passed: false,
      evidence: 'report',
      tests: { total: 3, pass: 1, fail: 1, skip: 1 },
    });
  });

  it('tests filtered out by name count as skipped: passToPass passes, failToPass does not', async () => {
    const line = 'node --test --test-name-pattern=passes test/demo.test.mjs';
    const passToPass = await verify(line, 'passToPass', checkout, baseEnv());
    expect(passToPass.verdict).toMatchObject({ passed: true, tests: { total: 3, pass: 1, skip: 2 } });
    expect((await verify(line, 'failToPass', checkout, baseEnv())).verdict.passed).toBe(false);
  });
});

describe('ctest (CMake, GoogleTest from Debian)', () => {
  let checkout: string;
  // What detection plans for a CMake project (registry/suites/cpp.ts): build what changed, then CTest.
  const line =
    'ctest --build-and-test . .abp-build --build-generator Ninja --build-noclean --build-options -DBUILD_TESTING=ON --test-command ctest --output-on-failure';
  beforeAll(async () => {
    checkout = await mkdtemp(path.join(root, 'ctest-'));
    await writeFiles(checkout, {
      'CMakeLists.txt': [
        'cmake_minimum_required(VERSION 3.21)',
        'project(demo CXX)',
        'enable_testing()',
        'find_package(GTest REQUIRED)',
        'add_executable(demo_test demo_test.cpp)',
        'target_link_libraries(demo_test GTest::gtest_main)',
        'include(GoogleTest)',
        'gtest_discover_tests(demo_test)',
        '',
      ].join('\n'),
      'demo_test.cpp': [
        '#include <gtest/gtest.h>',
        'TEST(Demo, Passes) { EXPECT_EQ(1 + 1, 2); }',
        'TEST(Demo, Fails) { EXPECT_EQ(1 + 1, 3) << "a < b & c"; }',
        'TEST(Demo, DISABLED_Later) {}',
        '',
      ].join('\n'),
    });
  });

  it(
    'builds, runs CTest and reads its JUnit report: tests by the names CTest registered',
    { timeout: 120_000 },
    async () => {
      const result = await verify(line, 'passToPass', checkout, baseEnv());
      expect(result.plan.runner).toBe('ctest');
      expect(result.ran.exitCode).toBe(1);
      expect(await readdir(result.reportDir)).toEqual(['ctest.xml']);
      expect(statusesOf(result.report)).toEqual({ 'Demo.Fails': 'fail', 'Demo.Later': 'skip', 'Demo.Passes': 'pass' });
      expect(result.verdict).toMatchObject({
        passed: false,
        evidence: 'report',
        tests: { total: 3, pass: 1, fail: 1 },
      });
    },
  );

  it('rebuilds what a patch changed before it runs the tests again', { timeout: 120_000 }, async () => {
    await writeFiles(checkout, {
      'demo_test.cpp': ['#include <gtest/gtest.h>', 'TEST(Demo, Passes) { EXPECT_EQ(1 + 1, 2); }', ''].join('\n'),
    });
    const result = await verify(line, 'passToPass', checkout, baseEnv());
    expect(statusesOf(result.report)).toEqual({ 'Demo.Passes': 'pass' });
    expect(result.verdict.passed).toBe(true);
  });
});

describe('vitest (its JSON reporter)', () => {
  // The workspace's own vitest; --globals lets the project's tests run without importing it.
  const vitest = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../node_modules/.bin/vitest');
  let checkout: string;
  beforeAll(async () => {
    checkout = await mkdtemp(path.join(root, 'vitest-'));
    await writeFiles(checkout, {
      'test/demo.test.js': [
        "describe('math', () => {",
        "  describe('nested', () => { test('adds', () => { expect(1 + 1).toBe(2); }); });",
        "  test('fails', () => { expect(1 + 1, 'a < b & c').toBe(3); });",
        "  test.skip('skipped', () => {});",
        '});',
        "test('top level', () => {});",
        '',
      ].join('\n'),
    });
  });

  it('names each test by its file and title path as `vitest list` prints it', async () => {
    const result = await verify(`${vitest} run --globals`, 'failToPass', checkout, baseEnv());
    expect(result.plan.runner).toBe('vitest');
    expect(result.ran.exitCode).toBe(1);
    expect(statusesOf(result.report)).toEqual({
      'test/demo.test.js > math > fails': 'fail',
      'test/demo.test.js > math > nested > adds': 'pass',
      'test/demo.test.js > math > skipped': 'skip',
      'test/demo.test.js > top level': 'pass',
    });
    const listed = await run([vitest, 'list', '--globals'], checkout, baseEnv());
    const ids = result.report?.tests.filter((test) => test.status !== 'skip').map((test) => test.id);
    expect(
      listed.stdout
        .split('\n')
        .filter((line) => line.includes(' > '))
        .sort(),
    ).toEqual(ids);
  });
});

describe('cargo test', () => {
  let checkout: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    checkout = await mkdtemp(path.join(root, 'cargo-'));
    env = {
      ...baseEnv(),
      CARGO_TARGET_DIR: path.join(root, 'cargo-target'),
      CARGO_NET_OFFLINE: 'true',
      RUST_BACKTRACE: '0',
    };
    await writeFiles(checkout, {
      'Cargo.toml': '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n',
      'src/lib.rs': [
        'pub fn add(a: i32, b: i32) -> i32 { a + b }',
        '#[cfg(test)]',
        'mod tests {',
        '    #[test] fn passes() { assert_eq!(super::add(1, 1), 2); }',
        '    #[test] fn fails() { assert_eq!(super::add(1, 1), 3, "a < b & c"); }',
        '    #[test] #[ignore = "not now"] fn skipped() {}',
        '}',
        '',
      ].join('\n'),
    });
  });

  it('reports pass, fail and ignored from libtest stdout, named by target, even when asked for -q', async () => {
    const result = await verify('cargo test -q', 'failToPass', checkout, env);
    expect(result.plan.argv).toEqual(['cargo', 'test', '--no-fail-fast', '--', '--format=pretty']);
    expect(result.ran.exitCode).toBe(101);
    expect(statusesOf(result.report)).toEqual({
      'src/lib.rs::tests::fails': 'fail',
      'src/lib.rs::tests::passes': 'pass',
      'src/lib.rs::tests::skipped': 'skip',
    });
    expect(result.report?.tests.find((test) => test.id === 'src/lib.rs::tests::fails')?.message).toContain('a < b & c');
    // cargo test -- --list prints each binary's tests as "<name>: test" under the target cargo names on stderr.
    const listed = await run(['cargo', 'test', '--', '--list'], checkout, env);
    expect(listed.stderr).toContain('Running unittests src/lib.rs');
    const names = listed.stdout.split('\n').flatMap((line) => /^(.+): test$/.exec(line)?.[1] ?? []);
    expect(names.map((name) => `src/lib.rs::${name}`).sort()).toEqual(result.report?.tests.map((test) => test.id));
    expect(result.verdict).toMatchObject({
      passed: false,
      evidence: 'report',
      tests: { total: 3, pass: 1, fail: 1, skip: 1 },
    });
    await expect(access(path.join(checkout, 'target'))).rejects.toThrow();
  });

  it('a filter selecting the passing test passes failToPass', async () => {
    const result = await verify('cargo test tests::passes', 'failToPass', checkout, env);
    expect(result.verdict).toEqual({
      passed: true,
      evidence: 'report',
      tests: { total: 1, pass: 1, fail: 0, error: 0, skip: 0 },
      reasons: [],
    });
  });
});

// ---- the runners that print TAP, installed from the npm registry at pinned versions ----

// Installed once per machine (about 40 s for all five from a cold cache), kept between runs under .cache/ like the Go
// build cache; each project links its node_modules there, as `npm install` would have filled it.
const npmRunners = fileURLToPath(new URL('../../../../.cache/test-toolchains/npm-runners', import.meta.url));

async function npmRunner(name: string, version: string): Promise<string> {
  const dir = path.join(npmRunners, `${name}@${version}`);
  const installed = path.join(dir, 'node_modules', name, 'package.json');
  if (
    await access(installed).then(
      () => true,
      () => false,
    )
  )
    return dir;
  // Installed beside the cache entry and moved in whole: an install cut short is never taken for a finished one.
  const partial = `${dir}.partial-${process.pid}`;
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true });
  const npm = await run(
    ['npm', 'install', '--no-audit', '--no-fund', '--prefix', partial, `${name}@${version}`],
    partial,
    process.env,
  );
  if (npm.exitCode !== 0) throw new Error(`npm install ${name}@${version} failed:\n${npm.stderr}`);
  await rename(partial, dir).catch(async (error: NodeJS.ErrnoException) => {
    // Another test file finished the same install first.
    if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
    await rm(partial, { recursive: true, force: true });
  });
  return dir;
}

async function tapProject(prefix: string, runner: string, files: Record<string, string>): Promise<string> {
  const checkout = await mkdtemp(path.join(root, prefix));
  await writeFiles(checkout, { 'package.json': '{ "name": "demo", "private": true }\n', ...files });
  await symlink(path.join(runner, 'node_modules'), path.join(checkout, 'node_modules'), 'dir');
  return checkout;
}

describe('ava (--tap on stdout)', () => {
  let checkout: string;
  beforeAll(async () => {
    checkout = await tapProject('ava-', await npmRunner('ava', '6.4.1'), {
      'test/math.test.mjs': [
        "import test from 'ava';",
        "test('passes', (t) => { t.is(1 + 1, 2); });",
        "test('fails', (t) => { t.is(1 + 1, 3, 'a < b & c'); });",
        "test.skip('skipped', (t) => { t.pass(); });",
        "test.todo('to do');",
        "test('ünïcode ✓ 测试 # not a directive', (t) => { t.pass(); });",
        '',
      ].join('\n'),
      'test/other.test.mjs': "import test from 'ava';\ntest('passes', (t) => { t.pass(); });\n",
    });
  });

  it('names each test `file › title` as ava prints it when it runs several files, todo read as skipped', async () => {
    const result = await verify('node_modules/.bin/ava --verbose', 'failToPass', checkout, baseEnv());
    expect(result.plan).toMatchObject({ runner: 'ava', argv: ['node_modules/.bin/ava', '--tap'] });
    expect(result.ran.exitCode).toBe(1);
    expect(statusesOf(result.report)).toEqual({
      'math › fails': 'fail',
      'math › passes': 'pass',
      'math › skipped': 'skip',
      'math › to do': 'skip',
      'math › ünïcode ✓ 测试 # not a directive': 'pass',
      'other › passes': 'pass',
    });
    expect(result.report?.tests.find((test) => test.id === 'math › fails')?.message).toContain('a < b & c');
    expect(result.verdict).toMatchObject({ passed: false, evidence: 'report', tests: { total: 6, fail: 1, skip: 2 } });
  });

  it('a selection of passing tests passes both roles; one with a skipped test passes passToPass only', async () => {
    const passing = await verify('node_modules/.bin/ava --match passes', 'failToPass', checkout, baseEnv());
    expect(passing.verdict).toEqual({
      passed: true,
      evidence: 'report',
      tests: { total: 2, pass: 2, fail: 0, error: 0, skip: 0 },
      reasons: [],
    });
    const line = 'node_modules/.bin/ava --match passes --match skipped';
    expect((await verify(line, 'passToPass', checkout, baseEnv())).verdict.passed).toBe(true);
    const failToPass = await verify(line, 'failToPass', checkout, baseEnv());
    expect(failToPass.ran.exitCode).toBe(0);
    expect(failToPass.verdict.passed).toBe(false);
  });
});

describe('node-tap (its tap reporter on stdout)', () => {
  const files = (load: string) => ({
    'test/math.test.js': [
      load,
      "t.test('passes', async (t) => { t.equal(1 + 1, 2); });",
      "t.test('fails', async (t) => { t.equal(1 + 1, 3, 'a < b & c'); });",
      "t.test('skipped', { skip: 'not now' }, async () => {});",
      "t.test('parent', async (t) => {",
      "  t.test('child', async (t) => { t.ok(true); });",
      "  t.test('child 2', async (t) => { t.test('grandchild', async (t) => { t.ok(true); }); });",
      '});',
      '',
    ].join('\n'),
    // Code the tests leave uncovered: node-tap's coverage check must not fail a run whose tests passed.
    'lib/half.js': 'exports.half = (x) => (x > 0 ? x / 2 : 0);\n',
    'test/half.test.js': `${load}\nconst { half } = require('../lib/half.js');\nt.test('halves', async (t) => { t.equal(half(4), 2); });\n`,
  });
  const expected = {
    'test/half.test.js > halves': 'pass',
    'test/math.test.js > fails': 'fail',
    'test/math.test.js > parent > child': 'pass',
    'test/math.test.js > parent > child 2 > grandchild': 'pass',
    'test/math.test.js > passes': 'pass',
    'test/math.test.js > skipped': 'skip',
  };

  // Four runs of tap 21, each loading its TypeScript toolchain: about 45 s on an idle 2-core machine, past 60 s on a
  // loaded one.
  it(
    '21.8.0: subtests named by their path with ` > `, coverage off, a --grep selection read as skips',
    {
      timeout: 180_000,
    },
    async () => {
      const checkout = await tapProject('tap21-', await npmRunner('tap', '21.8.0'), files("const t = require('tap');"));
      const result = await verify('node_modules/.bin/tap -R spec', 'failToPass', checkout, baseEnv());
      expect(result.plan).toMatchObject({
        runner: 'node-tap',
        argv: ['node_modules/.bin/tap', '--reporter=tap'],
        env: { TAP_DISABLE_COVERAGE: '1' },
      });
      expect(result.ran.exitCode).toBe(1);
      expect(statusesOf(result.report)).toEqual(expected);
      expect(result.report?.tests.find((test) => test.id === 'test/math.test.js > fails')?.message).toContain(
        'a < b & c',
      );
      const passing = await verify('node_modules/.bin/tap test/half.test.js', 'failToPass', checkout, baseEnv());
      expect(passing.verdict).toMatchObject({ passed: true, tests: { total: 1, pass: 1 } });
      // --grep leaves the other subtests skipped (`parent` whole, its children unrun): enough for passToPass only.
      const grep = 'node_modules/.bin/tap --grep=passes test/math.test.js';
      expect((await verify(grep, 'passToPass', checkout, baseEnv())).verdict).toMatchObject({
        passed: true,
        tests: { total: 4, pass: 1, skip: 3 },
      });
      expect((await verify(grep, 'failToPass', checkout, baseEnv())).verdict.passed).toBe(false);
    },
  );

  it('16.3.10: the same ids from its TAP 13; --no-coverage (what detection adds for it) keeps nyc’s check out', async () => {
    const checkout = await tapProject('tap16-', await npmRunner('tap', '16.3.10'), files("const t = require('tap');"));
    const result = await verify('node_modules/.bin/tap --no-coverage', 'failToPass', checkout, baseEnv());
    expect(result.ran.exitCode).toBe(1);
    expect(statusesOf(result.report)).toEqual(expected);
    const passing = await verify(
      'node_modules/.bin/tap --no-coverage test/half.test.js',
      'failToPass',
      checkout,
      baseEnv(),
    );
    expect(passing.ran.exitCode).toBe(0);
    expect(passing.verdict).toMatchObject({ passed: true, tests: { total: 1, pass: 1 } });
  });
});

describe('tape (as it is: tests are its `# name` lines)', () => {
  let checkout: string;
  beforeAll(async () => {
    checkout = await tapProject('tape-', await npmRunner('tape', '5.10.2'), {
      'test/math.js': [
        "const test = require('tape');",
        "test('passes', (t) => { t.equal(1 + 1, 2); t.end(); });",
        "test('fails', (t) => { t.equal(1 + 1, 3, 'a < b & c'); t.end(); });",
        "test('skipped', { skip: true }, (t) => { t.end(); });",
        "test('parent', (t) => { t.test('child', (st) => { st.ok(true); st.end(); }); t.end(); });",
        '',
      ].join('\n'),
      'test/other.js': "require('tape')('passes', (t) => { t.pass(); t.end(); });\n",
      'test/throws.js': "require('tape')('throws', () => { throw new Error('boom'); });\n",
    });
  });

  it('reads each test from the assertions under its name; the same title in two files is numbered', async () => {
    const result = await verify("node_modules/.bin/tape 'test/{math,other}.js'", 'failToPass', checkout, baseEnv());
    expect(result.plan).toMatchObject({ runner: 'tape', report: { format: 'tape-tap', source: { kind: 'stdout' } } });
    expect(result.ran.exitCode).toBe(1);
    expect(statusesOf(result.report)).toEqual({
      child: 'pass',
      fails: 'fail',
      parent: 'pass',
      passes: 'pass',
      'passes #2': 'pass',
      skipped: 'skip',
    });
    expect(result.report?.tests.find((test) => test.id === 'fails')?.message).toContain('a < b & c');
    expect((await verify('node_modules/.bin/tape test/other.js', 'failToPass', checkout, baseEnv())).verdict).toEqual({
      passed: true,
      evidence: 'report',
      tests: { total: 1, pass: 1, fail: 0, error: 0, skip: 0 },
      reasons: [],
    });
  });

  it('a test that throws ends the process before the plan: the run is refused, never read as passing', async () => {
    const result = await verify("node_modules/.bin/tape 'test/{other,throws}.js'", 'passToPass', checkout, baseEnv());
    expect(result.ran.exitCode).not.toBe(0);
    expect(result.report).toBeNull();
    expect(result.verdict).toMatchObject({ passed: false, evidence: 'none' });
    expect(result.verdict.reasons.join('; ')).toContain('report unreadable: tape: the output ends without its plan');
  });
});

describe('QUnit (--reporter tap)', () => {
  let checkout: string;
  beforeAll(async () => {
    checkout = await tapProject('qunit-', await npmRunner('qunit', '2.26.0'), {
      'test/math.js': [
        "QUnit.module('math', () => {",
        "  QUnit.test('passes', (assert) => { assert.equal(1 + 1, 2); });",
        "  QUnit.test('fails', (assert) => { assert.equal(1 + 1, 3, 'a < b & c'); });",
        "  QUnit.skip('skipped', (assert) => { assert.ok(true); });",
        "  QUnit.todo('to do', (assert) => { assert.ok(false); });",
        "  QUnit.module('nested', () => { QUnit.test('deep', (assert) => { assert.ok(true); }); });",
        '});',
        "QUnit.test('top level', (assert) => { assert.ok(true); });",
        '',
      ].join('\n'),
    });
  });

  it('names each test by its module path and title, joined with ` > ` as QUnit prints them', async () => {
    const result = await verify('node_modules/.bin/qunit --reporter console', 'failToPass', checkout, baseEnv());
    expect(result.plan).toMatchObject({ runner: 'qunit', argv: ['node_modules/.bin/qunit', '--reporter', 'tap'] });
    expect(result.ran.exitCode).toBe(1);
    expect(statusesOf(result.report)).toEqual({
      'math > fails': 'fail',
      'math > nested > deep': 'pass',
      'math > passes': 'pass',
      'math > skipped': 'skip',
      'math > to do': 'skip',
      'top level': 'pass',
    });
    expect(result.report?.tests.find((test) => test.id === 'math > fails')?.message).toContain('a < b & c');
  });

  it('a --filter selection of passing tests passes failToPass', async () => {
    const result = await verify("node_modules/.bin/qunit --filter 'passes'", 'failToPass', checkout, baseEnv());
    expect(result.verdict).toEqual({
      passed: true,
      evidence: 'report',
      tests: { total: 1, pass: 1, fail: 0, error: 0, skip: 0 },
      reasons: [],
    });
  });
});

describe('jasmine (abp’s reporter)', () => {
  let checkout: string;
  beforeAll(async () => {
    checkout = await tapProject('jasmine-', await npmRunner('jasmine', '5.13.0'), {
      'spec/support/jasmine.json': '{ "spec_dir": "spec", "spec_files": ["**/*[sS]pec.?(m)js"] }\n',
      'spec/math.spec.js': [
        "describe('math', () => {",
        "  it('passes', () => { expect(1 + 1).toBe(2); });",
        "  it('fails', () => { expect(1 + 1).withContext('a < b & c').toBe(3); });",
        "  xit('skipped', () => {});",
        "  describe('nested', () => { it('deep > not a separator', () => { expect([1]).toEqual([1]); }); });",
        '});',
        "it('top level', () => {});",
        '',
      ].join('\n'),
      'spec/other.spec.js': "describe('math', () => { it('passes', () => {}); });\n",
    });
  });

  it('names each spec by its file, suites and title joined with ` > `, whatever reporter the task asked for', async () => {
    const result = await verify('node_modules/.bin/jasmine --reporter=./mine.js', 'failToPass', checkout, baseEnv());
    expect(result.plan.runner).toBe('jasmine');
    expect(result.ran.exitCode).toBe(3);
    expect(statusesOf(result.report)).toEqual({
      'spec/math.spec.js > math > fails': 'fail',
      'spec/math.spec.js > math > nested > deep > not a separator': 'pass',
      'spec/math.spec.js > math > passes': 'pass',
      'spec/math.spec.js > math > skipped': 'skip',
      'spec/math.spec.js > top level': 'pass',
      'spec/other.spec.js > math > passes': 'pass',
    });
    expect(result.report?.tests.find((test) => test.id.endsWith('fails'))?.message).toContain('a < b & c');
    // Its own line per spec stands in for jasmine's console reporter.
    expect(result.ran.stdout).toContain('FAIL spec/math.spec.js > math > fails');
  });

  it('specs a --filter leaves out are skips: passToPass passes, failToPass does not; a file that fails to load leaves no report', async () => {
    const line = "node_modules/.bin/jasmine '--filter=passes'";
    const passing = await verify(line, 'passToPass', checkout, baseEnv());
    expect(passing.verdict).toMatchObject({ passed: true, tests: { pass: 2, fail: 0, skip: 4 } });
    expect((await verify(line, 'failToPass', checkout, baseEnv())).verdict.passed).toBe(false);
    await writeFiles(checkout, { 'spec/broken.spec.js': "throw new Error('cannot load');\n" });
    const broken = await verify('node_modules/.bin/jasmine', 'passToPass', checkout, baseEnv());
    await rm(path.join(checkout, 'spec/broken.spec.js'));
    expect(broken.verdict).toMatchObject({ passed: false, evidence: 'none' });
    expect(broken.verdict.reasons.join(' ')).toContain('no report');
  });
});

describe('lab (abp’s reporter beside its console)', () => {
  let checkout: string;
  beforeAll(async () => {
    checkout = await tapProject('lab-', await npmRunner('@hapi/lab', '26.0.1'), {
      'test/math.js': [
        "'use strict';",
        "const assert = require('node:assert');",
        "const Lab = require('@hapi/lab');",
        'const { describe, it } = (exports.lab = Lab.script());',
        "describe('math', () => {",
        "  it('passes', () => { assert.strictEqual(1 + 1, 2); });",
        "  it('fails', () => { assert.strictEqual(1 + 1, 3, 'a < b & c'); });",
        "  it.skip('skipped', () => {});",
        "  it('to do');",
        "  describe('ünïcode ✓', () => { it('deep', () => {}); });",
        '});',
        "it('top level', () => {});",
        '',
      ].join('\n'),
      // The project's own settings ask for full coverage, which these tests are far from.
      '.labrc.js': 'module.exports = { coverage: true, threshold: 100 };\n',
    });
  });

  it('names each test by its title as lab prints it; a coverage threshold neither fails the run nor counts', async () => {
    const result = await verify('node_modules/.bin/lab -t 100 -m 5000 -r junit', 'failToPass', checkout, baseEnv());
    expect(result.plan.runner).toBe('lab');
    expect(result.ran.exitCode).toBe(1);
    expect(statusesOf(result.report)).toEqual({
      'math fails': 'fail',
      'math passes': 'pass',
      'math skipped': 'skip',
      'math to do': 'skip',
      'math ünïcode ✓ deep': 'pass',
      'top level': 'pass',
    });
    expect(result.report?.tests.find((test) => test.id === 'math fails')?.message).toContain('a < b & c');
    expect(result.ran.stdout).toContain('1 of 4 tests failed');
  });

  it('a --grep selection of passing tests passes failToPass with coverage on', async () => {
    const result = await verify("node_modules/.bin/lab -g 'passes|deep'", 'failToPass', checkout, baseEnv());
    expect(result.ran.exitCode).toBe(0);
    expect(result.verdict).toMatchObject({ passed: true, tests: { pass: 2, fail: 0 } });
  });
});

describe('bun test (its junit reporter)', () => {
  let checkout: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    const runner = await npmRunner('bun', '1.2.0');
    env = { ...baseEnv(), PATH: `${path.join(runner, 'node_modules/.bin')}:${process.env.PATH ?? ''}` };
    checkout = await tapProject('bun-', runner, {
      'test/math.test.ts': [
        "import { describe, expect, test } from 'bun:test';",
        "describe('math', () => {",
        "  test('passes', () => { expect(1 + 1).toBe(2); });",
        "  test('fails', () => { expect(1 + 1).toBe(3); });",
        "  test.skip('skipped', () => {});",
        "  test.todo('to do');",
        "  describe('ünïcode & <x>', () => { test('deep', () => {}); });",
        '});',
        "test('top level', () => {});",
        '',
      ].join('\n'),
    });
  });

  it('names each test by its file, describe blocks and title joined with ` > ` as bun prints them', async () => {
    const result = await verify('bun test --bail', 'failToPass', checkout, env);
    expect(result.plan.runner).toBe('bun-test');
    expect(result.ran.exitCode).toBe(1);
    expect(statusesOf(result.report)).toEqual({
      'test/math.test.ts > math > fails': 'fail',
      'test/math.test.ts > math > passes': 'pass',
      'test/math.test.ts > math > skipped': 'skip',
      'test/math.test.ts > math > to do': 'skip',
      'test/math.test.ts > math > ünïcode & <x> > deep': 'pass',
      'test/math.test.ts > top level': 'pass',
    });
    expect(result.ran.stderr).toContain('(fail) math > fails');
  });

  it('tests a -t pattern leaves out are skips: passToPass passes, failToPass does not', async () => {
    const line = "bun test -t 'passes|deep'";
    const result = await verify(line, 'passToPass', checkout, env);
    expect(result.verdict).toMatchObject({ passed: true, tests: { pass: 2, fail: 0 } });
    expect((await verify(line, 'failToPass', checkout, env)).verdict.passed).toBe(false);
  });
});

describe('jest (its JSON report)', () => {
  let checkout: string;
  beforeAll(async () => {
    checkout = await tapProject('jest-', await npmRunner('jest', '30.5.2'), {
      'test/math.test.js': [
        "describe('math', () => {",
        "  test('passes', () => { expect(1 + 1).toBe(2); });",
        "  test('fails', () => { expect(1 + 1).toBe(3); });",
        "  test.skip('skipped', () => {});",
        "  test.todo('to do');",
        "  describe('nested', () => { test('deep › not a separator', () => {}); });",
        '});',
        "test('top level', () => {});",
        '',
      ].join('\n'),
    });
  });

  it('names each test by its file and title path joined with ` › `, as jest prints them', async () => {
    const result = await verify('node_modules/.bin/jest --ci', 'failToPass', checkout, baseEnv());
    expect(result.plan.runner).toBe('jest');
    expect(result.ran.exitCode).toBe(1);
    expect(statusesOf(result.report)).toEqual({
      'test/math.test.js › math › fails': 'fail',
      'test/math.test.js › math › nested › deep › not a separator': 'pass',
      'test/math.test.js › math › passes': 'pass',
      'test/math.test.js › math › skipped': 'skip',
      'test/math.test.js › math › to do': 'skip',
      'test/math.test.js › top level': 'pass',
    });
    expect(result.report?.tests.find((test) => test.id.endsWith('fails'))?.message).toContain('Expected: 3');
  });

  it('a -t selection of passing tests passes passToPass, and failToPass does not: the rest are skips', async () => {
    const line = "node_modules/.bin/jest --ci -t 'passes|deep'";
    expect((await verify(line, 'passToPass', checkout, baseEnv())).verdict).toMatchObject({
      passed: true,
      tests: { pass: 2, fail: 0 },
    });
    expect((await verify(line, 'failToPass', checkout, baseEnv())).verdict.passed).toBe(false);
  });
});

describe('Maven Surefire (JUnit 5, plugins from Maven Central)', () => {
  let checkout: string;
  beforeAll(async () => {
    checkout = await mkdtemp(path.join(root, 'maven-'));
    const test = (name: string, body: string[]) =>
      [
        'package com.example;',
        'import static org.junit.jupiter.api.Assertions.assertEquals;',
        'import org.junit.jupiter.api.Disabled;',
        'import org.junit.jupiter.api.Test;',
        `class ${name} {`,
        ...body,
        '}',
        '',
      ].join('\n');
    await writeFiles(checkout, {
      'pom.xml': [
        '<project xmlns="http://maven.apache.org/POM/4.0.0">',
        '  <modelVersion>4.0.0</modelVersion>',
        '  <groupId>com.example</groupId><artifactId>rangekit</artifactId><version>1.0.0</version>',
        '  <properties>',
        '    <maven.compiler.release>17</maven.compiler.release>',
        '    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>',
        '  </properties>',
        '  <dependencies><dependency>',
        '    <groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter</artifactId><version>5.11.4</version>',
        '    <scope>test</scope>',
        '  </dependency></dependencies>',
        // Maven 3.8's default compiler plugin (3.1) knows no `release`; both plugins pinned, as projects pin them.
        '  <build><plugins>',
        '    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId>',
        '      <version>3.13.0</version></plugin>',
        '    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-surefire-plugin</artifactId>',
        '      <version>3.5.2</version></plugin>',
        '  </plugins></build>',
        '</project>',
        '',
      ].join('\n'),
      'src/test/java/com/example/MathTest.java': test('MathTest', [
        '  @Test void adds() { assertEquals(2, 1 + 1); }',
        '  @Test void fails() { assertEquals(3, 1 + 1, "a < b & c"); }',
        '  @Disabled("not now") @Test void skipped() {}',
      ]),
      'src/test/java/com/example/OtherTest.java': test('OtherTest', ['  @Test void adds() {}']),
    });
  });

  it(
    'names each test `class::method` from the reports Surefire writes per class, failures and skips included',
    { timeout: 600_000 },
    async () => {
      const result = await verify('mvn -B -q test', 'failToPass', checkout, {
        ...baseEnv(),
        ...(process.env.JAVA_HOME === undefined ? {} : { JAVA_HOME: process.env.JAVA_HOME }),
      });
      expect(result.plan.runner).toBe('maven-surefire');
      expect(result.ran.exitCode).toBe(1);
      expect(statusesOf(result.report)).toEqual({
        'com.example.MathTest::adds': 'pass',
        'com.example.MathTest::fails': 'fail',
        'com.example.MathTest::skipped': 'skip',
        'com.example.OtherTest::adds': 'pass',
      });
      expect(result.report?.tests.find((test) => test.id.endsWith('fails'))?.message).toContain('a < b & c');
    },
  );
});
