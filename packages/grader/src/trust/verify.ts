// Verifies a signed statement bundle against a trust root and the artifacts it must be about: bundle shape, signer
// (a trust-root key, or a keyless identity with its log entry and certificate chain: signing/keyless-verify.ts),
// signature (@sigstore/verify), the signing time against the signer's window, predicate type and subject digests.
import { createPublicKey } from 'node:crypto';
import { bundleFromJSON, type Bundle, type Envelope } from '@sigstore/bundle';
import { toSignedEntity, VerificationError, Verifier, type SignedEntity, type TrustMaterial } from '@sigstore/verify';
import type { TrustedKey, TrustRoot } from '@abp/protocol/schemas/abp-trust-root';
import { plainWordsParseOptions } from '@abp/protocol/schemas/issues';
import { describeIssues } from '@abp/protocol/schemas/issues';
import { SigningError } from '@abp/protocol/signing/errors';
import { verifyKeylessSignature } from './keyless-verify.js';
import {
  PREDICATE_SCHEMAS,
  signedAtOf,
  STATEMENT_PAYLOAD_TYPE,
  statementSchema,
  type Statement,
} from '@abp/protocol/signing/statement';
import { findKey, keyValidAt, keyWindowEnd } from '@abp/protocol/signing/trust-root';

export interface ExpectedStatement {
  /** The artifacts the statement must name: each sha256 (64 lowercase hex, in-toto's form) under its name, if given, else under any name. */
  subjects: Array<{ name?: string; sha256: string }>;
  predicateType?: string;
}

/** Who signed: a key the trust root lists, or a keyless identity (certificate SAN) from an OIDC issuer it lists. */
export type VerifiedSigner = { kind: 'keyed'; keyId: string } | { kind: 'keyless'; identity: string; issuer: string };

export interface VerifiedStatement {
  statement: Statement;
  signer: VerifiedSigner;
  /** The trust root's id of the signing key; null for a keyless signature, whose key lived for that signature only. */
  keyId: string | null;
  /**
   * The signing time the signer's window was checked against. Keyed: the predicate's signedAt, the signer's own claim.
   * Keyless: the earliest time a trusted transparency log (or timestamp authority) vouches for; the predicate's
   * signedAt is not trusted for it and stays in `statement`.
   */
  signedAt: string;
}

/**
 * Verifies `bundleJson` (a parsed Sigstore bundle) and returns the statement it signs. Throws SigningError with code
 * malformed-bundle, unknown-key, identity-mismatch, signature-invalid, witness-untrusted, certificate-untrusted,
 * malformed-statement, key-retired, key-expired, predicate-type-mismatch or digest-mismatch (invalid-expectation when
 * `expected` itself is unusable, trust-root-invalid when a keyless entry's certificates or keys cannot be read).
 */
export function verifyStatementBundle(
  bundleJson: unknown,
  trustRoot: TrustRoot,
  expected: ExpectedStatement,
): Promise<VerifiedStatement> {
  // Synchronous underneath (the trust root carries every key and certificate); a promise so a fetching check can come.
  return new Promise((resolve) => resolve(verifyNow(bundleJson, trustRoot, expected)));
}

function verifyNow(bundleJson: unknown, trustRoot: TrustRoot, expected: ExpectedStatement): VerifiedStatement {
  checkExpectation(expected);
  const bundle = readBundle(bundleJson);
  if (bundle.content.$case !== 'dsseEnvelope') {
    throw new SigningError(
      'malformed-bundle',
      'the bundle holds a bare message signature; abp signs in-toto statements in DSSE envelopes',
    );
  }
  const envelope = bundle.content.dsseEnvelope;
  const material = bundle.verificationMaterial.content;
  const verified =
    material.$case === 'publicKey'
      ? verifyKeyed(bundle, envelope, material.publicKey.hint, trustRoot)
      : verifyKeyless(bundle, envelope, trustRoot);
  if (expected.predicateType !== undefined && verified.statement.predicateType !== expected.predicateType) {
    throw new SigningError(
      'predicate-type-mismatch',
      `the statement's predicateType is ${verified.statement.predicateType}, expected ${expected.predicateType}: it signs a different kind of record`,
    );
  }
  checkSubjects(verified.statement, expected);
  return verified;
}

