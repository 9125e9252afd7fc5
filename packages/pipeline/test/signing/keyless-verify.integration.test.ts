// Keyless verification offline: the production keyless signer signs through a local Fulcio, Rekor and timestamp
// authority (local-sigstore.ts), and verifyStatementBundle accepts the bundle only for the identity and issuer the
// trust root names, a certificate chaining to its CA inside its window, and a log entry whose signed time falls inside
// the certificate's ten minutes. Each refusal is asserted by its code.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRUST_ROOT_SCHEMA_ID, type TrustRoot } from '@abp/protocol/schemas/abp-trust-root';
import { createSigningKey } from '../../src/signing/keys.js';
import { createSigner, parseSignerConfig, type SerializedBundle } from '../../src/signing/signer.js';
import {
  createTaskBundleStatement,
  DRAW_RECORD_PREDICATE,
  TASK_BUNDLE_PREDICATE,
  taskBundleSubjectNames,
  type Statement,
} from '@abp/protocol/signing/statement';
import { createTrustRoot, parseTrustRoot } from '@abp/protocol/signing/trust-root';
import { verifyStatementBundle, type ExpectedStatement } from '@abp/grader/trust';
import { createCertificateAuthority } from './keyless-x509.js';
import {
  CERTIFICATE_LIFETIME_MS,
  identityToken,
  keylessEntry,
  startLocalFulcio,
  startLocalRekor,
  startLocalSigstore,
  startLocalTimestampAuthority,
  type LocalFulcio,
  type LocalRekor,
  type LocalSigstore,
  type LocalTimestampAuthority,
} from './local-sigstore.js';
import { codeOf } from './signing-error.js';

const run = promisify(execFile);

const ISSUER = 'https://token.actions.githubusercontent.com';
const IDENTITY = 'https://github.com/acme/registry/.github/workflows/freeze.yml@refs/heads/main';
const TASK_ID = 'gh-acme-widgets-42';
// The statement claims one time, the services run at another: verification must report the log's.
const CLAIMED_SIGNED_AT = '2026-07-02T14:11:09Z';
const LOG_TIME = new Date('2026-07-02T14:20:00Z');
const TOKEN_VARIABLE = `ABP_TEST_KEYLESS_TOKEN_${process.pid}`;
const names = taskBundleSubjectNames(TASK_ID);
const archiveSha256 = createHash('sha256').update('the agent-visible archive').digest('hex');
const heldOutSha256 = createHash('sha256').update('the held-out archive').digest('hex');

let dir: string;
let sigstore: LocalSigstore;
let tsa: LocalTimestampAuthority;
let statement: Statement;
let bundle: SerializedBundle;
let trustRoot: TrustRoot;

const expected: ExpectedStatement = {
  subjects: [
    { name: names.bundle, sha256: archiveSha256 },
    { name: names.heldOut, sha256: heldOutSha256 },
  ],
  predicateType: TASK_BUNDLE_PREDICATE,
};

function rootWith(...keyless: TrustRoot['keyless']): TrustRoot {
  return parseTrustRoot({ schema: TRUST_ROOT_SCHEMA_ID, version: 3, keys: [], keyless }, 'the test trust root');
}

function trusted(overrides: Partial<Parameters<typeof keylessEntry>[0]> = {}): TrustRoot {
  return rootWith(
    keylessEntry({ identity: IDENTITY, issuer: ISSUER, fulcio: sigstore.fulcio, rekor: sigstore.rekor, ...overrides }),
  );
}

/** Signs `statement` with the production keyless signer as the token's subject, through the given services. */
async function signKeyless(
  claims: { iss: string; sub?: string; email?: string } = { iss: ISSUER, sub: IDENTITY },
  services: { fulcio?: LocalFulcio; rekor?: LocalRekor; tsa?: LocalTimestampAuthority } = {},
): Promise<SerializedBundle> {
  process.env[TOKEN_VARIABLE] = identityToken(claims);
  try {
    const signer = await createSigner({
      kind: 'keyless',
      fulcioUrl: (services.fulcio ?? sigstore.fulcio).url,
      rekorUrl: (services.rekor ?? sigstore.rekor).url,
      ...(services.tsa ? { timestampAuthorityUrl: services.tsa.url } : {}),
      identityToken: { from: 'env', variable: TOKEN_VARIABLE },
      retries: 0,
      timeoutMs: 10_000,
    });
    return await signer.sign(statement);
  } finally {
    delete process.env[TOKEN_VARIABLE];
  }
}

