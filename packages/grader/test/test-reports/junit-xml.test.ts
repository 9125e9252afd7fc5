import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TestReportError, mergeReports, parseReport } from '../../src/test-reports/index.js';
import { errorCode } from './error-code.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/reports');
const fixture = (name: string) => readFile(path.join(fixtures, name), 'utf8');
const statuses = (xml: string, rootDir?: string) =>
  Object.fromEntries(
    parseReport('junit-xml', xml, rootDir === undefined ? {} : { rootDir }).tests.map((test) => [test.id, test.status]),
  );

describe('junit-xml: pytest --junitxml', () => {
  // Shape of pytest 9 (xunit2): one <testsuite name="pytest">, dotted module path as classname.
  const pytest = `<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests"><testsuite name="pytest" errors="1" failures="1" skipped="2" tests="6" time="0.028" hostname="vm">
<testcase classname="tests.test_x" name="test_pass" time="0.001" />
<testcase classname="tests.test_x" name="test_fail" time="0.002"><failure message="AssertionError: a &lt; b &amp; c&#10;assert (1 + 1) == 3">&gt;   def test_fail(): assert 1 + 1 == 3</failure></testcase>
<testcase classname="tests.test_x" name="test_skip" time="0.000"><skipped type="pytest.skip" message="not now">/tmp/x/tests/test_x.py:4: not now</skipped></testcase>
<testcase classname="tests.test_x.TestK" name="test_p[a b]" time="0.000" />
<testcase classname="tests.test_x" name="test_xf" time="0.000"><skipped type="pytest.xfail" message="" /></testcase>
<testcase classname="tests.test_x" name="test_err" time="0.000"><error message="failed on setup with &quot;RuntimeError: fixture boom&quot;">@pytest.fixture</error></testcase>
</testsuite></testsuites>`;

  it('reads pass, failure, error and skipped cases with classname::name ids, sorted', () => {
    const report = parseReport('junit-xml', pytest);
    expect(report.format).toBe('junit-xml');
    expect(report.tests.map((test) => [test.id, test.status])).toEqual([
      ['tests.test_x.TestK::test_p[a b]', 'pass'],
      ['tests.test_x::test_err', 'error'],
      ['tests.test_x::test_fail', 'fail'],
      ['tests.test_x::test_pass', 'pass'],
      ['tests.test_x::test_skip', 'skip'],
      ['tests.test_x::test_xf', 'skip'],
    ]);
  });

  it('decodes entities (named and numeric) in messages, converts seconds to ms, omits empty messages', () => {
    const byId = new Map(parseReport('junit-xml', pytest).tests.map((test) => [test.id, test]));
    expect(byId.get('tests.test_x::test_fail')).toEqual({
      id: 'tests.test_x::test_fail',
      status: 'fail',
      durationMs: 2,
      message: 'AssertionError: a < b & c\nassert (1 + 1) == 3',
    });
    expect(byId.get('tests.test_x::test_err')?.message).toBe('failed on setup with "RuntimeError: fixture boom"');
    expect(byId.get('tests.test_x::test_xf')).toEqual({ id: 'tests.test_x::test_xf', status: 'skip', durationMs: 0 });
  });

  it("names a test by the node id abp's pytest plugin recorded, where it agrees with the classname and name", () => {
    const nodeId = (value: string) => `<properties><property name="abp-node-id" value="${value}" /></properties>`;
    const xml = `<testsuites><testsuite name="pytest">
<testcase classname="tests.sub.d.test_b.TestY.TestInner" name="test_in" time="0.001">${nodeId('tests/sub.d/test_b.py::TestY::TestInner::test_in')}</testcase>
<testcase classname="tests.test_a.TestX" name="test_p[x::y]" time="0.001">${nodeId('tests/test_a.py::TestX::test_p[x::y]')}</testcase>
<testcase classname="tests.test_a" name="test_f" time="0.001">${nodeId('tests/test_other.py::test_f')}<failure message="boom" /></testcase>
</testsuite></testsuites>`;
    expect(statuses(xml)).toEqual({
      'tests/sub.d/test_b.py::TestY::TestInner::test_in': 'pass',
      'tests/test_a.py::TestX::test_p[x::y]': 'pass',
      // A recorded id naming another test is a planted one: the report's own names stand.
      'tests.test_a::test_f': 'fail',
    });
  });

  it('names a collection error (empty classname) by its module', () => {
    const xml = `<testsuites><testsuite name="pytest"><testcase classname="" name="tests.test_broken" time="0.000"><error message="collection failure">ImportError</error></testcase></testsuite></testsuites>`;
    expect(statuses(xml)).toEqual({ 'tests.test_broken': 'error' });
  });
});

