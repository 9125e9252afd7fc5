// The signer factory: keyed by default, keyless configuration checked for shape with Sigstore's public defaults, and
// the keyless path failing offline with our codes (no token, an unreadable token, an unreachable Fulcio).
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SigningError } from '@abp/protocol/signing/errors';
import { createSigningKey } from '../../src/signing/keys.js';
import { createSigner, parseSignerConfig } from '../../src/signing/signer.js';
import { createTaskBundleStatement, type Statement } from '@abp/protocol/signing/statement';

const TOKEN_VARIABLE = `ABP_TEST_OIDC_TOKEN_${process.pid}`;

let dir: string;
let statement: Statement;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'abp-signing-config-'));
  statement = createTaskBundleStatement({
    taskId: 'gh-acme-widgets-42',
    bundleDigest: `sha256:${'a'.repeat(64)}`,
    heldOutDigest: `sha256:${'b'.repeat(64)}`,
    signedAt: '2026-07-02T14:11:09Z',
    freeze: {
      repo: 'acme/widgets',
      baseCommit: 'c'.repeat(40),
      mergedPr: 'https://github.com/acme/widgets/pull/43',
      failToPass: 1,
      passToPass: 3,
      flaky: 0,
      builder: 'abp/0.1.0',
    },
  });
});

afterEach(() => {
  delete process.env[TOKEN_VARIABLE];
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function configCode(value: unknown): string {
  try {
    parseSignerConfig(value);
  } catch (error) {
    expect(error).toBeInstanceOf(SigningError);
    return (error as SigningError).code;
  }
  throw new Error('expected a SigningError');
}

async function signCode(signing: Promise<unknown>): Promise<SigningError> {
  const error: unknown = await signing.then(
    () => null,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(SigningError);
  return error as SigningError;
}

/** A local port nothing listens on: bound once to learn a free number, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function unsignedJwt(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none' })}.${part(claims)}.`;
}

describe('parseSignerConfig', () => {
  it('reads a config without a kind as keyed', () => {
    expect(parseSignerConfig({ keyDir: '.abp/keys' })).toEqual({ kind: 'keyed', keyDir: '.abp/keys' });
  });

  it("fills a keyless config with Sigstore's public instance, CI tokens, retries and a timeout", () => {
    expect(parseSignerConfig({ kind: 'keyless' })).toEqual({
      kind: 'keyless',
      fulcioUrl: 'https://fulcio.sigstore.dev',
      rekorUrl: 'https://rekor.sigstore.dev',
      identityToken: { from: 'ci', audience: 'sigstore' },
      retries: 2,
      timeoutMs: 30_000,
    });
  });

  it('keeps a private instance with a timestamp authority and a token variable', () => {
    const config = {
      kind: 'keyless',
      fulcioUrl: 'https://fulcio.internal.example',
      rekorUrl: 'https://rekor.internal.example',
      timestampAuthorityUrl: 'https://tsa.internal.example/api/v1/timestamp',
      identityToken: { from: 'env', variable: 'CI_OIDC_TOKEN' },
      retries: 0,
      timeoutMs: 5_000,
    };
    expect(parseSignerConfig(config)).toEqual(config);
  });

  it.each([
    ['an unknown kind', { kind: 'hsm' }],
    ['a keyed config without its folder', { kind: 'keyed' }],
    ['a Fulcio URL that is not http(s)', { kind: 'keyless', fulcioUrl: 'ftp://fulcio.example' }],
    ['a Rekor URL that is not a URL', { kind: 'keyless', rekorUrl: 'rekor' }],
    ['a token source without its variable', { kind: 'keyless', identityToken: { from: 'env' } }],
    [
      'a token variable that cannot be one',
      { kind: 'keyless', identityToken: { from: 'env', variable: 'NOT-A-NAME' } },
    ],
    ['an unknown token source', { kind: 'keyless', identityToken: { from: 'file' } }],
    ['negative retries', { kind: 'keyless', retries: -1 }],
    ['an unknown field', { kind: 'keyless', fulcio: 'https://fulcio.example' }],
    ['not an object', 'keyless'],
  ])('refuses %s', (_label, value) => {
    expect(configCode(value)).toBe('signer-config-invalid');
  });
});

describe('createSigner', () => {
  it('builds a keyless signer from configuration, without reaching any service', async () => {
    const signer = await createSigner({
      kind: 'keyless',
      timestampAuthorityUrl: 'https://tsa.example/api/v1/timestamp',
    });
    expect(signer).toMatchObject({ kind: 'keyless', keyId: null });
  });

  it('reports a keyed signer whose key does not exist', async () => {
    await expect(createSigner({ keyDir: path.join(dir, 'no-keys') })).rejects.toMatchObject({ code: 'key-missing' });
  });

  it('gives a keyed signer the id of its key', async () => {
    const key = await createSigningKey(path.join(dir, 'keys'));
    await expect(createSigner({ kind: 'keyed', keyDir: path.join(dir, 'keys') })).resolves.toMatchObject({
      kind: 'keyed',
      keyId: key.keyId,
    });
  });
});

describe('keyless signing offline', () => {
  it('without a token is identity-token-unavailable', async () => {
    const signer = await createSigner({
      kind: 'keyless',
      identityToken: { from: 'env', variable: TOKEN_VARIABLE },
      retries: 0,
    });
    expect((await signCode(signer.sign(statement))).code).toBe('identity-token-unavailable');
  });

  it('with a token that is not a JWT is identity-token-unavailable, and the error never carries the token', async () => {
    const secret = 'opaque-credential-value-1234567890';
    process.env[TOKEN_VARIABLE] = secret;
    const signer = await createSigner({
      kind: 'keyless',
      identityToken: { from: 'env', variable: TOKEN_VARIABLE },
      retries: 0,
    });
    const error = await signCode(signer.sign(statement));
    expect(error.code).toBe('identity-token-unavailable');
    expect(error.cause).toBeUndefined();
    expect(`${error.message} ${String(error.stack)}`).not.toContain(secret);
  });

  it('with a token and an unreachable Fulcio is certificate-authority-failed', async () => {
    process.env[TOKEN_VARIABLE] = unsignedJwt({
      sub: 'https://github.com/acme/registry/.github/workflows/freeze.yml@refs/heads/main',
      iss: 'https://token.actions.githubusercontent.com',
    });
    const port = await closedPort();
    const signer = await createSigner({
      kind: 'keyless',
      fulcioUrl: `http://127.0.0.1:${port}`,
      rekorUrl: `http://127.0.0.1:${port}`,
      identityToken: { from: 'env', variable: TOKEN_VARIABLE },
      retries: 0,
      timeoutMs: 2_000,
    });
    expect((await signCode(signer.sign(statement))).code).toBe('certificate-authority-failed');
  });
});
