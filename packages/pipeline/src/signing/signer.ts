// The one Signer interface and the one factory that picks its implementation from configuration: the local keyed
// signer (default; ECDSA P-256, no witnesses) or keyless Sigstore (Fulcio certificate, Rekor entry, optional TSA).
import { sign as signBytes } from 'node:crypto';
import { join } from 'node:path';
import { bundleToJSON, type SerializedBundle } from '@sigstore/bundle';
import {
  CIContextProvider,
  DEFAULT_FULCIO_URL,
  DEFAULT_REKOR_URL,
  DSSEBundleBuilder,
  FulcioSigner,
  InternalError,
  RekorWitness,
  TSAWitness,
  type IdentityProvider,
  type Signer as SigstoreSigner,
  type Witness,
} from '@sigstore/sign';
import { z } from 'zod';
import { plainWordsParseOptions } from '@abp/protocol/schemas/issues';
import { describeValue, nonBlankText, nonNegativeInt, positiveInt } from '@abp/protocol/schemas/primitives';
import { describeIssues } from '@abp/protocol/schemas/issues';
import { SigningError } from '@abp/protocol/signing/errors';
import {
  currentKeyFileIdentity,
  readSigningKeyFile,
  SIGNING_KEY_FILE,
  type SigningKey,
  type SigningKeyFile,
} from './keys.js';
import {
  STATEMENT_PAYLOAD_TYPE,
  statementPayload,
  statementSchema,
  type Statement,
} from '@abp/protocol/signing/statement';

export type { SerializedBundle } from '@sigstore/bundle';

export interface Signer {
  readonly kind: 'keyed' | 'keyless';
  /**
   * The trust root's id of the key the next signature is made with; null for keyless, whose key lives only for one
   * signature. A keyed signer over a key folder follows `abp keys rotate`, so read it when needed rather than keep it;
   * the key a bundle was signed with is its `verificationMaterial.publicKey.hint`.
   */
  readonly keyId: string | null;
  /** Signs the statement's canonical bytes in a DSSE envelope and returns the Sigstore bundle (v0.3) as JSON. */
  sign(statement: Statement): Promise<SerializedBundle>;
}

const httpUrl = z.url({
  protocol: /^https?$/,
  error: (issue) => `must be an http(s) URL, e.g. "https://fulcio.example.org", got ${describeValue(issue.input)}`,
});

const keyedConfigSchema = z.strictObject({
  kind: z.literal('keyed'),
  keyDir: nonBlankText.describe('The folder holding signing-key.pem.'),
});

const identityTokenSchema = z.discriminatedUnion('from', [
  z
    .strictObject({ from: z.literal('ci'), audience: z.string().min(1).default('sigstore') })
    .describe('GitHub Actions OIDC, else SIGSTORE_ID_TOKEN.'),
  z.strictObject({
    from: z.literal('env'),
    variable: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
      error: (issue) =>
        `must be an environment variable name, e.g. "SIGSTORE_ID_TOKEN", got ${describeValue(issue.input)}`,
    }),
  }),
]);

const keylessConfigSchema = z.strictObject({
  kind: z.literal('keyless'),
  fulcioUrl: httpUrl.default(DEFAULT_FULCIO_URL),
  rekorUrl: httpUrl.default(DEFAULT_REKOR_URL),
  timestampAuthorityUrl: httpUrl.optional(),
  identityToken: identityTokenSchema.default({ from: 'ci', audience: 'sigstore' }),
  retries: nonNegativeInt.default(2),
  timeoutMs: positiveInt.default(30_000),
});

const signerConfigSchema = z.preprocess(
  // Keyed is the default: a config that names no kind is a keyed one.
  (value) =>
    typeof value === 'object' && value !== null && !Array.isArray(value) && !('kind' in value)
      ? { ...value, kind: 'keyed' }
      : value,
  z.discriminatedUnion('kind', [keyedConfigSchema, keylessConfigSchema]),
);

export type SignerConfig = z.output<typeof signerConfigSchema>;
/** A keyed config may leave out its kind. */
export type SignerConfigInput =
  (Omit<z.input<typeof keyedConfigSchema>, 'kind'> & { kind?: 'keyed' }) | z.input<typeof keylessConfigSchema>;
export type KeylessSignerConfig = z.output<typeof keylessConfigSchema>;

/** Checks a signer configuration read from a file or the environment, filling in the defaults. */
export function parseSignerConfig(value: unknown): SignerConfig {
  const parsed = signerConfigSchema.safeParse(value, plainWordsParseOptions);
  if (!parsed.success) {
    throw new SigningError(
      'signer-config-invalid',
      `the signer configuration is invalid: ${describeIssues(parsed.error.issues)}; e.g. { "kind": "keyed", "keyDir": ".abp/keys" } or { "kind": "keyless", "identityToken": { "from": "ci" } }`,
    );
  }
  return parsed.data;
}

/** The signer the configuration names; a keyed signer loads (and permission-checks) its key here. */
export function createSigner(config: SignerConfigInput): Promise<Signer> {
  return new Promise((resolve) => resolve(signerFor(parseSignerConfig(config))));
}

function signerFor(config: SignerConfig): Signer {
  switch (config.kind) {
    case 'keyed':
      return keyFileSigner(join(config.keyDir, SIGNING_KEY_FILE));
    case 'keyless':
      return keylessSigner(config);
  }
}

