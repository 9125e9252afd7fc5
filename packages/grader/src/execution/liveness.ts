// Whether a process is alive, by its pid: what a run lock and a stale trial folder are judged by, and what the
// operators' stack supervision builds on.
import { readFileSync } from 'node:fs';

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A zombie answers signal 0 but has exited; where no init reaps it, it would look alive forever.
  return processState(pid) !== 'Z';
}

/** The state letter from /proc/<pid>/stat (R, S, Z, …), or null where /proc is not available. */
function processState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces; the state follows the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) || null;
  } catch {
    return null;
  }
}
