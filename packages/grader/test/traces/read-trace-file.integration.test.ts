// The special files an engine can put at {traceFile} that only a process (mkfifo) or a server makes: none is read, none
// is waited on. read-trace-file.test.ts covers symlinks, folders and the cap.
import { execFile } from 'node:child_process';
import { mkdtemp, open as openFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { readTraceFile, traceReadFlag } from '../../src/traces/index.js';

const exec = promisify(execFile);
const root = await mkdtemp(join(tmpdir(), 'abp-read-trace-special-'));
afterAll(() => rm(root, { recursive: true, force: true }));

const readNothing = (path: string) => readTraceFile(path, () => undefined, 1024);

describe('readTraceFile on special files', () => {
  it('does not read or wait on a FIFO, with or without a writer', async () => {
    const fifo = join(root, 'fifo.jsonl');
    await exec('mkfifo', [fifo]);
    const result = await readNothing(fifo);
    expect(result).toMatchObject({ $case: 'not-a-file' });
    expect(traceReadFlag(result)).toBe('trace-not-a-file');

    // A writer that never closes: the read side must still return at once.
    const writer = await openFile(fifo, 'r+'); // O_RDWR holds the FIFO open without waiting for a peer
    try {
      await writer.write('{"kind":"run.start"}\n');
      expect(await readNothing(fifo)).toMatchObject({ $case: 'not-a-file' });
    } finally {
      await writer.close();
    }
  });

  it('does not read a Unix socket', async () => {
    const socketPath = join(root, 'socket.jsonl');
    const server = createServer((socket) => socket.end('{"kind":"run.start"}\n'));
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    try {
      expect(await readNothing(socketPath)).toMatchObject({ $case: 'not-a-file' });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
