// TAP as ava, node-tap, QUnit and tape print it (the fixtures are their real stdout: fixtures/tap/README.md), and a
// seeded generator of TAP documents that checks what no fixture can: any depth, any size, any noise.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TestReportError, parseReport } from '../../src/test-reports/index.js';
import type { ParsedReport, ReportFormat, TestStatus } from '../../src/test-reports/index.js';
import { errorCode } from './error-code.js';
import { seededRandom } from '../../../../test-support/seeded-random.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/tap');
const fixture = (name: string) => readFileSync(path.join(fixtures, name), 'utf8');
const statuses = (report: ParsedReport) => Object.fromEntries(report.tests.map((test) => [test.id, test.status]));
const tap = (text: string) => parseReport('tap', text);

describe('TAP from the real runners', () => {
  it('ava 6.4.1: one point per test, named `file › title` when several files ran, and the title alone for one', () => {
    const two = tap(fixture('ava-6.4.1-two-files.tap'));
    expect(statuses(two)).toEqual({
      'a › fails': 'fail',
      'a › has # hash - and dash': 'pass',
      'a › logs': 'pass',
      'a › passes': 'pass',
      'a › same title': 'pass',
      'a › skipped': 'skip',
      'a › to do later': 'skip',
      'a › ünïcode ✓ 测试': 'pass',
      'b › same title': 'pass',
    });
    expect(two.tests.find((test) => test.id === 'a › fails')?.message).toContain('message: a < b & c');
    expect(Object.keys(statuses(tap(fixture('ava-6.4.1-one-file.tap'))))).toEqual([
      'fails',
      'has # hash - and dash',
      'logs',
      'passes',
      'same title',
      'skipped',
      'to do later',
      'ünïcode ✓ 测试',
    ]);
  });

  it('ava 6.4.1: hooks, crashes and files without tests are failed points of their own, beyond its plan', () => {
    expect(statuses(tap(fixture('ava-6.4.1-crashes.tap')))).toEqual({
      "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/tmp/tapprobe/ava/err/missing.mjs' imported from /tmp/tapprobe/ava/err/import-error.test.mjs":
        'fail',
      'Error: boom later': 'fail',
      'No tests found in err/empty.test.mjs': 'fail',
      'err/import-error.test.mjs exited with a non-zero exit code: 1': 'fail',
      'err/throws.test.mjs exited with a non-zero exit code: 1': 'fail',
      'hook › before hook': 'fail',
      'throws › ok one': 'pass',
    });
  });

  it('node-tap 21.8.0: TAP 14 subtests, named by their path with ` > `; assertions and parents are not tests', () => {
    const report = tap(fixture('tap-21.8.0.tap'));
    expect(statuses(report)).toEqual({
      'test/a.test.mjs > fails': 'fail',
      'test/a.test.mjs > has # hash - and dash': 'pass',
      'test/a.test.mjs > logs': 'pass',
      'test/a.test.mjs > parent > child': 'pass',
      'test/a.test.mjs > parent > child 2 > grandchild': 'fail',
      'test/a.test.mjs > passes': 'pass',
      'test/a.test.mjs > same title': 'pass',
      'test/a.test.mjs > skipped': 'skip',
      'test/a.test.mjs > to do later': 'skip',
      'test/a.test.mjs > ünïcode ✓ 测试': 'pass',
      'test/b.test.mjs > same title': 'pass',
    });
    const fails = report.tests.find((test) => test.id === 'test/a.test.mjs > fails');
    // The failed assertion's own description and diff, then the subtest's YAML.
    expect(fails?.message).toMatch(/^not ok - a < b & c\ncompare: ===/);
    expect(fails?.durationMs).toBe(38.92);
  });

  it('node-tap 16.3.10: the same ids from TAP 13, with nyc’s coverage table after it', () => {
    expect(statuses(tap(fixture('tap-16.3.10.tap')))).toEqual({
      'test/a.test.js > fails': 'fail',
      'test/a.test.js > has # hash - and dash': 'pass',
      'test/a.test.js > parent > child': 'pass',
      'test/a.test.js > parent > child 2 > grandchild': 'fail',
      'test/a.test.js > passes': 'pass',
      'test/a.test.js > same title': 'pass',
      'test/a.test.js > skipped': 'skip',
      'test/a.test.js > to do later': 'skip',
      'test/a.test.js > ünïcode ✓ 测试': 'pass',
      'test/b.test.js > same title': 'pass',
    });
  });

  it('QUnit 2.26.0: module path and test joined by ` > ` in its own descriptions; the printed point is not one', () => {
    const report = tap(fixture('qunit-2.26.0.tap'));
    expect(statuses(report)).toEqual({
      'has # hash - and dash': 'pass',
      logs: 'pass',
      'math > fails': 'fail',
      'math > nested > deep': 'pass',
      'math > nested > deeper > deepest': 'fail',
      'math > passes': 'pass',
      'math > same title': 'pass',
      'math > same title #2': 'pass',
      'math > skipped': 'skip',
      'math > to do later': 'skip',
      'top level': 'pass',
      'top level #2': 'pass',
      'ünïcode ✓ 测试': 'pass',
    });
    expect(report.tests.find((test) => test.id === 'math > fails')?.message).toBe(
      'message: a < b & c\nseverity: failed\nactual  : 2\nexpected: 3\nstack: |\n      at Object.<anonymous> (/tmp/tapprobe/qunit/test/a.js:3:50)',
    );
  });

  it('QUnit 2.26.0: a file that fails to load bails out, yet QUnit runs the rest and plans: an error, not a refusal', () => {
    expect(statuses(tap(fixture('qunit-2.26.0-load-error.tap')))).toEqual({
      '[bail out]': 'error',
      first: 'pass',
      'global failure': 'fail',
      third: 'pass',
    });
  });

  it('tape 5.10.2: each `# name` is a test, failed by any failed assertion under it; subtests under their own names', () => {
    const report = parseReport('tape-tap', fixture('tape-5.10.2.tap'));
    expect(statuses(report)).toEqual({
      child: 'pass',
      'child 2': 'pass',
      fails: 'fail',
      grandchild: 'fail',
      'has # hash - and dash': 'pass',
      logs: 'pass',
      parent: 'pass',
      passes: 'pass',
      'same title': 'pass',
      'same title #2': 'pass',
      skipped: 'skip',
      'to do later': 'skip',
      'ünïcode ✓ 测试': 'pass',
    });
    expect(report.tests.find((test) => test.id === 'fails')?.message).toMatch(
      /^not ok - a < b & c\n {2}operator: equal\n {2}expected: 3\n {2}actual: {3}2/,
    );
  });

  it('refuses runs that did not finish: a bail-out with nothing after it, a crash before the plan', () => {
    expect(errorCode(TestReportError, () => tap(fixture('tap-21.8.0-bailout.tap')))).toBe('unfinished-run');
    expect(errorCode(TestReportError, () => parseReport('tape-tap', fixture('tape-5.10.2-crash.tap')))).toBe(
      'unfinished-run',
    );
  });
});

