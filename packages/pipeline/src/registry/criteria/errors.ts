// The one error type of the criteria folder: a criteria or overrides file that cannot be read or does not hold.
// The file and the dotted field at fault are carried apart from the message, so callers can point at them.
import { AbpError } from '@abp/protocol/errors';

export type CriteriaErrorCode =
  /** The file could not be read (missing, permissions). */
  | 'file-unreadable'
  /** The file is not JSON. */
  | 'invalid-json'
  /** The criteria file breaks its schema (a threshold out of range, a bad pattern, a repeated runner). */
  | 'invalid-criteria'
  /** The overrides file breaks its schema (a malformed repository, a repeated override, an incomplete recipe). */
  | 'invalid-overrides';

export class CriteriaError extends AbpError<CriteriaErrorCode> {
  readonly file: string;
  /** Dotted path of the first field at fault, e.g. "thresholds.minLabeledOpenIssueShare"; absent for whole-file errors. */
  readonly field: string | undefined;

  constructor(code: CriteriaErrorCode, message: string, options: { file: string; field?: string; cause?: unknown }) {
    super(code, message, options.cause === undefined ? undefined : { cause: options.cause });
    this.file = options.file;
    this.field = options.field;
  }
}
