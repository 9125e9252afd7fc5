// What `abp serve` keeps to answer fast, and bounded: content-addressed bytes (bounded in total and per entry, least
// recently used out first), the request log's batches (every line written, in order, at the size or on close), and the
// request log's file (rotated by size, a fixed number kept).
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createImmutableCache } from '../../src/serve/immutable-cache.js';
import { createLogLines, rotatingWriter } from '../../src/serve/log-lines.js';

describe('content-addressed bytes kept in memory', () => {
  it('keeps at most maxBytes, dropping the least recently used, and never an entry larger than maxEntryBytes', () => {
    const cache = createImmutableCache({ maxBytes: 30, maxEntryBytes: 12 });
    const bytes = (n: number) => Buffer.alloc(n, n);
    expect(cache.fits(12)).toBe(true);
    expect(cache.fits(13)).toBe(false);
    cache.keep('a', bytes(10));
    cache.keep('b', bytes(10));
    cache.keep('c', bytes(10));
    cache.keep('huge', bytes(13));
    expect(cache.lookup('huge')).toBeUndefined();
    // a is used, so b is the least recently used when d needs room.
    expect(cache.lookup('a')).toEqual(bytes(10));
    cache.keep('d', bytes(10));
    expect(cache.lookup('b')).toBeUndefined();
    expect(['a', 'c', 'd'].map((key) => cache.lookup(key)?.length)).toEqual([10, 10, 10]);
  });

  it('keeps nothing with no room', () => {
    const cache = createImmutableCache({ maxBytes: 0, maxEntryBytes: 8 });
    expect(cache.fits(1)).toBe(false);
    cache.keep('a', Buffer.alloc(1));
    expect(cache.lookup('a')).toBeUndefined();
  });
});

describe('the request log in batches', () => {
  const at = () => new Date('2026-12-05T00:00:00Z');
  const record = (path: string) =>
    ({ kind: 'request-served', method: 'GET', path, status: 200, remoteAddress: '127.0.0.1' }) as const;

  it('writes nothing per request, everything on close, one JSON line per record in order', () => {
    const writes: string[] = [];
    const lines = createLogLines((text) => writes.push(text), at);
    lines.log(record('/v1/tasks'));
    lines.log(record('/v1/draws'));
    expect(writes).toEqual([]);
    lines.close();
    expect(writes).toHaveLength(1);
    expect(
      writes
        .join('')
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as { at: string; path: string }),
    ).toEqual([
      { at: '2026-12-05T00:00:00.000Z', ...record('/v1/tasks') },
      { at: '2026-12-05T00:00:00.000Z', ...record('/v1/draws') },
    ]);
    lines.close();
    expect(writes).toHaveLength(1);
  });

  it('writes as soon as 64 KiB have gathered, and after a moment otherwise', async () => {
    const writes: string[] = [];
    const lines = createLogLines((text) => writes.push(text), at);
    const long = `/v1/${'x'.repeat(1000)}`;
    for (let n = 0; n < 70; n++) lines.log(record(long));
    expect(writes).toHaveLength(1);
    expect(writes[0]?.length).toBeGreaterThanOrEqual(64 * 1024);
    lines.log(record('/v1/tasks'));
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(writes.join('').trimEnd().split('\n')).toHaveLength(71);
  });
});

describe('the request log in a file that rotates', () => {
  it('moves the file aside past its size, keeps `keep` of them, and loses no line of the newest', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'abp-request-log-'));
    try {
      const path = join(dir, 'logs', 'requests.log');
      const write = rotatingWriter({ path, maxBytes: 100, keep: 2 });
      const lines = Array.from({ length: 12 }, (_, n) => `${JSON.stringify({ n, pad: 'x'.repeat(20) })}\n`);
      for (const line of lines) write(line);
      expect((await readdir(join(dir, 'logs'))).sort()).toEqual(['requests.log', 'requests.log.1', 'requests.log.2']);
      for (const name of ['requests.log', 'requests.log.1', 'requests.log.2'])
        expect((await stat(join(dir, 'logs', name))).size).toBeLessThanOrEqual(100);
      // Newest last, each file whole lines: the three files end with the last lines written, in order.
      const kept = ['requests.log.2', 'requests.log.1', 'requests.log'];
      const text = (await Promise.all(kept.map((name) => readFile(join(dir, 'logs', name), 'utf8')))).join('');
      expect(lines.join('').endsWith(text)).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
