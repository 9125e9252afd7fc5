// The one error type of transparency/: the log's own failures (appending, checkpointing, proving) and every problem an
// audit or a consumer's inclusion check can find. Tests and callers branch on `code`, never on the message.
import type { z } from 'zod';
import { locateIssues } from '../schemas/issues.js';
import { formatJsonPath } from '../schemas/json-text.js';
import { AbpError } from '../errors.js';

export type TransparencyErrorCode =
  // using the log
  | 'invalid-origin'
  | 'invalid-entry'
  | 'invalid-key'
  | 'out-of-range'
  | 'empty-log'
  | 'concurrent-append'
  // what an audit or a consumer finds
  | 'torn-entry'
  | 'malformed-entry'
  | 'malformed-checkpoint'
  | 'entry-rewritten'
  | 'entry-dropped'
  | 'checkpoint-forged'
  | 'inconsistent-checkpoints'
  | 'inclusion-failed';

export class TransparencyError extends AbpError<TransparencyErrorCode> {}

/** Zod issues as one line, `field: problem; field: problem`. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return locateIssues(issues)
    .map((issue) => `${formatJsonPath(issue.path)}: ${issue.message}`)
    .join('; ');
}
