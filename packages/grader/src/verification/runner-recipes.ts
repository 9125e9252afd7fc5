// Owns how each known test runner is made to leave a machine-readable report (planRunner)
// and how one verification command's exit code and report become a verdict (summarizeRun).
// Planning is pure data; running the command and reading the report is the caller's job.

import path from 'node:path';
import type { ParsedReport, ReportFormat } from '../test-reports/index.js';
import { PYTEST_NODE_ID_PLUGIN } from '../test-reports/pytest-node-ids.js';
import { JASMINE_REPORTER, LAB_REPORTER, RUNNER_REPORT_ENV } from '../test-reports/runner-reporters.js';
import { OPTIONS_WITH_VALUE } from './runner-options.js';
import { AbpError } from '@abp/protocol/errors';

export type RunnerName =
  | 'pytest'
  | 'go-test'
  | 'vitest'
  | 'jest'
  | 'mocha'
  | 'node-test'
  | 'cargo-test'
  | 'maven-surefire'
  | 'ava'
  | 'node-tap'
  | 'tape'
  | 'qunit'
  | 'ctest'
  | 'jasmine'
  | 'lab'
  | 'bun-test'
  | 'plain';

export type ReportSource =
  | { readonly kind: 'file'; readonly path: string }
  /**
   * Every file under `dir` (recursively; relative to the command's working directory when
   * not absolute) whose `/`-separated path relative to `dir` matches `pattern`. The caller
   * must delete matching files before the run, so files left or planted earlier cannot count.
   */
  | { readonly kind: 'files'; readonly dir: string; readonly pattern: RegExp }
  | { readonly kind: 'stdout' };

export interface RunnerPlan {
  readonly runner: RunnerName;
  readonly argv: string[];
  readonly report: { readonly format: ReportFormat; readonly source: ReportSource } | null;
  /** abp's own helper files, which the caller writes into the report folder (its path in `argv`) before the run. */
  readonly files: ReadonlyArray<{ readonly name: string; readonly text: string }>;
  /** Variables set over the command's own for the run. */
  readonly env: Readonly<Record<string, string>>;
}

export type VerificationRole = 'failToPass' | 'passToPass';

export interface TestCounts {
  readonly total: number;
  readonly pass: number;
  readonly fail: number;
  readonly error: number;
  readonly skip: number;
}

export interface CommandVerdict {
  readonly passed: boolean;
  readonly evidence: 'report' | 'exit-code' | 'none';
  readonly tests: TestCounts;
  /** Why the command did not pass; empty when it passed. */
  readonly reasons: string[];
}

export interface RunSummaryInput {
  readonly plan: RunnerPlan;
  readonly role: VerificationRole;
  /** null when the process was killed (timeout, signal) before it could exit. */
  readonly exitCode: number | null;
  /** null when the runner should have left a report and none was found. */
  readonly report: ParsedReport | null;
  /** Why the report could not be parsed (a TestReportError's message), when it could not. */
  readonly reportError?: string;
  /**
   * The frozen FAIL_TO_PASS and PASS_TO_PASS ids: when given, only these are judged (a failure elsewhere, failing
   * before the fix too or flaky, does not count) and the exit code only cross-checks the report.
   */
  readonly graded?: ReadonlySet<string>;
  /** Ids neither judged nor counted: the grader's own sentinel tests. */
  readonly ignore?: (id: string) => boolean;
}

export type RunnerPlanErrorCode = 'empty-argv' | 'relative-report-dir' | 'report-format-mismatch';

export class RunnerPlanError extends AbpError<RunnerPlanErrorCode> {}

const PYTHON = /^python(\d+(\.\d+)*)?$/;
const SUREFIRE_GOALS = /^(test|package|verify|install|deploy)$|:test$/;
const NODE_REPORTER_OPTIONS = new Set(['--test-reporter', '--test-reporter-destination']);

/**
 * How to run `argv` so it leaves a report abp can read. `reportDir` is where the report and abp's helper files go,
 * as the command sees it; `env` holds the command's own variables (a task's `PYTHONPATH` is kept behind abp's).
 */
