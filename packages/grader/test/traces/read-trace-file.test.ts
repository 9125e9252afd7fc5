// Reading the file an engine wrote its trace to: only a regular file in a real folder, only up to the cap, never a wait.
// A FIFO needs mkfifo, a process: read-trace-file.integration.test.ts makes one.
import { mkdir, mkdtemp, open, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createLineSplitter,
  readTraceFile,
  traceLimits,
  traceReadFlag,
  type TraceFileRead,
} from '../../src/traces/index.js';

const root = await mkdtemp(join(tmpdir(), 'abp-read-trace-'));
afterAll(() => rm(root, { recursive: true, force: true }));
let cases = 0;
const folder = async () => {
  const dir = join(root, `case-${(cases += 1)}`);
  await mkdir(dir);
  return dir;
};

async function read(path: string, maxBytes = traceLimits.maxBytes): Promise<{ read: TraceFileRead; text: string }> {
  const chunks: Buffer[] = [];
  const result = await readTraceFile(path, (bytes) => chunks.push(bytes), maxBytes);
  return { read: result, text: Buffer.concat(chunks).toString('utf8') };
}

describe('readTraceFile', () => {
  it('reads a regular file whole', async () => {
    const file = join(await folder(), 'trace.jsonl');
    await writeFile(file, 'one\ntwo\n');
    expect(await read(file)).toEqual({ read: { $case: 'read', bytes: 8, truncated: false }, text: 'one\ntwo\n' });
  });

  it('says a missing file is absent, without a flag', async () => {
    const { read: result } = await read(join(await folder(), 'trace.jsonl'));
    expect(result).toEqual({ $case: 'absent' });
    expect(traceReadFlag(result)).toBeNull();
  });

  it('never follows a symlink, to a file or to a device', async () => {
    const dir = await folder();
    const secret = join(dir, 'secret.txt');
    await writeFile(secret, 'held-out material\n');
    for (const [index, target] of [secret, '/dev/zero'].entries()) {
      const link = join(dir, `link-${index}`);
      await symlink(target, link);
      const { read: result, text } = await read(link);
      expect(result).toMatchObject({ $case: 'not-a-file' });
      expect(traceReadFlag(result)).toBe('trace-not-a-file');
      expect(text).toBe('');
    }
  });

  it('refuses a folder at the path, and a trace whose folder is a symlink', async () => {
    const dir = await folder();
    await mkdir(join(dir, 'trace.jsonl'));
    expect((await read(join(dir, 'trace.jsonl'))).read).toMatchObject({ $case: 'not-a-file' });

    const elsewhere = await folder();
    await writeFile(join(elsewhere, 'trace.jsonl'), 'somewhere else\n');
    await symlink(elsewhere, join(dir, 'out'));
    const { read: result, text } = await read(join(dir, 'out', 'trace.jsonl'));
    expect(result).toMatchObject({ $case: 'not-a-file' });
    expect(text).toBe('');
  });

  it('reads no more than maxBytes and says whether the file held more', async () => {
    const file = join(await folder(), 'trace.jsonl');
    await writeFile(file, 'x'.repeat(100));
    expect((await read(file, 100)).read).toEqual({ $case: 'read', bytes: 100, truncated: false });
    const cut = await read(file, 64);
    expect(cut.read).toEqual({ $case: 'read', bytes: 64, truncated: true });
    expect(cut.text).toHaveLength(64);
    expect(traceReadFlag(cut.read)).toBe('trace-truncated');
  });

  it('stops a 200 MB trace at the default cap', async () => {
    const file = join(await folder(), 'trace.jsonl');
    // Sparse: 200 MB long, no disk spent on it.
    const handle = await open(file, 'w');
    await handle.truncate(200 * 1024 * 1024);
    await handle.close();
    let largestChunk = 0;
    const result = await readTraceFile(
      file,
      (bytes) => (largestChunk = Math.max(largestChunk, bytes.length)),
      traceLimits.maxBytes,
    );
    expect(result).toEqual({ $case: 'read', bytes: traceLimits.maxBytes, truncated: true });
    expect(largestChunk).toBeLessThanOrEqual(64 * 1024);
  });
});

describe('createLineSplitter', () => {
  const collect = (maxLineBytes: number) => {
    const seen: Array<string | number> = [];
    const splitter = createLineSplitter(
      { line: (text) => seen.push(text), overlongLine: (bytes) => seen.push(bytes) },
      maxLineBytes,
    );
    return { seen, splitter };
  };

  it('splits lines across chunks, a character split between two chunks kept whole', () => {
    const { seen, splitter } = collect(100);
    const bytes = Buffer.from('ab\nçé\nlast');
    splitter.push(bytes.subarray(0, 5)); // "ab\n" and the first byte of "ç"... and its second
    splitter.push(bytes.subarray(5, 6)); // half of "é"
    splitter.push(bytes.subarray(6));
    splitter.end(false);
    expect(seen).toEqual(['ab', 'çé', 'last']);
  });

  it('skips a line past maxLineBytes to its end, reporting its length, and holds none of it', () => {
    const { seen, splitter } = collect(4);
    splitter.push(Buffer.from('ok\n0123456'));
    splitter.push(Buffer.from('789\nfine\n'));
    splitter.end(false);
    expect(seen).toEqual(['ok', 10, 'fine']);
  });

  it('drops the partial line a cut file ends in', () => {
    const { seen, splitter } = collect(100);
    splitter.push(Buffer.from('whole\npart'));
    splitter.end(true);
    expect(seen).toEqual(['whole']);
  });
});
