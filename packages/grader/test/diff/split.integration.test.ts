import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePatch } from '../../src/diff/patch.js';
import { splitPatch, type SplitPatch } from '../../src/diff/split.js';
import { TempRepo } from './support/temp-repo.js';

const lines = (...items: string[]): string => items.map((item) => `${item}\n`).join('');

describe('splitPatch', () => {
  let repo: TempRepo;
  let base: string;
  let patch: string;
  let split: SplitPatch;

  beforeAll(async () => {
    repo = await TempRepo.create({
      'src/calc.py': lines('def add(a, b):', '    return a - b'),
      'src/old_name.py': lines('VALUE = 1', 'OTHER = 2', 'THIRD = 3', 'FOURTH = 4'),
      'tests/test_calc.py': lines('from src.calc import add', '', 'def test_add():', '    assert add(1, 2) == 3'),
      'tests/test_moved.py': lines('def test_moved():', '    assert True', '', '# padding', '# padding'),
      'tests/data/blob.bin': Buffer.from([0, 1, 2, 3]),
      'poetry.lock': lines('[[package]]', 'name = "six"'),
      'assets/icon.bin': Buffer.from([9, 9, 9, 0, 9]),
      'notes/sp ace.txt': lines('one'),
    });
    base = await repo.commit();
    await repo.write({
      'src/calc.py': lines('def add(a, b):', '    return a + b'),
      'tests/test_calc.py': lines(
        'from src.calc import add',
        '',
        'def test_add():',
        '    assert add(1, 2) == 3',
        '',
        'def test_add_negative():',
        '    assert add(-1, -2) == -3',
      ),
      'tests/test_new.py': lines('def test_new():', '    assert 1 + 1 == 2'),
      'tests/data/blob.bin': Buffer.from([0, 1, 2, 3, 4]),
      'poetry.lock': lines('[[package]]', 'name = "six"', 'version = "1.16.0"'),
      'assets/icon.bin': Buffer.from([9, 9, 9, 0, 9, 9]),
      'notes/sp ace.txt': lines('one', 'two'),
    });
    await repo.move('src/old_name.py', 'src/new_name.py');
    await repo.move('tests/test_moved.py', 'tests/unit/test_moved.py');
    patch = await repo.patch(base);
    split = splitPatch(patch);
  });

  afterAll(async () => {
    await repo.dispose();
  });

  it('gives each change its kind', () => {
    expect(split.changes.map(({ path, oldPath, status, kind }) => ({ path, oldPath, status, kind }))).toEqual([
      { path: 'assets/icon.bin', oldPath: null, status: 'modified', kind: 'code' },
      { path: 'notes/sp ace.txt', oldPath: null, status: 'modified', kind: 'code' },
      { path: 'poetry.lock', oldPath: null, status: 'modified', kind: 'lockfile' },
      { path: 'src/calc.py', oldPath: null, status: 'modified', kind: 'code' },
      { path: 'src/new_name.py', oldPath: 'src/old_name.py', status: 'renamed', kind: 'code' },
      { path: 'tests/data/blob.bin', oldPath: null, status: 'modified', kind: 'test' },
      { path: 'tests/test_calc.py', oldPath: null, status: 'modified', kind: 'test' },
      { path: 'tests/test_new.py', oldPath: null, status: 'added', kind: 'test' },
      { path: 'tests/unit/test_moved.py', oldPath: 'tests/test_moved.py', status: 'renamed', kind: 'test' },
    ]);
  });

  it('puts every section in exactly one part', () => {
    expect(parsePatch(split.code).map((change) => change.path)).toEqual([
      'assets/icon.bin',
      'notes/sp ace.txt',
      'poetry.lock',
      'src/calc.py',
      'src/new_name.py',
    ]);
    expect(parsePatch(split.test).map((change) => change.path)).toEqual([
      'tests/data/blob.bin',
      'tests/test_calc.py',
      'tests/test_new.py',
      'tests/unit/test_moved.py',
    ]);
    expect(split.code.length + split.test.length).toBe(patch.length);
  });

  it('each part applies on the base by itself, and both together rebuild the agent tree', async () => {
    // Inside .git: outside the work tree that reset and clean restore, and removed with the repo.
    const codeFile = path.join(repo.dir, '.git', 'code.patch');
    const testFile = path.join(repo.dir, '.git', 'test.patch');
    await writeFile(codeFile, split.code);
    await writeFile(testFile, split.test);
    await repo.git('reset', '-q', '--hard', base);
    await repo.git('clean', '-qfdx');
    await repo.git('apply', '--check', codeFile);
    await repo.git('apply', '--check', testFile);
    await repo.git('apply', '--index', testFile);
    await repo.git('apply', '--check', codeFile);
    await repo.git('apply', '--index', codeFile);
    expect(await repo.patch(base)).toBe(patch);
  });

  it('returns two empty parts for an empty patch', () => {
    expect(splitPatch('')).toEqual({ code: '', test: '', changes: [] });
  });

  it('follows repository rules', () => {
    const bySrcRule = splitPatch(patch, { test: ['src/calc.py'] });
    expect(parsePatch(bySrcRule.test).map((change) => change.path)).toContain('src/calc.py');
    expect(parsePatch(bySrcRule.code).map((change) => change.path)).not.toContain('src/calc.py');
  });
});
