// The one error of the training export. Callers branch on `code`; the message names the bundle or statement, the problem
// and the fix. A verification failure keeps the signing module's error as its cause (and names its code).
import { AbpError } from '@abp/protocol/errors';

export type ExportErrorCode =
  /** The data directory has no bundle store. */
  | 'store-missing'
  /** A stored bundle has no signature beside it. */
  | 'bundle-unsigned'
  /** A stored bundle's bytes, signature, key or subjects do not check out against the trust root. */
  | 'bundle-unverified'
  /** A stored bundle verifies but cannot be read as a github-issue task (layout, manifest, issue text). */
  | 'bundle-invalid'
  /** A task's aging statement does not verify, or names a bundle the store does not hold. */
  | 'aging-unverified';

export class ExportError extends AbpError<ExportErrorCode> {}
