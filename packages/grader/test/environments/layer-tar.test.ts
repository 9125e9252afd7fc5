import {
  chmod,
  link,
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  readlink,
  rm,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { unpackLayer, writeLayer } from '../../src/environments/layer-tar.js';
import { codeOf } from './environment-error.js';
import { rawTar, type RawEntry } from './tar-bytes.js';

let work: string;
beforeEach(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'abp-layer-'));
});
afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

async function tree(root: string, entries: Record<string, string>): Promise<void> {
  for (const [relative, content] of Object.entries(entries)) {
    await mkdir(path.dirname(path.join(root, relative)), { recursive: true });
    await writeFile(path.join(root, relative), content);
  }
}

async function unpackRaw(entries: RawEntry[], root: string): Promise<void> {
  const file = path.join(work, `raw-${Math.random()}.tar`);
  await writeFile(file, rawTar(entries));
  await unpackLayer(file, root, 'layer under test');
}

describe('writeLayer', () => {
  it('gives the same bytes for the same folder whatever the mtimes and the order files were made in', async () => {
    const first = path.join(work, 'first');
    const second = path.join(work, 'second');
    await tree(first, { 'b/two.txt': 'two', 'a.txt': 'one', 'b/c/three.py': 'print(3)' });
    await tree(second, { 'b/c/three.py': 'print(3)', 'a.txt': 'one', 'b/two.txt': 'two' });
    await utimes(path.join(second, 'a.txt'), 1_000_000, 2_000_000);
    const one = await writeLayer(first, path.join(work, 'one.tar'));
    const two = await writeLayer(second, path.join(work, 'two.tar'));
    expect(two.digest).toBe(one.digest);
    expect(await readFile(path.join(work, 'two.tar'))).toEqual(await readFile(path.join(work, 'one.tar')));
    expect(one.entries).toBe(5);
  });

  it('changes its digest when a byte, a mode or a link target changes', async () => {
    const dir = path.join(work, 'dir');
    await tree(dir, { 'run.sh': 'echo hi' });
    await symlink('run.sh', path.join(dir, 'alias'));
    const digests = [(await writeLayer(dir, path.join(work, '0.tar'))).digest];
    await chmod(path.join(dir, 'run.sh'), 0o755);
    digests.push((await writeLayer(dir, path.join(work, '1.tar'))).digest);
    await writeFile(path.join(dir, 'run.sh'), 'echo ho');
    digests.push((await writeLayer(dir, path.join(work, '2.tar'))).digest);
    await rm(path.join(dir, 'alias'));
    await symlink('elsewhere', path.join(dir, 'alias'));
    digests.push((await writeLayer(dir, path.join(work, '3.tar'))).digest);
    expect(new Set(digests).size).toBe(4);
  });

  it('round-trips files, modes, symbolic links, hard links, empty folders and long names', async () => {
    const source = path.join(work, 'source');
    const long = `${'deep/'.repeat(30)}${'n'.repeat(120)}.txt`;
    await tree(source, { 'bin/tool': '#!/bin/sh\n', [long]: 'long', 'lib/data.bin': 'x'.repeat(70_000) });
    await chmod(path.join(source, 'bin/tool'), 0o755);
    await symlink('/usr/bin/python3', path.join(source, 'bin/python'));
    await link(path.join(source, 'lib/data.bin'), path.join(source, 'lib/same.bin'));
    await mkdir(path.join(source, 'empty'));
    const layer = path.join(work, 'layer.tar');
    const written = await writeLayer(source, layer);
    const root = path.join(work, 'root');
    await mkdir(root);
    const unpacked = await unpackLayer(layer, root, 'layer');
    expect(unpacked).toEqual({ digest: written.digest, size: written.size });
    expect((await lstat(path.join(root, 'bin/tool'))).mode & 0o777).toBe(0o755);
    expect(await readlink(path.join(root, 'bin/python'))).toBe('/usr/bin/python3');
    expect(await readFile(path.join(root, long), 'utf8')).toBe('long');
    const [data, same] = await Promise.all(['data.bin', 'same.bin'].map((name) => lstat(path.join(root, 'lib', name))));
    expect(same?.ino).toBe(data?.ino);
    expect(data?.size).toBe(70_000);
    expect((await lstat(path.join(root, 'empty'))).isDirectory()).toBe(true);
  });
});

describe('unpackLayer', () => {
  it('refuses entries that climb out of the root or are absolute', async () => {
    const root = path.join(work, 'root');
    await mkdir(root);
    expect(await codeOf(unpackRaw([{ name: '../escape.txt', content: 'x' }], root))).toBe('unsafe-layer');
    expect(await codeOf(unpackRaw([{ name: '/etc/escape', content: 'x' }], root))).toBe('unsafe-layer');
    expect(await codeOf(unpackRaw([{ name: 'a/../../escape', content: 'x' }], root))).toBe('unsafe-layer');
  });

  it('never writes through a symbolic link, even one the same layer made', async () => {
    const root = path.join(work, 'root');
    const outside = path.join(work, 'outside');
    await mkdir(root);
    await mkdir(outside);
    const code = await codeOf(
      unpackRaw(
        [
          { name: 'etc', type: '2', linkname: outside },
          { name: 'etc/passwd', content: 'planted' },
        ],
        root,
      ),
    );
    expect(code).toBe('unsafe-layer');
    await expect(readFile(path.join(outside, 'passwd'))).rejects.toThrow();
  });

  it('refuses a hard link to a path outside the root', async () => {
    const root = path.join(work, 'root');
    await mkdir(root);
    expect(await codeOf(unpackRaw([{ name: 'shadow', type: '1', linkname: '../../etc/shadow' }], root))).toBe(
      'unsafe-layer',
    );
  });

  it('applies whiteouts and opaque folders to what lower layers left', async () => {
    const root = path.join(work, 'root');
    await mkdir(root);
    await unpackRaw(
      [
        { name: 'keep.txt', content: 'k' },
        { name: 'gone.txt', content: 'g' },
        { name: 'cache/', type: '5', mode: 0o755 },
        { name: 'cache/old', content: 'o' },
      ],
      root,
    );
    await unpackRaw(
      [
        { name: '.wh.gone.txt' },
        { name: 'cache/', type: '5', mode: 0o755 },
        { name: 'cache/new', content: 'n' },
        { name: 'cache/.wh..wh..opq' },
      ],
      root,
    );
    expect(await readFile(path.join(root, 'keep.txt'), 'utf8')).toBe('k');
    await expect(lstat(path.join(root, 'gone.txt'))).rejects.toThrow();
    await expect(lstat(path.join(root, 'cache/old'))).rejects.toThrow();
    expect(await readFile(path.join(root, 'cache/new'), 'utf8')).toBe('n');
  });

  it('refuses a layer cut short', async () => {
    const root = path.join(work, 'root');
    await mkdir(root);
    const whole = rawTar([{ name: 'big.txt', content: 'y'.repeat(5000) }]);
    const file = path.join(work, 'short.tar');
    await writeFile(file, whole.subarray(0, 2048));
    expect(await codeOf(unpackLayer(file, root, 'short layer'))).toBe('unsafe-layer');
  });
});
