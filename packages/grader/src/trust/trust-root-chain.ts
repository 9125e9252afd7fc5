// The trust root's version chain, as TUF chains root metadata: version N+1 is accepted only when a key that version N
// trusts signed it (a trust-root statement naming N+1's digest). A consumer pins one version and walks forward from it,
// so a key rotation reaches consumers without trusting the server that hands the newer versions out.
import { createHash } from 'node:crypto';
import type { TrustRoot } from '@abp/protocol/schemas/abp-trust-root';
import { canonicalJson } from '@abp/protocol/schemas/canonical-json';
import { SigningError } from '@abp/protocol/signing/errors';
import {
  createTrustRootStatement,
  signedAtOf,
  TRUST_ROOT_PREDICATE,
  trustRootSubjectName,
  type Statement,
} from '@abp/protocol/signing/statement';
import { findKey, parseTrustRoot } from '@abp/protocol/signing/trust-root';
import { verifyStatementBundle } from './verify.js';

/** "sha256:<hex>" of the trust root's canonical JSON: what its statement signs. */
export function trustRootDigest(trustRoot: TrustRoot): string {
  return `sha256:${createHash('sha256').update(canonicalJson(trustRoot), 'utf8').digest('hex')}`;
}

/** The statement that vouches for one version of the trust root. */
export function trustRootStatement(trustRoot: TrustRoot, signedAt: Date): Statement {
  return createTrustRootStatement({
    version: trustRoot.version,
    digest: trustRootDigest(trustRoot),
    keyIds: trustRoot.keys.map((key) => key.keyId),
    signedAt: signedAtOf(signedAt),
  });
}

/** One published version as a consumer fetches it: the document and its signed statement, both parsed JSON. */
export interface FetchedTrustRootVersion {
  document: unknown;
  signature: unknown;
}

/**
 * Checks that `next` is the version after `current` and is signed by a key `current` trusts and holds active (inside its
 * window, and not retired at all: see below), and returns it parsed. Throws SigningError trust-root-unverified, naming
 * the version.
 */
export async function verifyNextTrustRoot(current: TrustRoot, next: FetchedTrustRootVersion): Promise<TrustRoot> {
  const version = current.version + 1;
  const document = parseTrustRoot(next.document, `trust root version ${version}`);
  if (document.version !== version) {
    throw new SigningError(
      'trust-root-unverified',
      `the document offered as trust root version ${version} says it is version ${document.version}; versions are walked one at a time`,
    );
  }
  try {
    const verified = await verifyStatementBundle(next.signature, current, {
      subjects: [{ name: trustRootSubjectName(version), sha256: trustRootDigest(document).slice('sha256:'.length) }],
      predicateType: TRUST_ROOT_PREDICATE,
    });
    // A keyed signature's time is the signer's own claim, so a retired key that leaked could backdate a statement into
    // its window. For the chain that claim is not needed: version N+1 is always signed by a key N holds active (the
    // rotation retires it in N+1), so a key N already retired vouches for no later version, whatever time it states.
    // (A keyless signature has no key id: its time comes from the transparency log, not from the signer.)
    const retiredAt = verified.keyId === null ? undefined : findKey(current, verified.keyId)?.retiredAt;
    if (retiredAt !== undefined) {
      throw new SigningError(
        'key-retired',
        `it is signed by key ${verified.keyId}, which version ${current.version} retired at ${retiredAt}; a retired key vouches for no later version`,
      );
    }
  } catch (error) {
    if (!(error instanceof SigningError)) throw error;
    throw new SigningError(
      'trust-root-unverified',
      `trust root version ${version} is not vouched for by version ${current.version} (${error.code}: ${error.message}); keep the pinned version and ask the registry's operator`,
      { cause: error },
    );
  }
  return document;
}

/**
 * Walks from the pinned trust root to the newest version `fetchVersion` offers (null: no such version), verifying each
 * step. Returns the newest verified version; the pinned one when nothing newer is offered.
 */
export async function advanceTrustRoot(
  pinned: TrustRoot,
  fetchVersion: (version: number) => Promise<FetchedTrustRootVersion | null>,
): Promise<TrustRoot> {
  let current = pinned;
  for (;;) {
    const next = await fetchVersion(current.version + 1);
    if (next === null) return current;
    current = await verifyNextTrustRoot(current, next);
  }
}