describe('TAP: the rules', () => {
  it('reads directives in any case at the end, a `#` that starts none as part of the name, and numbers or none', () => {
    const text = [
      'TAP version 13',
      'ok 1 - a # b',
      'ok 2 - c # skip not now',
      'not ok 3 - d #TODO later',
      'not ok 4 e # Todo',
      'ok 5 f#SKIP is a word here',
      'ok 6 - g # time=12.5ms',
      'ok 7 - h \\# SKIP escaped',
      'ok 8',
      '1..8',
    ].join('\r\n');
    expect(tap(text).tests.map((test) => [test.id, test.status, test.durationMs])).toEqual([
      ['(test 8)', 'pass', null],
      ['a # b', 'pass', null],
      ['c', 'skip', null],
      ['d', 'skip', null],
      ['e', 'skip', null],
      ['f#SKIP is a word here', 'pass', null],
      ['g', 'pass', 12.5],
      ['h # SKIP escaped', 'pass', null],
    ]);
    expect(statuses(tap('ok - one\nnot ok - two\nok three\n1..3\n'))).toEqual({
      one: 'pass',
      two: 'fail',
      three: 'pass',
    });
  });

  it('takes no printed line for a point: out of sequence, unnumbered among numbered, indented without a subtest', () => {
    const text = [
      'TAP version 14',
      'ok 1 - real',
      'ok',
      'ok 7 - printed',
      '    ok 1 - printed and indented',
      '  not ok 2 - odd indentation',
      'okay then',
      'not ok 2 - also real',
      '1..2',
    ].join('\n');
    expect(statuses(tap(text))).toEqual({ real: 'pass', 'also real': 'fail' });
  });

  it('a subtest that failed by itself (no failed child) or by its own assertion is a failed test; else only leaves', () => {
    const text = [
      'TAP version 14',
      '# Subtest: by itself',
      '    # Subtest: child',
      '        ok 1 - fine',
      '        1..1',
      '    ok 1 - child',
      '    1..1',
      'not ok 1 - by itself',
      '  ---',
      '  error: thrown after the children',
      '  ...',
      '# Subtest: own assertion',
      '    not ok 1 - own',
      '    # Subtest: kid',
      '        not ok 1 - kid fails',
      '        1..1',
      '    not ok 2 - kid',
      '    1..2',
      'not ok 2 - own assertion',
      '# Subtest: aggregate',
      '    # Subtest: x',
      '        not ok 1 - x fails',
      '        1..1',
      '    not ok 1 - x',
      '    1..1',
      'not ok 3 - aggregate',
      '1..3',
    ].join('\n');
    const report = tap(text);
    expect(statuses(report)).toEqual({
      'aggregate > x': 'fail',
      'by itself': 'fail',
      'by itself > child': 'pass',
      'own assertion': 'fail',
      'own assertion > kid': 'fail',
    });
    expect(report.tests.find((test) => test.id === 'by itself')?.message).toBe('error: thrown after the children');
  });

  it('reads node:test’s TAP 14 (headers before leaf points) and buffered subtests in braces', () => {
    const nodeTest = [
      'TAP version 13',
      '# Subtest: suite',
      '    # Subtest: leaf',
      '    ok 1 - leaf',
      '      ---',
      '      duration_ms: 0.5',
      '      ...',
      '    1..1',
      'ok 1 - suite',
      '1..1',
    ].join('\n');
    expect(statuses(tap(nodeTest))).toEqual({ 'suite > leaf': 'pass' });
    const buffered = ['TAP version 14', 'not ok 1 - outer {', '    not ok 1 - inner', '    1..1', '}', '1..1'].join(
      '\n',
    );
    expect(statuses(tap(buffered))).toEqual({ outer: 'fail' });
  });

  it('ends a subtest at its summary point or the next header, not at a printed `}` or plan further out', () => {
    const text = [
      'TAP version 14',
      '# Subtest: test/a.js',
      '    # Subtest: outer',
      '        # Subtest: inner',
      '}',
      '    1..9',
      '1..10',
      '            ok 1 - assertion',
      '            1..1',
      '        ok 1 - inner',
      '        1..1',
      '    ok 1 - outer',
      '    1..1',
      'ok 1 - test/a.js',
      '1..1',
    ].join('\n');
    expect(statuses(tap(text))).toEqual({ 'test/a.js > outer > inner': 'pass' });
  });

  it('an unfinished subtest is an error; a finished run short of its plan gets an error of its own', () => {
    expect(errorCode(TestReportError, () => tap('TAP version 14\n1..2\n# Subtest: a\n    ok 1 - x\n'))).toBe(
      'unfinished-run',
    );
    expect(errorCode(TestReportError, () => tap('TAP version 13\nok 1 - a\n'))).toBe('unfinished-run');
    expect(errorCode(TestReportError, () => tap('ok 1 - a\nBail out! db down\n1..5\n'.replace('1..5\n', '')))).toBe(
      'unfinished-run',
    );
    // ava plans the tests a failed hook left unrun.
    expect(statuses(tap('TAP version 13\nnot ok 1 - before hook\n\n1..3\n'))).toEqual({
      'before hook': 'fail',
      '[tests missing from the plan]': 'error',
    });
    const orphan = tap('TAP version 14\n# Subtest: a\n    ok 1 - x\n# Subtest: b\nok 1 - b\n1..1\n');
    expect(statuses(orphan)).toEqual({ a: 'error', b: 'pass' });
  });

  it('refuses output with no TAP in it, saying how to get some', () => {
    const refusal = () => tap('PASS  test/a.test.js\n  ✓ adds (3 ms)\n');
    expect(errorCode(TestReportError, refusal)).toBe('malformed-report');
    expect(refusal).toThrow(/ava with --tap, node-tap with --reporter=tap, qunit with --reporter tap or tape/);
    expect(errorCode(TestReportError, () => parseReport('tape-tap', ''))).toBe('malformed-report');
  });

  it('drops colors a forced color setting puts into names', () => {
    expect(statuses(tap('TAP version 13\nok 1 \u001b[33mmath > adds\u001b[39m # SKIP\n1..1\n'))).toEqual({
      'math > adds': 'skip',
    });
  });
});

