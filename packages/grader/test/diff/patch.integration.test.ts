import { chmod, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PatchError } from '../../src/diff/errors.js';
import { parsePatch, type FileChange } from '../../src/diff/patch.js';
import { TempRepo } from './support/temp-repo.js';

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof PatchError ? error.code : undefined;
  }
  return undefined;
}

const lines = (...items: string[]): string => items.map((item) => `${item}\n`).join('');
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 1, 2, 3]);

describe('parsePatch on real git diff output', () => {
  let repo: TempRepo;
  let patch: string;
  let changes: FileChange[];
  const byPath = (path: string): FileChange => {
    const change = changes.find((candidate) => candidate.path === path);
    if (change === undefined) throw new Error(`no change for ${path}; got ${changes.map((c) => c.path).join(', ')}`);
    return change;
  };

  beforeAll(async () => {
    repo = await TempRepo.create({
      'src/app.js': lines('const a = 1;', 'const b = 2;', 'export { a, b };'),
      'doomed.txt': lines('bye', 'bye'),
      'docs/guide.md': lines('# Guide', '', 'one', 'two', 'three', 'four', 'five', 'six'),
      'sp ace/fi le.txt': lines('left', 'right'),
      'tab\tname.txt': lines('tab'),
      'ünïcode.txt': lines('héllo'),
      'say "hi".txt': lines('quote'),
      'run.sh': lines('#!/bin/sh', 'echo hi'),
      'logo.png': PNG,
      'old.bin': Buffer.from([0, 1, 2, 3, 4, 5]),
      'noeol.txt': 'no newline',
      'addeol.txt': 'gains a newline',
    });
    const base = await repo.commit();
    await repo.write({
      'src/app.js': lines('const a = 1;', 'const b = 3;', 'export { a, b };', 'export const c = a + b;'),
      'src/new.ts': lines('export const fresh = true;'),
      'empty.txt': '',
      'sp ace/fi le.txt': lines('left', 'middle', 'right'),
      'ünïcode.txt': lines('héllo', 'wörld'),
      'say "hi".txt': lines('quote', 'unquote'),
      'logo.png': Buffer.concat([PNG, Buffer.from([4, 5, 6])]),
      'new.bin': Buffer.from([0, 255, 0, 255]),
      'noeol.txt': 'still no newline',
      'addeol.txt': lines('gains a newline'),
    });
    await repo.remove('doomed.txt', 'old.bin');
    await repo.move('docs/guide.md', 'docs/manual.md');
    await repo.write({ 'docs/manual.md': lines('# Manual', '', 'one', 'two', 'three', 'four', 'five', 'six') });
    await repo.move('tab\tname.txt', 'tab\tmoved.txt');
    await chmod(path.join(repo.dir, 'run.sh'), 0o755);
    patch = await repo.patch(base);
    changes = parsePatch(patch);
  });

  afterAll(async () => {
    await repo.dispose();
  });

  it('finds one change per file, and their sections put together are the patch', () => {
    expect(changes.map((change) => change.path).sort()).toEqual(
      [
        'addeol.txt',
        'docs/manual.md',
        'doomed.txt',
        'empty.txt',
        'logo.png',
        'new.bin',
        'noeol.txt',
        'old.bin',
        'run.sh',
        'say "hi".txt',
        'sp ace/fi le.txt',
        'src/app.js',
        'src/new.ts',
        'tab\tmoved.txt',
        'ünïcode.txt',
      ].sort(),
    );
    expect(changes.map((change) => change.text).join('')).toBe(patch);
    for (const change of changes) expect(change.text.startsWith('diff --git ')).toBe(true);
  });

  it('reads a modification: added and removed lines without markers', () => {
    expect(byPath('src/app.js')).toMatchObject({
      status: 'modified',
      oldPath: null,
      binary: false,
      removedLines: ['const b = 2;'],
      addedLines: ['const b = 3;', 'export const c = a + b;'],
    });
  });

  it('reads added, deleted and empty new files', () => {
    expect(byPath('src/new.ts')).toMatchObject({
      status: 'added',
      addedLines: ['export const fresh = true;'],
      removedLines: [],
    });
    expect(byPath('doomed.txt')).toMatchObject({ status: 'deleted', addedLines: [], removedLines: ['bye', 'bye'] });
    expect(byPath('empty.txt')).toMatchObject({ status: 'added', binary: false, addedLines: [], removedLines: [] });
  });

  it('reads a rename with edits, keeping the old path', () => {
    expect(byPath('docs/manual.md')).toMatchObject({
      status: 'renamed',
      oldPath: 'docs/guide.md',
      removedLines: ['# Guide'],
      addedLines: ['# Manual'],
    });
  });

  it('unquotes C-quoted paths: a tab, UTF-8 octal escapes, a double quote', () => {
    expect(patch).toContain('"a/tab\\tname.txt"');
    expect(patch).toContain('\\303\\274');
    expect(byPath('tab\tmoved.txt')).toMatchObject({ status: 'renamed', oldPath: 'tab\tname.txt' });
    expect(byPath('ünïcode.txt')).toMatchObject({ status: 'modified', addedLines: ['wörld'] });
    expect(byPath('say "hi".txt')).toMatchObject({ status: 'modified', addedLines: ['unquote'] });
  });

  it('reads unquoted paths with spaces (git ends their ---/+++ names with a tab)', () => {
    expect(patch).toContain('+++ b/sp ace/fi le.txt\t');
    expect(byPath('sp ace/fi le.txt')).toMatchObject({ status: 'modified', addedLines: ['middle'] });
  });

  it('reads a mode-only change as a modification with no lines', () => {
    expect(byPath('run.sh')).toMatchObject({ status: 'modified', binary: false, addedLines: [], removedLines: [] });
    expect(byPath('run.sh').text).toContain('new mode 100755');
  });

  it('reads GIT binary patches: modified, added and deleted', () => {
    expect(byPath('logo.png')).toMatchObject({ status: 'modified', binary: true, addedLines: [], removedLines: [] });
    expect(byPath('logo.png').text).toContain('GIT binary patch');
    expect(byPath('new.bin')).toMatchObject({ status: 'added', binary: true });
    expect(byPath('old.bin')).toMatchObject({ status: 'deleted', binary: true });
  });

  it('skips "\\ No newline at end of file" markers', () => {
    expect(byPath('noeol.txt')).toMatchObject({ removedLines: ['no newline'], addedLines: ['still no newline'] });
    expect(byPath('noeol.txt').text).toContain('\\ No newline at end of file');
    expect(byPath('addeol.txt')).toMatchObject({ removedLines: ['gains a newline'], addedLines: ['gains a newline'] });
  });

  it('reads "Binary files ... differ" when the patch was taken without --binary', async () => {
    const plain = await repo.git('diff', '--no-color', '--src-prefix=a/', '--dst-prefix=b/', 'HEAD', '--', 'logo.png');
    expect(plain).toContain('Binary files a/logo.png and b/logo.png differ');
    expect(parsePatch(plain)).toMatchObject([{ path: 'logo.png', status: 'modified', binary: true }]);
  });

  it('rejects a copy, which PATCH_GIT_ARGS never produces', async () => {
    await repo.write({ 'copy.sh': await readFile(path.join(repo.dir, 'run.sh')) });
    await repo.git('add', '-A');
    const withCopy = await repo.git(
      'diff',
      '--no-color',
      '--find-copies-harder',
      '--src-prefix=a/',
      '--dst-prefix=b/',
      'HEAD',
    );
    expect(withCopy).toContain('copy from run.sh');
    expect(codeOf(() => parsePatch(withCopy))).toBe('unsupported-copy');
  });
});

