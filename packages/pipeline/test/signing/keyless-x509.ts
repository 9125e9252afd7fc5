// Just enough DER and X.509 (RFC 5280) to issue the certificates of a local Sigstore with node:crypto: a root and an
// intermediate CA, Fulcio-style leaves for ephemeral keys (SAN + OIDC issuer extension), and a timestamping
// certificate. Written out so tests choose every field (validity to the second, which issuer OID) without openssl
// config files; openssl checks the result in keyless-verify.test.ts.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

// ---- DER (X.690): tag, length, content ----

function tlv(tag: number, content: Uint8Array): Buffer {
  const length = content.length;
  if (length < 0x80) return Buffer.concat([Buffer.from([tag, length]), content]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.concat([Buffer.from([tag, 0x80 | bytes.length, ...bytes]), content]);
}

export const der = {
  sequence: (...items: Uint8Array[]) => tlv(0x30, Buffer.concat(items)),
  set: (...items: Uint8Array[]) => tlv(0x31, Buffer.concat(items)),
  boolean: (value: boolean) => tlv(0x01, Buffer.from([value ? 0xff : 0x00])),
  /** A non-negative INTEGER from big-endian bytes: leading zeros dropped, one added when the top bit is set. */
  integer(value: Uint8Array | number): Buffer {
    const hex = typeof value === 'number' ? value.toString(16) : '';
    let bytes =
      typeof value === 'number' ? Buffer.from(hex.length % 2 === 0 ? hex : `0${hex}`, 'hex') : Buffer.from(value);
    while (bytes.length > 1 && bytes[0] === 0 && ((bytes[1] ?? 0) & 0x80) === 0) bytes = bytes.subarray(1);
    if (((bytes[0] ?? 0) & 0x80) !== 0) bytes = Buffer.concat([Buffer.from([0]), bytes]);
    return tlv(0x02, bytes);
  },
  oid(dotted: string): Buffer {
    const [first = 0, second = 0, ...rest] = dotted.split('.').map(Number);
    const bytes: number[] = [first * 40 + second];
    for (const arc of rest) {
      const chunk: number[] = [arc & 0x7f];
      for (let value = Math.floor(arc / 128); value > 0; value = Math.floor(value / 128))
        chunk.unshift(0x80 | (value & 0x7f));
      bytes.push(...chunk);
    }
    return tlv(0x06, Buffer.from(bytes));
  },
  octetString: (bytes: Uint8Array) => tlv(0x04, bytes),
  utf8String: (text: string) => tlv(0x0c, Buffer.from(text, 'utf8')),
  /** A BIT STRING of whole bytes (signatures, keys). */
  bitString: (bytes: Uint8Array) => tlv(0x03, Buffer.concat([Buffer.from([0]), bytes])),
  /** Time as RFC 5280 wants it: UTCTime through 2049, GeneralizedTime after; whole seconds. */
  time(date: Date): Buffer {
    const text = date
      .toISOString()
      .replace(/[-:T]/g, '')
      .replace(/\.\d{3}Z$/, 'Z');
    return date.getUTCFullYear() < 2050
      ? tlv(0x17, Buffer.from(text.slice(2), 'ascii'))
      : tlv(0x18, Buffer.from(text, 'ascii'));
  },
  /** [n] EXPLICIT: a constructed context tag around one encoded value. */
  explicit: (n: number, inner: Uint8Array) => tlv(0xa0 | n, inner),
  /** [n] IMPLICIT over a primitive value's content bytes. */
  implicit: (n: number, content: Uint8Array) => tlv(0x80 | n, content),
};

// ---- X.509 ----

const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  codeSigning: '1.3.6.1.5.5.7.3.3',
  timeStamping: '1.3.6.1.5.5.7.3.8',
  fulcioIssuer: '1.3.6.1.4.1.57264.1.8',
  fulcioIssuerLegacy: '1.3.6.1.4.1.57264.1.1',
} as const;

export interface IssuedCertificate {
  der: Buffer;
  pem: string;
  /** The DER Name of its subject: what the certificates it issues name as their issuer. */
  subject: Buffer;
  subjectKeyId: Buffer;
}

/** A CA certificate with its private key: what issues the next certificate down. */
export interface Issuer {
  certificate: IssuedCertificate;
  privateKey: KeyObject;
}

/** Which Fulcio issuer extension a leaf carries: the current DER one, only the legacy raw one, or none. */
export type IssuerExtension = 'current' | 'legacy' | 'none';

export interface CertificateRequest {
  /** The certificate's subject as O and CN; a Fulcio leaf has an empty subject and names itself in its SAN. */
  subject: { organization?: string; commonName?: string };
  publicKey: KeyObject;
  notBefore: Date;
  notAfter: Date;
  /** Who signs it; omitted, the certificate is self-signed with `selfSigningKey`. */
  issuer?: Issuer;
  selfSigningKey?: KeyObject;
  /** A CA may issue certificates; `pathLength` bounds the CAs below it. */
  ca?: { pathLength?: number };
  /** Leaf usages: code signing (a Fulcio leaf) or time stamping (a TSA). */
  usage?: 'codeSigning' | 'timeStamping';
  san?: { uri: string } | { email: string };
  oidcIssuer?: { issuer: string; extension: IssuerExtension };
}

function name(subject: CertificateRequest['subject']): Buffer {
  const parts: Buffer[] = [];
  if (subject.organization !== undefined)
    parts.push(der.set(der.sequence(der.oid(OID.organization), der.utf8String(subject.organization))));
  if (subject.commonName !== undefined)
    parts.push(der.set(der.sequence(der.oid(OID.commonName), der.utf8String(subject.commonName))));
  return der.sequence(...parts);
}