describe('junit-xml: Maven Surefire (one file per class)', () => {
  it('reads a real Surefire report: error, failure, skipped, pass; CDATA message text kept', async () => {
    const report = parseReport('junit-xml', await fixture('surefire/TEST-demo.MathTest.xml'));
    expect(report.tests.map((test) => [test.id, test.status])).toEqual([
      ['demo.MathTest::adds', 'pass'],
      ['demo.MathTest::errors', 'error'],
      ['demo.MathTest::fails', 'fail'],
      ['demo.MathTest::skipped', 'skip'],
    ]);
    expect(report.tests[2]?.message).toBe('a < b & c expected:<3> but was:<2>');
  });

  it('falls back to the element text (CDATA included) when there is no message attribute', () => {
    const xml = `<testsuite name="demo.T"><testcase name="t" classname="demo.T" time="1.5"><failure type="java.lang.AssertionError"><![CDATA[if (a < b && c) {]]> &amp; more</failure></testcase></testsuite>`;
    expect(parseReport('junit-xml', xml).tests).toEqual([
      { id: 'demo.T::t', status: 'fail', durationMs: 1500, message: 'if (a < b && c) { & more' },
    ]);
  });

  it('merges several report files into one report, independent of their order', async () => {
    const math = await fixture('surefire/TEST-demo.MathTest.xml');
    const text = await fixture('surefire/TEST-demo.TextTest.xml');
    const merged = mergeReports('junit-xml', [math, text]);
    expect(merged.tests.map((test) => test.id)).toEqual([
      'demo.MathTest::adds',
      'demo.MathTest::errors',
      'demo.MathTest::fails',
      'demo.MathTest::skipped',
      'demo.TextTest::adds',
    ]);
    expect(mergeReports('junit-xml', [text, math])).toEqual(merged);
  });

  it('numbers a test reported in two files deterministically', async () => {
    const text = await fixture('surefire/TEST-demo.TextTest.xml');
    expect(mergeReports('junit-xml', [text, text]).tests.map((test) => test.id)).toEqual([
      'demo.TextTest::adds',
      'demo.TextTest::adds #2',
    ]);
  });
});