// ---- a seeded generator of TAP documents ----

interface Draw {
  readonly next: () => number;
  readonly below: (n: number) => number;
  readonly chance: (p: number) => boolean;
  readonly pick: <T>(items: readonly T[]) => T;
}

function draw(seed: number): Draw {
  const next = seededRandom(seed);
  const below = (n: number) => Math.floor(next() * n);
  return { next, below, chance: (p) => next() < p, pick: (items) => items[below(items.length)] as never };
}

// Letters of several scripts (astral ones too), digits, punctuation, `#` and `\` (escaped as TAP 14 says), and inner
// spaces of several kinds; a title starts and ends with a letter so trimming keeps it whole.
const LETTERS = ['a', 'Z', 'é', 'ß', 'ж', 'λ', '测', '試', 'ع', 'ש', '𝔘', '😀', 'ñ', 'Ω'];
const INNER = [...LETTERS, '0', '9', ' ', ' ', '-', '_', '.', ',', '#', '\\', '{', '}', '(', ':', '›', '\u3000', '‐'];

function title(d: Draw, unique: number): string {
  let text = d.pick(LETTERS);
  for (let i = d.below(12); i > 0; i -= 1) text += d.pick(INNER);
  // The sibling's index keeps names unique; the separator never appears inside one.
  return `${text}${d.pick(LETTERS)}${unique}`.replaceAll(' > ', ' >');
}

