// Owns the one error type of grader/results: a results folder that cannot be read as an `abp run` output,
// named by file and field so the reader knows what to fix or rerun.
import { AbpError } from '@abp/protocol/errors';
import type { SealFinding } from '../run/seal.js';

export type ResultsErrorCode =
  | 'not-a-run-folder'
  | 'missing-file'
  | 'invalid-file'
  | 'incomplete-run'
  /** The folder does not match the digests its journal recorded: `findings` names each file and what differs. */
  | 'results-tampered';

export class ResultsError extends AbpError<ResultsErrorCode> {
  /** For results-tampered, every file that differs from the journal; empty for the other codes. */
  readonly findings: readonly SealFinding[];

  constructor(
    code: ResultsErrorCode,
    message: string,
    options: { cause?: unknown; findings?: readonly SealFinding[] } = {},
  ) {
    super(code, message, options.cause === undefined ? undefined : { cause: options.cause });
    this.findings = options.findings ?? [];
  }
}
