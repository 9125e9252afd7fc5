// Peak memory of the main job's processes: VmHWM ("high water mark", the largest resident set the process has had)
// from /proc/<pid>/status. Linux only; elsewhere, or for a process that is gone, the figure is null.
import { readFileSync } from 'node:fs';

export interface ProcessMemory {
  process: string;
  pid: number | null;
  /** Peak resident memory in MiB since the process started, or null when it cannot be read. */
  peakMiB: number | null;
}

export function peakResidentMiB(pid: number | null): number | null {
  if (pid === null) return null;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = /^VmHWM:\s+(\d+)\s+kB$/m.exec(status)?.[1];
    return kib === undefined ? null : Math.round((Number(kib) / 1024) * 10) / 10;
  } catch {
    return null;
  }
}

export function processMemory(processes: ReadonlyArray<{ process: string; pid: number | null }>): ProcessMemory[] {
  return processes.map(({ process, pid }) => ({ process, pid, peakMiB: peakResidentMiB(pid) }));
}
