// How the TAP reader's time grows with the report: the time per megabyte of documents from 1 MB to 50 MB, against the
// 1 MB one measured in the same run (linear reading keeps the ratio near 1), for node-tap's nested TAP 14 and for the
// shapes that break naive readers: one long line full of `#`, subtests 5,000 levels deep, lines full of escapes.
//   node bin/run-ts.js bench/tap-parse.ts
import { parseReport } from '@abp/grader/test-reports';
import type { ReportFormat } from '@abp/grader/test-reports';

const MB = 1024 * 1024;

/** node-tap's shape: one subtest per file, a nested subtest, assertions, a YAML block, a printed line, Unicode names. */
function nestedDocument(bytes: number): string {
  const parts = ['TAP version 14'];
  let size = 0;
  let files = 0;
  while (size < bytes) {
    files += 1;
    const chunk = [
      `# Subtest: test/file-${files}.test.js`,
      '    # Subtest: parse ✓ 测试',
      '        # Subtest: negative \\# zero',
      '            ok 1 - should be equal',
      '            1..1',
      '        ok 1 - negative \\# zero # time=0.5ms',
      '        1..1',
      '    ok 1 - parse ✓ 测试 # time=1.5ms',
      'console output a test printed',
      `    not ok 2 - fails # ${files % 3 === 0 ? 'TODO later' : 'time=2ms'}`,
      '      ---',
      '      at: test/file.test.js:3:7',
      '      diff: |',
      '        -3',
      '        +2',
      '      ...',
      '    1..2',
      `${files % 3 === 0 ? 'ok' : 'not ok'} ${files} - test/file-${files}.test.js`,
    ].join('\n');
    parts.push(chunk);
    size += chunk.length + 1;
  }
  parts.push(`1..${files}`);
  return parts.join('\n');
}

function longLine(bytes: number): string {
  return `TAP version 13\nok 1 - ${'a # b \\# '.repeat(Math.ceil(bytes / 9))}\n1..1\n`;
}

function deep(bytes: number): string {
  // Levels of ~5,000: the indentation itself makes the document quadratic in depth, so depth is capped by the size.
  const levels = Math.max(10, Math.floor(Math.sqrt(bytes / 4)));
  const lines = ['TAP version 14'];
  for (let level = 0; level < levels; level += 1) lines.push(`${' '.repeat(level * 4)}# Subtest: ${level}`);
  lines.push(`${' '.repeat(levels * 4)}ok 1 - bottom`, `${' '.repeat(levels * 4)}1..1`);
  for (let level = levels - 1; level >= 0; level -= 1)
    lines.push(`${' '.repeat(level * 4)}ok 1 - ${level}`, `${' '.repeat(level * 4)}1..1`);
  return lines.join('\n');
}

function escapes(bytes: number): string {
  const lines = ['TAP version 13'];
  let size = 0;
  for (let n = 1; size < bytes; n += 1) {
    const line = `ok ${n} - \u001b[31m${'\\\\\\#'.repeat(20)}\u001b[39m \u001b]8;;x\u0007`;
    lines.push(line);
    size += line.length + 1;
  }
  lines.push(`1..${lines.length - 1}`);
  return lines.join('\n');
}

function secondsPerMB(format: ReportFormat, text: string): number {
  const times: number[] = [];
  for (let round = 0; round < 3; round += 1) {
    const started = performance.now();
    parseReport(format, text);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return (times[1] ?? 0) / 1000 / (text.length / MB);
}

const shapes: Array<[string, (bytes: number) => string, number[]]> = [
  ['nested TAP 14', nestedDocument, [1, 10, 50]],
  ['one long line of #', longLine, [1, 10, 50]],
  ['deep subtests', deep, [1, 10, 50]],
  ['escapes and colors', escapes, [1, 10, 50]],
];
console.log('shape                  size   ms/MB   vs 1 MB');
for (const [name, make, sizes] of shapes) {
  let baseline = 0;
  for (const size of sizes) {
    const text = make(size * MB);
    const perMB = secondsPerMB('tap', text);
    if (size === sizes[0]) baseline = perMB;
    console.log(
      `${name.padEnd(22)} ${`${size} MB`.padStart(5)} ${(perMB * 1000).toFixed(1).padStart(7)} ${`${(perMB / baseline).toFixed(2)}×`.padStart(8)}`,
    );
  }
}
