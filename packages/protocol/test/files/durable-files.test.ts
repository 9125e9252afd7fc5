// The durable whole-file writes every store of abp goes through: a replacement is a new file taking the name in one
// step, a failure leaves the old bytes and no temporary file, a write-once keeps the first file and hands it back, and a
// stated mode is the file's mode whatever the umask.
import { link, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncFolder, writeFileAtomically, writeFileDurably, writeFileOnce } from '../../src/files/durable-files.js';

let root = '';
let folders = 0;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-durable-files-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

async function freshFolder(): Promise<string> {
  const dir = join(root, `case-${++folders}`);
  await mkdir(dir);
  return dir;
}

function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  return promise.then(
    () => undefined,
    (error: NodeJS.ErrnoException) => error.code ?? error.message,
  );
}

/** Runs `action` with the process umask set to `mask`, restoring it after (vitest runs this file in a forked process). */
async function withUmask<T>(mask: number, action: () => Promise<T>): Promise<T> {
  const previous = process.umask(mask);
  try {
    return await action();
  } finally {
    process.umask(previous);
  }
}

const modeOf = async (path: string): Promise<number> => (await stat(path)).mode & 0o777;

describe.each([
  ['writeFileDurably', writeFileDurably],
  ['writeFileAtomically', writeFileAtomically],
] as const)('%s', (_name, write) => {
  it('replaces the file with a new one under the same name, leaving nothing else in the folder', async () => {
    const dir = await freshFolder();
    const path = join(dir, 'record.json');
    await write(path, 'old\n');
    // A second name for the old file: an in-place overwrite would change its bytes too, a rename leaves them.
    await link(path, join(dir, 'old-alias'));
    await write(path, Buffer.from('new\n'));
    expect(await readFile(path, 'utf8')).toBe('new\n');
    expect(await readFile(join(dir, 'old-alias'), 'utf8')).toBe('old\n');
    expect((await readdir(dir)).sort()).toEqual(['old-alias', 'record.json']);
  });

  it('writes chunks in order, each before the next is made, so a producer may reuse its buffer', async () => {
    const dir = await freshFolder();
    const path = join(dir, 'lines.txt');
    function* reused(): Generator<Buffer> {
      const buffer = Buffer.alloc(2);
      for (const letter of 'abc') {
        buffer.write(`${letter}\n`);
        yield buffer;
      }
    }
    await write(path, reused());
    expect(await readFile(path, 'utf8')).toBe('a\nb\nc\n');
  });

  it('leaves the old bytes and no temporary file when the content fails midway', async () => {
    const dir = await freshFolder();
    const path = join(dir, 'snapshot');
    await write(path, 'old\n');
    function* failing(): Generator<Buffer> {
      yield Buffer.from('half of the ');
      throw new Error('the producer gave up');
    }
    await expect(write(path, failing())).rejects.toThrow('the producer gave up');
    expect(await readFile(path, 'utf8')).toBe('old\n');
    expect(await readdir(dir)).toEqual(['snapshot']);
  });

  it('leaves no temporary file when the rename fails, or when the parent is not a folder', async () => {
    const dir = await freshFolder();
    await mkdir(join(dir, 'taken', 'inside'), { recursive: true });
    expect(await codeOf(write(join(dir, 'taken'), 'bytes'))).toMatch(/^(EISDIR|ENOTEMPTY|EEXIST)$/);
    expect(await readdir(dir)).toEqual(['taken']);
    await writeFile(join(dir, 'plain-file'), 'not a folder');
    expect(await codeOf(write(join(dir, 'plain-file', 'child'), 'bytes'))).toBe('ENOTDIR');
    expect((await readdir(dir)).sort()).toEqual(['plain-file', 'taken']);
  });

  it('does not create the folder: where folders may appear is the caller’s to decide', async () => {
    const dir = await freshFolder();
    expect(await codeOf(write(join(dir, 'missing', 'file'), 'bytes'))).toBe('ENOENT');
    expect(await readdir(dir)).toEqual([]);
  });

  it('sets a stated mode exactly despite the umask, and leaves the default to the umask', async () => {
    const dir = await freshFolder();
    await withUmask(0o077, async () => {
      await write(join(dir, 'shared'), 'bytes', { mode: 0o644 });
      await write(join(dir, 'read-only'), 'bytes', { mode: 0o444 });
      await write(join(dir, 'default'), 'bytes');
    });
    expect(await modeOf(join(dir, 'shared'))).toBe(0o644);
    expect(await modeOf(join(dir, 'read-only'))).toBe(0o444);
    expect(await modeOf(join(dir, 'default'))).toBe(0o600);
  });
});

describe('writeFileOnce', () => {
  it('writes a new file, then keeps it and returns its bytes to a second writer', async () => {
    const dir = await freshFolder();
    const path = join(dir, 'signature.json');
    expect(await writeFileOnce(path, 'first\n')).toEqual({ created: true });
    const second = await writeFileOnce(path, Buffer.from('second\n'));
    expect(second).toEqual({ created: false, existing: Buffer.from('first\n') });
    expect(await readFile(path, 'utf8')).toBe('first\n');
    expect(await readdir(dir)).toEqual(['signature.json']);
  });

  it('lets exactly one of many racing writers create the file, and tells every other what it holds', async () => {
    const dir = await freshFolder();
    const path = join(dir, 'checkpoint.json');
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, index) => writeFileOnce(path, `writer ${index}\n`)),
    );
    const kept = await readFile(path);
    expect(results.filter((result) => result.created)).toHaveLength(1);
    for (const result of results) if (!result.created) expect(result.existing).toEqual(kept);
    expect(await readdir(dir)).toEqual(['checkpoint.json']);
  });

  it('sets a stated mode exactly despite the umask, and leaves no temporary file when it fails', async () => {
    const dir = await freshFolder();
    await withUmask(0o077, async () => {
      await writeFileOnce(join(dir, 'public.json'), 'bytes', { mode: 0o644 });
      await writeFileOnce(join(dir, 'private.pem'), 'bytes', { mode: 0o600 });
    });
    await withUmask(0o000, () => writeFileOnce(join(dir, 'key.pem'), 'bytes', { mode: 0o600 }));
    expect(await modeOf(join(dir, 'public.json'))).toBe(0o644);
    expect(await modeOf(join(dir, 'private.pem'))).toBe(0o600);
    expect(await modeOf(join(dir, 'key.pem'))).toBe(0o600);
    await writeFile(join(dir, 'plain-file'), 'not a folder');
    expect(await codeOf(writeFileOnce(join(dir, 'plain-file', 'child'), 'bytes'))).toBe('ENOTDIR');
    await mkdir(join(dir, 'taken'));
    // A directory under the name counts as taken, and reading it back is the error.
    expect(await codeOf(writeFileOnce(join(dir, 'taken'), 'bytes'))).toBe('EISDIR');
    expect((await readdir(dir)).sort()).toEqual(['key.pem', 'plain-file', 'private.pem', 'public.json', 'taken']);
  });
});

describe('syncFolder', () => {
  it('flushes a folder and fails for one that is not there', async () => {
    const dir = await freshFolder();
    await expect(syncFolder(dir)).resolves.toBeUndefined();
    expect(await codeOf(syncFolder(join(dir, 'missing')))).toBe('ENOENT');
  });
});
