import { describe, expect, it } from 'vitest';
import { parsePatch } from '../../src/diff/patch.js';
import type { PathRules } from '../../src/diff/paths.js';
import { findTestWeakening, type WeakeningFinding } from '../../src/diff/weakening.js';
import { TempRepo, type FileTree } from './support/temp-repo.js';

const lines = (...items: string[]): string => items.map((item) => `${item}\n`).join('');

interface Edit {
  write?: FileTree;
  remove?: string[];
  move?: [string, string];
}

/** The findings for a real patch: commit `base`, make `edit` as an agent would, diff as the grader does. */
async function weakeningOf(base: FileTree, edit: Edit, rules?: PathRules): Promise<WeakeningFinding[]> {
  const repo = await TempRepo.create(base);
  try {
    const commit = await repo.commit();
    if (edit.move !== undefined) await repo.move(...edit.move);
    await repo.write(edit.write ?? {});
    await repo.remove(...(edit.remove ?? []));
    return findTestWeakening(parsePatch(await repo.patch(commit)), rules);
  } finally {
    await repo.dispose();
  }
}

const PY_TEST = lines(
  'import pytest',
  'from calc import add',
  '',
  '',
  'def test_add():',
  '    assert add(1, 2) == 3',
  '',
  '',
  'def test_negative():',
  '    assert add(-1, -2) == -3',
);
const JS_TEST = lines(
  "import { describe, expect, it } from 'vitest';",
  "import { add } from '../src/add.js';",
  '',
  "describe('add', () => {",
  "  it('adds', () => {",
  '    expect(add(1, 2)).toBe(3);',
  '  });',
  '});',
);
const GO_TEST = lines(
  'package calc',
  '',
  'import "testing"',
  '',
  'func TestAdd(t *testing.T) {',
  '\tif Add(1, 2) != 3 {',
  '\t\tt.Errorf("Add(1, 2) = %d", Add(1, 2))',
  '\t}',
  '}',
);
const RS_LIB = lines(
  'pub fn add(a: i32, b: i32) -> i32 {',
  '    assert!(a < 1000);',
  '    a + b',
  '}',
  '',
  '#[cfg(test)]',
  'mod tests {',
  '    use super::*;',
  '',
  '    #[test]',
  '    fn adds() {',
  '        assert_eq!(add(1, 2), 3);',
  '    }',
  '}',
);
const JAVA_TEST = lines(
  'class CalcTest {',
  '  @Test',
  '  void adds() {',
  '    assertEquals(3, Calc.add(1, 2));',
  '  }',
  '}',
);
const RB_SPEC = lines(
  'RSpec.describe Calc do',
  "  it 'adds' do",
  '    expect(Calc.add(1, 2)).to eq(3)',
  '  end',
  'end',
);

