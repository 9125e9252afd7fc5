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
  | 'invalid-trial-record'
  /** A worker was asked for a trial or engine the run's inputs do not schedule. */
  | 'unknown-trial'
  /** `abp run --on <place>`: the place does not answer. */
  | 'remote-unavailable'
  /** `abp run --on <place>`: trials no worker could grade; the journal keeps the rest, and the same command retries. */
  | 'trials-failed';

export class RunError extends AbpError<RunErrorCode> {}
