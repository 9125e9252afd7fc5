import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isCanary, planCanaries, readCanaries } from '../../src/verification/canaries.js';
import { planRunner } from '../../src/verification/runner-recipes.js';

// A reproducible stand-in for crypto.randomBytes: a hash chain, so the unit tests see fixed yet varied draws.
const tokens = () => {
  let state = 'abp';
  return () => (state = createHash('sha256').update(state).digest('hex')).slice(0, 12);
};
const plan = (line: string[]) => planRunner(line, '/reports/0');

describe('planCanaries', () => {
  it('appends a must-pass test and three must-fail ones, named with words of the file, to the file holding a FAIL_TO_PASS test', () => {
    const heldOut =
      'def test_add_positive():\n    assert add(2, 3) == 5\n\n\ndef test_add_negative_numbers():\n    assert True\n';
    const result = planCanaries({
      commands: [{ index: 0, plan: plan(['python3', '-m', 'pytest', 'tests/test_add.py']) }],
      heldOut: [
        { path: 'tests/conftest.py', text: '' },
        { path: 'tests/test_add.py', text: heldOut },
      ],
      failToPass: ['tests/test_add.py::test_add_positive'],
      passToPass: ['tests/test_other.py::test_value_order'],
      token: tokens(),
    });
    expect(result.writes).toHaveLength(1);
    expect(result.writes[0]).toMatchObject({ path: 'tests/test_add.py', append: true });
    const names = result.commands.get(0)?.names;
    const all = [names?.mustPass ?? '', ...(names?.mustFail ?? [])];
    expect(new Set(all).size).toBe(4);
    const text = result.writes[0]?.text ?? '';
    for (const name of all) {
      // Plain test names of the file's own words: no token, nothing a plugin could single out.
      expect(name).toMatch(/^test_[a-z]+(_[a-z]+)+$/);
      expect(name).not.toBe('test_value_order');
      expect(heldOut).not.toContain(name);
      expect(text).toContain(`def ${name}():`);
    }
    expect(text).not.toMatch(/[0-9a-f]{8}/);
    // The must-pass compares a number, a string and a list with themselves; each must-fail one kind with another value.
    const body = (name: string) => text.slice(text.indexOf(`def ${name}():`)).split('\n\n\n')[0] ?? '';
    expect(body(names?.mustPass ?? '')).toMatch(
      /assert (\d+) == \1\n {4}assert (".+") == \2\n {4}assert (\[.+\]) == \3/,
    );
    expect(body(names?.mustFail[0] ?? '')).toMatch(/assert (\d+) == (?!\1\n)\d+/);
    expect(body(names?.mustFail[1] ?? '')).toMatch(/assert "([a-z ]+)" == "\1s"/);
    expect(body(names?.mustFail[2] ?? '')).toMatch(/assert \[(\d+), (\d+)\] == \[\2, \1\]/);
  });

  it('draws other names for every trial', () => {
    const heldOut = [{ path: 't/test_x.py', text: 'def test_x():\n    pass\n' }];
    const draw = () =>
      planCanaries({
        commands: [{ index: 0, plan: plan(['pytest']) }],
        heldOut,
        failToPass: ['t.test_x::test_x'],
        token: () => randomBytes(6).toString('hex'),
      }).commands.get(0)?.names.mustPass;
    const drawn = new Set(Array.from({ length: 20 }, draw));
    expect(drawn.size).toBeGreaterThan(15);
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
      failToPass: ['example.com/calc/pkg::TestAdd'],
      token: tokens(),
    });
    const names = result.commands.get(0)?.names;
    expect(names?.mustPass).toMatch(/^Test[A-Z][a-z]+[A-Z][a-z]+$/);
    const words = (names?.mustPass ?? '')
      .slice(4)
      .replace(/(?<=[a-z])(?=[A-Z])/g, '_')
      .toLowerCase();
    expect(result.writes[0]).toMatchObject({ path: `pkg/add_${words}_test.go`, append: false });
    expect(result.writes[0]?.text).toMatch(/^package calc\n/);
    expect(result.commands.get(0)?.argv).toContain(
      `(^(TestAdd)$)|^(${[names?.mustPass, ...(names?.mustFail ?? [])].join('|')})$`,
    );
  });

  it('appends tests through the TAP runners’ own modules, with the assertions the file itself calls', () => {
    const cases = [
      {
        line: ['node_modules/.bin/ava'],
        file: {
          path: 'test/add.test.mjs',
          text: "import test from 'ava';\ntest('adds', (t) => t.is(add(1, 2), 3));\n",
        },
        header: /^\nimport (\w+) from 'ava';\n\1\("[a-z ]+", \(t\) => \{\n {2}t\.is\(/,
      },
      {
        line: ['node_modules/.bin/tap'],
        file: {
          path: 'test/add.js',
          text: "const t = require('tap');\nt.test('adds', async (t) => t.same([1], [1]));\n",
        },
        header: /^\nconst (\w+) = require\('tap'\);\n\1\.test\("[a-z ]+", async \(t\) => \{\n {2}t\.equal\(/,
      },
      {
        line: ['node_modules/.bin/tape', 'test/*.js'],
        file: { path: 'test/add.js', text: "var test = require('tape');\ntest('adds', function (t) { t.end(); });\n" },
        header: /^\nconst (\w+) = require\('tape'\);\n\1\("[a-z ]+", \(t\) => \{\n {2}t\.equal\(/,
      },
      {
        line: ['node_modules/.bin/qunit'],
        file: { path: 'test/add.js', text: "QUnit.test('adds', (assert) => assert.equal(add(1, 2), 3));\n" },
        header: /^\nQUnit\.test\("[a-z ]+", function \(assert\) \{\n {2}assert\.equal\(/,
      },
    ];
    for (const { line, file, header } of cases) {
      const result = planCanaries({
        commands: [{ index: 0, plan: plan(line) }],
        heldOut: [file],
        failToPass: ['adds'],
        token: tokens(),
      });
      expect(result.unavailable).toEqual(new Map());
      expect(result.writes[0]).toMatchObject({ path: file.path, append: true });
      const text = result.writes[0]?.text ?? '';
      expect(text).toMatch(header);
      const names = result.commands.get(0)?.names;
      for (const name of [names?.mustPass, ...(names?.mustFail ?? [])]) expect(text).toContain(JSON.stringify(name));
      // tape ends each test itself; the others end with the function.
      expect(text.split('t.end();').length - 1).toBe(line[0]?.endsWith('tape') === true ? 4 : 0);
    }
  });

  it('appends jasmine’s sentinels through its `it` global and bun’s through bun:test when the file imports it', () => {
    const cases = [
      {
        line: ['node_modules/.bin/jasmine'],
        file: { path: 'spec/add.spec.js', text: "describe('add', () => { it('adds', () => expect(1).toBe(1)); });\n" },
        header: /^\nconst (\w+) = it;\nconst (\w+) = expect;\n\1\("[a-z ]+", \(\) => \{\n {2}\2\(/,
      },
      {
        line: ['bun', 'test'],
        file: {
          path: 'test/add.test.ts',
          text: "import { expect, test } from 'bun:test';\ntest('adds', () => expect(1).toBe(1));\n",
        },
        header: /^\nimport \{ test as (\w+), expect as (\w+) \} from 'bun:test';\n\1\("[a-z ]+", \(\) => \{\n {2}\2\(/,
      },
    ];
    for (const { line, file, header } of cases) {
      const result = planCanaries({
        commands: [{ index: 0, plan: plan(line) }],
        heldOut: [file],
        failToPass: ['adds'],
        token: tokens(),
      });
      expect(result.unavailable).toEqual(new Map());
      expect(result.writes[0]?.text).toMatch(header);
    }
    const selecting = (line: string[]) =>
      planCanaries({
        commands: [{ index: 0, plan: plan(line) }],
        heldOut: [{ path: 'spec/add.spec.js', text: '' }],
        failToPass: [],
        token: tokens(),
      }).unavailable.get(0);
    expect(selecting(['node_modules/.bin/jasmine', 'spec/add.spec.js'])).toBeUndefined();
    expect(selecting(['node_modules/.bin/jasmine', '--filter=adds'])).toContain('by name');
    expect(selecting(['node_modules/.bin/jasmine', 'spec/other.spec.js'])).toContain('does not run spec/add.spec.js');
    expect(selecting(['bun', 'test', '-t', 'adds'])).toContain('by name');
    // An option's value is no file filter: vitest's project name, bun's preload (the table the freeze narrows by, too).
    expect(selecting(['node_modules/.bin/vitest', 'run', '--project', 'unit'])).toBeUndefined();
    expect(selecting(['bun', 'test', '--preload', './setup.ts'])).toBeUndefined();
    expect(selecting(['node_modules/.bin/lab'])).toContain('no sentinels for lab');
  });

  it('reads the files a TAP runner’s command names, globs included, and says when it cannot tell', () => {
    const heldOut = [{ path: 'test/unit/add.test.js', text: "const test = require('tape');\n" }];
    const unavailable = (line: string[]) =>
      planCanaries({
        commands: [{ index: 0, plan: plan(line) }],
        heldOut,
        failToPass: [],
        token: tokens(),
      }).unavailable.get(0);
    expect(unavailable(['node_modules/.bin/tape', 'test/**/*.test.js'])).toBeUndefined();
    expect(unavailable(['node_modules/.bin/tape', './test/unit/*.{js,mjs}'])).toBeUndefined();
    expect(unavailable(['node_modules/.bin/tape', 'test/'])).toBeUndefined();
    expect(unavailable(['node_modules/.bin/tape', 'test/*.js'])).toContain('does not run test/unit/add.test.js');
    expect(unavailable(['node_modules/.bin/tape', 'test/**/*.[jt]s'])).toContain('a glob abp does not read');
    expect(unavailable(['node_modules/.bin/ava', 'test/unit/add.test.js:12'])).toContain('by line');
    expect(unavailable(['node_modules/.bin/ava', '--match', 'adds*'])).toContain('by name');
    expect(unavailable(['node_modules/.bin/tap', '--grep=adds'])).toContain('by name');
    // QUnit's CLI runs test/**/*.{js,mjs,cjs} when given no files.
    expect(unavailable(['node_modules/.bin/qunit'])).toBeUndefined();
    const elsewhere = [{ path: 'src/test/add.js', text: '' }];
    expect(
      planCanaries({
        commands: [{ index: 0, plan: plan(['qunit']) }],
        heldOut: elsewhere,
        failToPass: [],
        token: tokens(),
      }).unavailable.get(0),
    ).toContain('does not run src/test/add.js');
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
  const names = { mustPass: 'test_value_order', mustFail: ['test_parse_empty', 'test_keys_first', 'test_name_last'] };
  const test = (id: string, status: 'pass' | 'fail') => ({ id, status, durationMs: null });
  const intact = [
    test('m::test_value_order', 'pass'),
    test('m::test_parse_empty', 'fail'),
    test('m::test_keys_first', 'fail'),
    test('m::test_name_last', 'fail'),
  ];
  it('is intact only when the must-pass passed and every must-fail failed', () => {
    expect(readCanaries(intact, names)).toEqual([
      { role: 'must-pass', status: 'pass', intact: true },
      { role: 'must-fail', status: 'fail', intact: true },
      { role: 'must-fail', status: 'fail', intact: true },
      { role: 'must-fail', status: 'fail', intact: true },
    ]);
    // An assert patched for strings only: the string must-fail sentinel passes.
    const patched = intact.map((entry) => (entry.id === 'm::test_keys_first' ? test(entry.id, 'pass') : entry));
    expect(readCanaries(patched, names).map((canary) => canary.intact)).toEqual([true, true, false, true]);
    expect(readCanaries([], names).map((canary) => canary.status)).toEqual([
      'missing',
      'missing',
      'missing',
      'missing',
    ]);
  });

  it('matches a name whole, never a test whose name only contains it', () => {
    const longer = [test('m::test_value_order_kept', 'pass'), ...intact.slice(1)];
    expect(readCanaries(longer, names)[0]?.status).toBe('missing');
    expect(isCanary('m::test_value_order_kept', names)).toBe(false);
    expect(isCanary('m::test_value_order', names)).toBe(true);
  });
});
