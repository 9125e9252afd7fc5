// Every report reader against seeded random documents: well-formed ones of the shapes runners write (nested suites,
// titles as arrays, parametrized and Unicode names, repeated ids) give exactly the tests generated, and damaged ones
// (cut short, bytes dropped or inserted, fields of the wrong type, nesting far past any real suite) either read or
// fail as a TestReportError, never as another exception, and the same text always reads the same way.
import { describe, expect, it } from 'vitest';
import { parseReport, TestReportError } from '../../src/test-reports/index.js';
import type { ReportFormat, TestResult, TestStatus } from '../../src/test-reports/index.js';
import { seededRandom } from '../../../../test-support/seeded-random.js';

const PIECES = ['adds', 'ünïcödé', '日本語', 'emoji 🎉', 'a > b', 'x › y', 'param[1-2]', 'quote " and \'', 'tab\there'];

function title(next: () => number): string {
  const count = 1 + Math.floor(next() * 3);
  return Array.from({ length: count }, () => PIECES[Math.floor(next() * PIECES.length)] ?? 'x').join(' ');
}

const STATUSES: readonly TestStatus[] = ['pass', 'fail', 'skip'];

interface Expected {
  id: string;
  status: TestStatus;
}

/** Expected results in the order the model sorts them, repeated ids numbered as finalizeTests numbers them. */
function finalized(expected: readonly Expected[]): Expected[] {
  const taken = new Set<string>();
  return expected
    .map(({ id, status }) => {
      let unique = id;
      for (let n = 2; taken.has(unique); n += 1) unique = `${id} #${n}`;
      taken.add(unique);
      return { id: unique, status };
    })
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

function jestDocument(next: () => number): { text: string; expected: Expected[] } {
  const expected: Expected[] = [];
  const files = Array.from({ length: 1 + Math.floor(next() * 4) }, (_, index) => {
    const name = `/work/checkout/test/file${index}.test.js`;
    const assertionResults = Array.from({ length: Math.floor(next() * 6) }, () => {
      const ancestors = Array.from({ length: Math.floor(next() * 4) }, () => title(next));
      const status = STATUSES[Math.floor(next() * STATUSES.length)] ?? 'pass';
      const own = title(next);
      // Older jest writes some titles as arrays of parts, joined with a space as it prints them.
      const written = next() < 0.2 ? own.split(' ') : own;
      expected.push({ id: [`test/file${index}.test.js`, ...ancestors, own].join(' › '), status });
      return {
        ancestorTitles: ancestors,
        title: written,
        status: status === 'pass' ? 'passed' : status === 'fail' ? 'failed' : 'pending',
        duration: next() * 100,
        failureMessages: status === 'fail' ? ['Error: expected 1 to be 2\n    at <anonymous>'] : [],
      };
    });
    return { name, status: 'passed', assertionResults };
  });
  return { text: JSON.stringify({ testResults: files }), expected };
}

function escapeXml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;')
    .replaceAll('\t', '&#9;');
}

function junitDocument(next: () => number): { text: string; expected: Expected[] } {
  const expected: Expected[] = [];
  const suite = (depth: number): string => {
    const cases = Array.from({ length: Math.floor(next() * 4) }, () => {
      const classname = `pkg.Class${Math.floor(next() * 3)}`;
      const name = title(next);
      const status = STATUSES[Math.floor(next() * STATUSES.length)] ?? 'pass';
      expected.push({ id: `${classname}::${name}`, status });
      const body =
        status === 'fail' ? '<failure message="boom">trace</failure>' : status === 'skip' ? '<skipped/>' : '';
      return `<testcase classname="${escapeXml(classname)}" name="${escapeXml(name)}" time="0.01">${body}</testcase>`;
    });
    const inner = depth < 4 && next() < 0.5 ? suite(depth + 1) : '';
    return `<testsuite name="${escapeXml(title(next))}">${cases.join('')}${inner}</testsuite>`;
  };
  const suites = Array.from({ length: 1 + Math.floor(next() * 3) }, () => suite(0));
  return { text: `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>${suites.join('\n')}</testsuites>\n`, expected };
}

function goDocument(next: () => number): { text: string; expected: Expected[] } {
  const expected: Expected[] = [];
  const lines: string[] = [];
  for (let p = 0; p < 1 + Math.floor(next() * 3); p += 1) {
    const pkg = `example.com/m/pkg${p}`;
    for (let t = 0; t < Math.floor(next() * 5); t += 1) {
      // Subtests as go names them: spaces become underscores.
      const name = `Test${t}${next() < 0.4 ? `/${title(next).replaceAll(' ', '_')}` : ''}`;
      const status = STATUSES[Math.floor(next() * STATUSES.length)] ?? 'pass';
      expected.push({ id: `${pkg}::${name}`, status });
      lines.push(JSON.stringify({ Action: 'run', Package: pkg, Test: name }));
      lines.push(JSON.stringify({ Action: 'output', Package: pkg, Test: name, Output: `=== RUN   ${name}\n` }));
      lines.push(JSON.stringify({ Action: status, Package: pkg, Test: name, Elapsed: 0.01 }));
    }
    lines.push(JSON.stringify({ Action: 'pass', Package: pkg, Elapsed: 0.1 }));
  }
  return { text: `${lines.join('\n')}\n`, expected };
}

