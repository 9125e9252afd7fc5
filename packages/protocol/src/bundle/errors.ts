// The one error of the task bundle: writing and reading its archives, the base closure's object stream, unpacking and
// the content-addressed store. Callers branch on `code`; the message names the input, the problem and the fix.
import { AbpError } from '../errors.js';

export type BundleErrorCode =
  | 'unsafe-path'
  | 'duplicate-entry'
  | 'path-conflict'
  | 'unsupported-entry'
  | 'corrupt-archive'
  | 'missing-base-commit'
  | 'corrupt-object-stream'
  | 'object-mismatch'
  | 'invalid-manifest'
  | 'invalid-expected-results'
  | 'inconsistent-input'
  | 'invalid-layout'
  | 'digest-mismatch'
  | 'destination-exists'
  | 'invalid-digest'
  | 'not-found'
  | 'corrupt-store';

export class BundleError extends AbpError<BundleErrorCode> {}
