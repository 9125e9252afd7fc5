// A freeze that cannot go on for a reason outside the task (a full disk, memory, a killed process, a service that did
// not answer, a stored golden trace that changed) waits rather than failing: Temporal retries it with backoff, and the
// task carries a note saying why, which `abp task show`, `abp status` and the main job read.
import { ApplicationFailure } from '@temporalio/activity';
import type { Database } from '../db/connection.js';
import type { MachineFault } from '../freeze/machine-faults.js';
import { FreezeError, type FreezeErrorCode } from '../freeze/errors.js';
import { createTaskActivities } from './tasks.js';

/** Notes the stall on the task (a `freeze-stalled` event, once per distinct cause) and returns the retryable failure. */
export type FreezeStall = (taskId: string, fault: MachineFault | null, error: unknown) => Promise<ApplicationFailure>;

export function freezeStalls(db: Database): FreezeStall {
  const taskRecords = createTaskActivities({ db });
  return async (taskId, fault, error) => {
    const message = fault?.message ?? (error instanceof Error ? error.message : JSON.stringify(error));
    const kind = fault?.code ?? 'unexpected';
    await taskRecords
      .recordTaskTransition({
        taskId,
        from: 'freezing',
        to: 'freezing',
        cause: 'freeze-stalled',
        detail: { fault: kind, message: message.slice(0, 1000) },
      })
      .catch(() => undefined); // a database that does not answer is itself the stall: the retry will note it
    return ApplicationFailure.create({
      type: fault === null ? 'FreezeStalled:unexpected' : `MachineFault:${fault.code}`,
      message: `the freeze of ${taskId} stalled (${kind}): ${message}; it is retried with backoff`,
      nonRetryable: false,
      ...(error instanceof Error ? { cause: error } : {}),
    });
  };
}

const GOLDEN_TRACE_REFUSALS: ReadonlySet<string> = new Set([
  'golden-trace-unreadable',
  'golden-trace-too-large',
  'invalid-golden-trace',
  'golden-trace-unredacted',
] satisfies FreezeErrorCode[]);

/**
 * Whether `error` is the freeze's refusal of a golden trace: checked when it was attached, so one now means the stored
 * file changed. A trace is evidence, not the fix: the freeze waits, noted on the task with the file and line, until the
 * stored trace is restored or its attachment removed, and never rejects the task for it.
 */
export function refusesGoldenTrace(error: unknown): error is FreezeError {
  return error instanceof FreezeError && GOLDEN_TRACE_REFUSALS.has(error.code);
}