/** What abp's jasmine and lab reporters write: ids as the reporter built them, statuses of the model. */
function runnerDocument(next: () => number): { text: string; expected: Expected[] } {
  const expected: Expected[] = [];
  const tests = Array.from({ length: Math.floor(next() * 8) }, () => {
    const id = ['spec/file.spec.js', ...Array.from({ length: Math.floor(next() * 3) }, () => title(next))].join(' > ');
    const status = STATUSES[Math.floor(next() * STATUSES.length)] ?? 'pass';
    expected.push({ id, status });
    return status === 'fail'
      ? { id, status, durationMs: next() * 100, message: 'Expected 1 to be 2.' }
      : { id, status, durationMs: next() < 0.2 ? null : next() * 100 };
  });
  return { text: JSON.stringify({ format: 'abp-runner-report/1', runner: 'jasmine', tests }), expected };
}

const GENERATORS: ReadonlyArray<[ReportFormat, (next: () => number) => { text: string; expected: Expected[] }]> = [
  ['jest-json', jestDocument],
  ['junit-xml', junitDocument],
  ['go-test-json', goDocument],
  ['runner-json', runnerDocument],
];

/** The document damaged the ways a killed or hostile run leaves a report. */
function damaged(text: string, next: () => number): string {
  const at = Math.floor(next() * text.length);
  switch (Math.floor(next() * 5)) {
    case 0:
      return text.slice(0, at);
    case 1:
      return text.slice(0, at) + text.slice(at + 1 + Math.floor(next() * 20));
    case 2:
      return `${text.slice(0, at)}${['\u0000', '"', '<', '}', ']', '\uFFFF', '&#xD800;'][Math.floor(next() * 7)] ?? ''}${text.slice(at)}`;
    case 3:
      // A field of another type where a string was: a title as an object, a status as a number.
      return text.replace(/"(title|status|Action|Test|name|id)":"[^"]*"/, (_, field: string) => `"${field}":{"x":1}`);
    default:
      return text.replaceAll(/name="[^"]*"/g, (match) => (next() < 0.3 ? '' : match));
  }
}

function read(format: ReportFormat, text: string): TestResult[] | TestReportError {
  try {
    return [...parseReport(format, text, { rootDir: '/work/checkout' }).tests];
  } catch (error) {
    if (error instanceof TestReportError) return error;
    throw new Error(`${format}: a ${(error as Error).name} escaped the reader: ${(error as Error).message}`);
  }
}

describe.each(GENERATORS)('the %s reader, fuzzed', (format, generate) => {
  it('reads 300 well-formed documents to exactly the tests they hold', () => {
    const next = seededRandom(20261205);
    for (let round = 0; round < 300; round += 1) {
      const { text, expected } = generate(next);
      const tests = read(format, text);
      if (tests instanceof TestReportError) throw tests;
      expect(tests.map(({ id, status }) => ({ id, status }))).toEqual(finalized(expected));
    }
  });

  it('reads 2,000 damaged documents or refuses them as TestReportError, the same way each time', () => {
    const next = seededRandom(7);
    for (let round = 0; round < 2000; round += 1) {
      const text = damaged(generate(next).text, next);
      const first = read(format, text);
      const again = read(format, text);
      if (first instanceof TestReportError) {
        expect(again).toBeInstanceOf(TestReportError);
        expect((again as TestReportError).message).toBe(first.message);
      } else {
        expect(again).toEqual(first);
        for (const test of first) expect(test.id.length).toBeGreaterThan(0);
      }
    }
  });
});

describe('reports far past any real suite', () => {
  it('refuses nesting 100,000 deep as a TestReportError rather than overflowing the stack', () => {
    const depth = 100_000;
    const junit = `<testsuites>${'<testsuite name="s">'.repeat(depth)}<testcase classname="c" name="t"/>${'</testsuite>'.repeat(depth)}</testsuites>`;
    const jest = `{"testResults":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    for (const [format, text] of [
      ['junit-xml', junit],
      ['jest-json', jest],
    ] as const) {
      const result = read(format, text);
      // Either a reading or a refusal; never a RangeError from the call stack.
      expect(result instanceof TestReportError || Array.isArray(result)).toBe(true);
    }
  });

  it('reads a 50,000-test jest report and a 50,000-case JUnit report whole', () => {
    const many = Array.from({ length: 50_000 }, (_, index) => ({
      ancestorTitles: ['suite'],
      title: `case ${index} ünï`,
      status: 'passed',
    }));
    const jest = read('jest-json', JSON.stringify({ testResults: [{ name: 'a.test.js', assertionResults: many }] }));
    expect(Array.isArray(jest) && jest.length).toBe(50_000);
    const cases = Array.from({ length: 50_000 }, (_, index) => `<testcase classname="c" name="t${index}"/>`).join('');
    const junit = read('junit-xml', `<testsuite name="s">${cases}</testsuite>`);
    expect(Array.isArray(junit) && junit.length).toBe(50_000);
  });
});
