// The one error of running a matrix: locks, journals, their seals and resumes, preflight and strict comparison.
import { AbpError } from '@abp/protocol/errors';

export type RunErrorCode =
  | 'locked'
  | 'journal-exists'
  | 'journal-missing'
  | 'journal-invalid'
  | 'fingerprint-mismatch'
  | 'duplicate-trial'
  /** A file the journal recorded no longer matches its digest: the run will not continue on top of it. */
  | 'results-tampered'
  | 'strict-comparison'
  | 'sandbox-unavailable'
  | 'invalid-trial-record';

export class RunError extends AbpError<RunErrorCode> {}
