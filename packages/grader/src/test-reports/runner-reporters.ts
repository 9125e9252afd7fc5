// Owns the reporters abp gives the runners whose own reports lose what an id needs, and the one JSON document they write
// (read by runner-report.ts). jasmine has no file reporter at all; lab's junit and json reporters drop the difference
// between a skip and a pass (json) or a todo and a skip (junit). Each reporter names a test as its runner does
// (docs/test-ids.md) and writes the document only once the run is over, through a temporary file and a rename, so a
// run cut short leaves no report rather than a partial one.

export const RUNNER_REPORT_FORMAT = 'abp-runner-report/1';

/** The variable that tells jasmine's reporter where to write (lab's writes where `-o` points, as its own do). */
export const RUNNER_REPORT_ENV = 'ABP_RUNNER_REPORT';

const header = (runner: string) => [
  `// Written by abp for this run: ${runner}'s results as one ${RUNNER_REPORT_FORMAT} document.`,
  "'use strict';",
  `const FORMAT = '${RUNNER_REPORT_FORMAT}';`,
];

/**
 * jasmine (through `--reporter=<file>`): a spec is its file relative to the working directory, where jasmine's results
 * carry it (5.13 and 7 do), then its suites and title, joined by ` > `. A suite whose `afterAll` failed and an error
 * outside every spec (a file that fails to load) are error results of their own, so the report agrees with jasmine's
 * exit code. It prints one line per spec, since it replaces jasmine's console reporter.
 */
export const JASMINE_REPORTER = {
  module: 'abp-jasmine-reporter.cjs',
  text: [
    ...header('jasmine'),
    "const fs = require('node:fs');",
    "const path = require('node:path');",
    // jasmine 7 marks a spec that cannot run here (a browser-only one under Node) notApplicable.
    "const STATUS = { passed: 'pass', failed: 'fail', pending: 'skip', excluded: 'skip', notApplicable: 'skip' };",
    'const failures = (result) =>',
    '  (result.failedExpectations || []).map((e) => [e.message, e.stack].filter(Boolean).join("\\n")).join("\\n\\n");',
    'module.exports = class AbpJasmineReporter {',
    '  constructor() { this.suites = []; this.tests = []; }',
    '  name(result, titles) {',
    "    const file = typeof result.filename === 'string' ? [path.relative(process.cwd(), result.filename).split(path.sep).join('/')] : [];",
    "    return [...file, ...titles].join(' > ');",
    '  }',
    '  add(id, status, result, note) {',
    "    const duration = typeof result.duration === 'number' ? result.duration : null;",
    "    const message = [note, failures(result)].filter(Boolean).join('\\n');",
    "    this.tests.push(message === '' ? { id, status, durationMs: duration } : { id, status, durationMs: duration, message });",
    "    process.stdout.write(`${status === 'pass' ? 'ok' : status === 'skip' ? 'skip' : 'FAIL'} ${id}\\n${message === '' ? '' : `${message}\\n`}`);",
    '  }',
    '  suiteStarted(result) { this.suites.push(result.description); }',
    '  specDone(result) {',
    '    const status = STATUS[result.status];',
    '    const id = this.name(result, [...this.suites, result.description]);',
    "    this.add(id, status || 'error', result, status ? '' : `jasmine reported the status ${JSON.stringify(result.status)}`);",
    '  }',
    '  suiteDone(result) {',
    "    if ((result.failedExpectations || []).length > 0) this.add(this.name(result, [...this.suites, '[afterAll]']), 'error', result);",
    '    this.suites.pop();',
    '  }',
    '  jasmineDone(result) {',
    "    if ((result.failedExpectations || []).length > 0) this.add('[outside any spec]', 'error', result);",
    `    const out = process.env.${RUNNER_REPORT_ENV};`,
    '    if (!out) return;',
    "    fs.writeFileSync(`${out}.partial`, JSON.stringify({ format: FORMAT, runner: 'jasmine', tests: this.tests }));",
    '    fs.renameSync(`${out}.partial`, out);',
    '  }',
    '};',
    '',
  ].join('\n'),
} as const;

/**
 * lab (through `-r <file> -o <report>`): a test is its title as lab prints and `--grep` matches it, the describe titles
 * and its own joined by a space; lab names no file. A skipped and a todo test are skips. Errors outside tests, leaked
 * globals and failed type tests make lab exit non-zero with no failed test: each is an error result of its own.
 */
export const LAB_REPORTER = {
  module: 'abp-lab-reporter.cjs',
  text: [
    ...header('lab'),
    'const message = (error) => String((error && (error.stack || error.message)) || error);',
    'module.exports = class AbpLabReporter {',
    '  constructor(options) { this.settings = options; }',
    '  start() {}',
    '  test() {}',
    '  end(notebook) {',
    '    const tests = (notebook.tests || []).map((test) => {',
    "      const id = [...test.path, test.relativeTitle].join(' ');",
    "      const durationMs = typeof test.duration === 'number' ? test.duration : null;",
    "      if (test.err) return { id, status: 'fail', durationMs, message: message(test.err) };",
    "      return { id, status: test.skipped || test.todo ? 'skip' : 'pass', durationMs };",
    '    });',
    "    const error = (id, text) => tests.push({ id, status: 'error', durationMs: null, message: text });",
    "    for (const failure of notebook.errors || []) error('[outside any test]', message(failure));",
    "    if ((notebook.leaks || []).length > 0) error('[leaked globals]', `globals leaked: ${notebook.leaks.join(', ')}`);",
    "    if ((notebook.types || []).length > 0) error('[type tests]', notebook.types.map(message).join('\\n'));",
    "    this.report(JSON.stringify({ format: FORMAT, runner: 'lab', tests }));",
    '  }',
    '};',
    '',
  ].join('\n'),
} as const;