export function planRunner(
  argv: readonly string[],
  reportDir: string,
  env: Readonly<Record<string, string>> = {},
): RunnerPlan {
  const program = argv[0];
  if (program === undefined) {
    throw new RunnerPlanError('empty-argv', 'planRunner needs the verification command as argv; got an empty array');
  }
  if (!path.isAbsolute(reportDir)) {
    // A relative path would resolve inside the checkout, where the agent's files live.
    throw new RunnerPlanError(
      'relative-report-dir',
      `report directory ${JSON.stringify(reportDir)} must be absolute and outside the checkout, e.g. a fresh fs.mkdtemp() dir`,
    );
  }
  const name = baseName(program);
  if (name === 'pytest' || name === 'py.test' || (PYTHON.test(name) && argv[1] === '-m' && argv[2] === 'pytest')) {
    return planPytest(argv, reportDir, env);
  }
  if (name === 'go' && argv[1] === 'test') return planGoTest(argv);
  if (name === 'cargo') {
    const testAt = argv[1]?.startsWith('+') === true ? 2 : 1;
    if (argv[testAt] === 'test') return planCargoTest(argv, testAt);
  }
  if (name === 'node' && nodeTestFlagIndex(argv) !== -1) return planNodeTest(argv, reportDir);
  if (name === 'ctest') return planCtest(argv, reportDir);
  if (name === 'bun' && argv[1] === 'test') return planBunTest(argv, reportDir);
  if ((name === 'mvn' || name === 'mvnw') && argv.slice(1).some((arg) => SUREFIRE_GOALS.test(arg))) {
    return planMavenSurefire(argv);
  }
  const jsBin = javaScriptBinIndex(argv);
  const jsName = jsBin === -1 ? undefined : baseName(argv[jsBin] ?? '');
  if (jsName === 'vitest') return planVitest(argv, jsBin, reportDir);
  if (jsName === 'jest') return planJest(argv, reportDir);
  if (jsName === 'mocha' || jsName === '_mocha') return planMocha(argv, jsBin, reportDir);
  if (jsName === 'ava') return planAva(argv, jsBin);
  if (jsName === 'tap') return planNodeTap(argv, jsBin);
  if (jsName === 'tape') return tapPlan('tape', [...argv], 'tape-tap');
  if (jsName === 'qunit') return planQunit(argv, jsBin);
  if (jsName === 'jasmine') return planJasmine(argv, jsBin, reportDir);
  if (jsName === 'lab') return planLab(argv, jsBin, reportDir);
  // npm/pnpm/yarn `test` scripts hide which runner they call: trust the exit code only.
  return { runner: 'plain', argv: [...argv], report: null, files: [], env: {} };
}

function planPytest(argv: readonly string[], reportDir: string, env: Readonly<Record<string, string>>): RunnerPlan {
  const file = path.join(reportDir, 'junit.xml');
  const own = env['PYTHONPATH'];
  // Options go before any `--`, after the task's own, so our --junitxml wins over a task's.
  return {
    runner: 'pytest',
    argv: beforeDoubleDash(argv, ['-p', 'no:cacheprovider', '-p', PYTEST_NODE_ID_PLUGIN.module, `--junitxml=${file}`]),
    report: { format: 'junit-xml', source: { kind: 'file', path: file } },
    files: [{ name: `${PYTEST_NODE_ID_PLUGIN.module}.py`, text: PYTEST_NODE_ID_PLUGIN.text }],
    env: {
      PYTHONPATH: own === undefined || own === '' ? reportDir : `${reportDir}${path.delimiter}${own}`,
    },
  };
}

function planGoTest(argv: readonly string[]): RunnerPlan {
  const extra = [
    ...(argv.includes('-json') ? [] : ['-json']),
    // -count=1 bypasses the test cache, so a cached pass from before the fix cannot count.
    ...(argv.some((arg) => /^--?count(=|$)/.test(arg)) ? [] : ['-count=1']),
  ];
  return {
    runner: 'go-test',
    argv: [...argv.slice(0, 2), ...extra, ...argv.slice(2)],
    report: { format: 'go-test-json', source: { kind: 'stdout' } },
    files: [],
    env: {},
  };
}