function firstEntry(source: SerializedBundle) {
  const entry = source.verificationMaterial.tlogEntries[0];
  if (!entry) throw new Error('the bundle has no log entry');
  return entry;
}

/** A deep copy of `source` with its first log entry changed. */
function withEntry(source: SerializedBundle, change: (entry: ReturnType<typeof firstEntry>) => void): SerializedBundle {
  const copy = structuredClone(source);
  change(firstEntry(copy));
  return copy;
}

function flipLastByte(base64: string): string {
  const bytes = Buffer.from(base64, 'base64');
  bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 0x01;
  return bytes.toString('base64');
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'abp-keyless-verify-'));
  sigstore = await startLocalSigstore({ clock: () => LOG_TIME });
  tsa = await startLocalTimestampAuthority();
  statement = createTaskBundleStatement({
    taskId: TASK_ID,
    bundleDigest: `sha256:${archiveSha256}`,
    heldOutDigest: `sha256:${heldOutSha256}`,
    signedAt: CLAIMED_SIGNED_AT,
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
  bundle = await signKeyless();
  trustRoot = trusted();
});

afterAll(async () => {
  await sigstore.close();
  await tsa.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a bundle made with the local test CA', () => {
  it('is the production shape: a v0.3 bundle with the Fulcio leaf alone and one Rekor dsse entry with SET and inclusion proof', () => {
    expect(bundle.mediaType).toBe('application/vnd.dev.sigstore.bundle.v0.3+json');
    expect(bundle.verificationMaterial.certificate?.rawBytes).toMatch(/^MII/);
    expect(bundle.verificationMaterial.publicKey).toBeUndefined();
    expect(bundle.verificationMaterial.tlogEntries).toHaveLength(1);
    const entry = firstEntry(bundle);
    expect(entry.kindVersion).toEqual({ kind: 'dsse', version: '0.0.1' });
    expect(entry.integratedTime).toBe(String(LOG_TIME.getTime() / 1000));
    expect(entry.inclusionPromise?.signedEntryTimestamp).toBeTruthy();
    expect(entry.inclusionProof?.checkpoint.envelope).toContain(`\n\n\u2014 ${new URL(sigstore.rekor.url).host} `);
  });

  it('verifies for the configured identity and issuer, reporting the log time rather than the signedAt it claims', async () => {
    const verified = await verifyStatementBundle(bundle, trustRoot, expected);
    expect(verified.signer).toEqual({ kind: 'keyless', identity: IDENTITY, issuer: ISSUER });
    expect(verified.keyId).toBeNull();
    expect(verified.signedAt).toBe('2026-07-02T14:20:00Z');
    expect(verified.statement.predicate.signedAt).toBe(CLAIMED_SIGNED_AT);
    expect(verified.statement).toEqual(statement);
  });

  it('verifies through a JSON round trip, in a tree that holds other entries', async () => {
    const later = await signKeyless();
    expect(sigstore.rekor.size()).toBeGreaterThan(1);
    expect(Number(firstEntry(later).inclusionProof?.treeSize)).toBe(Number(firstEntry(later).logIndex) + 1);
    await expect(verifyStatementBundle(JSON.parse(JSON.stringify(later)), trustRoot, expected)).resolves.toMatchObject({
      signer: { kind: 'keyless' },
    });
    // The first bundle's proof is against the smaller tree of its own checkpoint, and still verifies.
    await expect(verifyStatementBundle(bundle, trustRoot, expected)).resolves.toMatchObject({
      signedAt: '2026-07-02T14:20:00Z',
    });
  });

  it('is a real X.509 chain: openssl verifies the leaf against the local root at the log time', async () => {
    const files = {
      leaf: path.join(dir, 'leaf.pem'),
      chain: path.join(dir, 'intermediate.pem'),
      root: path.join(dir, 'root.pem'),
    };
    const der = Buffer.from(bundle.verificationMaterial.certificate?.rawBytes ?? '', 'base64');
    await writeFile(
      files.leaf,
      `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END CERTIFICATE-----\n`,
    );
    await writeFile(files.chain, sigstore.fulcio.ca.chainPem[0]);
    await writeFile(files.root, sigstore.fulcio.ca.chainPem[1]);
    const at = String(LOG_TIME.getTime() / 1000);
    const { stdout } = await run('openssl', [
      'verify',
      '-x509_strict',
      '-attime',
      at,
      '-CAfile',
      files.root,
      '-untrusted',
      files.chain,
      files.leaf,
    ]);
    expect(stdout.trim()).toBe(`${files.leaf}: OK`);
    const text = (await run('openssl', ['x509', '-in', files.leaf, '-noout', '-text'])).stdout;
    expect(text).toContain(`URI:${IDENTITY}`);
    expect(text).toContain('1.3.6.1.4.1.57264.1.8');
  });

  it('verifies the same in a v0.2 bundle, which carries the certificate as a chain', async () => {
    const v02 = structuredClone(bundle) as unknown as {
      mediaType: string;
      verificationMaterial: Record<string, unknown>;
    };
    v02.mediaType = 'application/vnd.dev.sigstore.bundle+json;version=0.2';
    v02.verificationMaterial.x509CertificateChain = { certificates: [bundle.verificationMaterial.certificate] };
    delete v02.verificationMaterial.certificate;
    await expect(verifyStatementBundle(v02, trustRoot, expected)).resolves.toMatchObject({
      signer: { kind: 'keyless', identity: IDENTITY },
    });
  });

  it('verifies an email identity, and an issuer given only in the legacy extension', async () => {
    const email = 'release-bot@acme.example';
    const emailBundle = await signKeyless({ iss: 'https://accounts.google.com', email });
    const emailRoot = rootWith(
      keylessEntry({
        identity: email,
        issuer: 'https://accounts.google.com',
        fulcio: sigstore.fulcio,
        rekor: sigstore.rekor,
      }),
    );
    await expect(verifyStatementBundle(emailBundle, emailRoot, expected)).resolves.toMatchObject({
      signer: { identity: email, issuer: 'https://accounts.google.com' },
    });

    sigstore.fulcio.issuerExtension = 'legacy';
    try {
      const legacy = await signKeyless();
      await expect(verifyStatementBundle(legacy, trustRoot, expected)).resolves.toMatchObject({
        signer: { identity: IDENTITY, issuer: ISSUER },
      });
    } finally {
      sigstore.fulcio.issuerExtension = 'current';
    }
  });

  it('still answers for the subjects and predicate type: digest-mismatch, predicate-type-mismatch', async () => {
    expect(
      await codeOf(
        verifyStatementBundle(bundle, trustRoot, { subjects: [{ name: names.bundle, sha256: heldOutSha256 }] }),
      ),
    ).toBe('digest-mismatch');
    expect(
      await codeOf(verifyStatementBundle(bundle, trustRoot, { ...expected, predicateType: DRAW_RECORD_PREDICATE })),
    ).toBe('predicate-type-mismatch');
  });
});