describe('junit-xml: Vitest and jest-junit reporters', () => {
  it('reads a real Vitest junit report, including a file that failed to import', async () => {
    expect(statuses(await fixture('vitest/junit.xml'))).toEqual({
      'test/a.test.ts::math & <stuff> > adds': 'pass',
      'test/a.test.ts::math & <stuff> > fails': 'fail',
      'test/a.test.ts::math & <stuff> > inner > deep': 'pass',
      'test/a.test.ts::math & <stuff> > later': 'skip',
      'test/a.test.ts::math & <stuff> > skipped': 'skip',
      'test/a.test.ts::top level': 'pass',
      'test/broken.test.ts::test/broken.test.ts': 'fail',
    });
  });

  it('reads a real CTest report (CMake 3.25, GoogleTest 1.12): tests by the names CTest registered, disabled ones skipped', async () => {
    expect(statuses(await fixture('ctest/junit.xml'))).toEqual({
      'Add.TwoNumbers': 'pass',
      'Clamp.Inside': 'fail',
      'Clamp.Later': 'skip',
      'Small/P.Positive/1': 'pass',
      'Small/P.Positive/2': 'pass',
      plain_check: 'pass',
    });
  });

  it('reads the jest-junit default shape (classname and name are both "describe title")', () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="jest tests" tests="2" failures="1" errors="0" time="0.5">
  <testsuite name="math" errors="0" failures="1" skipped="0" timestamp="2026-01-01T00:00:00" time="0.4" tests="2">
    <testcase classname="math adds" name="math adds" time="0.002"></testcase>
    <testcase classname="math fails" name="math fails" time="0.003"><failure>Error: expect(received).toBe(expected)</failure></testcase>
  </testsuite>
</testsuites>`;
    expect(statuses(xml)).toEqual({ 'math adds::math adds': 'pass', 'math fails::math fails': 'fail' });
  });
});

describe('junit-xml: node --test --test-reporter=junit', () => {
  // Node 20.20's reporter, verbatim apart from trimmed stack traces: describe() blocks become
  // nested <testsuite>s, every case has classname="test", and summary comments close the file.
  const node20 = `<?xml version="1.0" encoding="utf-8"?>
<testsuites>
	<testsuite name="math &amp; &lt;stuff>" time="0.002331" disabled="0" errors="0" tests="3" failures="1" skipped="1" hostname="vm">
		<testcase name="adds" time="0.000555" classname="test"/>
		<testcase name="fails" time="0.000800" classname="test" failure="2 == 3">
			<failure type="testCodeFailure" message="2 == 3">
Error [ERR_TEST_FAILURE]: 2 == 3
			</failure>
		</testcase>
		<testcase name="todo" time="0.000067" classname="test">
			<skipped type="todo" message="true"/>
		</testcase>
	</testsuite>
	<testcase name="top level" time="0.000065" classname="test"/>
	<testsuite name="outer" time="0.001146" disabled="0" errors="0" tests="1" failures="0" skipped="0" hostname="vm">
		<testsuite name="inner" time="0.000740" disabled="0" errors="0" tests="1" failures="0" skipped="0" hostname="vm">
			<testcase name="adds" time="0.000433" classname="test"/>
		</testsuite>
	</testsuite>
	<testcase name="/work/checkout/test/broken.test.mjs" time="0.061279" classname="test" failure="test failed">
		<failure type="testCodeFailure" message="test failed">[Error: test failed]</failure>
	</testcase>
	<testcase name="top level" time="0.000062" classname="test"/>
	<!-- tests 7 -->
	<!-- suites 3 -->
	<!-- pass 4 -->
	<!-- fail 2 -->
	<!-- cancelled 0 -->
	<!-- skipped 0 -->
	<!-- todo 1 -->
	<!-- duration_ms 102.193361 -->
</testsuites>`;

  it('names cases by their describe path, relativizes file paths and numbers repeats', () => {
    expect(statuses(node20, '/work/checkout')).toEqual({
      'math & <stuff> › adds': 'pass',
      'math & <stuff> › fails': 'fail',
      'math & <stuff> › todo': 'skip',
      'outer › inner › adds': 'pass',
      'test/broken.test.mjs': 'fail',
      'top level': 'pass',
      'top level #2': 'pass',
    });
  });

  it('prefixes the file when newer Node versions write a file attribute', () => {
    const xml = `<testsuites>
	<testsuite name="math" time="0.1" disabled="0" errors="0" tests="1" failures="0" skipped="0" hostname="vm">
		<testcase name="adds" time="0.000555" classname="test" file="/work/checkout/test/a.test.mjs"/>
	</testsuite>
	<!-- tests 1 -->
</testsuites>`;
    expect(statuses(xml, '/work/checkout')).toEqual({ 'test/a.test.mjs::math › adds': 'pass' });
  });

  it('keeps classname::name for a pytest module that happens to be named "test"', () => {
    const xml = `<testsuites name="pytest tests"><testsuite name="pytest"><testcase classname="test" name="test_a" time="0.001"/></testsuite></testsuites>`;
    expect(statuses(xml)).toEqual({ 'test::test_a': 'pass' });
  });
});

describe('junit-xml: bun test --reporter=junit', () => {
  const ids = {
    'test/a.test.ts > math > adds': 'pass',
    'test/a.test.ts > math > nested ünï > each 1': 'pass',
    'test/a.test.ts > math > nested ünï > each 2': 'pass',
    'test/a.test.ts > math > nested ünï > fails <x>': 'fail',
    'test/a.test.ts > math > nested ünï > skipped': 'skip',
    'test/a.test.ts > math > nested ünï > todo': 'skip',
    'test/a.test.ts > top level': 'pass',
  };
  const both = Object.fromEntries(
    Object.entries(ids).flatMap(([id, status]) => [
      [id, status],
      [id.replace('test/a.', 'test/b.'), status],
    ]),
  );

  it('1.2.0: the describe path from the classname, innermost first and escaped twice', async () => {
    expect(statuses(await fixture('bun/bun-1.2.0.xml'))).toEqual(both);
  });

  it('1.4.5: the describe path from the nested suites; the same ids as 1.2.0', async () => {
    expect(statuses(await fixture('bun/bun-1.4.5.xml'))).toEqual(both);
  });
});

describe('junit-xml: nesting and malformed input', () => {
  it('walks nested <testsuites> and <testsuite> elements', () => {
    const xml = `<testsuites><testsuites><testsuite name="outer"><testsuite name="inner"><testcase classname="pkg.A" name="a"/></testsuite></testsuite></testsuites><testsuite name="b"><testcase classname="pkg.B" name="b"><skipped/></testcase></testsuite></testsuites>`;
    expect(statuses(xml)).toEqual({ 'pkg.A::a': 'pass', 'pkg.B::b': 'skip' });
  });

  it('an empty <testsuites> is a report with no tests, not an error', () => {
    expect(parseReport('junit-xml', '<testsuites name="pytest tests"></testsuites>').tests).toEqual([]);
  });

  it.each([
    ['empty text', ''],
    ['not XML', 'collected 3 items\n3 passed'],
    ['an unclosed element', '<testsuites><testsuite name="a"><testcase name="x"></testsuite></testsuites>'],
    ['another root element', '<html><body>report</body></html>'],
    ['a testcase without a name', '<testsuite name="a"><testcase classname="a"/></testsuite>'],
    [
      'a DOCTYPE with entities',
      '<!DOCTYPE t [<!ENTITY a "aaaaaaaa">]><testsuite name="&a;"><testcase name="x"/></testsuite>',
    ],
  ])('rejects %s as malformed-report', (_label, xml) => {
    expect(errorCode(TestReportError, () => parseReport('junit-xml', xml))).toBe('malformed-report');
  });
});
