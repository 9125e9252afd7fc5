// Keyless (Fulcio + Rekor) verification of one signed entity against the trust root's `keyless` entries: whose
// certificate it is, whether the short-lived key signed the envelope, which log vouches for the signing time, and
// whether a trusted certificate authority certified the key at that time — each step with its own code, in that order.
import { createHash } from 'node:crypto';
import { crypto as sigstoreCrypto, X509Certificate } from '@sigstore/core';
import {
  VerificationError,
  Verifier,
  type SignedEntity,
  type Signer as SigstoreSigner,
  type TrustMaterial,
} from '@sigstore/verify';
import type { TrustRoot } from '@abp/protocol/schemas/abp-trust-root';
import { SigningError } from '@abp/protocol/signing/errors';

/** The certificate extension Fulcio names the token's issuer in (a DER UTF8String), and the legacy raw-text one. */
export const FULCIO_ISSUER_OID = '1.3.6.1.4.1.57264.1.8';
export const FULCIO_ISSUER_LEGACY_OID = '1.3.6.1.4.1.57264.1.1';

type KeylessEntry = TrustRoot['keyless'][number];
type Authority = TrustMaterial['certificateAuthorities'][number];
type LogAuthority = TrustMaterial['tlogs'][number];

export interface CertificateIdentity {
  /** The subject alternative name: the URI, else the email address. */
  identity: string | undefined;
  /** The OIDC issuer from the Fulcio extension. */
  issuer: string | undefined;
}

export interface KeylessSignature {
  identity: string;
  issuer: string;
  /** The earliest signing time a trusted log (or timestamp authority) vouches for; the certificate was checked at each. */
  signedAt: Date;
  /** The certificate's validity, for messages and reports. */
  certificateValidity: { notBefore: Date; notAfter: Date };
}

// A window without an end in the trust root is open: the latest instant a Date can hold.
const END_OF_TIME = new Date(8_640_000_000_000_000);

// Rekor v1 entries carry their integrated time under a signed entry timestamp: one such time, or one from a timestamp
// authority the trust root lists, is what the certificate's ten-minute window is checked against. Every log entry the
// bundle carries must verify and at least one must be there. SCTs are not required: the trust root lists no CT logs,
// and the Rekor entry already makes the signature public.
const REQUIRED = { tlogThreshold: 1, timestampThreshold: 1, ctlogThreshold: 0 } as const;

/** The identity and issuer a certificate claims, read as @sigstore/verify reads them (issuer: new OID, else legacy). */
export function certificateIdentity(certificate: X509Certificate): CertificateIdentity {
  const current = certificate.extension(FULCIO_ISSUER_OID);
  // ASCII as @sigstore/verify decodes it, so the identity read here and the one it verifies are the same string.
  const issuer = current
    ? current.valueObj.subs[0]?.value.toString('ascii')
    : certificate.extension(FULCIO_ISSUER_LEGACY_OID)?.value.toString('ascii');
  return { identity: certificate.subjectAltName, issuer };
}

/**
 * Verifies a keyless signed entity (its key is a certificate) against the trust root. Throws SigningError with code
 * identity-mismatch, signature-invalid, witness-untrusted, certificate-untrusted (no listed authority certified it, or
 * none was trusted at the signing time), key-expired (a trusted chain, but the log time lies outside the certificate's
 * validity) or trust-root-invalid (a keyless entry whose certificates or keys cannot be read).
 */
export function verifyKeylessSignature(entity: SignedEntity, trustRoot: TrustRoot): KeylessSignature {
  if (entity.key.$case !== 'certificate') throw new Error('verifyKeylessSignature takes a certificate-signed entity');
  const certificate = entity.key.certificate;
  const claimed = certificateIdentity(certificate);
  const accepted = matchingEntries(trustRoot, claimed);
  const material = trustMaterial(trustRoot, accepted.entries);
  const validity = { notBefore: certificate.notBefore, notAfter: certificate.notAfter };

  checkSignature(entity);
  const times = checkWitnesses(entity, material, claimed);
  const verifiedIdentity = checkCertificate(entity, material, claimed, times, validity);
  if (
    verifiedIdentity.subjectAlternativeName !== claimed.identity ||
    verifiedIdentity.extensions?.issuer !== claimed.issuer
  ) {
    // Both readings come from the same certificate; a difference means the two readers disagree, so refuse.
    throw new SigningError(
      'identity-mismatch',
      `the verified certificate names ${describeIdentity(verifiedIdentity.subjectAlternativeName, verifiedIdentity.extensions?.issuer)}, not ${describeIdentity(claimed.identity, claimed.issuer)}`,
    );
  }
  const earliest = times.reduce((a, b) => (a.getTime() <= b.getTime() ? a : b));
  return { identity: accepted.identity, issuer: accepted.issuer, signedAt: earliest, certificateValidity: validity };
}

