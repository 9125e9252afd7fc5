import { describe, expect, it } from 'vitest';
import type { ParsedReport, TestStatus } from '../../src/test-reports/index.js';
import { RunnerPlanError, planRunner, summarizeRun } from '../../src/verification/runner-recipes.js';
import type { RunnerPlan, VerificationRole } from '../../src/verification/runner-recipes.js';
import { errorCode } from '../test-reports/error-code.js';
import { PYTEST_NODE_ID_PLUGIN } from '../../src/test-reports/pytest-node-ids.js';
import { JASMINE_REPORTER, LAB_REPORTER, RUNNER_REPORT_ENV } from '../../src/test-reports/runner-reporters.js';

const dir = '/tmp/abp-report-0';

describe('planRunner', () => {
  it.each([
    [['pytest', 'tests/test_x.py', '-q']],
    [['py.test', '-q']],
    [['python', '-m', 'pytest', '-q']],
    [['/usr/bin/python3.11', '-m', 'pytest']],
  ])('pytest: %j gets a junit file outside the checkout and no cache', (argv) => {
    expect(planRunner(argv, dir)).toEqual({
      runner: 'pytest',
      argv: [...argv, '-p', 'no:cacheprovider', '-p', 'abp_pytest_node_ids', `--junitxml=${dir}/junit.xml`],
      report: { format: 'junit-xml', source: { kind: 'file', path: `${dir}/junit.xml` } },
      files: [{ name: 'abp_pytest_node_ids.py', text: PYTEST_NODE_ID_PLUGIN.text }],
      env: { PYTHONPATH: dir },
    });
  });

  it("pytest: abp's plugin folder comes before the command's own PYTHONPATH", () => {
    expect(planRunner(['pytest'], dir, { PYTHONPATH: 'src' }).env).toEqual({ PYTHONPATH: `${dir}:src` });
  });

  it('pytest: options go before a `--` so they are not taken as file names', () => {
    expect(planRunner(['pytest', '-q', '--', '-weird-file.py'], dir).argv).toEqual([
      'pytest',
      '-q',
      '-p',
      'no:cacheprovider',
      '-p',
      'abp_pytest_node_ids',
      `--junitxml=${dir}/junit.xml`,
      '--',
      '-weird-file.py',
    ]);
  });

  it('python without -m pytest is plain', () => {
    expect(planRunner(['python3', 'run_tests.py'], dir)).toEqual({
      runner: 'plain',
      argv: ['python3', 'run_tests.py'],
      report: null,
      files: [],
      env: {},
    });
  });

  it('go test: -json and -count=1 right after "test", report on stdout', () => {
    expect(planRunner(['go', 'test', './...', '-run', 'TestA'], dir)).toEqual({
      runner: 'go-test',
      argv: ['go', 'test', '-json', '-count=1', './...', '-run', 'TestA'],
      report: { format: 'go-test-json', source: { kind: 'stdout' } },
      files: [],
      env: {},
    });
    expect(planRunner(['go', 'test', '-json', '-count=3', './...'], dir).argv).toEqual([
      'go',
      'test',
      '-json',
      '-count=3',
      './...',
    ]);
    expect(planRunner(['go', 'vet', './...'], dir).runner).toBe('plain');
  });

  it('cargo test: --no-fail-fast and libtest pretty format, report on stdout', () => {
    expect(planRunner(['cargo', 'test'], dir)).toEqual({
      runner: 'cargo-test',
      argv: ['cargo', 'test', '--no-fail-fast', '--', '--format=pretty'],
      report: { format: 'libtest', source: { kind: 'stdout' } },
      files: [],
      env: {},
    });
    // cargo's -q and -v would hide or rewrite the lines that name each test binary.
    expect(planRunner(['cargo', '+stable', 'test', '-q', 'parser', '--', '--test-threads=1'], dir).argv).toEqual([
      'cargo',
      '+stable',
      'test',
      'parser',
      '--no-fail-fast',
      '--',
      '--test-threads=1',
      '--format=pretty',
    ]);
    expect(planRunner(['cargo', 'test', '--no-fail-fast', '--', '--format', 'pretty'], dir).argv).toEqual([
      'cargo',
      'test',
      '--no-fail-fast',
      '--',
      '--format',
      'pretty',
    ]);
    expect(planRunner(['cargo', 'build'], dir).runner).toBe('plain');
  });

  it('node --test: spec to stdout and junit to the report dir, replacing the task’s own reporters', () => {
    expect(planRunner(['node', '--test', 'test/a.test.mjs'], dir)).toEqual({
      runner: 'node-test',
      argv: [
        'node',
        '--test',
        '--test-reporter=spec',
        '--test-reporter-destination=stdout',
        '--test-reporter=junit',
        `--test-reporter-destination=${dir}/junit.xml`,
        'test/a.test.mjs',
      ],
      report: { format: 'junit-xml', source: { kind: 'file', path: `${dir}/junit.xml` } },
      files: [],
      env: {},
    });
    expect(
      planRunner(
        ['node', '--import', 'tsx', '--test-reporter', 'tap', '--test', '--test-reporter-destination=out.tap'],
        dir,
      ).argv,
    ).toEqual([
      'node',
      '--import',
      'tsx',
      '--test',
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=junit',
      `--test-reporter-destination=${dir}/junit.xml`,
    ]);
    // --test after the script is the script's own argument, not node's.
    expect(planRunner(['node', 'script.js', '--test'], dir).runner).toBe('plain');
  });

  it('vitest: run once, its own JSON report beside the default console reporter', () => {
    // A plain --outputFile: the .json form crashes vitest when the project's configuration gives a string.
    const junit = ['--reporter=default', '--reporter=json', `--outputFile=${dir}/vitest.json`];
    expect(planRunner(['vitest', 'run', 'test/a.test.ts'], dir)).toEqual({
      runner: 'vitest',
      argv: ['vitest', 'run', 'test/a.test.ts', ...junit],
      report: { format: 'vitest-json', source: { kind: 'file', path: `${dir}/vitest.json` } },
      files: [],
      env: {},
    });
    expect(planRunner(['npx', 'vitest', 'test/a.test.ts'], dir).argv).toEqual([
      'npx',
      'vitest',
      'test/a.test.ts',
      '--run',
      ...junit,
    ]);
    expect(planRunner(['npx', '--yes', 'vitest', 'run'], dir).runner).toBe('vitest');
    expect(planRunner(['pnpm', 'exec', 'vitest', 'run'], dir).runner).toBe('vitest');
    expect(planRunner(['./node_modules/.bin/vitest', 'run'], dir).runner).toBe('vitest');
  });

  it('jest: --json to a file in the report dir', () => {
    expect(planRunner(['npx', 'jest', 'src/math.test.js'], dir)).toEqual({
      runner: 'jest',
      argv: ['npx', 'jest', 'src/math.test.js', '--json', `--outputFile=${dir}/jest.json`],
      report: { format: 'jest-json', source: { kind: 'file', path: `${dir}/jest.json` } },
      files: [],
      env: {},
    });
  });

  it('maven: Surefire reports are read from the checkout (they cannot be moved from the command line)', () => {
    const plan = planRunner(['mvn', '-q', '-Dtest=MathTest', 'test'], dir);
    expect(plan.runner).toBe('maven-surefire');
    expect(plan.argv).toEqual(['mvn', '-q', '-Dtest=MathTest', 'test']);
    const source = plan.report?.source;
    if (source?.kind !== 'files') throw new Error(`expected a files source, got ${JSON.stringify(source)}`);
    expect(source.dir).toBe('.');
    expect(
      ['target/surefire-reports/TEST-demo.MathTest.xml', 'core/target/surefire-reports/TEST-a.B.xml'].every((file) =>
        source.pattern.test(file),
      ),
    ).toBe(true);
    expect(
      [
        'target/surefire-reports/demo.MathTest.txt',
        'target/failsafe-reports/TEST-a.xml',
        'target/surefire-reports/x/TEST-a.xml',
      ].some((file) => source.pattern.test(file)),
    ).toBe(false);
    expect(planRunner(['./mvnw', 'verify'], dir).runner).toBe('maven-surefire');
    expect(planRunner(['mvn', 'compile'], dir).runner).toBe('plain');
  });

  it.each([[['npm', 'test']], [['pnpm', 'test', '--', 'a.test.ts']], [['yarn', 'test']], [['make', 'check']]])(
    '%j is plain',
    (argv) => {
      expect(planRunner(argv, dir)).toEqual({ runner: 'plain', argv, report: null, files: [], env: {} });
    },
  );

  it('has mocha write its xunit report where the grader says, in place of the reporter the task asked for', () => {
    expect(planRunner(['npx', 'mocha', '-R', 'dot', 'test/a.js', '--watch', '--reporter-option=x=1'], dir)).toEqual({
      runner: 'mocha',
      argv: ['npx', 'mocha', 'test/a.js', '--reporter', 'xunit', '--reporter-option', `output=${dir}/mocha.xml`],
      report: { format: 'junit-xml', source: { kind: 'file', path: `${dir}/mocha.xml` } },
      files: [],
      env: {},
    });
    expect(planRunner(['node_modules/.bin/_mocha', '--', '--grep', 'x'], dir).argv).toEqual([
      'node_modules/.bin/_mocha',
      '--reporter',
      'xunit',
      '--reporter-option',
      `output=${dir}/mocha.xml`,
      '--',
      '--grep',
      'x',
    ]);
  });

  it('ava: its own --tap on stdout, without watch, fail-fast, snapshot updates or a second --tap', () => {
    expect(
      planRunner(
        ['node_modules/.bin/ava', '--watch', '-t', '--fail-fast', '-u', '--serial', 'test/a.js', '--', 'x'],
        dir,
      ),
    ).toEqual({
      runner: 'ava',
      argv: ['node_modules/.bin/ava', '--serial', 'test/a.js', '--tap', '--', 'x'],
      report: { format: 'tap', source: { kind: 'stdout' } },
      files: [],
      env: {},
    });
    expect(planRunner(['npx', '--yes', 'ava', '--verbose', '--match', 'adds*'], dir).argv).toEqual([
      'npx',
      '--yes',
      'ava',
      '--match',
      'adds*',
      '--tap',
    ]);
  });

  it('node-tap: its built-in TAP reporter on stdout in place of the task’s, no bail, no coverage verdict', () => {
    expect(
      planRunner(
        ['node_modules/.bin/tap', '-R', 'spec', '--bail', '--100', '--branches=90', '-Rterse', 'test/a.js', '-j4'],
        dir,
      ),
    ).toEqual({
      runner: 'node-tap',
      argv: ['node_modules/.bin/tap', 'test/a.js', '-j4', '--reporter=tap'],
      report: { format: 'tap', source: { kind: 'stdout' } },
      files: [],
      env: { TAP_DISABLE_COVERAGE: '1' },
    });
    expect(
      planRunner(['pnpm', 'exec', 'tap', 'run', '--reporter-file', 'out.xml', '--no-coverage', '--grep=x'], dir).argv,
    ).toEqual(['pnpm', 'exec', 'tap', 'run', '--no-coverage', '--grep=x', '--reporter=tap']);
  });

  it('tape: as it is, its TAP on stdout read the tape way (tests are the `# name` lines)', () => {
    expect(planRunner(['node_modules/.bin/tape', '-r', 'esm', 'test/**/*.js'], dir)).toEqual({
      runner: 'tape',
      argv: ['node_modules/.bin/tape', '-r', 'esm', 'test/**/*.js'],
      report: { format: 'tape-tap', source: { kind: 'stdout' } },
      files: [],
      env: {},
    });
  });

  it('qunit: its tap reporter in place of the task’s, never watching', () => {
    expect(planRunner(['node_modules/.bin/qunit', '-r', 'console', '--watch', '--require', 'x', 'test/'], dir)).toEqual(
      {
        runner: 'qunit',
        argv: ['node_modules/.bin/qunit', '--require', 'x', 'test/', '--reporter', 'tap'],
        report: { format: 'tap', source: { kind: 'stdout' } },
        files: [],
        env: {},
      },
    );
    expect(planRunner(['npx', 'qunit', '--reporter=tap', 'test/a.js'], dir).argv).toEqual([
      'npx',
      'qunit',
      'test/a.js',
      '--reporter',
      'tap',
    ]);
  });

  it('jasmine: abp’s reporter in place of any other, its report path in the environment, one process, no fail-fast', () => {
    expect(
      planRunner(
        ['node_modules/.bin/jasmine', '--reporter=mine.js', '--parallel=4', '--fail-fast', '--random=false'],
        dir,
      ),
    ).toEqual({
      runner: 'jasmine',
      argv: ['node_modules/.bin/jasmine', '--random=false', `--reporter=${dir}/${JASMINE_REPORTER.module}`],
      report: { format: 'runner-json', source: { kind: 'file', path: `${dir}/jasmine.json` } },
      files: [{ name: JASMINE_REPORTER.module, text: JASMINE_REPORTER.text }],
      env: { [RUNNER_REPORT_ENV]: `${dir}/jasmine.json` },
    });
  });

  it('lab: its console and abp’s reporter in place of the task’s; no coverage threshold, lint, type tests, bail or dry run', () => {
    const plan = planRunner(
      [
        'node_modules/.bin/lab',
        '-a',
        '@hapi/code',
        '-t',
        '100',
        '-L',
        '-m',
        '5000',
        '-Y',
        '-r',
        'junit',
        '-o',
        'x.xml',
      ],
      dir,
    );
    expect(plan).toEqual({
      runner: 'lab',
      argv: [
        ...['node_modules/.bin/lab', '-a', '@hapi/code', '-m', '5000', '-t', '0', '-r', 'console', '-o', 'stdout'],
        ...['-r', `${dir}/${LAB_REPORTER.module}`, '-o', `${dir}/lab.json`],
      ],
      report: { format: 'runner-json', source: { kind: 'file', path: `${dir}/lab.json` } },
      files: [{ name: LAB_REPORTER.module, text: LAB_REPORTER.text }],
      env: {},
    });
    expect(
      planRunner(['npx', 'lab', '--coverage', '--threshold=90', '--bail', '--dry', 'test/a.js'], dir).argv,
    ).toEqual([
      ...['npx', 'lab', 'test/a.js', '-t', '0', '-r', 'console', '-o', 'stdout'],
      ...['-r', `${dir}/${LAB_REPORTER.module}`, '-o', `${dir}/lab.json`],
    ]);
  });

  it('bun test: its JUnit reporter to the report dir in place of the task’s; no bail, snapshot update or coverage', () => {
    expect(
      planRunner(['bun', 'test', '--reporter=dots', '--bail', '-u', '--coverage', '--timeout', '9000', 'lib'], dir),
    ).toEqual({
      runner: 'bun-test',
      argv: ['bun', 'test', '--timeout', '9000', 'lib', '--reporter=junit', `--reporter-outfile=${dir}/bun.xml`],
      report: { format: 'junit-xml', source: { kind: 'file', path: `${dir}/bun.xml` } },
      files: [],
      env: {},
    });
  });

  it('ctest: its JUnit report to the report dir, from the ctest that runs the tests (the inner one of --build-and-test)', () => {
    expect(planRunner(['ctest', '--output-on-failure', '--output-junit', 'mine.xml'], dir)).toEqual({
      runner: 'ctest',
      argv: ['ctest', '--output-on-failure', '--output-junit', `${dir}/ctest.xml`],
      report: { format: 'junit-xml', source: { kind: 'file', path: `${dir}/ctest.xml` } },
      files: [],
      env: {},
    });
    const built = [
      'ctest',
      '--build-and-test',
      '.',
      'b',
      '--build-generator',
      'Ninja',
      '--test-command',
      'ctest',
      '-j2',
    ];
    expect(planRunner(built, dir).argv).toEqual([...built, '--output-junit', `${dir}/ctest.xml`]);
    // A test command that is not ctest leaves no CTest report: judged by its exit code.
    const other = planRunner(['ctest', '--build-and-test', '.', 'b', '--test-command', './run-tests'], dir);
    expect(other).toMatchObject({ runner: 'ctest', report: null });
    expect(other.argv).not.toContain('--output-junit');
  });

  it('refuses an empty argv and a relative report dir', () => {
    expect(errorCode(RunnerPlanError, () => planRunner([], dir))).toBe('empty-argv');
    expect(errorCode(RunnerPlanError, () => planRunner(['pytest'], 'reports'))).toBe('relative-report-dir');
  });
});