function planCargoTest(argv: readonly string[], testAt: number): RunnerPlan {
  const head = argv.slice(0, testAt + 1);
  const rest = argv.slice(testAt + 1);
  const separator = rest.indexOf('--');
  // cargo's own -q hides, and -v rewrites, the "Running <target>" lines that name each test binary's tests.
  const cargoRest = (separator === -1 ? rest : rest.slice(0, separator)).filter(
    (arg) => !/^(-q|--quiet|-v+|--verbose)$/.test(arg),
  );
  // Without --no-fail-fast cargo stops at the first failing test binary and later ones never report.
  const cargoArgs = cargoRest.includes('--no-fail-fast') ? cargoRest : [...cargoRest, '--no-fail-fast'];
  const harnessArgs = separator === -1 ? [] : rest.slice(separator + 1);
  // `-q` would make libtest print terse dots; the parser reads the one-line-per-test format.
  const formatArgs = harnessArgs.some((arg) => arg === '--format' || arg.startsWith('--format='))
    ? []
    : ['--format=pretty'];
  return {
    runner: 'cargo-test',
    argv: [...head, ...cargoArgs, '--', ...harnessArgs, ...formatArgs],
    report: { format: 'libtest', source: { kind: 'stdout' } },
    files: [],
    env: {},
  };
}

function planNodeTest(argv: readonly string[], reportDir: string): RunnerPlan {
  const file = path.join(reportDir, 'junit.xml');
  // Node pairs every --test-reporter with a destination by position; a task's own reporters
  // would shift the pairing, so they are replaced (they only change what the log looks like).
  const withoutReporters = argv.filter((arg, index) => {
    const option = arg.split('=', 1)[0] ?? arg;
    const isValueOfPrevious = !arg.startsWith('-') && NODE_REPORTER_OPTIONS.has(argv[index - 1] ?? '');
    return !NODE_REPORTER_OPTIONS.has(option) && !isValueOfPrevious;
  });
  const at = withoutReporters.indexOf('--test') + 1;
  return {
    runner: 'node-test',
    argv: [
      ...withoutReporters.slice(0, at),
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=junit',
      `--test-reporter-destination=${file}`,
      ...withoutReporters.slice(at),
    ],
    report: { format: 'junit-xml', source: { kind: 'file', path: file } },
    files: [],
    env: {},
  };
}

function planMavenSurefire(argv: readonly string[]): RunnerPlan {
  // Surefire's reportsDirectory has no user property (-DreportsDirectory is ignored), so the
  // reports land in each module's target/surefire-reports inside the checkout.
  return {
    runner: 'maven-surefire',
    argv: [...argv],
    report: {
      format: 'junit-xml',
      source: { kind: 'files', dir: '.', pattern: /(^|\/)target\/surefire-reports\/TEST-[^/]+\.xml$/ },
    },
    files: [],
    env: {},
  };
}

function planVitest(argv: readonly string[], binAt: number, reportDir: string): RunnerPlan {
  const file = path.join(reportDir, 'vitest.json');
  // --run: without a TTY vitest runs once anyway, but a grader must never sit in watch mode. --outputFile takes a
  // plain path: `--outputFile.json=` crashes vitest when the project's configuration gives outputFile as a string.
  const runOnce = argv[binAt + 1] === 'run' ? [] : ['--run'];
  return {
    runner: 'vitest',
    argv: beforeDoubleDash(argv, [...runOnce, '--reporter=default', '--reporter=json', `--outputFile=${file}`]),
    report: { format: 'vitest-json', source: { kind: 'file', path: file } },
    files: [],
    env: {},
  };
}

function planJest(argv: readonly string[], reportDir: string): RunnerPlan {
  const file = path.join(reportDir, 'jest.json');
  return {
    runner: 'jest',
    argv: beforeDoubleDash(argv, ['--json', `--outputFile=${file}`]),
    report: { format: 'jest-json', source: { kind: 'file', path: file } },
    files: [],
    env: {},
  };
}

const MOCHA_REPORTER_OPTIONS = new Set(['--reporter', '-R', '--reporter-option', '--reporter-options', '-O']);

function planMocha(argv: readonly string[], binAt: number, reportDir: string): RunnerPlan {
  const file = path.join(reportDir, 'mocha.xml');
  // One reporter per run: a task's own (and its options) would take the report's place, so they are replaced; watch
  // mode is never a grader's.
  const own = argv.filter((arg, index) => {
    const option = arg.split('=', 1)[0] ?? arg;
    const isValueOfPrevious =
      index > binAt && !arg.startsWith('-') && MOCHA_REPORTER_OPTIONS.has(argv[index - 1] ?? '');
    return !MOCHA_REPORTER_OPTIONS.has(option) && !isValueOfPrevious && arg !== '--watch' && arg !== '-w';
  });
  return {
    runner: 'mocha',
    argv: beforeDoubleDash(own, ['--reporter', 'xunit', '--reporter-option', `output=${file}`]),
    report: { format: 'junit-xml', source: { kind: 'file', path: file } },
    files: [],
    env: {},
  };
}