describe('findTestWeakening', () => {
  it('flags a deleted test file', async () => {
    expect(await weakeningOf({ 'tests/test_calc.py': PY_TEST }, { remove: ['tests/test_calc.py'] })).toEqual([
      { path: 'tests/test_calc.py', reason: 'deleted-test-file' },
    ]);
  });

  it('flags a test file renamed away, and one moved within the tests', async () => {
    expect(
      await weakeningOf({ 'tests/test_calc.py': PY_TEST }, { move: ['tests/test_calc.py', 'src/calc_check.py'] }),
    ).toEqual([{ path: 'tests/test_calc.py', reason: 'renamed-test-file' }]);
    expect(
      await weakeningOf({ 'tests/test_calc.py': PY_TEST }, { move: ['tests/test_calc.py', 'tests/unit/test_calc.py'] }),
    ).toEqual([{ path: 'tests/test_calc.py', reason: 'renamed-test-file' }]);
  });

  it('flags an emptied test file, once, without a finding per removed line', async () => {
    expect(await weakeningOf({ 'tests/test_calc.py': PY_TEST }, { write: { 'tests/test_calc.py': '' } })).toEqual([
      { path: 'tests/test_calc.py', reason: 'emptied-test-file' },
    ]);
    expect(await weakeningOf({ 'src/add.test.ts': JS_TEST }, { write: { 'src/add.test.ts': '\n\n   \n' } })).toEqual([
      { path: 'src/add.test.ts', reason: 'emptied-test-file' },
    ]);
  });

  it('does not call a file emptied when some of it survives', async () => {
    const findings = await weakeningOf(
      { 'tests/test_calc.py': PY_TEST },
      { write: { 'tests/test_calc.py': lines('import pytest', 'from calc import add') } },
    );
    expect(findings.map((finding) => finding.reason)).toEqual([
      'removed-assertion',
      'removed-assertion',
      'removed-assertion',
      'removed-assertion',
    ]);
  });

  it.each<[string, FileTree, FileTree, string[]]>([
    [
      'a pytest assert',
      { 'tests/test_calc.py': PY_TEST },
      { 'tests/test_calc.py': PY_TEST.replace('    assert add(-1, -2) == -3\n', '    pass\n') },
      ['    assert add(-1, -2) == -3'],
    ],
    [
      'a pytest test function',
      { 'tests/test_calc.py': PY_TEST },
      { 'tests/test_calc.py': PY_TEST.replace('\n\ndef test_negative():\n    assert add(-1, -2) == -3\n', '') },
      ['def test_negative():', '    assert add(-1, -2) == -3'],
    ],
    [
      'an expect(',
      { 'src/add.test.ts': JS_TEST },
      { 'src/add.test.ts': JS_TEST.replace('    expect(add(1, 2)).toBe(3);\n', '') },
      ['    expect(add(1, 2)).toBe(3);'],
    ],
    [
      'a t.Errorf',
      { 'calc_test.go': GO_TEST },
      { 'calc_test.go': GO_TEST.replace('\t\tt.Errorf("Add(1, 2) = %d", Add(1, 2))\n', '') },
      ['\t\tt.Errorf("Add(1, 2) = %d", Add(1, 2))'],
    ],
    [
      'an assert_eq! in a Rust integration test',
      { 'tests/calc.rs': RS_LIB },
      { 'tests/calc.rs': RS_LIB.replace('        assert_eq!(add(1, 2), 3);\n', '') },
      ['        assert_eq!(add(1, 2), 3);'],
    ],
    [
      'a JUnit @Test',
      { 'src/test/java/CalcTest.java': JAVA_TEST },
      { 'src/test/java/CalcTest.java': JAVA_TEST.replace('  @Test\n', '') },
      ['  @Test'],
    ],
    [
      'an RSpec expectation',
      { 'spec/calc_spec.rb': RB_SPEC },
      { 'spec/calc_spec.rb': RB_SPEC.replace('    expect(Calc.add(1, 2)).to eq(3)\n', '') },
      ['    expect(Calc.add(1, 2)).to eq(3)'],
    ],
    [
      'an assertion whose expected value changed',
      { 'tests/test_calc.py': PY_TEST },
      { 'tests/test_calc.py': PY_TEST.replace('== 3', '== 4') },
      ['    assert add(1, 2) == 3'],
    ],
  ])('flags a removed assertion: %s', async (_name, base, write, removed) => {
    const [path] = Object.keys(base);
    expect(await weakeningOf(base, { write })).toEqual(
      removed.map((line) => ({ path, reason: 'removed-assertion', line })),
    );
  });

  it.each<[string, FileTree, FileTree, string]>([
    [
      '@pytest.mark.skip',
      { 'tests/test_calc.py': PY_TEST },
      { 'tests/test_calc.py': PY_TEST.replace('def test_add', '@pytest.mark.skip(reason="flaky")\ndef test_add') },
      '@pytest.mark.skip(reason="flaky")',
    ],
    [
      '@pytest.mark.xfail',
      { 'tests/test_calc.py': PY_TEST },
      { 'tests/test_calc.py': PY_TEST.replace('def test_add', '@pytest.mark.xfail\ndef test_add') },
      '@pytest.mark.xfail',
    ],
    [
      'it.skip',
      { 'src/add.test.ts': JS_TEST },
      { 'src/add.test.ts': JS_TEST.replace("  it('adds'", "  it.skip('adds'") },
      "  it.skip('adds', () => {",
    ],
    [
      'describe.only',
      { 'src/add.test.ts': JS_TEST },
      { 'src/add.test.ts': JS_TEST.replace("describe('add'", "describe.only('add'") },
      "describe.only('add', () => {",
    ],
    [
      'xit',
      { 'src/add.test.ts': JS_TEST },
      { 'src/add.test.ts': JS_TEST.replace("  it('adds'", "  xit('adds'") },
      "  xit('adds', () => {",
    ],
    [
      't.Skip(',
      { 'calc_test.go': GO_TEST },
      {
        'calc_test.go': GO_TEST.replace(
          'func TestAdd(t *testing.T) {\n',
          'func TestAdd(t *testing.T) {\n\tt.Skip("later")\n',
        ),
      },
      '\tt.Skip("later")',
    ],
    [
      '#[ignore]',
      { 'tests/calc.rs': RS_LIB },
      { 'tests/calc.rs': RS_LIB.replace('    #[test]\n', '    #[test]\n    #[ignore]\n') },
      '    #[ignore]',
    ],
    [
      '@Disabled',
      { 'src/test/java/CalcTest.java': JAVA_TEST },
      { 'src/test/java/CalcTest.java': JAVA_TEST.replace('  @Test\n', '  @Test\n  @Disabled\n') },
      '  @Disabled',
    ],
    [
      'xit in RSpec',
      { 'spec/calc_spec.rb': RB_SPEC },
      { 'spec/calc_spec.rb': RB_SPEC.replace("  it 'adds'", "  xit 'adds'") },
      "  xit 'adds' do",
    ],
  ])('flags an added skip marker: %s', async (_name, base, write, added) => {
    const [path] = Object.keys(base);
    const findings = await weakeningOf(base, { write });
    expect(findings).toContainEqual({ path, reason: 'added-skip-marker', line: added });
    expect(
      findings.every((finding) => finding.reason === 'added-skip-marker' || finding.reason === 'removed-assertion'),
    ).toBe(true);
  });

  it('checks Rust unit tests inside source files: #[test] removed, #[ignore] added', async () => {
    const withoutTest = RS_LIB.replace('    #[test]\n', '');
    expect(await weakeningOf({ 'src/lib.rs': RS_LIB }, { write: { 'src/lib.rs': withoutTest } })).toEqual([
      { path: 'src/lib.rs', reason: 'removed-assertion', line: '    #[test]' },
    ]);
    expect(
      await weakeningOf(
        { 'src/lib.rs': RS_LIB },
        { write: { 'src/lib.rs': RS_LIB.replace('    #[test]\n', '    #[test]\n    #[ignore]\n') } },
      ),
    ).toEqual([{ path: 'src/lib.rs', reason: 'added-skip-marker', line: '    #[ignore]' }]);
  });

  describe('is not weakening', () => {
    it('adding a new test file, even one with a skip marker', async () => {
      const added = lines('import pytest', '', '@pytest.mark.skip', 'def test_later():', '    assert False');
      expect(await weakeningOf({ 'tests/test_calc.py': PY_TEST }, { write: { 'tests/test_more.py': added } })).toEqual(
        [],
      );
    });

    it('adding a test to an existing file', async () => {
      const more = `${PY_TEST}\n\ndef test_zero():\n    assert add(0, 0) == 0\n`;
      expect(await weakeningOf({ 'tests/test_calc.py': PY_TEST }, { write: { 'tests/test_calc.py': more } })).toEqual(
        [],
      );
    });

    it('re-indenting or moving assertions', async () => {
      const moved = lines(
        "import { describe, expect, it } from 'vitest';",
        "import { add } from '../src/add.js';",
        '',
        "describe('add', () => {",
        "    it('adds', () => {",
        '        expect(add(1, 2)).toBe(3);',
        '    });',
        '});',
      );
      expect(await weakeningOf({ 'src/add.test.ts': JS_TEST }, { write: { 'src/add.test.ts': moved } })).toEqual([]);
    });

    it('removing an assert from code, or removing a skip marker from a test', async () => {
      const code = lines('def add(a, b):', '    assert isinstance(a, int)', '    return a + b');
      expect(
        await weakeningOf(
          { 'src/calc.py': code },
          { write: { 'src/calc.py': lines('def add(a, b):', '    return a + b') } },
        ),
      ).toEqual([]);
      const rust = RS_LIB.replace('    assert!(a < 1000);\n', '');
      expect(await weakeningOf({ 'src/lib.rs': RS_LIB }, { write: { 'src/lib.rs': rust } })).toEqual([]);
      const skipped = JS_TEST.replace("  it('adds'", "  it.skip('adds'");
      expect(await weakeningOf({ 'src/add.test.ts': skipped }, { write: { 'src/add.test.ts': JS_TEST } })).toEqual([]);
    });

    it('deleting a file the repository rules say is not a test', async () => {
      expect(
        await weakeningOf(
          { 'tests/helpers/gen.py': lines('assert True') },
          { remove: ['tests/helpers/gen.py'] },
          { notTest: ['tests/helpers/'] },
        ),
      ).toEqual([]);
    });
  });
});
