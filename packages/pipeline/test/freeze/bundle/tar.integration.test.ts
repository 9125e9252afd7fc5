import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTar, writeTar, type TarEntry } from '@abp/protocol/bundle/tar';
import { codeOf } from './support.js';

const run = promisify(execFile);

const longDir = `${'deep/'.repeat(25)}folder`;
/** Entries whose paths fit the ustar name and prefix fields. */
const ustarEntries: TarEntry[] = [
  { path: 'z-last.txt', content: Buffer.from('last\n') },
  { path: 'bin/run.sh', content: Buffer.from('#!/bin/sh\necho hi\n'), executable: true },
  { path: 'empty', content: Buffer.alloc(0) },
  { path: 'block.bin', content: Buffer.alloc(1024, 7) },
  // 131 bytes: over the 100-byte name field, split into the ustar prefix.
  { path: `${longDir}/name.txt`, content: Buffer.from('prefix split\n') },
  { path: 'a/b', content: Buffer.from('b\n') },
];
/** Entries that need a pax path header: no split fits ustar, or the path is not ASCII. */
const paxEntries: TarEntry[] = [
  { path: `${'x'.repeat(120)}/${'y'.repeat(120)}.txt`, content: Buffer.from('pax\n') },
  { path: 'tests/ünïcödé/日本語.test.js', content: Buffer.from('unicode\n') },
];
const entries = [...ustarEntries, ...paxEntries];

let root = '';
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-bundle-tar-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** An archive written by Python's tarfile, a real third-party writer, from a short script's body. */
async function pythonTar(name: string, body: string): Promise<Buffer> {
  const path = join(root, name);
  const script = [
    'import io, tarfile, sys',
    `t = tarfile.open(sys.argv[1], 'w', format=tarfile.USTAR_FORMAT)`,
    'def add(name, data=b"", type=tarfile.REGTYPE, link=""):',
    '    i = tarfile.TarInfo(name); i.size = len(data); i.type = type; i.linkname = link',
    '    t.addfile(i, io.BytesIO(data) if type == tarfile.REGTYPE else None)',
    body,
    't.close()',
  ].join('\n');
  await run('python3', ['-c', script, path]);
  return readFile(path);
}

describe('writeTar and readTar', () => {
  it('round-trip long, unicode and executable entries, sorted by path', () => {
    const archive = writeTar(entries, 'test archive');
    const read = readTar(archive, 'test archive');
    const expected = [...entries]
      .sort((a, b) => (a.path < b.path ? -1 : 1))
      .map((entry) => ({ ...entry, executable: entry.executable === true }));
    expect(
      read.map((entry) => ({ path: entry.path, content: Buffer.from(entry.content), executable: entry.executable })),
    ).toEqual(expected);
    expect(archive.length % 512).toBe(0);
  });

  it('gives the same bytes for the same entries in any order', () => {
    expect(writeTar([...entries].reverse(), 'reversed').equals(writeTar(entries, 'original'))).toBe(true);
    const changed = entries.map((entry) => (entry.path === 'empty' ? { ...entry, content: Buffer.from('x') } : entry));
    expect(writeTar(changed, 'changed').equals(writeTar(entries, 'original'))).toBe(false);
  });

  it('writes archives GNU tar lists with zero owners and mtimes, fixed modes, and extracts byte for byte', async () => {
    const path = join(root, 'gnu.tar');
    await writeFile(path, writeTar(entries, 'gnu'));
    const { stdout } = await run('tar', ['--list', '--verbose', '--numeric-owner', '--full-time', '--file', path], {
      env: { ...process.env, TZ: 'UTC', LC_ALL: 'C.UTF-8' },
    });
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(entries.length);
    expect(lines.find((line) => line.endsWith('bin/run.sh'))).toMatch(
      /^-rwxr-xr-x 0\/0 +\d+ 1970-01-01 00:00:00 bin\/run\.sh$/,
    );
    for (const line of lines.filter((candidate) => !candidate.endsWith('bin/run.sh')))
      expect(line).toMatch(/^-rw-r--r-- 0\/0 +\d+ 1970-01-01 00:00:00 /);
    const out = join(root, 'gnu-out');
    await mkdir(out);
    await run('tar', ['--extract', '--file', path, '--directory', out]);
    for (const entry of entries)
      expect((await readFile(join(out, entry.path))).equals(entry.content), entry.path).toBe(true);
    expect((await stat(join(out, 'bin/run.sh'))).mode & 0o111).not.toBe(0);
  });

  it('writes the very bytes GNU tar writes for ustar-sized ASCII paths with fixed owners, mtimes and modes', async () => {
    const src = join(root, 'gnu-src');
    for (const entry of ustarEntries) {
      await mkdir(join(src, entry.path, '..'), { recursive: true });
      await writeFile(join(src, entry.path), entry.content);
      await chmod(join(src, entry.path), entry.executable === true ? 0o755 : 0o644);
    }
    const paths = ustarEntries.map((entry) => entry.path).sort();
    const path = join(root, 'gnu-written.tar');
    await run('tar', [
      '--format=ustar',
      '--mtime=@0',
      '--owner=0',
      '--group=0',
      '--numeric-owner',
      '--no-recursion',
      '-b',
      '1',
      '-cf',
      path,
      '-C',
      src,
      ...paths,
    ]);
    expect((await readFile(path)).equals(writeTar(ustarEntries, 'ours'))).toBe(true);
  });

  it('reads what Python tarfile writes in ustar form', async () => {
    const archive = await pythonTar('python.tar', `add('src/a.txt', b'alpha')\nadd('${longDir}/b.txt', b'beta')`);
    expect(readTar(archive, 'python').map((entry) => [entry.path, entry.content.toString()])).toEqual([
      ['src/a.txt', 'alpha'],
      [`${longDir}/b.txt`, 'beta'],
    ]);
  });
});

