import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PatchError } from '../../src/diff/errors.js';
import { normalizedDiffSize, type DiffSize } from '../../src/diff/normalized-size.js';
import { parsePatch } from '../../src/diff/patch.js';
import type { PathRules } from '../../src/diff/paths.js';
import { TempRepo, type FileTree } from './support/temp-repo.js';

const execFileAsync = promisify(execFile);
const lines = (...items: string[]): string => items.map((item) => `${item}\n`).join('');
const bytes = (...items: string[]): number => items.reduce((sum, item) => sum + Buffer.byteLength(item) + 1, 0);

interface Edit {
  write?: FileTree;
  remove?: string[];
  move?: [string, string];
}

/** The size of a real patch, with contents read from the real repository as the grader reads them. */
async function sizeOf(base: FileTree, edit: Edit, rules?: PathRules): Promise<DiffSize> {
  const repo = await TempRepo.create(base);
  try {
    const commit = await repo.commit();
    if (edit.move !== undefined) await repo.move(...edit.move);
    await repo.write(edit.write ?? {});
    await repo.remove(...(edit.remove ?? []));
    const changes = parsePatch(await repo.patch(commit));
    return await normalizedDiffSize({
      changes,
      before: (path) => repo.before(commit, path),
      after: (path) => repo.after(path),
      ...(rules === undefined ? {} : { rules }),
    });
  } finally {
    await repo.dispose();
  }
}

describe('normalizedDiffSize: formatting-only changes count 0', () => {
  it('TypeScript, through prettier', async () => {
    const before = lines('export function add(a: number, b: number): number {', '  return a + b;', '}');
    const after = lines('export function add(a:number,b:number):number{return a+b}');
    const size = await sizeOf({ 'src/add.ts': before }, { write: { 'src/add.ts': after } });
    expect(size.perFile).toEqual([{ path: 'src/add.ts', kind: 'code', bytes: 0, formatter: 'prettier' }]);
    expect(size).toMatchObject({ codeBytes: 0, filesTouched: 0 });
  });

  it('Go, through gofmt', async () => {
    const before = lines('package calc', '', 'func Add(a, b int) int {', '\treturn a + b', '}');
    const after = lines('package calc', 'func   Add(a,b int)int{', '        return a+b', '}');
    const size = await sizeOf({ 'calc.go': before }, { write: { 'calc.go': after } });
    expect(size.perFile).toEqual([{ path: 'calc.go', kind: 'code', bytes: 0, formatter: 'gofmt' }]);
  });

  it('Rust, through rustfmt', async () => {
    const before = lines('pub fn add(a: i32, b: i32) -> i32 {', '    a + b', '}');
    const after = lines('pub fn add(a:i32,b:i32)->i32{a+b}');
    const size = await sizeOf({ 'src/lib.rs': before }, { write: { 'src/lib.rs': after } });
    expect(size.perFile).toEqual([{ path: 'src/lib.rs', kind: 'code', bytes: 0, formatter: 'rustfmt' }]);
  });

  it('Python whitespace (trailing spaces, CRLF, blank-line runs, final newline), through the fallback', async () => {
    const before = lines('def add(a, b):', '    return a + b', '', 'X = 1');
    const after = 'def add(a, b):   \r\n    return a + b\r\n\r\n\r\n\r\nX = 1';
    const size = await sizeOf({ 'calc.py': before }, { write: { 'calc.py': after } });
    expect(size.perFile).toEqual([{ path: 'calc.py', kind: 'code', bytes: 0, formatter: null }]);
  });
});