const CTEST_JUNIT = '--output-junit';

function planCtest(argv: readonly string[], reportDir: string): RunnerPlan {
  const file = path.join(reportDir, 'ctest.xml');
  // `ctest --build-and-test … --test-command ctest …` builds what changed, then runs the inner ctest in the build
  // folder: the report option belongs to whichever ctest runs the tests, so it goes last, replacing any of the task's.
  const own: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] ?? '';
    if (arg === CTEST_JUNIT) i += 1;
    else if (!arg.startsWith(`${CTEST_JUNIT}=`)) own.push(arg);
  }
  const testCommand = own.indexOf('--test-command');
  const runsCtest = testCommand === -1 || baseName(own[testCommand + 1] ?? '') === 'ctest';
  return {
    runner: 'ctest',
    argv: runsCtest ? [...own, CTEST_JUNIT, file] : own,
    // A test command other than ctest writes no CTest report: the exit code is all there is.
    report: runsCtest ? { format: 'junit-xml', source: { kind: 'file', path: file } } : null,
    files: [],
    env: {},
  };
}

function planBunTest(argv: readonly string[], reportDir: string): RunnerPlan {
  const file = path.join(reportDir, 'bun.xml');
  // One reporter, ours; --bail leaves tests unrun, -u rewrites the snapshots the graded tests compare with, and a
  // coverage threshold fails a run whose tests all passed.
  const own = withoutOptions(argv, 1, {
    flags: ['--watch', '--bail', '--update-snapshots', '-u', '--coverage', '--only'],
    withValue: ['--reporter', '--reporter-outfile', '--coverage-reporter', '--coverage-dir'],
  });
  return {
    runner: 'bun-test',
    argv: beforeDoubleDash(own, ['--reporter=junit', `--reporter-outfile=${file}`]),
    report: { format: 'junit-xml', source: { kind: 'file', path: file } },
    files: [],
    env: {},
  };
}

function planJasmine(argv: readonly string[], binAt: number, reportDir: string): RunnerPlan {
  // jasmine takes one reporter, which replaces its console's: ours, which prints a line per spec as well. It reports
  // from one process only, so --parallel goes; --fail-fast leaves specs unrun.
  const own = withoutOptions(argv, binAt, { flags: ['--fail-fast'], withValue: ['--reporter', '--parallel'] });
  const reporter = path.join(reportDir, JASMINE_REPORTER.module);
  const file = path.join(reportDir, 'jasmine.json');
  return {
    runner: 'jasmine',
    argv: beforeDoubleDash(own, [`--reporter=${reporter}`]),
    report: { format: 'runner-json', source: { kind: 'file', path: file } },
    files: [{ name: JASMINE_REPORTER.module, text: JASMINE_REPORTER.text }],
    env: { [RUNNER_REPORT_ENV]: file },
  };
}

function planLab(argv: readonly string[], binAt: number, reportDir: string): RunnerPlan {
  // Its console reporter on stdout and ours to a file; the task's reporters go. A coverage threshold, lint and the type
  // tests fail a run whose tests all passed, and a verdict on coverage, style or typings is not one on tests (hapi's
  // type tests, run as code, throw after lab has reported): -t 0 also undoes a .labrc's threshold. --bail leaves tests
  // unrun, and a dry run runs none.
  const own = withoutOptions(argv, binAt, {
    flags: [
      ...['-c', '--coverage', '--coverage-all', '--coverage-flat', '-L', '--lint', '-Y', '--types'],
      ...['--bail', '-d', '--dry'],
    ],
    withValue: [
      ...['-r', '--reporter', '-o', '--output', '-t', '--threshold', '--coverage-path', '--coverage-exclude'],
      ...['-n', '--linter', '--lint-errors-threshold', '--lint-warnings-threshold', '--lint-options', '--types-test'],
    ],
  });
  const reporter = path.join(reportDir, LAB_REPORTER.module);
  const file = path.join(reportDir, 'lab.json');
  return {
    runner: 'lab',
    argv: beforeDoubleDash(own, ['-t', '0', '-r', 'console', '-o', 'stdout', '-r', reporter, '-o', file]),
    report: { format: 'runner-json', source: { kind: 'file', path: file } },
    files: [{ name: LAB_REPORTER.module, text: LAB_REPORTER.text }],
    env: {},
  };
}