function describeIdentity(identity: string | undefined, issuer: string | undefined): string {
  return `identity ${identity === undefined ? '(none)' : JSON.stringify(identity)} from issuer ${issuer === undefined ? '(none)' : JSON.stringify(issuer)}`;
}

interface AcceptedIdentity {
  identity: string;
  issuer: string;
  /** The keyless entries that accept it, with their indices for messages. */
  entries: Array<{ entry: KeylessEntry; index: number }>;
}

/** The keyless entries that accept exactly this identity from exactly this issuer; identity-mismatch when none does. */
function matchingEntries(trustRoot: TrustRoot, claimed: CertificateIdentity): AcceptedIdentity {
  const entries = trustRoot.keyless.map((entry, index) => ({ entry, index }));
  const matching = entries.filter(
    ({ entry }) => entry.identity === claimed.identity && entry.issuer === claimed.issuer,
  );
  const first = matching[0];
  if (first) return { identity: first.entry.identity, issuer: first.entry.issuer, entries: matching };
  const accepted = trustRoot.keyless.map((entry) => describeIdentity(entry.identity, entry.issuer)).join('; ');
  const sameIdentity = trustRoot.keyless.find((entry) => entry.identity === claimed.identity);
  const hint = sameIdentity ? ` (the identity is trusted only from issuer ${sameIdentity.issuer})` : '';
  throw new SigningError(
    'identity-mismatch',
    `the bundle's certificate names ${describeIdentity(claimed.identity, claimed.issuer)}, which trust root version ${trustRoot.version} does not accept${hint}; ` +
      (accepted === '' ? 'it lists no keyless identity at all' : `it accepts ${accepted}`),
  );
}

function window(validFrom: string, validUntil: string | null): { start: Date; end: Date } {
  return { start: new Date(validFrom), end: validUntil === null ? END_OF_TIME : new Date(validUntil) };
}

function readCertificate(pem: string, where: string): X509Certificate {
  try {
    return X509Certificate.parse(pem);
  } catch (error) {
    throw new SigningError(
      'trust-root-invalid',
      `${where} is not a readable X.509 certificate; copy the PEM again from the authority's trusted root`,
      { cause: error },
    );
  }
}

/** The certificate authorities, logs and timestamp authorities of the matching entries, pooled, with their windows. */
function trustMaterial(
  trustRoot: TrustRoot,
  entries: ReadonlyArray<{ entry: KeylessEntry; index: number }>,
): TrustMaterial {
  const certificateAuthorities: Authority[] = [];
  const timestampAuthorities: Authority[] = [];
  const tlogs: LogAuthority[] = [];
  for (const { entry, index } of entries) {
    const at = `trust root version ${trustRoot.version}: keyless[${index}]`;
    entry.certificateAuthorities?.forEach((authority, j) => {
      const certChain = authority.certificateChainPem.map((pem, k) =>
        readCertificate(pem, `${at}.certificateAuthorities[${j}].certificateChainPem[${k}]`),
      );
      certificateAuthorities.push({ certChain, validFor: window(authority.validFrom, authority.validUntil) });
    });
    entry.timestampAuthorities?.forEach((authority, j) => {
      const certChain = authority.certificateChainPem.map((pem, k) =>
        readCertificate(pem, `${at}.timestampAuthorities[${j}].certificateChainPem[${k}]`),
      );
      timestampAuthorities.push({ certChain, validFor: window(authority.validFrom, authority.validUntil) });
    });
    entry.transparencyLogs?.forEach((log, j) => {
      let publicKey: LogAuthority['publicKey'];
      try {
        publicKey = sigstoreCrypto.createPublicKey(log.publicKeyPem);
      } catch (error) {
        throw new SigningError(
          'trust-root-invalid',
          `${at}.transparencyLogs[${j}].publicKeyPem is not a readable public key; copy it again from the log's trusted root`,
          { cause: error },
        );
      }
      // A Rekor log is named by the sha256 of its key's SPKI DER encoding, as in Sigstore's trusted roots.
      const logID = createHash('sha256')
        .update(publicKey.export({ format: 'der', type: 'spki' }))
        .digest();
      tlogs.push({ logID, baseURL: log.baseUrl, publicKey, validFor: window(log.validFrom, log.validUntil) });
    });
  }
  return {
    certificateAuthorities,
    timestampAuthorities,
    tlogs,
    ctlogs: [],
    publicKey: (hint) => {
      throw new SigningError('malformed-bundle', `a keyless bundle cannot also name key ${hint}`);
    },
  };
}

