// The one error type of signing/: keys, trust roots, signers and verification. Each code names one thing to fix;
// the verification codes (invalid-expectation … digest-mismatch) are what `abp verify` and `abp pull` report.
import type { z } from 'zod';
import { locateIssues } from '../schemas/issues.js';
import { formatJsonPath } from '../schemas/json-text.js';

export type SigningErrorCode =
  // keys and trust roots
  | 'key-exists'
  | 'key-missing'
  | 'key-permissions'
  | 'key-invalid'
  | 'key-already-trusted'
  | 'trust-root-missing'
  | 'trust-root-invalid'
  | 'trust-root-unverified'
  // signing
  | 'signer-config-invalid'
  | 'invalid-statement'
  | 'identity-token-unavailable'
  | 'certificate-authority-failed'
  | 'transparency-log-failed'
  | 'timestamp-authority-failed'
  // verification
  | 'invalid-expectation'
  | 'malformed-bundle'
  | 'signature-invalid'
  | 'unknown-key'
  | 'identity-mismatch'
  | 'certificate-untrusted'
  | 'key-retired'
  | 'key-expired'
  | 'witness-untrusted'
  | 'malformed-statement'
  | 'predicate-type-mismatch'
  | 'digest-mismatch';

export class SigningError extends Error {
  readonly code: SigningErrorCode;

  constructor(code: SigningErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SigningError';
    this.code = code;
  }
}

/** Zod issues as one line, `field: problem; field: problem`, for messages that must name the field to fix. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return locateIssues(issues)
    .map((issue) => `${formatJsonPath(issue.path)}: ${issue.message}`)
    .join('; ');
}