// ---- the runners that speak TAP on stdout, each with its own reporter: no reporter package is needed ----

function planAva(argv: readonly string[], binAt: number): RunnerPlan {
  // --tap once, ours; watch mode is never a grader's; --fail-fast leaves tests unrun and -u would rewrite the snapshots
  // the graded tests compare with; --verbose only changes the human reporter.
  const own = withoutOptions(argv, binAt, {
    flags: ['--tap', '-t', '--watch', '-w', '--fail-fast', '--update-snapshots', '-u', '--verbose', '-v'],
    withValue: [],
  });
  return tapPlan('ava', beforeDoubleDash(own, ['--tap']), 'tap');
}

function planNodeTap(argv: readonly string[], binAt: number): RunnerPlan {
  // One reporter, ours, on stdout (-f would send it to a file). --bail stops at the first failure, --changed and
  // --save run only some files, --snapshot rewrites snapshots. Coverage thresholds fail a run whose tests all passed
  // (node-tap 15 and later check 100% unless told otherwise), and a coverage verdict is not a test verdict.
  const own = withoutOptions(argv, binAt, {
    flags: ['--watch', '-w', '--bail', '-b', '--changed', '-n', '--snapshot', '-S', '--100', '--check-coverage'],
    withValue: [
      '--reporter',
      '-R',
      '--reporter-arg',
      '-r',
      '--reporter-file',
      '-f',
      '--save',
      '-s',
      '--coverage-report',
      '--branches',
      '--functions',
      '--lines',
      '--statements',
    ],
  });
  return {
    ...tapPlan('node-tap', beforeDoubleDash(own, ['--reporter=tap']), 'tap'),
    // node-tap 18 and later read options from TAP_* variables: no coverage at all, so none can fail the run. Node-tap
    // 16 rejects --disable-coverage and ignores this variable; detection gives its commands --no-coverage instead.
    env: { TAP_DISABLE_COVERAGE: '1' },
  };
}

function planQunit(argv: readonly string[], binAt: number): RunnerPlan {
  const own = withoutOptions(argv, binAt, { flags: ['--watch', '-w'], withValue: ['--reporter', '-r'] });
  return tapPlan('qunit', beforeDoubleDash(own, ['--reporter', 'tap']), 'tap');
}

function tapPlan(runner: RunnerName, argv: string[], format: 'tap' | 'tape-tap'): RunnerPlan {
  return { runner, argv, report: { format, source: { kind: 'stdout' } }, files: [], env: {} };
}

/**
 * `argv` without the runner's options `flags` and `withValue` (with their values: `--opt=v`, `--opt v`, `-Xv`,
 * `-X v`) after the binary at `binAt` and before any `--`.
 */
function withoutOptions(
  argv: readonly string[],
  binAt: number,
  drop: { flags: readonly string[]; withValue: readonly string[] },
): string[] {
  const flags = new Set(drop.flags);
  const withValue = new Set(drop.withValue);
  const kept = argv.slice(0, binAt + 1);
  for (let i = binAt + 1; i < argv.length; i += 1) {
    const arg = argv[i] ?? '';
    if (arg === '--') {
      kept.push(...argv.slice(i));
      break;
    }
    if (flags.has(arg)) continue;
    if (withValue.has(arg)) {
      if (!(argv[i + 1] ?? '-').startsWith('-')) i += 1;
      continue;
    }
    const long = arg.startsWith('--') && withValue.has(arg.split('=', 1)[0] ?? arg);
    const short = /^-[A-Za-z]./.test(arg) && !arg.startsWith('--') && withValue.has(arg.slice(0, 2));
    if (!long && !short) kept.push(arg);
  }
  return kept;
}

/** Index of the `--test` flag among node's own options (before the script), or -1: `node --import tsx --test` too. */
function nodeTestFlagIndex(argv: readonly string[]): number {
  for (let i = 1; i < argv.length; i += 1) {
    const arg = argv[i] ?? '';
    if (arg === '--test') return i;
    if (!arg.startsWith('-')) return -1;
    if (OPTIONS_WITH_VALUE['node-test'].has(arg)) i += 1;
  }
  return -1;
}