describe('parsePatch on patches taken as the grader takes them', () => {
  let repo: TempRepo;
  beforeAll(async () => {
    repo = await TempRepo.create({ 'keep.txt': lines('a'), 'x.py': lines('print(1)') });
  });
  afterAll(async () => {
    await repo.dispose();
  });

  it('reads PATCH_GIT_ARGS output, new untracked files included', async () => {
    const base = await repo.commit();
    await repo.write({ 'x.py': lines('print(2)'), 'added dir/new file.py': lines('pass') });
    const changes = parsePatch(await repo.patch(base));
    expect(changes.map(({ path, status }) => ({ path, status }))).toEqual([
      { path: 'added dir/new file.py', status: 'added' },
      { path: 'x.py', status: 'modified' },
    ]);
  });

  it('reads an empty patch as no changes', () => {
    expect(parsePatch('')).toEqual([]);
  });
});

describe('parsePatch rejects malformed input with a code', () => {
  const good = lines(
    'diff --git a/f.txt b/f.txt',
    'index 1111111..2222222 100644',
    '--- a/f.txt',
    '+++ b/f.txt',
    '@@ -1,2 +1,2 @@',
    ' keep',
    '-old',
    '+new',
  );

  it('accepts the well-formed patch these cases break', () => {
    expect(parsePatch(good)).toMatchObject([{ path: 'f.txt', removedLines: ['old'], addedLines: ['new'] }]);
  });

  it.each([
    ['text before the first section', `From: someone\n${good}`, 'unexpected-line'],
    ['a truncated hunk', good.replace('+new\n', ''), 'hunk-length-mismatch'],
    ['a hunk longer than its header', `${good}+extra\n`, 'unexpected-line'],
    ['a line that is not a hunk line', good.replace(' keep', '?keep'), 'hunk-length-mismatch'],
    ['a broken hunk header', good.replace('@@ -1,2 +1,2 @@', '@@ -1,2 @@'), 'bad-hunk-header'],
    [
      'paths without a/ b/ prefixes',
      good.replaceAll('a/f.txt', 'f.txt').replaceAll('b/f.txt', 'f.txt'),
      'bad-file-header',
    ],
    ['an unterminated quoted path', good.replace('--- a/f.txt', '--- "a/f.txt'), 'bad-quoted-path'],
    ['an unknown escape in a quoted path', good.replace('--- a/f.txt', '--- "a/f\\q.txt"'), 'bad-quoted-path'],
    ['a quoted path that is not UTF-8', good.replace('--- a/f.txt', '--- "a/\\377.txt"'), 'bad-quoted-path'],
    ['an unknown extended header', good.replace('index 1111111..2222222 100644', 'frobnicate 1'), 'unexpected-line'],
    ['---  without +++', good.replace('+++ b/f.txt\n', ''), 'unexpected-line'],
    [
      'a binary patch with no literal block',
      lines('diff --git a/b.bin b/b.bin', 'GIT binary patch', 'oops'),
      'bad-binary-patch',
    ],
    [
      'a binary patch with a stray line',
      lines('diff --git a/b.bin b/b.bin', 'GIT binary patch', 'literal 3', 'Hcmb', '', 'not base85!'),
      'bad-binary-patch',
    ],
    [
      'a mode-only header naming two paths',
      lines('diff --git a/one b/two', 'old mode 100644', 'new mode 100755'),
      'bad-file-header',
    ],
    [
      'a rename missing its "rename to"',
      lines('diff --git a/one b/two', 'similarity index 100%', 'rename from one'),
      'bad-file-header',
    ],
  ])('%s', (_name, text, code) => {
    expect(codeOf(() => parsePatch(text))).toBe(code);
  });
});
