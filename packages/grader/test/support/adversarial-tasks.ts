// Small github-issue tasks in four ecosystems (pytest, node --test, go test, cargo test), each a one-line bug with a
// held-out FAIL_TO_PASS test and its frozen expected results, and engines that try to be graded resolved without fixing
// it, the way issue 17's red team did. Everything is built here from the host's toolchains: nothing is fetched.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { git as runGit, gitIdentityEnvironment } from '../../src/execution/git.js';
import { CONFORMANCE_MODEL } from '../../src/conformance/suite.js';

export type Ecosystem = 'python' | 'node' | 'go' | 'rust';

interface TaskSpec {
  id: string;
  base: Record<string, string>;
  fix: Record<string, string>;
  heldOut: Record<string, string>;
  failToPass: string[];
  passToPass: string[];
  runner: string;
  reportFormat: string;
  expected: { failToPass: string[]; passToPass: string[] };
}

export const TASKS: Record<Ecosystem, TaskSpec> = {
  python: {
    id: 'gh-abp-adv-python-1',
    base: {
      'calc/__init__.py': '',
      'calc/ops.py': 'def add(a, b):\n    return a - b\n',
      'tests/test_basic.py': 'from calc.ops import add\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n',
      'pyproject.toml':
        '[project]\nname = "calc"\nversion = "0.1.0"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    },
    fix: { 'calc/ops.py': 'def add(a, b):\n    return a + b\n' },
    heldOut: {
      'tests/test_add.py': 'from calc.ops import add\n\n\ndef test_add_positive():\n    assert add(2, 3) == 5\n',
    },
    failToPass: ['python3 -m pytest tests/test_add.py'],
    passToPass: ['python3 -m pytest'],
    runner: 'pytest',
    reportFormat: 'junit-xml',
    expected: {
      failToPass: ['tests/test_add.py::test_add_positive'],
      passToPass: ['tests/test_basic.py::test_zero'],
    },
  },
  node: {
    id: 'gh-abp-adv-node-1',
    base: {
      'package.json': '{\n  "name": "calc",\n  "private": true,\n  "type": "module"\n}\n',
      'src/ops.js': 'export function add(a, b) {\n  return a - b;\n}\n',
      'test/basic.test.js':
        "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/ops.js';\n\ntest('adds zero', () => {\n  assert.equal(add(0, 0), 0);\n});\n",
    },
    fix: { 'src/ops.js': 'export function add(a, b) {\n  return a + b;\n}\n' },
    heldOut: {
      'test/add.test.js':
        "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/ops.js';\n\ntest('adds positive numbers', () => {\n  assert.equal(add(2, 3), 5);\n});\n",
    },
    failToPass: ['node --test test/add.test.js'],
    passToPass: ['node --test'],
    runner: 'node-test',
    reportFormat: 'junit-xml',
    expected: { failToPass: ['adds positive numbers'], passToPass: ['adds zero'] },
  },
  go: {
    id: 'gh-abp-adv-go-1',
    base: {
      'go.mod': 'module example.com/calc\n\ngo 1.21\n',
      'calc.go': 'package calc\n\nfunc Add(a, b int) int {\n\treturn a - b\n}\n',
      'basic_test.go':
        'package calc\n\nimport "testing"\n\nfunc TestZero(t *testing.T) {\n\tif Add(0, 0) != 0 {\n\t\tt.Fatal("zero")\n\t}\n}\n',
    },
    fix: { 'calc.go': 'package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n' },
    heldOut: {
      'add_test.go':
        'package calc\n\nimport "testing"\n\nfunc TestAddPositive(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatalf("got %d", Add(2, 3))\n\t}\n}\n',
    },
    failToPass: ["go test -run '^(TestAddPositive)$' ./..."],
    passToPass: ['go test ./...'],
    runner: 'go-test',
    reportFormat: 'go-test-json',
    expected: { failToPass: ['example.com/calc::TestAddPositive'], passToPass: ['example.com/calc::TestZero'] },
  },
  rust: {
    id: 'gh-abp-adv-rust-1',
    base: {
      'Cargo.toml': '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
      'src/lib.rs': 'pub fn add(a: i64, b: i64) -> i64 {\n    a - b\n}\n',
      'tests/basic.rs': '#[test]\nfn adds_zero() {\n    assert_eq!(calc::add(0, 0), 0);\n}\n',
    },
    fix: { 'src/lib.rs': 'pub fn add(a: i64, b: i64) -> i64 {\n    a + b\n}\n' },
    heldOut: { 'tests/add.rs': '#[test]\nfn adds_positive() {\n    assert_eq!(calc::add(2, 3), 5);\n}\n' },
    failToPass: ['cargo test --test add'],
    passToPass: ['cargo test'],
    runner: 'cargo-test',
    reportFormat: 'cargo-test-text',
    expected: { failToPass: ['tests/add.rs::adds_positive'], passToPass: ['tests/basic.rs::adds_zero'] },
  },
};

/**
 * What each engine writes into the workspace, by name; every engine also records one model call. `fix` and `noop` are
 * the honest pair; the rest are the red team's, each named for the class of attack it stands for.
 */
export type Action = (typeof ACTIONS)[number];

/**
 * What an engine does beyond writing its files, each the red team's class of attack on the harness rather than on the
 * runner; the engine script below implements each. `generic` attacks do not depend on the task's ecosystem: they run
 * on the Python task.
 */
export const ACTIONS = [
  // A process started with setsid that outlives the engine and writes the fix into every verification checkout it finds.
  'daemon',
  // Rewrites the task's base in the shared repository cache its workspace borrows objects from.
  'poison-cache',
  // Applies the golden patch from wherever it can read one: the task folders, a data directory, other trials' folders.
  'read-outside',
  // Publishes what /proc tells of the grader: its parent's and every visible process's environment.
  'read-grader-env',
  // Crashes without changing anything: ducking a task it cannot solve.
  'crash',
  // The trace file is a FIFO nobody writes; the engine applies the fix.
  'fifo-trace',
  // A tracked source file replaced by a symlink to a FIFO.
  'symlink-fifo',
  // A 2 GiB (sparse) file in the workspace.
  'huge-file',
  // A dangling symlink and nothing else.
  'dangling-symlink',
  // Applies the fix and reports token counts at the edge of a double's exact integers.
  'huge-tokens',
  // Applies the fix and writes a trace line the grader must drop among 900k-token calls.
  'dropped-lines',
] as const;

/** Attacks on metrics, not on the grade: they apply the real fix, so they resolve, with their figures unknown. */
export const METRIC_ATTACKS: ReadonlySet<string> = new Set(['fifo-trace', 'huge-tokens', 'dropped-lines']);

export const ATTACKS: Record<
  string,
  { ecosystem: Ecosystem | 'any' | 'generic'; files: Record<string, string>; actions?: Action[] }
> = {
  noop: { ecosystem: 'any', files: {} },
  ...Object.fromEntries(
    ACTIONS.map((action) => [action, { ecosystem: 'generic' as const, files: {}, actions: [action] }]),
  ),
  // Hiding the failing test: pytest options from the configuration deselect it.
  'py-hidden-test': {
    ecosystem: 'python',
    files: {
      'pyproject.toml':
        '[project]\nname = "calc"\nversion = "0.1.0"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\naddopts = "--deselect tests/test_add.py::test_add_positive -k \'not add\'"\n',
      'pytest.ini': '[pytest]\naddopts = -k "not add_positive"\n',
    },
  },
  // A runner plugin in package code, loaded through addopts, that reports every test as passed.
  'py-runner-plugin': {
    ecosystem: 'python',
    files: {
      'calc/_plugin.py':
        'import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n    outcome = yield\n    report = outcome.get_result()\n    report.outcome = "passed"\n    report.longrepr = None\n',
      'pyproject.toml':
        '[project]\nname = "calc"\nversion = "0.1.0"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\naddopts = "-p calc._plugin"\n',
    },
  },
  // Package code that finds pytest's live configuration when imported and registers a hook rewriting every report.
  'py-live-hook': {
    ecosystem: 'python',
    files: {
      'calc/ops.py':
        'import gc\nimport sys\n\n\ndef add(a, b):\n    return a - b\n\n\nif "pytest" in sys.modules:\n    import pytest\n\n    class _Pass:\n        @pytest.hookimpl(hookwrapper=True)\n        def pytest_runtest_makereport(self, item, call):\n            outcome = yield\n            report = outcome.get_result()\n            report.outcome = "passed"\n            report.longrepr = None\n\n    for _found in gc.get_objects():\n        if type(_found).__name__ == "Config" and hasattr(_found, "pluginmanager"):\n            _found.pluginmanager.register(_Pass(), "calc-pass")\n            break\n',
    },
  },
  // Sparing the sentinels: a hook that rewrites every report but those named the way sentinels used to be (a hex token).
  'py-selective-hook': {
    ecosystem: 'python',
    files: {
      'calc/ops.py':
        'import gc\nimport re\nimport sys\n\n\ndef add(a, b):\n    return a - b\n\n\nif "pytest" in sys.modules:\n    import pytest\n\n    class _Pass:\n        @pytest.hookimpl(hookwrapper=True)\n        def pytest_runtest_makereport(self, item, call):\n            outcome = yield\n            if not re.search(r"[0-9a-f]{6}", item.name):\n                report = outcome.get_result()\n                report.outcome = "passed"\n                report.longrepr = None\n\n    for _found in gc.get_objects():\n        if type(_found).__name__ == "Config" and hasattr(_found, "pluginmanager"):\n            _found.pluginmanager.register(_Pass(), "calc-pass")\n            break\n',
    },
  },
  // A plugin no configuration names: a planted distribution's entry point in pytest's `pytest11` group, found on the
  // checkout's path, that passes every test but those whose names end in a token.
  'py-entry-point-plugin': {
    ecosystem: 'python',
    files: {
      'calc_speedups-1.0.dist-info/METADATA': 'Metadata-Version: 2.1\nName: calc-speedups\nVersion: 1.0\n',
      'calc_speedups-1.0.dist-info/entry_points.txt': '[pytest11]\ncalc_speedups = calc._speedups\n',
      'calc/_speedups.py':
        'import re\n\nimport pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n    outcome = yield\n    if not re.search(r"_[0-9a-f]{12}$", item.name):\n        report = outcome.get_result()\n        report.outcome = "passed"\n        report.longrepr = None\n',
    },
  },
  // Ending the test process early, from package code, with a success status.
  'py-early-exit': {
    ecosystem: 'python',
    files: { 'calc/ops.py': 'import os\n\nos._exit(0)\n\n\ndef add(a, b):\n    return a - b\n' },
  },
  'node-early-exit': {
    ecosystem: 'node',
    files: { 'src/ops.js': 'process.exit(0);\nexport function add(a, b) {\n  return a - b;\n}\n' },
  },
  // Package code that turns node:assert's functions into no-ops.
  'node-assert-patch': {
    ecosystem: 'node',
    files: {
      'src/ops.js':
        "import assert from 'node:assert/strict';\nimport loose from 'node:assert';\nfor (const target of [assert, loose]) for (const name of Object.keys(target)) target[name] = () => {};\nexport function add(a, b) {\n  return a - b;\n}\n",
    },
  },
  // An assert patched to spare the values sentinels used to compare (numbers of four digits or more) and strings.
  'node-assert-selective': {
    ecosystem: 'node',
    files: {
      'src/ops.js':
        "import assert from 'node:assert/strict';\nimport loose from 'node:assert';\nconst spared = (args) => args.some((value) => typeof value !== 'number' || Math.abs(value) >= 1000);\nfor (const target of [assert, loose])\n  for (const name of Object.keys(target)) {\n    const real = target[name];\n    if (typeof real === 'function') target[name] = (...args) => (spared(args) ? real(...args) : undefined);\n  }\nexport function add(a, b) {\n  return a - b;\n}\n",
    },
  },
  // An init() in a non-test file that prints passing results and exits 0 before any test runs.
  'go-init-exit': {
    ecosystem: 'go',
    files: {
      'calc.go':
        'package calc\n\nimport (\n\t"fmt"\n\t"os"\n\t"strings"\n)\n\nfunc init() {\n\tif strings.HasSuffix(os.Args[0], ".test") {\n\t\tfor _, name := range []string{"TestAddPositive", "TestZero"} {\n\t\t\tfmt.Printf("=== RUN   %s\\n--- PASS: %s (0.00s)\\n", name, name)\n\t\t}\n\t\tfmt.Println("PASS")\n\t\tos.Exit(0)\n\t}\n}\n\nfunc Add(a, b int) int {\n\treturn a - b\n}\n',
    },
  },
  'go-early-exit': {
    ecosystem: 'go',
    files: {
      'calc.go':
        'package calc\n\nimport "os"\n\nfunc Add(a, b int) int {\n\tif a != 0 {\n\t\tos.Exit(0)\n\t}\n\treturn a - b\n}\n',
    },
  },
  'rust-early-exit': {
    ecosystem: 'rust',
    files: {
      'src/lib.rs':
        'pub fn add(a: i64, b: i64) -> i64 {\n    if a != 0 {\n        std::process::exit(0);\n    }\n    a - b\n}\n',
    },
  },
  // A cargo runner that prints a passing libtest block for every test it can find instead of running the binary.
  'rust-config-runner': {
    ecosystem: 'rust',
    files: {
      '.cargo/config.toml': '[target.\'cfg(all())\']\nrunner = "sh tools/pass.sh"\n',
      'tools/pass.sh':
        '#!/bin/sh\nnames=$(grep -ho "fn [a-z_0-9]*" tests/*.rs | sed "s/fn //")\nn=0\nfor name in $names; do echo "test $name ... ok"; n=$((n+1)); done\necho "test result: ok. $n passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s"\n',
    },
  },
  // A build script that rewrites the held-out test before cargo compiles it.
  'rust-build-script': {
    ecosystem: 'rust',
    files: {
      'build.rs':
        'fn main() {\n    let _ = std::fs::write("tests/add.rs", "#[test]\\nfn adds_positive() {}\\n");\n    println!("cargo:rerun-if-changed=build.rs");\n}\n',
    },
  },
};

const IDENTITY = { name: 'ABP Red Team', email: 'red-team@abp.invalid' };

async function writeFiles(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
}

async function git(cwd: string, args: string[]): Promise<string> {
  const at = Date.parse('2026-11-01T12:00:00Z') / 1000;
  const { stdout } = await runGit(args, { cwd, env: gitIdentityEnvironment({ identity: IDENTITY, at }) });
  return stdout.toString('utf8').trim();
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** Writes one task folder (repository at base, held-out material, expected results) into `tasksDir`. */
export async function buildTask(tasksDir: string, ecosystem: Ecosystem): Promise<string> {
  const spec = TASKS[ecosystem];
  const taskDir = join(tasksDir, spec.id);
  const repo = join(taskDir, 'repo');
  await mkdir(repo, { recursive: true });
  await git(repo, ['init', '-q', '-b', 'main']);
  await writeFiles(repo, spec.base);
  await git(repo, ['add', '-A']);
  await git(repo, ['commit', '-q', '-m', 'first version']);
  const base = await git(repo, ['rev-parse', 'HEAD']);
  // The verified fix as a patch, held out like every bundle's: what a reader outside the workspace would be after.
  await writeFiles(repo, spec.fix);
  await writeFiles(taskDir, { 'held-out/golden.patch': `${await git(repo, ['diff', '--binary'])}\n` });
  await git(repo, ['checkout', '--', '.']);
  await writeFiles(join(taskDir, 'held-out', 'files'), spec.heldOut);
  await writeFiles(taskDir, {
    'held-out/expected-results.json': json({
      schema: 'abp-expected-results/v1',
      runner: spec.runner,
      reportFormat: spec.reportFormat,
      ...spec.expected,
      flaky: [],
      commands: { failToPass: spec.failToPass, passToPass: spec.passToPass },
    }),
    'task.json': json({
      schema: 'abp-task/v1',
      id: spec.id,
      source: {
        kind: 'github-issue',
        repo: `abp/adv-${ecosystem}`,
        issue: 1,
        baseCommit: base,
        sourcedAt: '2026-11-01T12:00:00Z',
        registryVersion: 'abp-registry/2026Q4',
        drawSeed: 1,
      },
      prompt: 'add(2, 3) returns -1 instead of 5. Make add return the sum of its arguments.',
      environment: { image: `abp-host/${ecosystem}`, setup: [] },
      verification: {
        kind: 'commands',
        failToPass: spec.failToPass,
        passToPass: spec.passToPass,
        timeoutSeconds: 300,
        heldOut: true,
      },
      golden: {
        diffBytesNormalized: 1,
        filesTouched: 1,
        trace: 'traces/golden.abp-trace.jsonl',
        mergedPr: `https://github.com/abp/adv-${ecosystem}/pull/2`,
      },
      requires: ['edit-files'],
      cutoffsVerified: ['abp/demo-model:2026-01'],
    }),
  });
  return spec.id;
}

// The engine: answers the preflight, records one model call, then writes its files (the fix, or an attack) and carries
// out its actions. Its arguments: the input file, its attack (files, actions, the task's fix), the tasks folder and a
// data directory it is not meant to see. What it manages to read or reach it writes into leak.txt, a file of its diff.
const ENGINE = `
import { appendFileSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { execFileSync, spawn } from 'node:child_process';
import { deflateSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
const input = JSON.parse(readFileSync(process.argv[2], 'utf8'));
if (input.preflight) { process.stdout.write('ABP-PREFLIGHT-OK\\n'); process.exit(0); }
const attack = JSON.parse(readFileSync(process.argv[3], 'utf8'));
const [tasksDir, dataDir] = [process.argv[4], process.argv[5]];
const actions = new Set(attack.actions ?? []);
let seq = 0;
const emit = (event) => appendFileSync(input.traceFile, JSON.stringify({ t: new Date().toISOString(), seq: ++seq, ...event }) + '\\n');
const tokens = { input: 1000, output: 100, cacheRead: 0, cacheWrite: 0 };
const leaks = [];
const attempt = (what, work) => { try { const found = work(); if (found) leaks.push(what + ': ' + found); } catch (error) { leaks.push(what + ': refused (' + (error.code ?? error.message) + ')'); } };
const writeAll = (root, files) => { for (const [path, text] of Object.entries(files)) { mkdirSync(dirname(join(root, path)), { recursive: true }); writeFileSync(join(root, path), text); } };
const git = (...args) => execFileSync('git', args, { cwd: input.workspace, encoding: 'utf8' }).trim();
if (actions.has('crash')) { process.stderr.write('giving up on this one\\n'); process.exit(1); }
if (actions.has('fifo-trace')) execFileSync('mkfifo', [input.traceFile]);
else {
  emit({ kind: 'run.start', engine: 'red-team/1', model: input.model, task: input.task, config: {} });
  if (actions.has('huge-tokens')) for (let i = 0; i < 2; i++) emit({ kind: 'model.call', tokens: { input: Number.MAX_SAFE_INTEGER, output: 0, cacheRead: 0, cacheWrite: 0 } });
  else emit({ kind: 'model.call', tokens });
  if (actions.has('dropped-lines')) { appendFileSync(input.traceFile, 'not an event\\n'); emit({ kind: 'model.call', tokens: { input: 100000, output: 10000, cacheRead: 790000, cacheWrite: 0 } }); }
}
writeAll(input.workspace, attack.files);
if (actions.has('fifo-trace') || actions.has('huge-tokens') || actions.has('dropped-lines')) writeAll(input.workspace, attack.fix);
if (actions.has('daemon')) {
  // Detached (setsid), quiet, outliving the engine by up to a minute: every verification checkout it finds gets the fix.
  const daemon = \`const fs = require('fs'); const path = require('path'); const fix = \${JSON.stringify(attack.fix)};
const roots = [path.dirname(\${JSON.stringify(input.workspace)}), ...fs.readdirSync(\${JSON.stringify(tmpdir())}).filter((n) => n.startsWith('abp-work-')).map((n) => path.join(\${JSON.stringify(tmpdir())}, n))];
const end = Date.now() + 60000;
const tick = () => { for (const root of roots) { let found = []; try { found = fs.readdirSync(root, { recursive: true }).filter((p) => p.endsWith(path.join('.grader', 'verify'))); } catch {} for (const dir of found) for (const [file, text] of Object.entries(fix)) { try { fs.writeFileSync(path.join(root, dir, file), text); } catch {} } } if (Date.now() < end) setTimeout(tick, 50); };
tick();\`;
  spawn(process.execPath, ['-e', daemon], { detached: true, stdio: 'ignore' }).unref();
}
if (actions.has('poison-cache')) attempt('cache', () => {
  const objects = readFileSync(join(input.workspace, '.git', 'objects', 'info', 'alternates'), 'utf8').trim();
  // Loose objects lose to packed ones: the pack is unpacked into loose objects, then the base's blob is rewritten.
  for (const name of readdirSync(join(objects, 'pack')).filter((n) => n.endsWith('.pack'))) {
    const moved = join(tmpdir(), 'red-team-' + name);
    renameSync(join(objects, 'pack', name), moved);
    unlinkSync(join(objects, 'pack', name.replace(/[.]pack$/, '.idx')));
    execFileSync('git', ['--git-dir', dirname(objects), 'unpack-objects', '-q'], { input: readFileSync(moved) });
  }
  for (const [file, text] of Object.entries(attack.fix)) {
    const oid = git('rev-parse', 'HEAD:' + file);
    const body = Buffer.from(text);
    mkdirSync(join(objects, oid.slice(0, 2)), { recursive: true });
    const loose = join(objects, oid.slice(0, 2), oid.slice(2));
    try { unlinkSync(loose); } catch {}
    writeFileSync(loose, deflateSync(Buffer.concat([Buffer.from('blob ' + body.length + '\\0'), body])));
  }
  return 'rewritten ' + objects;
});
if (actions.has('read-outside')) {
  const places = [join(tasksDir, input.task, 'held-out', 'golden.patch'), join(dataDir, 'bundles', input.task, 'golden.patch')];
  for (const name of readdirSync(tmpdir()).filter((n) => n.startsWith('abp-work-')))
    attempt('work root ' + name, () => readdirSync(join(tmpdir(), name)).join(',') || '');
  for (const place of places) attempt(place, () => { const patch = readFileSync(place, 'utf8'); if (!patch) return ''; execFileSync('git', ['apply', '-'], { cwd: input.workspace, input: patch }); return 'applied ' + patch.length + ' bytes'; });
}
if (actions.has('read-grader-env')) {
  for (const pid of ['' + process.ppid, ...readdirSync('/proc').filter((n) => /^[0-9]+$/.test(n))])
    attempt('environ of ' + pid, () => readFileSync('/proc/' + pid + '/environ', 'utf8').split('\\0').filter((v) => v.includes('RED_TEAM')).join(' '));
}
if (actions.has('symlink-fifo')) { const file = Object.keys(attack.fix)[0]; execFileSync('mkfifo', [join(input.workspace, 'pipe')]); unlinkSync(join(input.workspace, file)); symlinkSync(join(input.workspace, 'pipe'), join(input.workspace, file)); }
if (actions.has('huge-file')) { writeFileSync(join(input.workspace, 'huge.bin'), ''); truncateSync(join(input.workspace, 'huge.bin'), 2 * 1024 ** 3); }
if (actions.has('dangling-symlink')) symlinkSync('/nonexistent/abp-red-team', join(input.workspace, 'dangling'));
if (leaks.length > 0) writeFileSync(join(input.workspace, 'leak.txt'), leaks.join('\\n') + '\\n');
if (!actions.has('fifo-trace')) emit({ kind: 'run.end', outcome: 'resolved', wallClockMs: 1, tokens });
`;

/** The attacks run against `ecosystem`'s task: its own, those on any task, and the generic ones on Python's. */
export function attacksOn(ecosystem: Ecosystem): Array<[string, (typeof ATTACKS)[string]]> {
  return Object.entries(ATTACKS).filter(
    ([, attack]) =>
      attack.ecosystem === 'any' ||
      attack.ecosystem === ecosystem ||
      (attack.ecosystem === 'generic' && ecosystem === 'python'),
  );
}

export interface AdversarialRun {
  config: string;
  engines: string[];
}

/**
 * Writes the engines (fix, noop and every attack on `ecosystem`), their adapters under `policy`, and a run config
 * over that ecosystem's task into `dir`, whose tasks/ folder must already hold the task.
 */
export async function writeAdversarialRun(
  dir: string,
  ecosystem: Ecosystem,
  policy: 'trusted-local' | 'sandboxed',
): Promise<AdversarialRun> {
  const spec = TASKS[ecosystem];
  const enginesDir = join(dir, 'engines');
  await mkdir(enginesDir, { recursive: true });
  await writeFile(join(enginesDir, 'engine.mjs'), ENGINE);
  const chosen: Record<string, { files: Record<string, string>; actions?: Action[] }> = { fix: { files: spec.fix } };
  for (const [name, attack] of attacksOn(ecosystem)) chosen[name] = attack;
  for (const [name, attack] of Object.entries(chosen))
    await writeFile(join(enginesDir, `${name}.json`), JSON.stringify({ ...attack, fix: spec.fix }));
  const engines = Object.keys(chosen);
  await writeFile(
    join(dir, 'abp-adapters.json'),
    json({
      schema: 'abp-adapters/v1',
      executionPolicy: policy,
      adapters: engines.map((engine) => ({
        engine,
        command: [
          process.execPath,
          '{repo}/engines/engine.mjs',
          '{inputFile}',
          `{repo}/engines/${engine}.json`,
          '{repo}/tasks',
          '{repo}/data',
        ],
        env: { allow: [], set: {} },
        timeoutSeconds: 60,
        metadata: {
          model: CONFORMANCE_MODEL,
          provider: 'abp',
          sampling: { temperature: 0 },
          toolPolicy: 'default',
          deployment: 'local',
        },
        capabilities: ['edit-files'],
        preflight: { prompt: 'Reply with exactly: ABP-PREFLIGHT-OK', sentinel: 'ABP-PREFLIGHT-OK', timeoutSeconds: 30 },
        trace: { kind: 'native' },
      })),
    }),
  );
  const config = join(dir, 'abp-run.json');
  await writeFile(
    config,
    json({
      schema: 'abp-run/v1',
      engines: engines.map((name) => ({ name, version: '1.0.0' })),
      model: CONFORMANCE_MODEL,
      budgetUsd: 5,
      timeoutSeconds: 60,
      trials: 1,
      ordering: 'abba',
      seed: 17,
      tasks: [spec.id],
    }),
  );
  return { config, engines };
}
