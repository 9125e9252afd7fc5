// The request log as JSON lines, written in batches: one write per request was a system call per request, a large
// share of what answering a small cached read costs. Lines wait at most FLUSH_AFTER_MS, or until FLUSH_AT_BYTES have
// gathered; `close` writes what is left, so a stopped server loses no line (a killed one, at most the last moment's).
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