function verifyKeyless(bundle: Bundle, envelope: Envelope, trustRoot: TrustRoot): VerifiedStatement {
  const keyless = verifyKeylessSignature(signedEntity(bundle), trustRoot);
  const statement = envelopeStatement(envelope);
  return {
    statement,
    signer: { kind: 'keyless', identity: keyless.identity, issuer: keyless.issuer },
    keyId: null,
    signedAt: signedAtOf(keyless.signedAt),
  };
}

function verifyKeyed(bundle: Bundle, envelope: Envelope, keyId: string, trustRoot: TrustRoot): VerifiedStatement {
  const key = findKey(trustRoot, keyId);
  if (!key) {
    throw new SigningError(
      'unknown-key',
      `the bundle is signed by key ${keyId}, which trust root version ${trustRoot.version} does not list; use the trust root of the registry that published the bundle, or reject it`,
    );
  }
  verifySignature(signedEntity(bundle), trustRoot);

  const statement = envelopeStatement(envelope);
  const signedAt = statement.predicate.signedAt;
  if (key.retiredAt !== undefined && Date.parse(signedAt) > Date.parse(key.retiredAt)) {
    throw new SigningError(
      'key-retired',
      `key ${keyId} was retired at ${key.retiredAt} (trust root version ${trustRoot.version}), but this statement says it was signed at ${signedAt}: a retired key signs nothing new; what it signed before retiring stays valid`,
    );
  }
  if (!keyValidAt(key, new Date(signedAt))) {
    throw new SigningError(
      'key-expired',
      `key ${keyId} signed at ${signedAt} (the time the signed statement states; keyed bundles carry no independent time yet), outside its window ${key.validFrom} to ${keyWindowEnd(key) ?? 'open end'}`,
    );
  }
  return { statement, signer: { kind: 'keyed', keyId }, keyId, signedAt };
}

/** The statement a verified envelope signs: an in-toto payload type, then the statement and its predicate's schema. */
function envelopeStatement(envelope: Envelope): Statement {
  if (envelope.payloadType !== STATEMENT_PAYLOAD_TYPE) {
    throw new SigningError(
      'malformed-statement',
      `the envelope's payloadType is ${JSON.stringify(envelope.payloadType)}, not ${STATEMENT_PAYLOAD_TYPE}: it does not sign an in-toto statement`,
    );
  }
  return readStatement(envelope.payload);
}

function checkExpectation(expected: ExpectedStatement): void {
  if (expected.subjects.length === 0) {
    throw new SigningError(
      'invalid-expectation',
      'expected.subjects is empty: name the artifacts the statement must be about, or a valid signature over anything would pass',
    );
  }
  expected.subjects.forEach((subject, index) => {
    if (!/^[0-9a-f]{64}$/.test(subject.sha256)) {
      const hint = subject.sha256.startsWith('sha256:') ? '; drop the "sha256:" prefix' : '';
      throw new SigningError(
        'invalid-expectation',
        `expected.subjects[${index}].sha256 must be 64 lowercase hex digits (in-toto's form), got ${JSON.stringify(subject.sha256)}${hint}`,
      );
    }
  });
}

function readBundle(bundleJson: unknown): Bundle {
  try {
    return bundleFromJSON(bundleJson);
  } catch (error) {
    const fields = (error as { fields?: unknown }).fields;
    const detail = Array.isArray(fields) && fields.length > 0 ? ` (${fields.join(', ')})` : '';
    throw new SigningError(
      'malformed-bundle',
      `the bundle is not a valid Sigstore bundle: ${(error as Error).message}${detail}`,
      { cause: error },
    );
  }
}

