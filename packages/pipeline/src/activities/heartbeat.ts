// Long activities tell the server they are alive while they work, so a worker that dies is noticed within the
// workflow's heartbeat timeout rather than the activity's start-to-close one, and another worker takes over.
import { Context } from '@temporalio/activity';

const HEARTBEAT_EVERY_MS = 5_000;

export async function heartbeating<T>(work: () => Promise<T>, details?: unknown): Promise<T> {
  const context = Context.current();
  context.heartbeat(details);
  const timer = setInterval(() => context.heartbeat(details), HEARTBEAT_EVERY_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
