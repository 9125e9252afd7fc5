// Owns the integrity canaries of a verification run (spec §3.2): two sentinel tests the grader writes into the held-out
// test file that holds the FAIL_TO_PASS tests (Go: a file beside it, in the same package), one that must pass and one
// that must fail, named with a token drawn fresh for every trial. They run in the same process, module and package as
// the graded tests, with the same assertion functions, so whatever the engine's code does to the runner or its
// assertions (a hook rewriting reports, an early exit, no-op asserts, fake output) reaches them too: a must-fail
// sentinel that passes, or a sentinel missing from a report that exists, proves the run was tampered with.
// Planning is pure: the caller writes the files, runs the commands and reads the reports.
import { dirname, posix } from 'node:path';
import type { TestResult } from '../test-reports/index.js';
import type { RunnerName, RunnerPlan } from './runner-recipes.js';

export type CanaryRole = 'must-pass' | 'must-fail';

export interface CanaryNames {
  /** A token only this trial's sentinels carry: a report id holding it belongs to that sentinel. */
  readonly mustPass: string;
  readonly mustFail: string;
}

export interface CanaryPlan {
  /** Text appended to a held-out file of the checkout, or a new file written beside one. */
  readonly writes: ReadonlyArray<{ path: string; text: string; append: boolean }>;
  /** Per command index: the argv that also selects the sentinels (the planned one, or with its filter widened). */
  readonly commands: ReadonlyMap<number, { argv: string[]; names: CanaryNames }>;
  /** Per command index that runs without sentinels: why. */
  readonly unavailable: ReadonlyMap<number, string>;
}

export interface CanaryInput {
  readonly commands: ReadonlyArray<{ index: number; plan: RunnerPlan }>;
  /** The held-out files as copied over the checkout, with their text. */
  readonly heldOut: ReadonlyArray<{ path: string; text: string }>;
  /** The frozen FAIL_TO_PASS ids, used to find the file holding those tests; empty for a fixture task. */
  readonly failToPass: readonly string[];
  /** Fresh, unpredictable hex (crypto.randomBytes): never derived from anything the engine could know. */
  readonly token: () => string;
}

interface Placement {
  readonly runner: RunnerName;
  /** The held-out file the sentinels join, and the file they are written to (the same but for Go). */
  readonly heldOutPath: string;
  readonly write: { path: string; text: string; append: boolean };
  readonly names: CanaryNames;
}

const RUNNER_FILES: Partial<Record<RunnerName, RegExp>> = {
  pytest: /\.py$/,
  'node-test': /\.[cm]?[jt]s$/,
  jest: /\.[cm]?[jt]sx?$/,
  vitest: /\.[cm]?[jt]sx?$/,
  'go-test': /_test\.go$/,
  'cargo-test': /^tests\/(?:[^/]+\.rs|[^/]+\/main\.rs)$/,
};

export function planCanaries(input: CanaryInput): CanaryPlan {
  const placements = new Map<RunnerName, Placement | string>();
  const commands = new Map<number, { argv: string[]; names: CanaryNames }>();
  const unavailable = new Map<number, string>();
  for (const { index, plan } of input.commands) {
    let placement = placements.get(plan.runner);
    if (placement === undefined) {
      placement = place(plan.runner, input);
      placements.set(plan.runner, placement);
    }
    if (typeof placement === 'string') {
      unavailable.set(index, placement);
      continue;
    }
    const selected = selectingArgv(plan, placement);
    if (typeof selected === 'string') unavailable.set(index, selected);
    else commands.set(index, { argv: selected, names: placement.names });
  }
  const writes = [...placements.values()]
    .filter((placement): placement is Placement => typeof placement !== 'string')
    .filter((placement) => [...commands.values()].some((command) => command.names === placement.names))
    .map((placement) => placement.write);
  return { writes, commands, unavailable };
}

/** What the command's report says of each sentinel: its status, or missing. */
export function readCanaries(
  tests: readonly TestResult[],
  names: CanaryNames,
): Array<{ role: CanaryRole; status: TestResult['status'] | 'missing'; intact: boolean }> {
  return (['must-pass', 'must-fail'] as const).map((role) => {
    const token = role === 'must-pass' ? names.mustPass : names.mustFail;
    const status = tests.find((test) => test.id.includes(token))?.status ?? 'missing';
    const intact = role === 'must-pass' ? status === 'pass' : status === 'fail' || status === 'error';
    return { role, status, intact };
  });
}

/** Whether a report id is one of the sentinels', so it is neither graded nor counted. */
export function isCanary(id: string, names: CanaryNames): boolean {
  return id.includes(names.mustPass) || id.includes(names.mustFail);
}

