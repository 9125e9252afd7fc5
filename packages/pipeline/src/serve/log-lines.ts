// The request log as JSON lines, written in batches: one write per request was a system call per request, a large
// share of what answering a small cached read costs. Lines wait at most FLUSH_AFTER_MS, or until FLUSH_AT_BYTES have
// gathered; `close` writes what is left, so a stopped server loses no line (a killed one, at most the last moment's).
// Written to stdout, or to a file that rotates by size (`abp serve --log-file`).
import { appendFileSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ServeLog, ServeLogRecord } from './log.js';

const FLUSH_AFTER_MS = 200;
const FLUSH_AT_BYTES = 64 * 1024;

export interface LogLines {
  log: ServeLog;
  /** Writes what is gathered and stops the timer. */
  close(): void;
}

export function createLogLines(write: (text: string) => void, now: () => Date = () => new Date()): LogLines {
  let pending: string[] = [];
  let bytes = 0;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    bytes = 0;
    write(text);
  };
  return {
    log(record: ServeLogRecord) {
      const line = `${JSON.stringify({ at: now().toISOString(), ...record })}\n`;
      pending.push(line);
      bytes += line.length;
      if (bytes >= FLUSH_AT_BYTES) flush();
      else timer ??= setTimeout(flush, FLUSH_AFTER_MS).unref();
    },
    close: flush,
  };
}

/** Where a rotating log keeps its lines: `path`, then `path.1` … `path.<keep>`, oldest last. */
export interface RotatingFile {
  path: string;
  /** Past this size the file is moved to `.1` (and `.1` to `.2` …) before the next write. */
  maxBytes: number;
  /** How many rotated files are kept; the oldest beyond them is removed. */
  keep: number;
}

export const REQUEST_LOG_ROTATION = { maxBytes: 64 * 1024 * 1024, keep: 4 } as const;

/**
 * A writer for createLogLines that appends to `file.path` and rotates it past `file.maxBytes`, so a server that runs for
 * months holds at most (keep + 1) × maxBytes of request log. Synchronous: batches are rare and small.
 */
export function rotatingWriter(file: RotatingFile): (text: string) => void {
  mkdirSync(dirname(file.path), { recursive: true });
  let size = existsSync(file.path) ? statSync(file.path).size : 0;
  return (text) => {
    if (size > 0 && size + Buffer.byteLength(text) > file.maxBytes) {
      rmSync(`${file.path}.${file.keep}`, { force: true });
      for (let n = file.keep - 1; n >= 1; n--)
        if (existsSync(`${file.path}.${n}`)) renameSync(`${file.path}.${n}`, `${file.path}.${n + 1}`);
      renameSync(file.path, `${file.path}.1`);
      size = 0;
    }
    appendFileSync(file.path, text);
    size += Buffer.byteLength(text);
  };
}
