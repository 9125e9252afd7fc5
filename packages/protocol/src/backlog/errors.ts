// The one error type of the backlog folder (snapshot, signals, eligibility, fetch). A snapshot file at fault is named
// with the line and field, so the message points at the byte range to look at.
import { AbpError } from '../errors.js';

export type BacklogErrorCode =
  /** A snapshot (in memory or in a file) breaks the abp-backlog/v1 format: order, types, counts, canonical form. */
  | 'invalid-snapshot'
  /** The snapshot file could not be read or written (missing, permissions, disk full). */
  | 'snapshot-io'
  /** A fetch was asked for with options it cannot honour (a malformed or repeated repository, a bad time). */
  | 'invalid-fetch-options'
  /** GitHub refused a query or answered with errors other than an unknown repository. */
  | 'github-query-failed'
  /** A snapshot's body signals came from rules other than the ones the eligibility rules are defined over. */
  | 'signal-rules-mismatch';

export interface BacklogErrorLocation {
  file?: string;
  /** 1-based line of a snapshot file. */
  line?: number;
  /** Dotted path of the field at fault, e.g. "labels.2" or "repos.3.issues". */
  field?: string;
}

export class BacklogError extends AbpError<BacklogErrorCode> {
  readonly location: BacklogErrorLocation;

  constructor(code: BacklogErrorCode, message: string, options: BacklogErrorLocation & { cause?: unknown } = {}) {
    const { cause, ...location } = options;
    super(code, message, cause === undefined ? undefined : { cause });
    this.location = location;
  }
}
