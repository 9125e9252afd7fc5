// Reads the file an engine wrote its trace to. The engine chose what is at that path: a FIFO that never ends, a symlink
// to /dev/zero or to a file it must not make the grader read, a file of gigabytes. The path is opened without following
// a symlink and without blocking, only a regular file is read, and only up to a byte cap; anything else is "no trace",
// said with a flag. Nothing here waits on the engine.
import { constants } from 'node:fs';
import { lstat, open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { TraceReadFlag } from './summarize-trace.js';

export type TraceFileRead =
  /** The file was read, up to maxBytes; truncated when it held more. */
  | { $case: 'read'; bytes: number; truncated: boolean }
  | { $case: 'absent' }
  /** Something other than a regular file in a real folder: a FIFO, a symlink, a device, a socket, a folder. */
  | { $case: 'not-a-file'; what: string }
  | { $case: 'unreadable'; code: string };

const CHUNK_BYTES = 64 * 1024;

/** The flag a read that produced no trace, or only part of one, raises; null when it read the whole file or none was there. */
export function traceReadFlag(read: TraceFileRead): TraceReadFlag | null {
  switch (read.$case) {
    case 'read':
      return read.truncated ? 'trace-truncated' : null;
    case 'absent':
      return null;
    case 'not-a-file':
      return 'trace-not-a-file';
    case 'unreadable':
      return 'trace-unreadable';
  }
}

function kindOf(stats: { isFIFO(): boolean; isSymbolicLink(): boolean; isDirectory(): boolean; isSocket(): boolean }) {
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSymbolicLink()) return 'a symlink';
  if (stats.isDirectory()) return 'a folder';
  if (stats.isSocket()) return 'a socket';
  return 'a device';
}

async function openRegularFile(
  path: string,
): Promise<{ handle: FileHandle } | Exclude<TraceFileRead, { $case: 'read' }>> {
  // O_NOFOLLOW covers the last component only: the folder holding the trace is the engine's too, so it must be a real one.
  const folder = await lstat(dirname(path)).catch(() => null);
  if (folder === null) return { $case: 'absent' };
  if (!folder.isDirectory()) return { $case: 'not-a-file', what: `its folder is ${kindOf(folder)}` };
  let handle: FileHandle;
  try {
    // O_NONBLOCK: opening a FIFO no writer holds returns at once instead of waiting for one.
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
    if (code === 'ENOENT') return { $case: 'absent' };
    // ELOOP: the path is a symlink. ENXIO: a socket, or a FIFO opened for writing elsewhere.
    if (code === 'ELOOP' || code === 'ENXIO')
      return { $case: 'not-a-file', what: code === 'ELOOP' ? 'a symlink' : 'a socket' };
    return { $case: 'unreadable', code };
  }
  const stats = await handle.stat().catch(() => null);
  if (stats === null || !stats.isFile()) {
    await handle.close();
    return stats === null ? { $case: 'unreadable', code: 'EIO' } : { $case: 'not-a-file', what: kindOf(stats) };
  }
  return { handle };
}

/**
 * Streams a trace file to `chunk` in order, at most `maxBytes` of it. A file that grows while it is read is cut at the
 * same cap: what counts is the bytes read, not the size the file once had.
 */
export async function readTraceFile(
  path: string,
  chunk: (bytes: Buffer) => void,
  maxBytes: number,
): Promise<TraceFileRead> {
  const opened = await openRegularFile(path);
  if (!('handle' in opened)) return opened;
  const { handle } = opened;
  try {
    const buffer = Buffer.alloc(CHUNK_BYTES);
    let bytes = 0;
    for (;;) {
      const room = Math.min(CHUNK_BYTES, maxBytes - bytes);
      if (room === 0) {
        // At the cap: one byte more says whether the file ended there or was cut.
        const { bytesRead } = await handle.read(buffer, 0, 1, null);
        return { $case: 'read', bytes, truncated: bytesRead > 0 };
      }
      const { bytesRead } = await handle.read(buffer, 0, room, null);
      if (bytesRead === 0) return { $case: 'read', bytes, truncated: false };
      bytes += bytesRead;
      // A copy: the buffer is reused for the next read while the consumer may keep what it was given.
      chunk(Buffer.from(buffer.subarray(0, bytesRead)));
    }
  } catch (error) {
    return { $case: 'unreadable', code: (error as NodeJS.ErrnoException).code ?? 'EIO' };
  } finally {
    await handle.close();
  }
}

/** A sink of trace lines: each line without its break, or the length of one too long to hold. */
export interface TraceLineSink {
  line(text: string): void;
  overlongLine(bytes: number): void;
}

/**
 * Splits bytes into lines for `sink`, holding at most maxLineBytes of one line: a longer line is skipped to its end and
 * reported by its length. Lines are decoded whole, so a character split between two chunks stays one character.
 */
export function createLineSplitter(
  sink: TraceLineSink,
  maxLineBytes: number,
): { push(bytes: Buffer): void; end(cut: boolean): void } {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let overlong = false;

  const take = (part: Buffer) => {
    if (overlong) {
      pendingBytes += part.length;
      return;
    }
    pendingBytes += part.length;
    if (pendingBytes > maxLineBytes) {
      overlong = true;
      pending = [];
      return;
    }
    pending.push(part);
  };
  const flush = () => {
    if (overlong) sink.overlongLine(pendingBytes);
    else sink.line(Buffer.concat(pending, pendingBytes).toString('utf8'));
    pending = [];
    pendingBytes = 0;
    overlong = false;
  };

  return {
    push(bytes) {
      let from = 0;
      for (;;) {
        const newline = bytes.indexOf(0x0a, from);
        if (newline === -1) break;
        take(bytes.subarray(from, newline));
        flush();
        from = newline + 1;
      }
      if (from < bytes.length) take(bytes.subarray(from));
    },
    // A file cut at the cap ends inside a line: that partial line is not the engine's, so it is dropped, not reported.
    end(cut) {
      if (pendingBytes > 0 && !cut) flush();
    },
  };
}