const escapeTitle = (text: string) => text.replace(/[\\#]/g, '\\$&');

const NOISE = [
  'console output',
  '  indented output',
  '   ok 1 - three spaces are not a level',
  'okay',
  'not okay',
  'TAP version 13',
  '\u001b[31mcolored output\u001b[39m',
  '{"json":"line"}',
  '=== RUN   TestLike',
  '}',
  '{',
];

interface Generated {
  lines: string[];
  expected: Map<string, TestStatus>;
}

/**
 * One block (the document or a subtest's body) at `depth`, in node-tap's style: assertions, leaf tests, announced
 * tests, skipped and todo points, subtests (up to `maxDepth`), YAML blocks, printed noise, a plan first or last.
 * Returns whether the block failed, as its summary point must say.
 */
function block(d: Draw, out: Generated, depth: number, prefix: string, maxDepth: number, budget: { left: number }) {
  const pad = ' '.repeat(depth * 4);
  const numbered = d.chance(0.9);
  const count = 1 + d.below(depth === 0 ? 8 : 5);
  const leadingPlan = d.chance(0.3);
  if (leadingPlan) out.lines.push(`${pad}1..${count}`);
  let failed = false;
  let childTests = 0;
  let childFailed = false;
  let ownFailed = false;
  const point = (n: number, ok: boolean, name: string, suffix = '') => {
    const head = `${ok ? 'ok' : 'not ok'}${numbered ? ` ${n}` : ''}`;
    const separator = !numbered || name.startsWith('-') || /^\d/.test(name) || d.chance(0.7) ? ' - ' : ' ';
    out.lines.push(`${pad}${head}${separator}${escapeTitle(name)}${suffix}`);
  };
  const yaml = () => {
    if (!d.chance(0.3)) return;
    out.lines.push(`${pad}  ---`, `${pad}  message: ${d.pick(['x', 'ok 1 - inside yaml', '# Subtest: no'])}`);
    out.lines.push(`${pad}    ok 2 - deeper yaml`, `${pad}  ...`);
  };
  for (let n = 1; n <= count; n += 1) {
    budget.left -= 1;
    if (d.chance(0.15)) out.lines.push(`${pad}${d.pick(NOISE)}`);
    if (numbered && d.chance(0.1)) out.lines.push(`${pad}ok ${n + 1000} - printed by a test`);
    const name = title(d, n);
    const id = prefix === '' ? name : `${prefix} > ${name}`;
    // The first point of a block dives a level deeper until `maxDepth`, so deep documents are deep.
    const kind = n === 1 && depth < maxDepth && maxDepth > 6 ? 5 : d.below(10);
    if (depth > 0 && kind < 3) {
      // An assertion of this subtest: never a test of its own.
      const ok = d.chance(0.8);
      point(n, ok, name);
      yaml();
      if (!ok) ownFailed = true;
    } else if (kind === 3) {
      const directive = d.pick([' # SKIP', ' # skip not now', ' #TODO', ' # Todo later']);
      point(n, d.chance(0.5), name, directive);
      out.expected.set(id, 'skip');
      childTests += 1;
    } else if (kind < 7 && depth < maxDepth && budget.left > 0) {
      out.lines.push(`${pad}# Subtest: ${escapeTitle(name)}`);
      const inner = block(d, out, depth + 1, id, maxDepth, budget);
      point(n, !inner.failed, name, d.chance(0.5) ? ` # time=${d.below(100)}.5ms` : '');
      yaml();
      if (inner.childTests === 0) out.expected.set(id, inner.failed ? 'fail' : 'pass');
      else if (inner.ownFailed) out.expected.set(id, 'fail');
      childTests += 1;
      if (inner.failed) childFailed = true;
    } else {
      // A leaf test: at the top level as ava and QUnit print them, below it announced as node:test does.
      if (depth > 0) out.lines.push(`${pad}# Subtest: ${escapeTitle(name)}`);
      const ok = d.chance(0.7);
      point(n, ok, name);
      yaml();
      out.expected.set(id, ok ? 'pass' : 'fail');
      childTests += 1;
      if (!ok) childFailed = true;
    }
  }
  if (!leadingPlan) out.lines.push(`${pad}1..${count}`);
  failed = childFailed || ownFailed;
  return { failed, childTests, ownFailed };
}

function document(seed: number, maxDepth: number): { text: string; expected: Map<string, TestStatus> } {
  const d = draw(seed);
  const out: Generated = { lines: [d.pick(['TAP version 13', 'TAP version 14'])], expected: new Map() };
  block(d, out, 0, '', maxDepth, { left: 400 });
  if (d.chance(0.3)) out.lines.push('# tests 5', '# pass 4');
  const crlf = d.chance(0.3);
  return {
    text: out.lines.map((line) => (crlf || d.chance(0.05) ? `${line}\r` : line)).join('\n'),
    expected: out.expected,
  };
}

describe('TAP: generated documents', () => {
  it('reads every generated test once, with its status, whatever the depth, names and noise', () => {
    for (let seed = 1; seed <= 300; seed += 1) {
      const { text, expected } = document(seed, seed % 3 === 0 ? 50 : 6);
      const report = tap(text);
      expect({ seed, statuses: statuses(report) }).toEqual({ seed, statuses: Object.fromEntries(expected) });
      expect(tap(text)).toEqual(report);
    }
  });

  it('reads every generated tape test once: each `# name` with the assertions under it', () => {
    for (let seed = 1; seed <= 200; seed += 1) {
      const d = draw(seed * 31);
      const lines = ['TAP version 13'];
      const expected: Record<string, TestStatus> = {};
      let assertion = 0;
      for (let test = 1 + d.below(20); test > 0; test -= 1) {
        const name = title(d, test);
        const directive = d.pick(['', '', '', 'SKIP ', 'TODO ']);
        lines.push(`# ${directive}${name}`);
        let failed = false;
        for (let count = d.below(4); count > 0; count -= 1) {
          if (d.chance(0.2)) lines.push(d.pick(NOISE), `ok ${assertion + 500} - printed`);
          assertion += 1;
          const ok = d.chance(0.8);
          const todo = directive === 'TODO ' || d.chance(0.1) ? ' # TODO' : '';
          lines.push(`${ok ? 'ok' : 'not ok'} ${assertion} ${title(d, assertion)}${todo}`);
          if (!ok) lines.push('  ---', '    operator: equal', '    expected: 3', '  ...');
          if (!ok && todo === '') failed = true;
        }
        expected[name] = directive === '' ? (failed ? 'fail' : 'pass') : 'skip';
      }
      lines.push('', `1..${assertion}`, `# tests ${assertion}`, '# ok', '');
      expect({ seed, statuses: statuses(parseReport('tape-tap', lines.join(d.chance(0.5) ? '\r\n' : '\n'))) }).toEqual({
        seed,
        statuses: expected,
      });
    }
  });

  it('reaches depth 50 without recursion', () => {
    const lines = ['TAP version 14'];
    const depth = 50;
    for (let level = 0; level < depth; level += 1) lines.push(`${' '.repeat(level * 4)}# Subtest: level ${level}`);
    lines.push(`${' '.repeat(depth * 4)}not ok 1 - bottom`, `${' '.repeat(depth * 4)}1..1`);
    for (let level = depth - 1; level >= 0; level -= 1)
      lines.push(`${' '.repeat(level * 4)}not ok 1 - level ${level}`, `${' '.repeat(level * 4)}1..1`);
    // `bottom` is the deepest subtest's assertion, so that subtest is the test that failed.
    const id = Array.from({ length: depth }, (_, level) => `level ${level}`).join(' > ');
    expect(statuses(tap(lines.join('\n')))).toEqual({ [id]: 'fail' });
  });

  it('throws nothing but a TestReportError on cut, shuffled or mangled documents', () => {
    for (let seed = 1; seed <= 300; seed += 1) {
      const d = draw(seed * 7919);
      const lines = document(seed, 8).text.split('\n');
      const mangled = [
        lines.slice(0, d.below(lines.length + 1)),
        [...lines].sort(() => d.next() - 0.5),
        lines.map((line) => (d.chance(0.2) ? line.slice(d.below(line.length + 1)) : line)),
        lines.map((line) => (d.chance(0.2) ? `${' '.repeat(d.below(9))}${line.trimStart()}` : line)),
        [...lines, 'Bail out! late', ...lines.slice(0, 3)],
      ];
      for (const variant of mangled)
        for (const format of ['tap', 'tape-tap'] as ReportFormat[]) {
          const text = variant.join('\n');
          let first: unknown;
          try {
            first = parseReport(format, text);
          } catch (error) {
            expect(error).toBeInstanceOf(TestReportError);
            first = (error as TestReportError).code;
          }
          let second: unknown;
          try {
            second = parseReport(format, text);
          } catch (error) {
            second = (error as TestReportError).code;
          }
          expect(second).toEqual(first);
        }
    }
  });

  it('reads a 50 MB document (linear-time checks are in bench/tap-parse.ts)', { timeout: 120_000 }, () => {
    const parts: string[] = ['TAP version 14'];
    let size = 0;
    let files = 0;
    while (size < 50 * 1024 * 1024) {
      files += 1;
      const chunk = [
        `# Subtest: test/file-${files}.test.js`,
        '    # Subtest: adds ✓ 测试',
        '        ok 1 - should be equal',
        '        1..1',
        '    ok 1 - adds ✓ 测试 # time=1.5ms',
        '    # Subtest: has \\# hash',
        `    ${files % 7 === 0 ? 'not ok' : 'ok'} 2 - has \\# hash # ${files % 5 === 0 ? 'SKIP' : 'time=2ms'}`,
        '      ---',
        '      at: somewhere',
        '      ...',
        '    1..2',
        `${files % 7 === 0 && files % 5 !== 0 ? 'not ok' : 'ok'} ${files} - test/file-${files}.test.js`,
      ].join('\n');
      parts.push(chunk);
      size += chunk.length + 1;
    }
    parts.push(`1..${files}`);
    const report = tap(parts.join('\n'));
    expect(report.tests).toHaveLength(files * 2);
    expect(report.tests.filter((test) => test.status === 'fail')).toHaveLength(
      Math.floor(files / 7) - Math.floor(files / 35),
    );
  });
});
