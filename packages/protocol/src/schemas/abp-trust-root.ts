// The abp-trust-root/v1 document: the public keys, each with its validity window, and the keyless signer identities
// whose signatures abp accepts. That a key id is the sha256 of its key needs node:crypto, so signing/trust-root.ts checks it.
import { z } from 'zod';
import { conforms, describeValue, duplicateIndices, nonBlankText, positiveInt, utcTimestamp } from './primitives.js';

export const TRUST_ROOT_SCHEMA_ID = 'abp-trust-root/v1';
export const KEY_ALGORITHM = 'ecdsa-p256-sha256';

function pemBlock(label: string, fix: string) {
  const re = new RegExp(`^-----BEGIN ${label}-----\\r?\\n(?:[A-Za-z0-9+/=]+\\r?\\n)+-----END ${label}-----\\r?\\n?$`);
  return z.string().regex(re, {
    error: (issue) => `must be one PEM "-----BEGIN ${label}-----" block, got ${describeValue(issue.input)}; ${fix}`,
  });
}

const publicKeyPem = pemBlock(
  'PUBLIC KEY',
  'export the SPKI public key, e.g. `openssl pkey -pubout -in signing-key.pem`',
);
const certificatePem = pemBlock('CERTIFICATE', 'give each certificate of the chain as its own PEM string');

const httpUrl = z.url({
  protocol: /^https?$/,
  error: (issue) =>
    `must be an http(s) URL, e.g. "https://token.actions.githubusercontent.com", got ${describeValue(issue.input)}`,
});

const keyId = z.string().regex(/^[0-9a-f]{64}$/, {
  error: (issue) =>
    `must be the key id: the lowercase hex sha256 of the key's SPKI DER encoding (64 characters), got ${describeValue(issue.input)}`,
});

const validFrom = utcTimestamp.describe('The first instant the key may sign.');
const validUntil = utcTimestamp.nullable().describe('The last instant the key may sign; null while its end is open.');

/** Adds an issue when `validUntil` does not come after `validFrom`: a window that holds no instant trusts nothing. */
function checkWindow(
  window: { validFrom: string; validUntil: string | null },
  path: Array<string | number>,
  ctx: z.core.$RefinementCtx,
) {
  if (
    window.validUntil !== null &&
    conforms(utcTimestamp, window.validFrom) &&
    Date.parse(window.validUntil) <= Date.parse(window.validFrom)
  ) {
    ctx.addIssue({
      code: 'custom',
      path: [...path, 'validUntil'],
      message: `must come after validFrom ${window.validFrom}; set it later, or null for an open end`,
    });
  }
}

const trustedKey = z
  .strictObject({
    keyId,
    publicKeyPem,
    algorithm: z.literal(KEY_ALGORITHM),
    validFrom,
    validUntil,
    retiredAt: utcTimestamp
      .optional()
      .describe('When the key was replaced: it signs nothing after, and what it signed before stays valid.'),
  })
  .describe('A public key whose signatures are accepted when made inside its window.');

// An authority's window bounds the signing times (log or timestamp times) it is trusted for, not its own certificates.
const trustedFrom = utcTimestamp.describe('The first signing time the authority is trusted for.');
const trustedUntil = utcTimestamp
  .nullable()
  .describe('The last signing time the authority is trusted for; null while its end is open.');

const certificateAuthority = z.strictObject({
  certificateChainPem: z.array(certificatePem).min(1).describe('The issuing certificate first, the root last.'),
  validFrom: trustedFrom,
  validUntil: trustedUntil,
});

const transparencyLog = z.strictObject({
  baseUrl: httpUrl.describe('Where the log lives; its checkpoints are signed under this host name.'),
  publicKeyPem,
  validFrom: trustedFrom,
  validUntil: trustedUntil,
});

const keylessIdentity = z
  .strictObject({
    issuer: httpUrl.describe(
      'The OIDC issuer the certificate must name, e.g. "https://token.actions.githubusercontent.com".',
    ),
    identity: nonBlankText.describe("The certificate's subject alternative name, e.g. the CI workflow URI that signs."),
    certificateAuthorities: z
      .array(certificateAuthority)
      .optional()
      .describe('The Fulcio chains that may certify this identity; without one, nothing verifies.'),
    transparencyLogs: z
      .array(transparencyLog)
      .optional()
      .describe('The Rekor logs whose entries count; without one, nothing verifies.'),
    timestampAuthorities: z
      .array(certificateAuthority)
      .optional()
      .describe(
        'RFC 3161 timestamp authorities whose timestamps count as a signing time: the signing certificate first, the root last.',
      ),
  })
  .describe('A keyless (Fulcio + Rekor) signer identity whose certificates are accepted.');

export const trustRootSchema = z
  .strictObject({
    schema: z.literal(TRUST_ROOT_SCHEMA_ID),
    version: positiveInt.describe('Raised by one with every change, so a consumer can refuse an older trust root.'),
    keys: z.array(trustedKey),
    keyless: z.array(keylessIdentity).default([]),
  })
  .superRefine((root, ctx) => {
    for (const { index, first } of duplicateIndices(root.keys, (key) => key.keyId)) {
      ctx.addIssue({
        code: 'custom',
        path: ['keys', index, 'keyId'],
        message: `repeats keys[${first}]; list each key once`,
      });
    }
    root.keys.forEach((key, index) => {
      checkWindow(key, ['keys', index], ctx);
      if (
        key.retiredAt !== undefined &&
        conforms(utcTimestamp, key.validFrom) &&
        Date.parse(key.retiredAt) < Date.parse(key.validFrom)
      ) {
        ctx.addIssue({
          code: 'custom',
          path: ['keys', index, 'retiredAt'],
          message: `must not come before validFrom ${key.validFrom}`,
        });
      }
    });
    root.keyless.forEach((entry, index) => {
      entry.certificateAuthorities?.forEach((authority, at) =>
        checkWindow(authority, ['keyless', index, 'certificateAuthorities', at], ctx),
      );
      entry.transparencyLogs?.forEach((log, at) => checkWindow(log, ['keyless', index, 'transparencyLogs', at], ctx));
      entry.timestampAuthorities?.forEach((authority, at) =>
        checkWindow(authority, ['keyless', index, 'timestampAuthorities', at], ctx),
      );
    });
  })
  .describe('An abp trust root: the keys and keyless identities whose signed statements abp accepts.');

export type TrustRoot = z.infer<typeof trustRootSchema>;
export type TrustedKey = TrustRoot['keys'][number];