function place(runner: RunnerName, input: CanaryInput): Placement | string {
  const pattern = RUNNER_FILES[runner];
  if (pattern === undefined)
    return runner === 'plain'
      ? 'the command leaves no report for sentinels to appear in'
      : `no sentinels for ${runner} yet: its test classes cannot take appended tests`;
  const candidates = input.heldOut.filter((file) => pattern.test(file.path) && isTestFile(runner, file.path));
  if (candidates.length === 0) return `no held-out ${runner} test file for the sentinels to join`;
  // The file that defines a FAIL_TO_PASS test: its process, package and imports are the graded tests' own.
  const names = input.failToPass.map(lastName).filter((name) => name.length > 0);
  const file = candidates.find((candidate) => names.some((name) => candidate.text.includes(name))) ?? candidates[0];
  if (file === undefined) return `no held-out ${runner} test file for the sentinels to join`;
  const pass = input.token();
  const fail = input.token();
  switch (runner) {
    case 'pytest':
      return pytestPlacement(file, names, pass, fail);
    case 'node-test':
      return nodeTestPlacement(file, pass, fail);
    case 'jest':
    case 'vitest':
      return jestLikePlacement(runner, file, pass, fail);
    case 'go-test':
      return goPlacement(file, pass, fail);
    case 'cargo-test':
      return cargoPlacement(file, pass, fail);
    case 'maven-surefire':
    case 'plain':
      return `no sentinels for ${runner} yet`;
  }
}

function isTestFile(runner: RunnerName, path: string): boolean {
  const name = posix.basename(path);
  if (runner === 'pytest') return name !== 'conftest.py' && name !== '__init__.py';
  return true;
}

