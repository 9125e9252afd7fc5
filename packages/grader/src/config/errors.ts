// The one error of everything the grader reads before a trial starts: run configs, adapters files and task folders.
import { AbpError } from '@abp/protocol/errors';

export type GraderConfigErrorCode =
  | 'missing-file'
  | 'invalid-json'
  | 'invalid-config'
  | 'invalid-adapters'
  | 'invalid-task'
  | 'unknown-engine'
  | 'unknown-task'
  | 'unknown-translator'
  | 'invalid-placeholder'
  | 'missing-program-path'
  | 'invalid-program-path'
  | 'hidden-program-path'
  | 'mismatched-models'
  | 'sandbox-unavailable';

export class GraderConfigError extends AbpError<GraderConfigErrorCode> {}