describe('normalizedDiffSize: a missing formatter', () => {
  it('falls back on both sides when gofmt is not on PATH', async () => {
    // Availability is probed once per process, so this needs a process whose PATH lacks gofmt.
    const dir = await mkdtemp(path.join(os.tmpdir(), 'abp-diff-nogofmt-'));
    try {
      const moduleUrl = pathToFileURL(
        fileURLToPath(new URL('../../src/diff/normalized-size.ts', import.meta.url)),
      ).href;
      const patchUrl = pathToFileURL(fileURLToPath(new URL('../../src/diff/patch.ts', import.meta.url))).href;
      const script = path.join(dir, 'measure.mts');
      await writeFile(
        script,
        [
          `import { normalizedDiffSize } from ${JSON.stringify(moduleUrl)};`,
          `import { parsePatch } from ${JSON.stringify(patchUrl)};`,
          "const changes = parsePatch('diff --git a/a.go b/a.go\\nindex 1111111..2222222 100644\\n--- a/a.go\\n+++ b/a.go\\n@@ -1 +1 @@\\n-x\\n+y\\n');",
          "const before = Buffer.from('package a\\n\\nfunc F() {}\\n');",
          "const after = Buffer.from('package a\\nfunc   F( ) {}\\n');",
          'const size = await normalizedDiffSize({ changes, before: async () => before, after: async () => after });',
          'console.log(JSON.stringify(size.perFile));',
        ].join('\n'),
      );
      const runTs = fileURLToPath(new URL('../../../../bin/run-ts.js', import.meta.url));
      const { stdout } = await execFileAsync(process.execPath, [runTs, script], { env: { ...process.env, PATH: dir } });
      // Without gofmt the fallback sees a removed blank line and "func F() {}" turned into "func   F( ) {}".
      expect(JSON.parse(stdout)).toEqual([
        { path: 'a.go', kind: 'code', bytes: bytes('', 'func F() {}', 'func   F( ) {}'), formatter: null },
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('normalizedDiffSize: counting', () => {
  it('counts the bytes of removed and added lines of the canonical forms, newline included', async () => {
    const size = await sizeOf(
      { 'calc.py': lines('def add(a, b):', '    return a - b') },
      { write: { 'calc.py': lines('def add(a, b):', '    return a + b  ', '') } },
    );
    expect(size).toMatchObject({
      codeBytes: bytes('    return a - b', '    return a + b'),
      testBytes: 0,
      excludedBytes: 0,
      filesTouched: 1,
    });
  });

  it('counts UTF-8 bytes', async () => {
    const size = await sizeOf({ 'notes.txt': lines('naïve') }, { write: { 'notes.txt': lines('naïve café') } });
    expect(size.codeBytes).toBe(bytes('naïve', 'naïve café'));
  });

  it('keeps the most bytes in common, so ties between equally short line diffs do not matter', async () => {
    // Either "a" or "long line" moved: two equally short line diffs. Keeping "long line" costs 4.
    const size = await sizeOf(
      { 'order.txt': lines('a', 'long line') },
      { write: { 'order.txt': lines('long line', 'a') } },
    );
    expect(size.codeBytes).toBe(bytes('a', 'a'));
  });

  it('counts added and deleted files whole, after formatting', async () => {
    const size = await sizeOf(
      { 'src/old.ts': lines('export const old = 1;') },
      { write: { 'src/new.ts': lines("export const fresh = 'yes'") }, remove: ['src/old.ts'] },
    );
    expect(size.perFile).toEqual([
      { path: 'src/new.ts', kind: 'code', bytes: bytes('export const fresh = "yes";'), formatter: 'prettier' },
      { path: 'src/old.ts', kind: 'code', bytes: bytes('export const old = 1;'), formatter: 'prettier' },
    ]);
    expect(size.filesTouched).toBe(2);
  });

  it('compares a renamed file with its old path: a pure move costs 0 but touches a file', async () => {
    const content = lines('def helper():', '    return 42');
    const size = await sizeOf({ 'src/a.py': content }, { move: ['src/a.py', 'src/b.py'] });
    expect(size.perFile).toEqual([{ path: 'src/b.py', kind: 'code', bytes: 0, formatter: null }]);
    expect(size.filesTouched).toBe(1);
  });

  it('falls back on both sides when the formatter rejects one (a syntax error)', async () => {
    const before = lines('export const a = 1;');
    const after = lines('export const a = ;');
    const size = await sizeOf({ 'src/a.ts': before }, { write: { 'src/a.ts': after } });
    expect(size.perFile).toEqual([
      { path: 'src/a.ts', kind: 'code', bytes: bytes('export const a = 1;', 'export const a = ;'), formatter: null },
    ]);
  });

  it('counts a binary file by the bytes between common prefix and suffix', async () => {
    const before = Buffer.from([1, 2, 3, 0, 4, 5, 6, 7]);
    const after = Buffer.from([1, 2, 3, 0, 9, 9, 9, 6, 7]);
    const size = await sizeOf({ 'img.bin': before }, { write: { 'img.bin': after } });
    // Prefix [1 2 3 0], suffix [6 7]: [4 5] removed, [9 9 9] added.
    expect(size.perFile).toEqual([{ path: 'img.bin', kind: 'code', bytes: 5, formatter: null }]);
  });

  it('excludes lockfiles and generated files from codeBytes, reporting their raw patch bytes apart', async () => {
    const size = await sizeOf(
      {
        'package-lock.json': lines('{', '  "lockfileVersion": 3', '}'),
        'api/api.pb.go': lines('package api'),
        'main.py': lines('x = 1'),
      },
      {
        write: {
          'package-lock.json': lines('{', '  "lockfileVersion": 3,', '  "name": "x"', '}'),
          'api/api.pb.go': lines('package api', 'var V = 2'),
          'main.py': lines('x = 2'),
        },
      },
    );
    expect(size.perFile.map(({ path, kind }) => ({ path, kind }))).toEqual([
      { path: 'api/api.pb.go', kind: 'generated' },
      { path: 'main.py', kind: 'code' },
      { path: 'package-lock.json', kind: 'lockfile' },
    ]);
    expect(size.codeBytes).toBe(bytes('x = 1', 'x = 2'));
    expect(size.excludedBytes).toBe(
      bytes('var V = 2') + bytes('  "lockfileVersion": 3', '  "lockfileVersion": 3,', '  "name": "x"'),
    );
    expect(size.filesTouched).toBe(1);
  });

  it('excludes changelogs, readmes and documents from codeBytes and filesTouched, reporting their raw bytes apart', async () => {
    const size = await sizeOf(
      {
        'CHANGELOG.rst': lines('Changelog', '=========', '', '1.0 (2024-01-01)'),
        'README.md': lines('# widgets'),
        'docs/usage.md': lines('Call parse().'),
        'docs/conf.py': lines("project = 'widgets'"),
        'src/history.py': lines('LIMIT = 10'),
      },
      {
        write: {
          'CHANGELOG.rst': lines('Changelog', '=========', '', '1.1 (2024-02-01)', '', '- parse() keeps the order.'),
          'README.md': lines('# widgets', '', 'Ordered parsing.'),
          'docs/usage.md': lines('Call parse(); the order is kept.'),
          'docs/conf.py': lines("project = 'widgets'", "release = '1.1'"),
          'src/history.py': lines('LIMIT = 20'),
          'changelog.d/42.bugfix.md': lines('parse() keeps the order.'),
        },
      },
    );
    expect(size.perFile.map(({ path, kind }) => ({ path, kind }))).toEqual([
      { path: 'CHANGELOG.rst', kind: 'docs' },
      { path: 'README.md', kind: 'docs' },
      { path: 'changelog.d/42.bugfix.md', kind: 'docs' },
      { path: 'docs/conf.py', kind: 'code' },
      { path: 'docs/usage.md', kind: 'docs' },
      { path: 'src/history.py', kind: 'code' },
    ]);
    // Only the two code files count: the same fix without its changelog, readme and docs has the same size.
    expect(size.codeBytes).toBe(bytes("release = '1.1'") + bytes('LIMIT = 10', 'LIMIT = 20'));
    expect(size.filesTouched).toBe(2);
    expect(size.excludedBytes).toBe(
      bytes('1.0 (2024-01-01)', '1.1 (2024-02-01)', '', '- parse() keeps the order.') +
        bytes('', 'Ordered parsing.') +
        bytes('parse() keeps the order.') +
        bytes('Call parse().', 'Call parse(); the order is kept.'),
    );
    const codeOnly = await sizeOf(
      { 'docs/conf.py': lines("project = 'widgets'"), 'src/history.py': lines('LIMIT = 10') },
      {
        write: {
          'docs/conf.py': lines("project = 'widgets'", "release = '1.1'"),
          'src/history.py': lines('LIMIT = 20'),
        },
      },
    );
    expect(codeOnly).toMatchObject({ codeBytes: size.codeBytes, filesTouched: size.filesTouched });
  });

  it('takes a generator header from the base version only', async () => {
    const generated = lines('// Code generated by stringer; DO NOT EDIT.', '', 'package kind', '', 'const A = 1');
    const byBase = await sizeOf(
      { 'kind_string.go': generated },
      { write: { 'kind_string.go': generated.replace('A = 1', 'A = 2') } },
    );
    expect(byBase.perFile[0]?.kind).toBe('generated');
    expect(byBase.codeBytes).toBe(0);

    const plain = lines('package fix', '', 'const A = 1');
    const byAgent = await sizeOf(
      { 'fix.go': plain },
      { write: { 'fix.go': `// Code generated by hand. DO NOT EDIT.\n\n${plain.replace('A = 1', 'A = 2')}` } },
    );
    expect(byAgent.perFile[0]).toMatchObject({ kind: 'code', formatter: 'gofmt' });
    expect(byAgent.codeBytes).toBe(bytes('// Code generated by hand. DO NOT EDIT.', '', 'const A = 1', 'const A = 2'));
  });

  it('counts test files separately, with repository rules applied', async () => {
    const size = await sizeOf(
      {
        'src/calc.py': lines('def add(a, b):', '    return a - b'),
        'checks/calc_check.py': lines('from src.calc import add'),
      },
      {
        write: {
          'src/calc.py': lines('def add(a, b):', '    return a + b'),
          'tests/test_calc.py': lines('def test_add():', '    assert add(1, 2) == 3'),
          'checks/calc_check.py': lines('from src.calc import add', 'assert add(2, 2) == 4'),
        },
      },
      { test: ['checks/'] },
    );
    expect(size.codeBytes).toBe(bytes('    return a - b', '    return a + b'));
    expect(size.testBytes).toBe(bytes('def test_add():', '    assert add(1, 2) == 3', 'assert add(2, 2) == 4'));
    expect(size.filesTouched).toBe(1);
  });

  it('is deterministic: the same patch gives the same size, file by file', async () => {
    const base = {
      'src/a.ts': lines('export const a = [1,2,3]'),
      'b.go': lines('package b', 'var B = 1'),
      'c.py': lines('c = 3'),
    };
    const edit = {
      write: {
        'src/a.ts': lines('export const a = [1, 2, 3, 4]'),
        'b.go': lines('package b', 'var B = 2'),
        'c.py': lines('c = 4'),
      },
    };
    const first = await sizeOf(base, edit);
    const second = await sizeOf(base, edit);
    expect(second).toEqual(first);
    expect(first.codeBytes).toBeGreaterThan(0);
  });

  it('throws missing-content when a side the patch needs is absent', async () => {
    const changes = parsePatch(
      lines(
        'diff --git a/f.txt b/f.txt',
        'index 1111111..2222222 100644',
        '--- a/f.txt',
        '+++ b/f.txt',
        '@@ -1 +1 @@',
        '-x',
        '+y',
      ),
    );
    const error: unknown = await normalizedDiffSize({
      changes,
      before: () => Promise.resolve(null),
      after: () => Promise.resolve(Buffer.from('y\n')),
    }).catch((caught: unknown) => caught);
    expect(error instanceof PatchError ? error.code : error).toBe('missing-content');
  });
});