describe('identity policy', () => {
  it('a certificate for another identity is identity-mismatch', async () => {
    const other = await signKeyless({
      iss: ISSUER,
      sub: 'https://github.com/mallory/fork/.github/workflows/freeze.yml@refs/heads/main',
    });
    expect(await codeOf(verifyStatementBundle(other, trustRoot, expected))).toBe('identity-mismatch');
  });

  it('the identity is compared whole, not as a pattern: a longer name that starts with it is identity-mismatch', async () => {
    const longer = await signKeyless({ iss: ISSUER, sub: `${IDENTITY}-evil` });
    expect(await codeOf(verifyStatementBundle(longer, trustRoot, expected))).toBe('identity-mismatch');
  });

  it('the right identity from another OIDC issuer is identity-mismatch', async () => {
    const otherIssuer = await signKeyless({ iss: 'https://gitlab.com', sub: IDENTITY });
    const error = await verifyStatementBundle(otherIssuer, trustRoot, expected).catch((reason: unknown) => reason);
    expect(error).toMatchObject({ code: 'identity-mismatch' });
    expect((error as Error).message).toContain(`trusted only from issuer ${ISSUER}`);
  });

  it('a certificate without an issuer extension is identity-mismatch', async () => {
    sigstore.fulcio.issuerExtension = 'none';
    try {
      expect(await codeOf(verifyStatementBundle(await signKeyless(), trustRoot, expected))).toBe('identity-mismatch');
    } finally {
      sigstore.fulcio.issuerExtension = 'current';
    }
  });

  it('a trust root without keyless entries is identity-mismatch', async () => {
    expect(await codeOf(verifyStatementBundle(bundle, rootWith(), expected))).toBe('identity-mismatch');
  });
});