describe('readTar refuses what could escape or alias the destination', () => {
  const cases: Array<[string, string, string]> = [
    ['a parent segment', "add('safe/../../evil', b'x')", 'unsafe-path'],
    ['an absolute path', "add('/etc/evil', b'x')", 'unsafe-path'],
    ['a "." segment', "add('a/./b', b'x')", 'unsafe-path'],
    ['a symbolic link', "add('link', type=tarfile.SYMTYPE, link='/etc/passwd')", 'unsupported-entry'],
    ['a hard link', "add('file', b'x')\nadd('hard', type=tarfile.LNKTYPE, link='file')", 'unsupported-entry'],
    ['a character device', "add('tty', type=tarfile.CHRTYPE)", 'unsupported-entry'],
    ['a FIFO', "add('pipe', type=tarfile.FIFOTYPE)", 'unsupported-entry'],
    ['a folder entry', "add('dir/', type=tarfile.DIRTYPE)", 'unsupported-entry'],
    ['a path stored twice', "add('twice', b'1')\nadd('twice', b'2')", 'duplicate-entry'],
    ['a file that another path needs as a folder', "add('a', b'1')\nadd('a/b', b'2')", 'path-conflict'],
  ];
  it.each(cases)('%s', async (name, body, code) => {
    const archive = await pythonTar(`${name.replaceAll(/\W/g, '-')}.tar`, body);
    expect(await codeOf(Promise.resolve().then(() => readTar(archive, name)))).toBe(code);
  });

  it('refuses damaged archives: a changed header byte, a cut-off end, bytes after the end', async () => {
    const archive = writeTar(entries, 'intact');
    const renamed = Buffer.from(archive);
    renamed[3] = (renamed[3] ?? 0) ^ 1;
    const trailing = Buffer.concat([archive, Buffer.alloc(512, 1)]);
    for (const damaged of [renamed, archive.subarray(0, archive.length - 1024), trailing]) {
      expect(await codeOf(Promise.resolve().then(() => readTar(damaged, 'damaged')))).toBe('corrupt-archive');
    }
  });

  it('writeTar refuses unsafe paths, repeats and conflicts too', async () => {
    const file = (path: string) => ({ path, content: Buffer.from('x') });
    const attempts: Array<[TarEntry[], string]> = [
      [[file('../up')], 'unsafe-path'],
      [[file('/abs')], 'unsafe-path'],
      [[file('a//b')], 'unsafe-path'],
      [[file('back\\slash')], 'unsafe-path'],
      [[file('dir/')], 'unsafe-path'],
      [[file('same'), file('same')], 'duplicate-entry'],
      [[file('a'), file('a/b')], 'path-conflict'],
    ];
    for (const [input, code] of attempts)
      expect(await codeOf(Promise.resolve().then(() => writeTar(input, 'bad'))), input[0]?.path).toBe(code);
  });
});
