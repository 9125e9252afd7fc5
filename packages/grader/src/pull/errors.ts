// The one error type of distribution/: pulling a task from a registry's `abp serve`, and reading its log remotely. Each
// code names one reason a pull was refused, so a consumer's script can tell a tampered bundle from an unreachable server
// without reading prose; every failure of a check leaves nothing behind (distribution/pull.ts).
import { AbpError } from '@abp/protocol/errors';

export type PullErrorCode =
  /** The task id or the --from URL is malformed (a usage error: exit 2). */
  | 'invalid-setting'
  /** The pinned trust root file does not exist, or is not an abp-trust-root/v1 document. */
  | 'trust-root-missing'
  | 'trust-root-invalid'
  /** A newer trust root version the server offers is not vouched for by the one before it. */
  | 'trust-root-unverified'
  /** The server did not answer, or the transfer broke off. */
  | 'unreachable'
  /** A download, or a JSON answer, is larger than allowed (`--max-bytes`, or the API's 16 MiB for JSON). */
  | 'download-too-large'
  /** A download sent nothing for the idle time, or did not end by its deadline. */
  | 'download-timeout'
  /** The server answered with an error, or with something that is not what the API documents. */
  | 'server-error'
  /** The server has no such frozen task, or not the bundle it advertises. */
  | 'not-found'
  /** The task's folder already exists in the output folder. */
  | 'destination-exists'
  /** The downloaded bytes do not hash to the digest the server advertised for the task. */
  | 'digest-mismatch'
  /** The bundle has no signature on the server. */
  | 'unsigned'
  /** The signature is not a readable Sigstore bundle or in-toto statement. */
  | 'malformed-signature'
  /** The signature does not vouch for these bytes: changed statement, or a statement about another archive or task. */
  | 'tampered-bundle'
  /** Signed by a key the trust root retired before the statement says it was signed. */
  | 'key-retired'
  /** Signed outside the key's validity window. */
  | 'key-expired'
  /** Signed by a key the trust root does not list. */
  | 'unknown-signer'
  /** Any other refusal by signature verification (its code is in the message). */
  | 'signature-rejected'
  /** The task names an environment (by digest) the server does not have, or not all of its blobs. */
  | 'environment-missing'
  /** The environment the signed manifest names was built from other dependency files than the task's repository has. */
  | 'environment-mismatch'
  /** A blob of the task's environment does not hash to the digest that names it. */
  | 'environment-tampered'
  /** The verified archive could not be unpacked into a task folder. */
  | 'invalid-bundle'
  /** The registry's transparency log holds no entry for this exact signature, or no checkpoint covers it yet. */
  | 'not-logged'
  /** A checkpoint or proof of the log does not verify: a checkpoint not signed by a trusted key, or a bad proof. */
  | 'log-proof-invalid'
  /** The log is not an extension of the one the consumer saw before: it rewrote or dropped what it had signed. */
  | 'log-inconsistent';

export class PullError extends AbpError<PullErrorCode> {}