describe('certificate chain and time', () => {
  let otherFulcio: LocalFulcio;

  beforeAll(async () => {
    const otherCa = createCertificateAuthority('mallory', {
      notBefore: new Date('2020-01-01T00:00:00Z'),
      notAfter: new Date('2040-01-01T00:00:00Z'),
    });
    otherFulcio = await startLocalFulcio(otherCa, { clock: () => LOG_TIME });
  });

  afterAll(async () => {
    await otherFulcio.close();
  });

  it('a certificate from a CA the trust root does not list is certificate-untrusted, though its identity and log entry are right', async () => {
    const foreign = await signKeyless(undefined, { fulcio: otherFulcio });
    expect(await codeOf(verifyStatementBundle(foreign, trustRoot, expected))).toBe('certificate-untrusted');
  });

  it('an entry that lists no certificate authority is certificate-untrusted', async () => {
    expect(await codeOf(verifyStatementBundle(bundle, trusted({ fulcio: null }), expected))).toBe(
      'certificate-untrusted',
    );
  });

  it("a log time outside the CA's trust-root window is certificate-untrusted, at either end", async () => {
    const ended = trusted({ caWindow: { validFrom: '2020-01-01T00:00:00Z', validUntil: '2026-07-02T14:19:59Z' } });
    expect(await codeOf(verifyStatementBundle(bundle, ended, expected))).toBe('certificate-untrusted');
    const notYet = trusted({ caWindow: { validFrom: '2026-07-02T14:20:01Z', validUntil: null } });
    expect(await codeOf(verifyStatementBundle(bundle, notYet, expected))).toBe('certificate-untrusted');
    // Both ends are inclusive: a window ending at the log time still trusts it.
    const exact = trusted({ caWindow: { validFrom: '2020-01-01T00:00:00Z', validUntil: '2026-07-02T14:20:00Z' } });
    await expect(verifyStatementBundle(bundle, exact, expected)).resolves.toMatchObject({
      signer: { kind: 'keyless' },
    });
  });

  it("a log time after the certificate's ten minutes is key-expired", async () => {
    sigstore.fulcio.clock = () => new Date(LOG_TIME.getTime() - CERTIFICATE_LIFETIME_MS - 1000);
    try {
      expect(await codeOf(verifyStatementBundle(await signKeyless(), trustRoot, expected))).toBe('key-expired');
    } finally {
      sigstore.fulcio.clock = () => LOG_TIME;
    }
  });

  it('an expired certificate from a CA the trust root does not list is certificate-untrusted: the chain is judged first', async () => {
    otherFulcio.clock = () => new Date(LOG_TIME.getTime() - CERTIFICATE_LIFETIME_MS - 1000);
    try {
      expect(
        await codeOf(verifyStatementBundle(await signKeyless(undefined, { fulcio: otherFulcio }), trustRoot, expected)),
      ).toBe('certificate-untrusted');
    } finally {
      otherFulcio.clock = () => LOG_TIME;
    }
  });

  it('a log time before the certificate was valid is key-expired', async () => {
    sigstore.fulcio.clock = () => new Date(LOG_TIME.getTime() + 60_000);
    try {
      expect(await codeOf(verifyStatementBundle(await signKeyless(), trustRoot, expected))).toBe('key-expired');
    } finally {
      sigstore.fulcio.clock = () => LOG_TIME;
    }
  });

  it('a certificate authority that is not a certificate is trust-root-invalid', async () => {
    const broken = structuredClone(trustRoot);
    const authority = broken.keyless[0]?.certificateAuthorities?.[0];
    if (!authority) throw new Error('no authority');
    authority.certificateChainPem = ['-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n'];
    expect(await codeOf(verifyStatementBundle(bundle, broken, expected))).toBe('trust-root-invalid');
  });
});