/** Where the JavaScript test runner's binary sits: argv[0], or after `npx [flags]` / `pnpm exec`. */
function javaScriptBinIndex(argv: readonly string[]): number {
  const launcher = baseName(argv[0] ?? '');
  if (launcher === 'npx') return argv.findIndex((arg, index) => index > 0 && !arg.startsWith('-'));
  if (launcher === 'pnpm' && argv[1] === 'exec') return argv.length > 2 ? 2 : -1;
  return 0;
}

function beforeDoubleDash(argv: readonly string[], extra: readonly string[]): string[] {
  const separator = argv.indexOf('--');
  return separator === -1 ? [...argv, ...extra] : [...argv.slice(0, separator), ...extra, ...argv.slice(separator)];
}

function baseName(program: string): string {
  return program.slice(program.lastIndexOf('/') + 1);
}

export function summarizeRun(input: RunSummaryInput): CommandVerdict {
  const { plan, role, exitCode, report } = input;
  if (report !== null && report.format !== plan.report?.format) {
    throw new RunnerPlanError(
      'report-format-mismatch',
      `a ${report.format} report was given for a ${plan.runner} plan that expects ${plan.report === null ? 'no report' : plan.report.format}; parse the report the plan names`,
    );
  }
  const all = report?.tests ?? [];
  const ignore = input.ignore;
  const own = ignore === undefined ? all : all.filter((test) => !ignore(test.id));
  const tests = countTests(own);
  const exitReason =
    exitCode === null ? 'the process ended without an exit code (killed or timed out)' : `exit code ${exitCode}`;

  if (plan.report === null) {
    return exitCode === 0
      ? { passed: true, evidence: 'exit-code', tests, reasons: [] }
      : { passed: false, evidence: exitCode === null ? 'none' : 'exit-code', tests, reasons: [exitReason] };
  }
  if (input.reportError !== undefined || report === null) {
    const missing =
      input.reportError === undefined
        ? 'no report: no evidence the suite ran'
        : `report unreadable: ${input.reportError}`;
    return { passed: false, evidence: 'none', tests, reasons: exitCode === 0 ? [missing] : [exitReason, missing] };
  }

  // The exit code cross-checks the whole report, sentinels included: a run whose report and exit code disagree broke.
  const reasons: string[] = [];
  const anyFailure = all.some((test) => test.status === 'fail' || test.status === 'error');
  const failed = tests.fail + tests.error > 0;
  if (exitCode === null) reasons.push(exitReason);
  else if (exitCode !== 0 && !anyFailure && tests.total > 0)
    reasons.push(`${exitReason} disagrees with report: it lists no failure`);
  else if (exitCode === 0 && anyFailure) reasons.push('exit code 0 disagrees with report: it lists a failure');
  if (tests.total === 0)
    reasons.push(exitCode === 0 ? 'the report lists no tests' : `the report lists no tests (${exitReason})`);
  if (input.graded !== undefined) {
    // Judged by the frozen sets: only their ids count here; one missing from every report fails the trial elsewhere.
    const graded = input.graded;
    const notPassed = own.filter((test) => graded.has(test.id) && test.status !== 'pass');
    if (notPassed.length > 0)
      reasons.push(
        `${notPassed.length} graded test${notPassed.length === 1 ? '' : 's'} did not pass: ${notPassed
          .slice(0, 5)
          .map((test) => `${test.id} (${test.status})`)
          .join(', ')}${notPassed.length > 5 ? ', …' : ''}`,
      );
    return { passed: reasons.length === 0, evidence: 'report', tests, reasons };
  }
  if (failed) reasons.push(`report: ${tests.fail} failed, ${tests.error} errors`);
  if (role === 'failToPass' && tests.skip > 0) {
    reasons.push(`${tests.skip} skipped: a failToPass test counts only if it ran and passed`);
  }
  if (role === 'passToPass' && tests.total > 0 && tests.pass === 0) reasons.push('no test passed');
  return { passed: reasons.length === 0, evidence: 'report', tests, reasons };
}

function countTests(tests: ParsedReport['tests']): TestCounts {
  const counts = { total: 0, pass: 0, fail: 0, error: 0, skip: 0 };
  for (const test of tests) {
    counts.total += 1;
    counts[test.status] += 1;
  }
  return counts;
}
