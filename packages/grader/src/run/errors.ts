// The one error of running a matrix: locks, journals and resumes, preflight and strict comparison.
import { AbpError } from '@abp/protocol/errors';

export type RunErrorCode =
  | 'locked'
  | 'journal-exists'
  | 'journal-missing'
  | 'journal-invalid'
  | 'fingerprint-mismatch'
  | 'duplicate-trial'
  | 'strict-comparison'
  | 'sandbox-unavailable'
  | 'invalid-trial-record';

export class RunError extends AbpError<RunErrorCode> {}