describe('the log entry', () => {
  let otherRekor: LocalRekor;

  beforeAll(async () => {
    otherRekor = await startLocalRekor({ clock: () => LOG_TIME });
  });

  afterAll(async () => {
    await otherRekor.close();
  });

  it('a bundle without a log entry is witness-untrusted', async () => {
    const unlogged = structuredClone(bundle);
    unlogged.verificationMaterial.tlogEntries = [];
    expect(await codeOf(verifyStatementBundle(unlogged, trustRoot, expected))).toBe('witness-untrusted');
  });

  it('an entry whose signed entry timestamp was altered is witness-untrusted', async () => {
    const forged = withEntry(bundle, (entry) => {
      if (entry.inclusionPromise)
        entry.inclusionPromise.signedEntryTimestamp = flipLastByte(entry.inclusionPromise.signedEntryTimestamp);
    });
    expect(await codeOf(verifyStatementBundle(forged, trustRoot, expected))).toBe('witness-untrusted');
  });

  it('an entry whose integrated time was moved is witness-untrusted', async () => {
    const moved = withEntry(bundle, (entry) => {
      entry.integratedTime = String(Number(entry.integratedTime) - 60);
    });
    expect(await codeOf(verifyStatementBundle(moved, trustRoot, expected))).toBe('witness-untrusted');
  });

  it('an entry without its signed entry timestamp gives no trusted time: witness-untrusted', async () => {
    const unpromised = withEntry(bundle, (entry) => {
      entry.inclusionPromise = undefined;
    });
    expect(await codeOf(verifyStatementBundle(unpromised, trustRoot, expected))).toBe('witness-untrusted');
  });

  it('an entry whose checkpoint names another root is witness-untrusted', async () => {
    const rewritten = withEntry(bundle, (entry) => {
      if (!entry.inclusionProof) throw new Error('no proof');
      const lines = entry.inclusionProof.checkpoint.envelope.split('\n');
      lines[2] = Buffer.alloc(32, 7).toString('base64');
      entry.inclusionProof.checkpoint.envelope = lines.join('\n');
    });
    expect(await codeOf(verifyStatementBundle(rewritten, trustRoot, expected))).toBe('witness-untrusted');
  });

  it('an inclusion proof that does not lead to the signed checkpoint is witness-untrusted', async () => {
    const later = await signKeyless();
    expect(firstEntry(later).inclusionProof?.hashes.length).toBeGreaterThan(0);
    await expect(verifyStatementBundle(later, trustRoot, expected)).resolves.toMatchObject({
      signer: { kind: 'keyless' },
    });
    const forged = withEntry(later, (entry) => {
      if (!entry.inclusionProof) throw new Error('no proof');
      entry.inclusionProof.hashes[0] = Buffer.alloc(32, 9).toString('base64');
    });
    expect(await codeOf(verifyStatementBundle(forged, trustRoot, expected))).toBe('witness-untrusted');
  });

  it("another signature's entry is witness-untrusted", async () => {
    const second = await signKeyless();
    const swapped = structuredClone(bundle);
    swapped.verificationMaterial.tlogEntries = structuredClone(second.verificationMaterial.tlogEntries);
    expect(await codeOf(verifyStatementBundle(swapped, trustRoot, expected))).toBe('witness-untrusted');
  });

  it('an entry from a log the trust root does not list is witness-untrusted', async () => {
    const elsewhere = await signKeyless(undefined, { rekor: otherRekor });
    expect(await codeOf(verifyStatementBundle(elsewhere, trustRoot, expected))).toBe('witness-untrusted');
    // The same bundle verifies once the trust root lists that log.
    await expect(verifyStatementBundle(elsewhere, trusted({ rekor: otherRekor }), expected)).resolves.toMatchObject({
      signer: { kind: 'keyless' },
    });
  });

  it("an entry integrated outside the log key's window, or an entry with no log listed, is witness-untrusted", async () => {
    const retiredLog = trusted({
      logWindow: { validFrom: '2020-01-01T00:00:00Z', validUntil: '2026-07-01T00:00:00Z' },
    });
    expect(await codeOf(verifyStatementBundle(bundle, retiredLog, expected))).toBe('witness-untrusted');
    expect(await codeOf(verifyStatementBundle(bundle, trusted({ rekor: null }), expected))).toBe('witness-untrusted');
  });
});

