// Whether a published record has its signed statement, and whether that statement verifies against the data directory's
// trust root: the check a consumer makes, done by `abp status` for the records it names (one signature each, cheap).
import type { TrustRoot } from '@abp/protocol/schemas/abp-trust-root';
import { readStatementFile, statementPath } from '../signing/attestor.js';
import { SigningError } from '@abp/protocol/signing/errors';
import { loadTrustRoot } from '@abp/protocol/signing/trust-root';
import { verifyStatementBundle, type VerifiedSigner } from '@abp/grader/trust';
import type { LogEntryKind } from '@abp/protocol/transparency/formats';
import { messageOf } from './part.js';

/** The data directory's trust root, or why there is none to verify with. */
export type TrustRootState =
  | { $case: 'loaded'; trustRoot: TrustRoot; path: string }
  | { $case: 'missing'; detail: string }
  | { $case: 'invalid'; detail: string };

export type SignatureState =
  | { $case: 'verified'; signer: VerifiedSigner; signedAt: string; trustRootVersion: number; path: string }
  /** No statement is kept for the record: it was published before signing was set up, or by hand. */
  | { $case: 'unsigned'; detail: string }
  /** A statement is kept, but there is no usable trust root to check it against. */
  | { $case: 'unverified'; path: string; detail: string }
  /** The kept statement does not verify: `code` is the SigningError code (`abp verify` reports the same ones). */
  | { $case: 'invalid'; path: string; code: string; detail: string };

export async function loadTrustRootState(path: string): Promise<TrustRootState> {
  try {
    return { $case: 'loaded', trustRoot: await loadTrustRoot(path), path };
  } catch (error) {
    if (error instanceof SigningError && error.code === 'trust-root-missing')
      return {
        $case: 'missing',
        detail: `no trust root at ${path}: \`abp init\` creates the signing key and the trust root`,
      };
    return { $case: 'invalid', detail: messageOf(error) };
  }
}

export interface KeptStatement {
  statementsDir: string;
  kind: LogEntryKind;
  /** The record's subject name, e.g. `abp-registry/2026Q3` or `draw/<id>`. */
  subject: string;
  /** The record's digest, "sha256:<hex>": the statement must name it under `subject`. */
  digest: string;
  predicateType: string;
}

export async function signatureState(record: KeptStatement, trustRoot: TrustRootState): Promise<SignatureState> {
  const path = statementPath(record.statementsDir, record.kind, record.subject);
  const text = await readStatementFile(record.statementsDir, record.kind, record.subject);
  if (text === null)
    return { $case: 'unsigned', detail: `no signed ${record.kind} statement for ${record.subject} at ${path}` };
  if (trustRoot.$case !== 'loaded') return { $case: 'unverified', path, detail: trustRoot.detail };
  let bundle: unknown;
  try {
    bundle = JSON.parse(text);
  } catch (error) {
    return { $case: 'invalid', path, code: 'malformed-bundle', detail: `${path} is not JSON: ${messageOf(error)}` };
  }
  try {
    const verified = await verifyStatementBundle(bundle, trustRoot.trustRoot, {
      subjects: [{ name: record.subject, sha256: record.digest.replace(/^sha256:/, '') }],
      predicateType: record.predicateType,
    });
    return {
      $case: 'verified',
      signer: verified.signer,
      signedAt: verified.signedAt,
      trustRootVersion: trustRoot.trustRoot.version,
      path,
    };
  } catch (error) {
    if (!(error instanceof SigningError)) throw error;
    return { $case: 'invalid', path, code: error.code, detail: error.message };
  }
}