function extension(oid: string, critical: boolean, value: Uint8Array): Buffer {
  return critical
    ? der.sequence(der.oid(oid), der.boolean(true), der.octetString(value))
    : der.sequence(der.oid(oid), der.octetString(value));
}

/** KeyUsage bits, most significant first (digitalSignature = 0, keyCertSign = 5, cRLSign = 6), as a minimal BIT STRING. */
function keyUsage(bits: number[]): Buffer {
  let byte = 0;
  for (const bit of bits) byte |= 0x80 >> bit;
  let unused = 0;
  while (unused < 7 && ((byte >> unused) & 1) === 0) unused += 1;
  return tlv(0x03, Buffer.from([unused, byte]));
}

function spki(publicKey: KeyObject): Buffer {
  return publicKey.export({ type: 'spki', format: 'der' });
}

/** Issues (signs) one certificate; ECDSA P-256 with SHA-256 throughout, as Fulcio does. */
export function issueCertificate(request: CertificateRequest): IssuedCertificate {
  const subject = name(request.subject);
  const subjectKeyId = createHash('sha1').update(spki(request.publicKey)).digest();
  const signingKey = request.issuer?.privateKey ?? request.selfSigningKey;
  if (!signingKey) throw new Error('a certificate needs an issuer, or selfSigningKey when self-signed');
  const issuerName = request.issuer?.certificate.subject ?? subject;

  const extensions: Buffer[] = [];
  if (request.ca) {
    const constraints =
      request.ca.pathLength === undefined
        ? [der.boolean(true)]
        : [der.boolean(true), der.integer(request.ca.pathLength)];
    extensions.push(extension(OID.basicConstraints, true, der.sequence(...constraints)));
    extensions.push(extension(OID.keyUsage, true, keyUsage([5, 6])));
  } else {
    extensions.push(extension(OID.keyUsage, true, keyUsage([0])));
  }
  if (request.usage !== undefined) {
    // RFC 3161 wants the timestamping usage critical and alone; openssl ts refuses a signer without it.
    extensions.push(
      extension(OID.extKeyUsage, request.usage === 'timeStamping', der.sequence(der.oid(OID[request.usage]))),
    );
  }
  extensions.push(extension(OID.subjectKeyIdentifier, false, der.octetString(subjectKeyId)));
  if (request.issuer)
    extensions.push(
      extension(
        OID.authorityKeyIdentifier,
        false,
        der.sequence(der.implicit(0, request.issuer.certificate.subjectKeyId)),
      ),
    );
  if (request.san) {
    const general =
      'uri' in request.san
        ? der.implicit(6, Buffer.from(request.san.uri, 'ascii'))
        : der.implicit(1, Buffer.from(request.san.email, 'ascii'));
    // An empty subject makes the SAN the certificate's only name, which RFC 5280 then requires to be critical.
    extensions.push(extension(OID.subjectAltName, subject.length === 2, der.sequence(general)));
  }
  if (request.oidcIssuer) {
    const { issuer, extension: which } = request.oidcIssuer;
    if (which === 'current') extensions.push(extension(OID.fulcioIssuer, false, der.utf8String(issuer)));
    if (which === 'legacy') extensions.push(extension(OID.fulcioIssuerLegacy, false, Buffer.from(issuer, 'ascii')));
  }

  const algorithm = der.sequence(der.oid(OID.ecdsaWithSha256));
  const serial = randomBytes(16);
  serial[0] = (serial[0] ?? 0) & 0x7f;
  const tbs = der.sequence(
    der.explicit(0, der.integer(2)),
    der.integer(serial),
    algorithm,
    issuerName,
    der.sequence(der.time(request.notBefore), der.time(request.notAfter)),
    subject,
    spki(request.publicKey),
    der.explicit(3, der.sequence(...extensions)),
  );
  const certificate = der.sequence(tbs, algorithm, der.bitString(sign('sha256', tbs, signingKey)));
  const base64 = certificate.toString('base64').replace(/(.{64})/g, '$1\n');
  const pem = `-----BEGIN CERTIFICATE-----\n${base64}${base64.endsWith('\n') ? '' : '\n'}-----END CERTIFICATE-----\n`;
  return { der: certificate, pem, subject, subjectKeyId };
}

export function newKeyPair(): { publicKey: KeyObject; privateKey: KeyObject } {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' });
}

export interface CertificateAuthority {
  root: Issuer;
  intermediate: Issuer;
  /** The chain as a trust root lists it: the issuing certificate first, the root last. */
  chainPem: [string, string];
}

/** A root CA and an intermediate under it, both valid over `validity`, with fresh P-256 keys. */
export function createCertificateAuthority(
  label: string,
  validity: { notBefore: Date; notAfter: Date },
): CertificateAuthority {
  const rootKeys = newKeyPair();
  const root = {
    certificate: issueCertificate({
      subject: { organization: label, commonName: `${label} root` },
      publicKey: rootKeys.publicKey,
      selfSigningKey: rootKeys.privateKey,
      ca: {},
      ...validity,
    }),
    privateKey: rootKeys.privateKey,
  };
  const intermediateKeys = newKeyPair();
  const intermediate = {
    certificate: issueCertificate({
      subject: { organization: label, commonName: `${label} intermediate` },
      publicKey: intermediateKeys.publicKey,
      issuer: root,
      ca: { pathLength: 0 },
      ...validity,
    }),
    privateKey: intermediateKeys.privateKey,
  };
  return { root, intermediate, chainPem: [intermediate.certificate.pem, root.certificate.pem] };
}