describe('tampering', () => {
  it('a certificate that is not DER is malformed-bundle', async () => {
    const garbled = structuredClone(bundle);
    garbled.verificationMaterial.certificate = { rawBytes: Buffer.from('not a certificate').toString('base64') };
    expect(await codeOf(verifyStatementBundle(garbled, trustRoot, expected))).toBe('malformed-bundle');
  });

  it('an edited statement is signature-invalid', async () => {
    const edited = structuredClone(bundle);
    const envelope = edited.dsseEnvelope;
    if (!envelope) throw new Error('not a DSSE bundle');
    envelope.payload = Buffer.from(
      Buffer.from(envelope.payload, 'base64').toString('utf8').replace('"failToPass":1', '"failToPass":2'),
    ).toString('base64');
    expect(envelope.payload).not.toBe(bundle.dsseEnvelope?.payload);
    expect(await codeOf(verifyStatementBundle(edited, trustRoot, expected))).toBe('signature-invalid');
  });

  it('an edited signature is signature-invalid', async () => {
    const edited = structuredClone(bundle);
    const signature = edited.dsseEnvelope?.signatures[0];
    if (!signature) throw new Error('no signature');
    signature.sig = flipLastByte(signature.sig);
    expect(await codeOf(verifyStatementBundle(edited, trustRoot, expected))).toBe('signature-invalid');
  });

  it("another signer's certificate put on the bundle is signature-invalid", async () => {
    const other = await signKeyless();
    const swapped = structuredClone(bundle);
    swapped.verificationMaterial.certificate = structuredClone(other.verificationMaterial.certificate);
    expect(await codeOf(verifyStatementBundle(swapped, trustRoot, expected))).toBe('signature-invalid');
  });
});

describe('an RFC 3161 timestamp', () => {
  let stamped: SerializedBundle;

  beforeAll(async () => {
    // openssl stamps the current time, so the certificate and the log run on the real clock here.
    sigstore.setClock(() => new Date());
    try {
      stamped = await signKeyless(undefined, { tsa });
    } finally {
      sigstore.setClock(LOG_TIME);
    }
  });

  it('from an authority the trust root lists counts as a signing time beside the log entry', async () => {
    expect(stamped.verificationMaterial.timestampVerificationData?.rfc3161Timestamps).toHaveLength(1);
    const verified = await verifyStatementBundle(stamped, trusted({ timestampAuthorities: [tsa] }), expected);
    expect(verified.signer).toEqual({ kind: 'keyless', identity: IDENTITY, issuer: ISSUER });
    expect(Math.abs(Date.parse(verified.signedAt) - Number(firstEntry(stamped).integratedTime) * 1000)).toBeLessThan(
      60_000,
    );
  });

  it('from an authority the trust root does not list is witness-untrusted', async () => {
    expect(await codeOf(verifyStatementBundle(stamped, trustRoot, expected))).toBe('witness-untrusted');
    const otherAuthority = createCertificateAuthority('other TSA', {
      notBefore: new Date('2020-01-01T00:00:00Z'),
      notAfter: new Date('2040-01-01T00:00:00Z'),
    });
    const wrongChain = trusted({ timestampAuthorities: [{ chainPem: otherAuthority.chainPem }] });
    expect(await codeOf(verifyStatementBundle(stamped, wrongChain, expected))).toBe('witness-untrusted');
  });
});