const reportOf = (...statuses: TestStatus[]): ParsedReport => ({
  format: 'junit-xml',
  tests: statuses.map((status, index) => ({ id: `t${index}`, status, durationMs: null })),
});
const pytestPlan: RunnerPlan = planRunner(['pytest'], dir);
const plainPlan: RunnerPlan = planRunner(['npm', 'test'], dir);
const summarize = (
  role: VerificationRole,
  exitCode: number | null,
  report: ParsedReport | null,
  reportError?: string,
) => summarizeRun({ plan: pytestPlan, role, exitCode, report, ...(reportError === undefined ? {} : { reportError }) });

describe('summarizeRun', () => {
  it('passes on exit 0 with a report of passing tests, and counts them', () => {
    expect(summarize('failToPass', 0, reportOf('pass', 'pass'))).toEqual({
      passed: true,
      evidence: 'report',
      tests: { total: 2, pass: 2, fail: 0, error: 0, skip: 0 },
      reasons: [],
    });
  });

  it('exit code 0 with failures in the report does not pass', () => {
    const verdict = summarize('passToPass', 0, reportOf('pass', 'fail', 'error'));
    expect(verdict.passed).toBe(false);
    expect(verdict.evidence).toBe('report');
    expect(verdict.tests).toEqual({ total: 3, pass: 1, fail: 1, error: 1, skip: 0 });
    expect(verdict.reasons).toContain('exit code 0 disagrees with report: it lists a failure');
  });

  it('a non-zero exit code fails even when the report lists no failure', () => {
    const verdict = summarize('passToPass', 1, reportOf('pass'));
    expect(verdict.passed).toBe(false);
    expect(verdict.reasons).toEqual(['exit code 1 disagrees with report: it lists no failure']);
  });

  it('a missing report is no evidence at all', () => {
    expect(summarize('passToPass', 0, null)).toEqual({
      passed: false,
      evidence: 'none',
      tests: { total: 0, pass: 0, fail: 0, error: 0, skip: 0 },
      reasons: ['no report: no evidence the suite ran'],
    });
  });

  it('an unreadable report is no evidence either, and says why', () => {
    const verdict = summarize('passToPass', 2, null, 'junit-xml: not well-formed XML');
    expect(verdict).toMatchObject({ passed: false, evidence: 'none' });
    expect(verdict.reasons).toEqual(['exit code 2', 'report unreadable: junit-xml: not well-formed XML']);
  });

  it('a report with no tests does not pass', () => {
    const verdict = summarize('passToPass', 0, reportOf());
    expect(verdict.passed).toBe(false);
    expect(verdict.reasons).toEqual(['the report lists no tests']);
  });

  it('failToPass: a skipped test counts as not passed', () => {
    const verdict = summarize('failToPass', 0, reportOf('pass', 'skip'));
    expect(verdict.passed).toBe(false);
    expect(verdict.reasons).toHaveLength(1);
  });

  it('passToPass: skips are allowed, but at least one test must have passed', () => {
    expect(summarize('passToPass', 0, reportOf('pass', 'skip')).passed).toBe(true);
    const allSkipped = summarize('passToPass', 0, reportOf('skip', 'skip'));
    expect(allSkipped.passed).toBe(false);
    expect(allSkipped.reasons).toEqual(['no test passed']);
  });

  it('a killed run (no exit code) does not pass, even with a clean partial report', () => {
    const verdict = summarize('passToPass', null, reportOf('pass'));
    expect(verdict.passed).toBe(false);
    expect(verdict.evidence).toBe('report');
  });

  it('plain runners are judged by exit code alone', () => {
    expect(summarizeRun({ plan: plainPlan, role: 'failToPass', exitCode: 0, report: null })).toEqual({
      passed: true,
      evidence: 'exit-code',
      tests: { total: 0, pass: 0, fail: 0, error: 0, skip: 0 },
      reasons: [],
    });
    expect(summarizeRun({ plan: plainPlan, role: 'failToPass', exitCode: 1, report: null })).toMatchObject({
      passed: false,
      evidence: 'exit-code',
      reasons: ['exit code 1'],
    });
    expect(summarizeRun({ plan: plainPlan, role: 'passToPass', exitCode: null, report: null })).toMatchObject({
      passed: false,
      evidence: 'none',
    });
  });

  it('refuses a report of another format than the plan names', () => {
    const goReport: ParsedReport = { format: 'go-test-json', tests: [] };
    expect(
      errorCode(RunnerPlanError, () =>
        summarizeRun({ plan: pytestPlan, role: 'passToPass', exitCode: 0, report: goReport }),
      ),
    ).toBe('report-format-mismatch');
    expect(
      errorCode(RunnerPlanError, () =>
        summarizeRun({ plan: plainPlan, role: 'passToPass', exitCode: 0, report: reportOf('pass') }),
      ),
    ).toBe('report-format-mismatch');
  });
});