/** The entity seen as signed by the certificate's bare key, valid at any time: lets the Verifier check one thing at a time. */
function asBareKey(
  entity: SignedEntity,
  parts: Pick<SignedEntity, 'timestamps' | 'tlogEntries'>,
): { entity: SignedEntity; keyFinder: TrustMaterial['publicKey'] } {
  if (entity.key.$case !== 'certificate') throw new Error('not a certificate-signed entity');
  let publicKey: ReturnType<typeof sigstoreCrypto.createPublicKey>;
  try {
    publicKey = sigstoreCrypto.createPublicKey(entity.key.certificate.publicKey);
  } catch (error) {
    throw new SigningError(
      'malformed-bundle',
      `the certificate's public key cannot be read: ${(error as Error).message}`,
      { cause: error },
    );
  }
  return {
    entity: { ...entity, ...parts, key: { $case: 'public-key', hint: 'certificate-key' } },
    keyFinder: () => ({ publicKey, validFor: () => true }),
  };
}

function checkSignature(entity: SignedEntity): void {
  const bare = asBareKey(entity, { timestamps: [], tlogEntries: [] });
  const material: TrustMaterial = {
    certificateAuthorities: [],
    timestampAuthorities: [],
    tlogs: [],
    ctlogs: [],
    publicKey: bare.keyFinder,
  };
  try {
    new Verifier(material, { tlogThreshold: 0, ctlogThreshold: 0, timestampThreshold: 0 }).verify(bare.entity);
  } catch (error) {
    if (error instanceof VerificationError && error.code === 'SIGNATURE_ERROR') {
      throw new SigningError(
        'signature-invalid',
        "the signature does not match the signed statement under the certificate's key: the statement or the signature was changed after signing",
        { cause: error },
      );
    }
    throw error;
  }
}

/** Verifies every log entry and timestamp against the matching entries' logs and authorities; returns the verified times. */
function checkWitnesses(entity: SignedEntity, trusted: TrustMaterial, claimed: CertificateIdentity): Date[] {
  const who = describeIdentity(claimed.identity, claimed.issuer);
  if (trusted.tlogs.length === 0) {
    throw new SigningError(
      'witness-untrusted',
      `the trust root lists no transparency log for ${who}; add Rekor's key to its keyless entry's transparencyLogs`,
    );
  }
  if (entity.tlogEntries.length === 0) {
    throw new SigningError(
      'witness-untrusted',
      'the bundle carries no transparency-log entry: a keyless signature counts only once a log the trust root lists has recorded it',
    );
  }
  if (
    trusted.timestampAuthorities.length === 0 &&
    entity.timestamps.some((timestamp) => timestamp.$case === 'timestamp-authority')
  ) {
    throw new SigningError(
      'witness-untrusted',
      `the bundle carries an RFC 3161 timestamp, but the trust root lists no timestamp authority for ${who}; add the authority's chain to its keyless entry's timestampAuthorities`,
    );
  }
  const bare = asBareKey(entity, entity);
  try {
    new Verifier({ ...trusted, certificateAuthorities: [], publicKey: bare.keyFinder }, REQUIRED).verify(bare.entity);
  } catch (error) {
    // Anything else thrown here is a log entry or timestamp that cannot even be parsed: refused all the same.
    const reason =
      error instanceof VerificationError ? witnessReason(error) : 'a log entry or timestamp cannot be read';
    throw new SigningError(
      'witness-untrusted',
      `${reason} (${(error as Error).message}); the signature's time cannot be trusted`,
      { cause: error },
    );
  }
  return verifiedTimes(entity);
}

function witnessReason(error: VerificationError): string {
  switch (error.code) {
    case 'TLOG_INCLUSION_PROMISE_ERROR':
      return "no transparency log the trust root lists, in its window, signed the entry's timestamp (its SET)";
    case 'TLOG_INCLUSION_PROOF_ERROR':
    case 'TLOG_MISSING_INCLUSION_ERROR':
      return "the log entry's inclusion in a log the trust root lists cannot be verified";
    case 'TLOG_BODY_ERROR':
      return 'the log entry records another signature or payload than the bundle holds';
    case 'TIMESTAMP_ERROR':
      return 'the bundle has no signing time a trusted log or timestamp authority vouches for';
    case 'TLOG_ERROR':
      return 'the bundle carries too few transparency-log entries';
    case 'NOT_IMPLEMENTED_ERROR':
    case 'CERTIFICATE_ERROR':
    case 'PUBLIC_KEY_ERROR':
    case 'SIGNATURE_ERROR':
      return 'a log entry or timestamp cannot be verified';
  }
}

