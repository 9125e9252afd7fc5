// Failures of the machine, not of the task: a full disk, exhausted memory or file handles, a process the kernel killed,
// a service that did not answer. A freeze that meets one has learned nothing about the fix, so it must be retried
// later, never turned into a rejection (only the fix and its tests can reject a task). Recognised from an error's
// code, from the text a failed command left (its log tail), and from the free space where the freeze works.
import { statfs } from 'node:fs/promises';

export type MachineFaultCode = 'disk-full' | 'out-of-memory' | 'out-of-file-handles' | 'process-killed' | 'unreachable';

export interface MachineFault {
  code: MachineFaultCode;
  /** The evidence: the error's message, or the line of the log that says it. */
  message: string;
}

const BY_ERRNO: Record<string, MachineFaultCode> = {
  ENOSPC: 'disk-full',
  EDQUOT: 'disk-full',
  ENOMEM: 'out-of-memory',
  EMFILE: 'out-of-file-handles',
  ENFILE: 'out-of-file-handles',
  ECONNREFUSED: 'unreachable',
  ECONNRESET: 'unreachable',
  ETIMEDOUT: 'unreachable',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  EAI_AGAIN: 'unreachable',
};

// What the tools print for the same faults (git, npm, pip, cargo, go, the shell); matched line by line.
const BY_TEXT: Array<[RegExp, MachineFaultCode]> = [
  [/No space left on device|ENOSPC|Disk quota exceeded|EDQUOT|not enough free (disk )?space/i, 'disk-full'],
  [
    /Cannot allocate memory|ENOMEM|JavaScript heap out of memory|MemoryError|fatal error: runtime: out of memory/i,
    'out-of-memory',
  ],
  [/Too many open files|EMFILE|ENFILE/i, 'out-of-file-handles'],
  // SIGKILL that abp did not send: abp's own deadline kills say "timed out" or "ran past", and a hang is the task's.
  [/^(?!.*(timed out|ran past)).*(killed by SIGKILL|signal: killed)/i, 'process-killed'],
];

/** Below this much free space where the freeze works, any failure there is taken for a full disk. */
export const MIN_FREE_BYTES = 64 * 1024 * 1024;

/** The machine fault an error is, following its causes; null when it is something else. */
export function faultOfError(error: unknown): MachineFault | null {
  for (let current = error, depth = 0; current instanceof Error && depth < 8; current = current.cause, depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    const byCode = code === undefined ? undefined : BY_ERRNO[code];
    if (byCode !== undefined) return { code: byCode, message: current.message };
    const byText = faultOfText(current.message);
    if (byText !== null) return byText;
  }
  return null;
}

/** The machine fault a command's output reports, with the line that reports it; null when none does. */
export function faultOfText(text: string): MachineFault | null {
  for (const line of text.split('\n')) {
    for (const [pattern, code] of BY_TEXT) if (pattern.test(line)) return { code, message: line.trim().slice(0, 500) };
  }
  return null;
}

/** A full disk at `dir` (less than MIN_FREE_BYTES available), whatever the failure said; null when there is room. */
export async function diskFullAt(dir: string): Promise<MachineFault | null> {
  const stats = await statfs(dir).catch(() => null);
  if (stats === null) return null;
  const free = stats.bavail * stats.bsize;
  return free < MIN_FREE_BYTES
    ? {
        code: 'disk-full',
        message: `${dir} has ${Math.floor(free / 1024)} KiB free (less than ${MIN_FREE_BYTES / 1024 / 1024} MiB)`,
      }
    : null;
}
