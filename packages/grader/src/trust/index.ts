// Verifying what a registry signed, without trusting it: statements against a pinned trust root (keyed or keyless)
// and the trust root's version chain. This file only re-exports.

export {
  verifyStatementBundle,
  type ExpectedStatement,
  type VerifiedSigner,
  type VerifiedStatement,
} from './verify.js';
export {
  advanceTrustRoot,
  trustRootDigest,
  trustRootStatement,
  verifyNextTrustRoot,
  type FetchedTrustRootVersion,
} from './trust-root-chain.js';
export {
  certificateIdentity,
  verifyKeylessSignature,
  type CertificateIdentity,
  type KeylessSignature,
} from './keyless-verify.js';
