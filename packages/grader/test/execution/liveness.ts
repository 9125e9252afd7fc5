// Whether a process has ended, allowing for SIGKILL being delivered asynchronously by the kernel.
import { setTimeout as delay } from 'node:timers/promises';
import { isAlive } from '../../src/execution/liveness.js';

/** True once none of `pids` is alive (zombies count as ended), polled for up to `withinMs`. */
export async function endedSoon(pids: readonly number[], withinMs = 1_000): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (pids.some((pid) => isAlive(pid))) {
    if (Date.now() >= deadline) return false;
    await delay(20);
  }
  return true;
}