describe('keyed bundles beside keyless ones', () => {
  it('name their signer as the key, and a keyless identity in the trust root does not let an unknown key in', async () => {
    const key = await createSigningKey(path.join(dir, 'keys'));
    const keyed = await (await createSigner({ keyDir: path.join(dir, 'keys') })).sign(statement);
    const both = { ...createTrustRoot(key, '2026-01-01T00:00:00Z'), keyless: trustRoot.keyless };
    await expect(verifyStatementBundle(keyed, both, expected)).resolves.toMatchObject({
      signer: { kind: 'keyed', keyId: key.keyId },
      keyId: key.keyId,
      signedAt: CLAIMED_SIGNED_AT,
    });
    expect(await codeOf(verifyStatementBundle(keyed, trustRoot, expected))).toBe('unknown-key');
  });
});

describe('the keyless entry of the trust root', () => {
  it('takes timestamp authorities, and a document without them stays valid', () => {
    const withTsa = rootWith(
      keylessEntry({
        identity: IDENTITY,
        issuer: ISSUER,
        fulcio: sigstore.fulcio,
        rekor: sigstore.rekor,
        timestampAuthorities: [tsa],
      }),
    );
    expect(withTsa.keyless[0]?.timestampAuthorities?.[0]?.certificateChainPem).toEqual(tsa.chainPem);
    expect(rootWith({ issuer: ISSUER, identity: IDENTITY }).keyless).toEqual([{ issuer: ISSUER, identity: IDENTITY }]);
  });

  it('refuses a timestamp authority whose window ends before it starts, naming the field', () => {
    const entry = keylessEntry({ identity: IDENTITY, issuer: ISSUER, timestampAuthorities: [tsa] });
    const authority = entry.timestampAuthorities?.[0];
    if (!authority) throw new Error('no authority');
    authority.validUntil = '2019-01-01T00:00:00Z';
    expect(() => rootWith(entry)).toThrow(/keyless\[0\]\.timestampAuthorities\[0\]\.validUntil/);
  });
});

describe('the keyless signer against the local services', () => {
  it('reports a Rekor that is down as transparency-log-failed, and a TSA that is down as timestamp-authority-failed', async () => {
    const downRekor = await startLocalRekor();
    await downRekor.close();
    expect(await codeOf(signKeyless(undefined, { rekor: downRekor }))).toBe('transparency-log-failed');
    const downTsa = await startLocalTimestampAuthority();
    await downTsa.close();
    expect(await codeOf(signKeyless(undefined, { tsa: downTsa }))).toBe('timestamp-authority-failed');
  });

  it('reports a token without a subject as identity-token-unavailable, and one Fulcio refuses as certificate-authority-failed', async () => {
    expect(await codeOf(signKeyless({ iss: ISSUER }))).toBe('identity-token-unavailable');
    const refused = await signKeyless({ iss: ISSUER, sub: 'not a URI' }).catch((reason: unknown) => reason);
    expect(refused).toMatchObject({ code: 'certificate-authority-failed' });
    expect((refused as Error).message).toContain('neither a verified email nor a URI');
    expect((refused as Error).message).not.toContain(identityToken({ iss: ISSUER, sub: 'not a URI' }));
  });

  it.each([
    ['a timestamp authority URL that is not http(s)', { kind: 'keyless', timestampAuthorityUrl: 'file:///tsa' }],
    ['a zero timeout', { kind: 'keyless', timeoutMs: 0 }],
    ['an empty CI audience', { kind: 'keyless', identityToken: { from: 'ci', audience: '' } }],
  ])('refuses %s in the configuration', (_label, value) => {
    expect(() => parseSignerConfig(value)).toThrow(expect.objectContaining({ code: 'signer-config-invalid' }) as Error);
  });

  it('fills the CI token source with the sigstore audience', () => {
    expect(parseSignerConfig({ kind: 'keyless', identityToken: { from: 'ci' } })).toMatchObject({
      identityToken: { from: 'ci', audience: 'sigstore' },
    });
  });
});