async function signStatement(builder: DSSEBundleBuilder, statement: Statement): Promise<SerializedBundle> {
  const checked = statementSchema.safeParse(statement, plainWordsParseOptions);
  if (!checked.success)
    throw new SigningError(
      'invalid-statement',
      `the statement to sign is invalid: ${describeIssues(checked.error.issues)}`,
    );
  const bundle = await builder.create({ data: statementPayload(checked.data), type: STATEMENT_PAYLOAD_TYPE });
  return bundleToJSON(bundle);
}

/** A signer that always signs with `key`: for a key not in the key folder, e.g. the retired key signing its successor's trust root. */
export function keyedSigner(key: SigningKey): Signer {
  return signerOverKey(() => key);
}

function signerOverKey(currentKey: () => SigningKey): Signer {
  // The bundle names the key by its id (the hint), never by the key itself: a verifier must find it in its trust root.
  // The key is taken at the moment of signing, so the hint and the signature always come from the same key.
  const keyHolder: SigstoreSigner = {
    sign: (data) => {
      const key = currentKey();
      return Promise.resolve({
        signature: signBytes('sha256', data, key.privateKey),
        key: { $case: 'publicKey', publicKey: key.publicKeyPem, hint: key.keyId },
      });
    },
  };
  const builder = new DSSEBundleBuilder({ signer: keyHolder, witnesses: [] });
  return {
    kind: 'keyed',
    get keyId() {
      return currentKey().keyId;
    },
    sign: (statement) => signStatement(builder, statement),
  };
}

/**
 * The keyed signer of a long-running process (the worker): it loads the key file now, permission-checked, and reads it
 * again whenever the file's identity changes, so after `abp keys rotate` renames the new key into place the next
 * signature, and `keyId`, are the new key's without a restart. A stat per signature is the whole cost.
 */
function keyFileSigner(path: string): Signer {
  let loaded: SigningKeyFile = readSigningKeyFile(path);
  const currentKey = (): SigningKey => {
    if (currentKeyFileIdentity(path) !== loaded.identity) loaded = readSigningKeyFile(path);
    return loaded.key;
  };
  return signerOverKey(currentKey);
}

function identityProvider(source: KeylessSignerConfig['identityToken']): IdentityProvider {
  switch (source.from) {
    case 'ci':
      return new CIContextProvider(source.audience);
    case 'env':
      return {
        getToken: () => {
          const token = process.env[source.variable];
          return token ? Promise.resolve(token) : Promise.reject(new Error(`${source.variable} is not set`));
        },
      };
  }
}

function keylessSigner(config: KeylessSignerConfig): Signer {
  const fetchOptions = { retry: config.retries, timeout: config.timeoutMs };
  const witnesses: Witness[] = [
    new RekorWitness({ rekorBaseURL: config.rekorUrl, entryType: 'dsse', ...fetchOptions }),
  ];
  if (config.timestampAuthorityUrl !== undefined)
    witnesses.push(new TSAWitness({ tsaBaseURL: config.timestampAuthorityUrl, ...fetchOptions }));
  const fulcio = new FulcioSigner({
    identityProvider: identityProvider(config.identityToken),
    fulcioBaseURL: config.fulcioUrl,
    ...fetchOptions,
  });
  const builder = new DSSEBundleBuilder({ signer: fulcio, witnesses });
  return {
    kind: 'keyless',
    keyId: null,
    sign: (statement) =>
      signStatement(builder, statement).catch((error: unknown) => {
        throw error instanceof InternalError ? keylessError(error, config) : error;
      }),
  };
}

/** Turns @sigstore/sign's errors into ours, each naming the service and what to fix. */
function keylessError(error: InternalError, config: KeylessSignerConfig): SigningError {
  const reason = error.cause instanceof Error ? error.cause.message : String(error.cause ?? error.message);
  switch (error.code) {
    case 'IDENTITY_TOKEN_READ_ERROR': {
      const fix =
        config.identityToken.from === 'env'
          ? `set ${config.identityToken.variable} to an OIDC token`
          : 'in GitHub Actions grant `permissions: id-token: write`; elsewhere set SIGSTORE_ID_TOKEN';
      return new SigningError(
        'identity-token-unavailable',
        `no OIDC identity token for keyless signing (${reason}): ${fix}`,
        { cause: error },
      );
    }
    case 'IDENTITY_TOKEN_PARSE_ERROR':
      // No cause: @sigstore/sign's message quotes the token, a credential.
      return new SigningError(
        'identity-token-unavailable',
        'the OIDC identity token is not a JWT with a subject (sub, or a verified email): check what the token variable holds',
      );
    case 'CA_CREATE_SIGNING_CERTIFICATE_ERROR':
      return new SigningError(
        'certificate-authority-failed',
        `Fulcio at ${config.fulcioUrl} issued no signing certificate (${reason}); check fulcioUrl and that the token's issuer is one Fulcio trusts`,
        { cause: error },
      );
    case 'TLOG_CREATE_ENTRY_ERROR':
    case 'TLOG_FETCH_ENTRY_ERROR':
      return new SigningError(
        'transparency-log-failed',
        `Rekor at ${config.rekorUrl} did not record the signature (${reason}); check rekorUrl`,
        { cause: error },
      );
    case 'TSA_CREATE_TIMESTAMP_ERROR':
      return new SigningError(
        'timestamp-authority-failed',
        `the timestamp authority at ${config.timestampAuthorityUrl ?? '(none)'} gave no timestamp (${reason}); check timestampAuthorityUrl`,
        { cause: error },
      );
  }
}
