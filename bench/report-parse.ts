// How the JUnit, Jest/Vitest JSON, go test -json and abp-runner-report (jasmine, lab) readers hold up as reports grow to the hundreds of megabytes a large
// suite with long failure output writes: the time per megabyte and the heap grown, from 2 MB to 200 MB, against the 2 MB
// report of the same shape read in the same run (a ratio near 1 is linear reading). 200 MB stays under
// MAX_REPORT_BYTES (256 MiB), past which a report is refused by its size before it is read.
//   node --expose-gc bin/run-ts.js bench/report-parse.ts
import { parseReport } from '@abp/grader/test-reports';
import type { ReportFormat } from '@abp/grader/test-reports';
import { MAX_REPORT_BYTES } from '@abp/grader/verification';

const MB = 1024 * 1024;
// A failure's output as real suites print it: a stack trace and a diff, Unicode included.
const TRACE = Array.from({ length: 12 }, (_, line) => `    at frame${line} (src/módulo/файл${line}.ts:${line}:7)`).join(
  '\n',
);

function junit(bytes: number): string {
  const cases: string[] = [];
  let size = 0;
  for (let index = 0; size < bytes; index += 1) {
    const failed = index % 5 === 0;
    const text = `<testcase classname="pkg.sub.Class${index % 97}" name="test ${index} [param-${index % 7}] ✓" time="0.012">${
      failed ? `<failure message="expected 1 to be 2"><![CDATA[AssertionError\n${TRACE}]]></failure>` : ''
    }</testcase>`;
    cases.push(text);
    size += text.length;
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites><testsuite name="all">${cases.join('\n')}</testsuite></testsuites>\n`;
}

function jest(bytes: number): string {
  const files: unknown[] = [];
  let size = 0;
  for (let file = 0; size < bytes; file += 1) {
    const assertionResults = Array.from({ length: 50 }, (_, index) => ({
      ancestorTitles: ['suite', `nested ${index % 4}`],
      title: `case ${index} ünï`,
      status: index % 5 === 0 ? 'failed' : 'passed',
      duration: 1.5,
      failureMessages: index % 5 === 0 ? [`Error: expected 1 to be 2\n${TRACE}`] : [],
    }));
    const entry = { name: `/work/repo/test/file${file}.test.js`, status: 'failed', assertionResults };
    files.push(entry);
    size += JSON.stringify(entry).length;
  }
  return JSON.stringify({ testResults: files });
}

function goJson(bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let index = 0; size < bytes; index += 1) {
    const event = (action: string, extra: object = {}) =>
      JSON.stringify({
        Action: action,
        Package: `example.com/m/pkg${index % 40}`,
        Test: `Test${index}/sub_✓`,
        ...extra,
      });
    const batch = [
      event('run'),
      event('output', { Output: `${TRACE}\n` }),
      event(index % 5 === 0 ? 'fail' : 'pass', { Elapsed: 0.01 }),
    ];
    lines.push(...batch);
    size += batch.join('\n').length;
  }
  return `${lines.join('\n')}\n`;
}

function runnerJson(bytes: number): string {
  const tests: unknown[] = [];
  let size = 0;
  for (let index = 0; size < bytes; index += 1) {
    const failed = index % 5 === 0;
    const test = {
      id: `spec/file${index % 300}.spec.js > suite ${index % 13} > case ${index} ünï`,
      status: failed ? 'fail' : 'pass',
      durationMs: 1.5,
      ...(failed ? { message: `Expected 1 to be 2.\n${TRACE}` } : {}),
    };
    tests.push(test);
    size += JSON.stringify(test).length;
  }
  return JSON.stringify({ format: 'abp-runner-report/1', runner: 'jasmine', tests });
}

const SHAPES: ReadonlyArray<[string, ReportFormat, (bytes: number) => string]> = [
  ['JUnit, 1 in 5 failing with a trace', 'junit-xml', junit],
  ['Jest JSON, 50 tests a file', 'jest-json', jest],
  ['go test -json, output per test', 'go-test-json', goJson],
  ['abp-runner-report, 1 in 5 failing', 'runner-json', runnerJson],
];
const SIZES_MB = [2, 50, 200];
const gc = (globalThis as { gc?: () => void }).gc;

function measure(format: ReportFormat, text: string): { ms: number; tests: number; heapMb: number } {
  gc?.();
  const before = process.memoryUsage().heapUsed;
  const started = performance.now();
  const report = parseReport(format, text, { rootDir: '/work/repo' });
  const ms = performance.now() - started;
  const heapMb = (process.memoryUsage().heapUsed - before) / MB;
  return { ms, tests: report.tests.length, heapMb };
}

console.log(
  `report readers from 2 MB to 200 MB (refused past ${MAX_REPORT_BYTES / MB} MB); ratio: time per MB / 2 MB's`,
);
for (const [name, format, make] of SHAPES) {
  let baseline = 0;
  for (const sizeMb of SIZES_MB) {
    const text = make(sizeMb * MB);
    const mb = Buffer.byteLength(text) / MB;
    const { ms, tests, heapMb } = measure(format, text);
    const perMb = ms / mb;
    if (sizeMb === SIZES_MB[0]) baseline = perMb;
    console.log(
      `${name.padEnd(36)} ${mb.toFixed(0).padStart(4)} MB ${String(tests).padStart(8)} tests ${(ms / 1000).toFixed(2).padStart(7)} s  ${perMb.toFixed(1).padStart(6)} ms/MB  ${(perMb / baseline).toFixed(2)}×  heap +${heapMb.toFixed(0)} MB`,
    );
  }
}