function signedEntity(bundle: Bundle): SignedEntity {
  try {
    return toSignedEntity(bundle);
  } catch (error) {
    throw new SigningError(
      'malformed-bundle',
      `the bundle's verification material cannot be read: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

function trustMaterial(trustRoot: TrustRoot): TrustMaterial {
  const timeConstrained = (key: TrustedKey) => ({
    publicKey: createPublicKey(key.publicKeyPem),
    validFor: (date: Date) => keyValidAt(key, date),
  });
  return {
    certificateAuthorities: [],
    timestampAuthorities: [],
    tlogs: [],
    ctlogs: [],
    publicKey: (hint) => {
      const key = findKey(trustRoot, hint);
      if (!key) throw new SigningError('unknown-key', `key ${hint} is not in trust root version ${trustRoot.version}`);
      return timeConstrained(key);
    },
  };
}

function verifySignature(entity: SignedEntity, trustRoot: TrustRoot): void {
  // Keyed bundles carry no log entry and no timestamp yet, so none is required; any a bundle does carry is checked.
  const verifier = new Verifier(trustMaterial(trustRoot), {
    tlogThreshold: 0,
    ctlogThreshold: 0,
    timestampThreshold: 0,
  });
  try {
    verifier.verify(entity);
  } catch (error) {
    if (!(error instanceof VerificationError)) throw error;
    switch (error.code) {
      case 'SIGNATURE_ERROR':
        throw new SigningError(
          'signature-invalid',
          'the signature does not match the signed statement: the statement or the signature was changed after signing',
          { cause: error },
        );
      case 'PUBLIC_KEY_ERROR':
        throw new SigningError(
          'key-expired',
          `a timestamp in the bundle falls outside the signing key's window: ${error.message}`,
          { cause: error },
        );
      case 'TLOG_ERROR':
      case 'TLOG_INCLUSION_PROOF_ERROR':
      case 'TLOG_INCLUSION_PROMISE_ERROR':
      case 'TLOG_MISSING_INCLUSION_ERROR':
      case 'TLOG_BODY_ERROR':
      case 'TIMESTAMP_ERROR':
      case 'CERTIFICATE_ERROR':
      case 'NOT_IMPLEMENTED_ERROR':
        throw new SigningError(
          'witness-untrusted',
          `the bundle carries a log entry or timestamp the trust root cannot vouch for: ${error.message}`,
          { cause: error },
        );
    }
  }
}

function readStatement(payload: Buffer): Statement {
  let value: unknown;
  try {
    value = JSON.parse(payload.toString('utf8'));
  } catch (error) {
    throw new SigningError('malformed-statement', `the signed payload is not JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const parsed = statementSchema.safeParse(value, plainWordsParseOptions);
  if (!parsed.success)
    throw new SigningError(
      'malformed-statement',
      `the signed payload is not an abp in-toto statement: ${describeIssues(parsed.error.issues)}`,
    );
  const schema = PREDICATE_SCHEMAS[parsed.data.predicateType];
  if (schema !== undefined) {
    const predicate = schema.safeParse(parsed.data.predicate, plainWordsParseOptions);
    if (!predicate.success)
      throw new SigningError(
        'malformed-statement',
        `the ${parsed.data.predicateType} predicate is invalid: ${describeIssues(predicate.error.issues)}`,
      );
  }
  return parsed.data;
}

function checkSubjects(statement: Statement, expected: ExpectedStatement): void {
  for (const wanted of expected.subjects) {
    if (wanted.name === undefined) {
      if (!statement.subject.some((subject) => subject.digest.sha256 === wanted.sha256)) {
        throw new SigningError(
          'digest-mismatch',
          `no subject of the statement has sha256 ${wanted.sha256}: the artifact is not the one that was signed`,
        );
      }
      continue;
    }
    const subject = statement.subject.find((candidate) => candidate.name === wanted.name);
    if (!subject) {
      const names = statement.subject.map((candidate) => candidate.name).join(', ');
      throw new SigningError(
        'digest-mismatch',
        `the statement has no subject named ${wanted.name} (it names ${names}): it signs other artifacts`,
      );
    }
    if (subject.digest.sha256 !== wanted.sha256) {
      throw new SigningError(
        'digest-mismatch',
        `${wanted.name} has sha256 ${wanted.sha256}, but the statement signed ${subject.digest.sha256}: the artifact was changed after signing`,
      );
    }
  }
}
