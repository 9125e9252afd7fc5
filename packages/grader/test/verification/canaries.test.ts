import { describe, expect, it } from 'vitest';
import { planCanaries, readCanaries } from '../../src/verification/canaries.js';
import { planRunner } from '../../src/verification/runner-recipes.js';

const tokens = () => {
  let n = 0;
  return () => `${(0xa1b2c3 + (n += 1)).toString(16)}d4e5f6`;
};
const plan = (line: string[]) => planRunner(line, '/reports/0');

describe('planCanaries', () => {
  it('appends a must-pass and a must-fail test to the held-out file holding a FAIL_TO_PASS test', () => {
    const result = planCanaries({
      commands: [{ index: 0, plan: plan(['python3', '-m', 'pytest', 'tests/test_add.py']) }],
      heldOut: [
        { path: 'tests/conftest.py', text: '' },
        { path: 'tests/test_add.py', text: 'def test_add_positive():\n    assert True\n' },
      ],
      failToPass: ['tests.test_add::test_add_positive'],
      token: tokens(),
    });
    expect(result.writes).toHaveLength(1);
    expect(result.writes[0]).toMatchObject({ path: 'tests/test_add.py', append: true });
    expect(result.writes[0]?.text).toMatch(/def test_a1b2c4d4e5f6\(\):\n {4}assert (\d+) == \1\n/);
    expect(result.writes[0]?.text).toMatch(/def test_a1b2c5d4e5f6\(\):\n {4}assert (\d+) == (?!\1)\d+\n/);
    expect(result.commands.get(0)?.names).toEqual({ mustPass: 'a1b2c4d4e5f6', mustFail: 'a1b2c5d4e5f6' });
  });

  it('uses the assertion module and function the node test file itself uses', () => {
    const text =
      "import { test } from 'node:test';\nimport assert from 'node:assert';\ntest('x', () => assert.deepEqual([1], [1]));\n";
    const result = planCanaries({
      commands: [{ index: 0, plan: plan(['node', '--test']) }],
      heldOut: [{ path: 'test/x.test.mjs', text }],
      failToPass: ['x'],
      token: tokens(),
    });
    expect(result.writes[0]?.text).toContain("from 'node:assert';");
    expect(result.writes[0]?.text).toContain('.deepEqual(');
  });

  it('writes a Go file of the same package beside the test, and widens a -run filter to take it', () => {
    const result = planCanaries({
      commands: [{ index: 0, plan: plan(['go', 'test', '-run', '^(TestAdd)$', './...']) }],
      heldOut: [
        { path: 'pkg/add_test.go', text: 'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {}\n' },
      ],
      failToPass: ['example.com/calc/pkg/TestAdd'],
      token: tokens(),
    });
    expect(result.writes[0]).toMatchObject({ path: 'pkg/add_a1b2c4d4e5f6_test.go', append: false });
    expect(result.writes[0]?.text).toMatch(/^package calc\n/);
    expect(result.commands.get(0)?.argv).toContain('(^(TestAdd)$)|^(TestA1B2C4D4E5F6|TestA1B2C5D4E5F6)$');
  });

  it('says why a command runs without sentinels', () => {
    const result = planCanaries({
      commands: [
        { index: 0, plan: plan(['node', '--test', 'test/other.test.js']) },
        { index: 1, plan: plan(['mvn', 'test']) },
        { index: 2, plan: plan(['cargo', 'test', '--lib']) },
      ],
      heldOut: [
        { path: 'test/x.test.js', text: '' },
        { path: 'tests/add.rs', text: '' },
      ],
      failToPass: [],
      token: tokens(),
    });
    expect(result.unavailable.get(0)).toContain('does not run test/x.test.js');
    expect(result.unavailable.get(1)).toContain('no sentinels for maven-surefire');
    expect(result.unavailable.get(2)).toContain('does not build the test target');
    expect(result.writes).toEqual([]);
  });
});

describe('readCanaries', () => {
  const names = { mustPass: 'aaa111', mustFail: 'bbb222' };
  it('is intact only when the must-pass passed and the must-fail failed', () => {
    const test = (id: string, status: 'pass' | 'fail') => ({ id, status, durationMs: null });
    expect(readCanaries([test('m::test_aaa111', 'pass'), test('m::test_bbb222', 'fail')], names)).toEqual([
      { role: 'must-pass', status: 'pass', intact: true },
      { role: 'must-fail', status: 'fail', intact: true },
    ]);
    expect(readCanaries([test('m::test_aaa111', 'pass'), test('m::test_bbb222', 'pass')], names)[1]?.intact).toBe(
      false,
    );
    expect(readCanaries([], names).map((canary) => canary.status)).toEqual(['missing', 'missing']);
  });
});