/** The test's own name in a report id: after the last `::`, ` › `, `/` or `.` separator, parameters dropped. */
function lastName(id: string): string {
  const tail = id.split(/::| › |\//).pop() ?? id;
  return tail
    .replace(/\[.*\]$/, '')
    .replace(/ #\d+$/, '')
    .trim();
}

const numbers = (token: string) => {
  const value = Number.parseInt(token.slice(0, 6), 16);
  return { same: value, other: value + 1 };
};

function pytestPlacement(
  file: { path: string; text: string },
  failToPassNames: readonly string[],
  pass: string,
  fail: string,
): Placement {
  // Named the way this suite names the tests it collects (python_functions may differ from test_*).
  const prefix = /^([A-Za-z]+_?)/.exec(failToPassNames[0] ?? '')?.[1] ?? 'test_';
  const { same, other } = numbers(pass);
  const text = `\n\ndef ${prefix}${pass}():\n    assert ${same} == ${same}\n\n\ndef ${prefix}${fail}():\n    assert ${same} == ${other}\n`;
  return {
    runner: 'pytest',
    heldOutPath: file.path,
    write: { path: file.path, text, append: true },
    names: { mustPass: pass, mustFail: fail },
  };
}

/** The assertion module and function the file itself uses, so a patched assert reaches the sentinels too. */
function assertionOf(text: string): { specifier: string; method: string } {
  const specifier = /(['"])((?:node:)?assert(?:\/strict)?)\1/.exec(text)?.[2] ?? 'node:assert/strict';
  const methods = ['strictEqual', 'equal', 'deepStrictEqual', 'deepEqual'];
  const used = methods
    .map((method) => ({ method, count: text.split(`.${method}(`).length - 1 }))
    .sort((a, b) => b.count - a.count)[0];
  return { specifier, method: used !== undefined && used.count > 0 ? used.method : 'strictEqual' };
}

function isModule(path: string, text: string): boolean {
  if (/\.m[jt]s$/.test(path)) return true;
  if (/\.c[jt]s$/.test(path)) return false;
  return /^\s*(?:import\s+[\w{*'"]|export\s)/m.test(text);
}

function nodeTestPlacement(file: { path: string; text: string }, pass: string, fail: string): Placement {
  const { specifier, method } = assertionOf(file.text);
  const { same, other } = numbers(pass);
  const test = `t${pass}`;
  const check = `a${pass}`;
  const imports = isModule(file.path, file.text)
    ? `import { test as ${test} } from 'node:test';\nimport ${check} from '${specifier}';\n`
    : `const { test: ${test} } = require('node:test');\nconst ${check} = require('${specifier}');\n`;
  const text = `\n${imports}${test}('handles case ${pass}', () => {\n  ${check}.${method}(${same}, ${same});\n});\n${test}('handles case ${fail}', () => {\n  ${check}.${method}(${same}, ${other});\n});\n`;
  return {
    runner: 'node-test',
    heldOutPath: file.path,
    write: { path: file.path, text, append: true },
    names: { mustPass: pass, mustFail: fail },
  };
}

function jestLikePlacement(
  runner: 'jest' | 'vitest',
  file: { path: string; text: string },
  pass: string,
  fail: string,
): Placement {
  const { same, other } = numbers(pass);
  // Globals unless the file imports them: then the same module, so a patched expect reaches the sentinels too.
  const source = /(['"])(vitest|@jest\/globals)\1/.exec(file.text)?.[2];
  const test = `t${pass}`;
  const expect = `e${pass}`;
  const imports =
    source === undefined
      ? `const ${test} = test;\nconst ${expect} = expect;\n`
      : isModule(file.path, file.text)
        ? `import { test as ${test}, expect as ${expect} } from '${source}';\n`
        : `const { test: ${test}, expect: ${expect} } = require('${source}');\n`;
  const text = `\n${imports}${test}('handles case ${pass}', () => {\n  ${expect}(${same}).toBe(${same});\n});\n${test}('handles case ${fail}', () => {\n  ${expect}(${same}).toBe(${other});\n});\n`;
  return {
    runner,
    heldOutPath: file.path,
    write: { path: file.path, text, append: true },
    names: { mustPass: pass, mustFail: fail },
  };
}

function goPlacement(file: { path: string; text: string }, pass: string, fail: string): Placement | string {
  const clause = /^package\s+([A-Za-z_][A-Za-z0-9_]*)\s*$/m.exec(file.text)?.[1];
  if (clause === undefined) return `${file.path} has no package clause for the sentinels to share`;
  // A file of its own (Go wants imports first), in the same package: compiled into the same test binary.
  const base = posix.basename(file.path, '_test.go');
  const path = posix.join(dirname(file.path), `${base}_${pass.toLowerCase()}_test.go`);
  const mustPass = `Test${pass.toUpperCase()}`;
  const mustFail = `Test${fail.toUpperCase()}`;
  const { same, other } = numbers(pass);
  const text = `package ${clause}\n\nimport "testing"\n\nfunc ${mustPass}(t *testing.T) {\n\tif got := ${same}; got != ${same} {\n\t\tt.Fatalf("got %d", got)\n\t}\n}\n\nfunc ${mustFail}(t *testing.T) {\n\tif got := ${same}; got != ${other} {\n\t\tt.Fatalf("got %d", got)\n\t}\n}\n`;
  return {
    runner: 'go-test',
    heldOutPath: file.path,
    write: { path, text, append: false },
    names: { mustPass, mustFail },
  };
}

function cargoPlacement(file: { path: string; text: string }, pass: string, fail: string): Placement {
  const mustPass = `t${pass}`;
  const mustFail = `t${fail}`;
  const { same, other } = numbers(pass);
  const text = `\n#[test]\nfn ${mustPass}() {\n    assert_eq!(${same}, ${same});\n}\n\n#[test]\nfn ${mustFail}() {\n    assert_eq!(${same}, ${other});\n}\n`;
  return {
    runner: 'cargo-test',
    heldOutPath: file.path,
    write: { path: file.path, text, append: true },
    names: { mustPass, mustFail },
  };
}

// ---- does the command run the sentinels' file? ----

const PYTEST_WITH_VALUE = new Set([
  '-p',
  '-o',
  '-c',
  '-W',
  '-n',
  '-r',
  '--rootdir',
  '--basetemp',
  '--junitxml',
  '--ignore',
  '--ignore-glob',
  '--confcutdir',
  '--maxfail',
  '--tb',
  '--durations',
  '--import-mode',
]);
const NODE_WITH_VALUE = new Set([
  '-r',
  '--require',
  '--import',
  '--loader',
  '--experimental-loader',
  '-C',
  '--conditions',
  '--test-concurrency',
  '--test-timeout',
]);
const GO_WITH_VALUE = new Set([
  '-run',
  '-skip',
  '-count',
  '-timeout',
  '-tags',
  '-p',
  '-parallel',
  '-bench',
  '-benchtime',
  '-cpu',
  '-coverprofile',
  '-coverpkg',
  '-covermode',
  '-o',
  '-mod',
  '-ldflags',
  '-gcflags',
]);

/** Words that are neither options nor option values. */
function positionals(args: readonly string[], withValue: ReadonlySet<string>): string[] {
  const found: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] ?? '';
    if (arg === '--') {
      found.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-')) found.push(arg);
    else if (withValue.has(arg)) i += 1;
  }
  return found;
}

/** A path argument names the file itself or a folder holding it. */
function pathSelects(argument: string, path: string): boolean {
  const target = posix.normalize(argument.split('::', 1)[0] ?? argument).replace(/\/$/, '');
  return target === '.' || target === path || path.startsWith(`${target}/`);
}

function selectingArgv(plan: RunnerPlan, placement: Placement): string[] | string {
  const { argv } = plan;
  const path = placement.heldOutPath;
  const notSelected = `the command does not run ${path}, where the sentinels are`;
  switch (plan.runner) {
    case 'pytest': {
      const start = argv[1] === '-m' ? 3 : 1;
      const args = argv.slice(start);
      if (args.some((arg) => /^(-k|-m|--deselect|--lf|--last-failed|--sw|--stepwise)(=|$)/.test(arg)))
        return 'the command selects tests by name or marker: sentinels might be deselected';
      const words = positionals(args, PYTEST_WITH_VALUE);
      return words.length === 0 || words.some((word) => pathSelects(word, path)) ? [...argv] : notSelected;
    }
    case 'node-test': {
      if (argv.some((arg) => /^--test-(name|skip)-pattern(=|$)/.test(arg)))
        return 'the command selects tests by name: sentinels might be skipped';
      const words = positionals(argv.slice(1), NODE_WITH_VALUE);
      if (words.some((word) => /[*?{[]/.test(word))) return 'the command names files by glob';
      return words.length === 0 || words.some((word) => pathSelects(word, path)) ? [...argv] : notSelected;
    }
    case 'jest':
    case 'vitest': {
      const after = argv.slice(argv.findIndex((arg) => /(^|\/)(jest|vitest)$/.test(arg)) + 1);
      const words = positionals(after, new Set(['--outputFile', '--reporter', '--config', '-c'])).filter(
        (word) => word !== 'run',
      );
      return words.length === 0 ? [...argv] : 'the command filters test files: sentinels might be filtered out';
    }
    case 'go-test':
      return goArgv(argv, path, placement.names);
    case 'cargo-test':
      return cargoArgv(argv, path, placement.names);
    case 'maven-surefire':
    case 'plain':
      return notSelected;
  }
}

function goArgv(argv: readonly string[], path: string, names: CanaryNames): string[] | string {
  const args = argv.slice(2);
  const stop = args.indexOf('-args');
  const own = stop === -1 ? args : args.slice(0, stop);
  const dir = posix.dirname(path);
  const patterns = positionals(own, GO_WITH_VALUE);
  const selects = (pattern: string) => {
    const clean = posix.normalize(pattern);
    if (clean === './...' || clean === '...') return true;
    if (clean.endsWith('/...')) {
      const root = posix.normalize(clean.slice(0, -4));
      return root === '.' || dir === root || dir.startsWith(`${root}/`);
    }
    return clean === dir || (clean === '.' && dir === '.');
  };
  if (!(patterns.length === 0 ? dir === '.' : patterns.some(selects)))
    return `the command does not test the package of ${path}`;
  const at = argv.findIndex((arg) => arg === '-run' || arg === '--run' || /^--?run=/.test(arg));
  if (at === -1) return [...argv];
  const inline = /^--?run=(.*)$/s.exec(argv[at] ?? '');
  const filter = inline?.[1] ?? argv[at + 1] ?? '';
  // -run splits its pattern at slashes into one pattern per subtest level; widening one with a slash is not sound.
  if (filter.includes('/')) return 'the command selects subtests by pattern';
  const widened = `(${filter})|^(${names.mustPass}|${names.mustFail})$`;
  const result = [...argv];
  if (inline) result[at] = `-run=${widened}`;
  else result[at + 1] = widened;
  return result;
}

function cargoArgv(argv: readonly string[], path: string, names: CanaryNames): string[] | string {
  const separator = argv.indexOf('--');
  const cargoArgs = separator === -1 ? argv : argv.slice(0, separator);
  const harness = separator === -1 ? [] : argv.slice(separator + 1);
  const target = /^tests\/([^/]+)(?:\.rs|\/main\.rs)$/.exec(path)?.[1] ?? '';
  const named: string[] = [];
  let onlyOthers = false;
  for (let i = 0; i < cargoArgs.length; i += 1) {
    const arg = cargoArgs[i] ?? '';
    if (arg === '--test') named.push(cargoArgs[(i += 1)] ?? '');
    else if (arg.startsWith('--test=')) named.push(arg.slice('--test='.length));
    else if (/^--(lib|bins?|doc|examples?|benches|bench)(=|$)/.test(arg)) onlyOthers = true;
  }
  const allTests = cargoArgs.some((arg) => arg === '--tests' || arg === '--all-targets');
  const runsTarget = named.includes(target) || allTests || (named.length === 0 && !onlyOthers);
  if (!runsTarget) return `the command does not build the test target of ${path}`;
  const filters = positionals(
    harness.filter((arg) => !arg.startsWith('--format')),
    new Set(['--skip', '--test-threads', '--color', '-Z']),
  );
  if (harness.includes('--skip')) return 'the command skips tests by name';
  // libtest runs a test matching any filter word: the sentinels' names join the task's own filters.
  if (filters.length === 0) return [...argv];
  return [...argv, names.mustPass, names.mustFail];
}