/** The times the witnesses vouch for, read as @sigstore/verify reads them: integrated times under a SET, TSA times. */
function verifiedTimes(entity: SignedEntity): Date[] {
  return entity.timestamps.flatMap((timestamp) => {
    switch (timestamp.$case) {
      case 'transparency-log':
        return timestamp.tlogEntry.inclusionPromise
          ? [new Date(Number(timestamp.tlogEntry.integratedTime) * 1000)]
          : [];
      case 'timestamp-authority':
        return [timestamp.timestamp.signingTime];
    }
  });
}

/** The full Verifier: the certificate chains to a trusted authority in its window, valid at every verified time. */
function checkCertificate(
  entity: SignedEntity,
  trusted: TrustMaterial,
  claimed: CertificateIdentity,
  times: readonly Date[],
  validity: KeylessSignature['certificateValidity'],
): NonNullable<SigstoreSigner['identity']> {
  const who = describeIdentity(claimed.identity, claimed.issuer);
  if (trusted.certificateAuthorities.length === 0) {
    throw new SigningError(
      'certificate-untrusted',
      `the trust root lists no certificate authority for ${who}; add Fulcio's chain to its keyless entry's certificateAuthorities`,
    );
  }
  try {
    return new Verifier(trusted, REQUIRED).verify(entity).identity ?? {};
  } catch (error) {
    if (!(error instanceof VerificationError) || error.code !== 'CERTIFICATE_ERROR') {
      // The witnesses and the signature passed above, so what fails here is the certificate or its chain being read.
      throw new SigningError(
        'certificate-untrusted',
        `the certificate for ${who} cannot be verified: ${(error as Error).message}`,
        { cause: error },
      );
    }
    // The Verifier says only that the chain failed at the verified times; tell a foreign chain from a time problem.
    if (!chainsInsideValidity(entity, trusted, validity)) {
      throw new SigningError(
        'certificate-untrusted',
        `the certificate for ${who} does not chain to a certificate authority the trust root lists for it`,
        { cause: error },
      );
    }
    const outside = times.find((time) => time < validity.notBefore || time > validity.notAfter);
    if (outside !== undefined) {
      throw new SigningError(
        'key-expired',
        `the log recorded the signature at ${outside.toISOString()}, outside its certificate's validity ${validity.notBefore.toISOString()} to ${validity.notAfter.toISOString()}: the short-lived key signed when it was not certified`,
        { cause: error },
      );
    }
    throw new SigningError(
      'certificate-untrusted',
      `the certificate for ${who} was signed at ${times.map((time) => time.toISOString()).join(', ')}, when no certificate authority the trust root lists for it was inside its window (or a certificate of its chain was not valid)`,
      { cause: error },
    );
  }
}

/**
 * Diagnosis only, after the real check failed: whether the certificate chains to a listed authority at all, checked at
 * the middle of its validity with the authorities' windows open and no witnesses. Never a reason to accept.
 */
function chainsInsideValidity(
  entity: SignedEntity,
  trusted: TrustMaterial,
  validity: KeylessSignature['certificateValidity'],
): boolean {
  const entry = entity.tlogEntries[0];
  if (entry === undefined) return false;
  const middle = Math.floor((validity.notBefore.getTime() + validity.notAfter.getTime()) / 2000);
  const probe: SignedEntity = {
    ...entity,
    tlogEntries: [],
    timestamps: [
      {
        $case: 'transparency-log',
        tlogEntry: {
          ...entry,
          integratedTime: String(middle),
          inclusionPromise: { signedEntryTimestamp: Buffer.alloc(0) },
        },
      },
    ],
  };
  const openWindows = trusted.certificateAuthorities.map((authority) => ({
    ...authority,
    validFor: { start: new Date(0), end: END_OF_TIME },
  }));
  try {
    new Verifier(
      { ...trusted, certificateAuthorities: openWindows, tlogs: [], timestampAuthorities: [] },
      { tlogThreshold: 0, timestampThreshold: 1, ctlogThreshold: 0 },
    ).verify(probe);
    return true;
  } catch {
    return false;
  }
}
