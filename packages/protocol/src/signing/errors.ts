// The one error type of signing, in every layer: trust roots and statements (here), verification (the grader's trust/),
// keys and signers (the pipeline's signing/). Each code names one thing to fix;
// the verification codes (invalid-expectation … digest-mismatch) are what `abp verify` and `abp pull` report.
import { AbpError } from '../errors.js';

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

export class SigningError extends AbpError<SigningErrorCode> {}
