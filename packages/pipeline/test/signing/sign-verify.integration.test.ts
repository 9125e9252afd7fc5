// Keyed signing and verification end to end over two real tar archives: a valid bundle verifies (and openssl agrees
// with its DSSE signature), and each kind of tampering is refused with its own code.
import { execFile } from 'node:child_process';
import { createHash, sign as signBytes } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrustRoot } from '@abp/protocol/schemas/abp-trust-root';
import { canonicalJson } from '@abp/protocol/schemas/canonical-json';
import { SigningError } from '@abp/protocol/signing/errors';
import { createSigningKey, type SigningKey } from '../../src/signing/keys.js';
import { createSigner, type SerializedBundle, type Signer } from '../../src/signing/signer.js';
import {
  createTaskBundleStatement,
  DRAW_RECORD_PREDICATE,
  STATEMENT_PAYLOAD_TYPE,
  statementPayload,
  TASK_BUNDLE_PREDICATE,
  taskBundleSubjectNames,
  type Statement,
  type TaskBundlePredicate,
} from '@abp/protocol/signing/statement';
import { addKey, createTrustRoot } from '@abp/protocol/signing/trust-root';
import { verifyStatementBundle, type ExpectedStatement } from '@abp/grader/trust';
import { codeOf } from './signing-error.js';

const run = promisify(execFile);

const TASK_ID = 'gh-acme-widgets-42';
const SIGNED_AT = '2026-07-02T14:11:09Z';
const names = taskBundleSubjectNames(TASK_ID);

let dir: string;
let keyDir: string;
let key: SigningKey;
let signer: Signer;
let trustRoot: TrustRoot;
let archive: string;
let heldOut: string;
let predicate: TaskBundlePredicate;
let statement: Statement;
let bundle: SerializedBundle;

async function sha256File(file: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(file))
    .digest('hex');
}

async function expectedFor(bundleFile: string, heldOutFile: string): Promise<ExpectedStatement> {
  return {
    subjects: [
      { name: names.bundle, sha256: await sha256File(bundleFile) },
      { name: names.heldOut, sha256: await sha256File(heldOutFile) },
    ],
    predicateType: TASK_BUNDLE_PREDICATE,
  };
}

/** A deep copy of the bundle with the decoded DSSE payload or signature changed. */
function withEnvelope(
  source: SerializedBundle,
  change: { payload?: (bytes: Buffer) => Buffer; sig?: (bytes: Buffer) => Buffer },
): unknown {
  const copy = structuredClone(source);
  const envelope = copy.dsseEnvelope;
  const signature = envelope?.signatures[0];
  if (!envelope || !signature) throw new Error('not a DSSE bundle');
  if (change.payload) envelope.payload = change.payload(Buffer.from(envelope.payload, 'base64')).toString('base64');
  if (change.sig) signature.sig = change.sig(Buffer.from(signature.sig, 'base64')).toString('base64');
  return copy;
}

function preAuthEncoding(payloadType: string, payload: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`DSSEv1 ${Buffer.byteLength(payloadType)} ${payloadType} ${payload.length} `),
    payload,
  ]);
}

function withKeyWindow(window: { validFrom?: string; validUntil?: string | null; retiredAt?: string }): TrustRoot {
  return { ...trustRoot, keys: trustRoot.keys.map((entry) => ({ ...entry, ...window })) };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'abp-signing-verify-'));
  keyDir = path.join(dir, 'keys');
  key = await createSigningKey(keyDir);
  trustRoot = createTrustRoot(key, '2026-01-01T00:00:00Z');
  signer = await createSigner({ keyDir });

  const tree = path.join(dir, 'tree');
  await mkdir(path.join(tree, 'src'), { recursive: true });
  await mkdir(path.join(tree, 'tests'), { recursive: true });
  await writeFile(path.join(tree, 'src', 'widget.py'), 'def widget():\n    return 42\n');
  await writeFile(
    path.join(tree, 'tests', 'test_widget.py'),
    'from src.widget import widget\n\ndef test_widget():\n    assert widget() == 42\n',
  );
  archive = path.join(dir, 'bundle.tar');
  heldOut = path.join(dir, 'held-out.tar');
  await run('tar', [
    '--sort=name',
    '--mtime=@0',
    '--owner=0',
    '--group=0',
    '--numeric-owner',
    '-cf',
    archive,
    '-C',
    tree,
    'src',
  ]);
  await run('tar', [
    '--sort=name',
    '--mtime=@0',
    '--owner=0',
    '--group=0',
    '--numeric-owner',
    '-cf',
    heldOut,
    '-C',
    tree,
    'tests',
  ]);

  predicate = {
    taskId: TASK_ID,
    bundleDigest: `sha256:${await sha256File(archive)}`,
    heldOutDigest: `sha256:${await sha256File(heldOut)}`,
    signedAt: SIGNED_AT,
    freeze: {
      repo: 'acme/widgets',
      baseCommit: '9f2c41d7e3b85a06c1d4f9e27b3a58c0d6e1f492',
      mergedPr: 'https://github.com/acme/widgets/pull/43',
      failToPass: 1,
      passToPass: 0,
      flaky: 0,
      builder: 'abp/0.1.0',
    },
  };
  statement = createTaskBundleStatement(predicate);
  bundle = await signer.sign(statement);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a keyed signature', () => {
  it('is a Sigstore v0.3 bundle: a DSSE in-toto envelope naming the key by its id, with no witnesses', () => {
    expect(signer).toMatchObject({ kind: 'keyed', keyId: key.keyId });
    expect(bundle.mediaType).toBe('application/vnd.dev.sigstore.bundle.v0.3+json');
    expect(bundle.verificationMaterial.publicKey).toEqual({ hint: key.keyId });
    // Protobuf JSON leaves out empty lists: no tlogEntries, no rfc3161Timestamps.
    expect(Object.keys(bundle.verificationMaterial).sort()).toEqual(['publicKey', 'timestampVerificationData']);
    expect(bundle.verificationMaterial.timestampVerificationData).toEqual({});
    expect(bundle.dsseEnvelope?.payloadType).toBe(STATEMENT_PAYLOAD_TYPE);
    expect(bundle.dsseEnvelope?.signatures).toHaveLength(1);
    expect(Buffer.from(bundle.dsseEnvelope?.payload ?? '', 'base64')).toEqual(statementPayload(statement));
  });

  it('signs the DSSE pre-authentication encoding, as openssl confirms with the public key alone', async () => {
    const payload = Buffer.from(bundle.dsseEnvelope?.payload ?? '', 'base64');
    const files = { pae: path.join(dir, 'pae.bin'), sig: path.join(dir, 'sig.der'), pub: path.join(dir, 'pub.pem') };
    await writeFile(files.pae, preAuthEncoding(STATEMENT_PAYLOAD_TYPE, payload));
    await writeFile(files.sig, Buffer.from(bundle.dsseEnvelope?.signatures[0]?.sig ?? '', 'base64'));
    await writeFile(files.pub, trustRoot.keys[0]?.publicKeyPem ?? '');
    const { stdout } = await run('openssl', [
      'dgst',
      '-sha256',
      '-verify',
      files.pub,
      '-signature',
      files.sig,
      files.pae,
    ]);
    expect(stdout.trim()).toBe('Verified OK');
  });

  it('verifies against the trust root and the two archives, returning the statement', async () => {
    const verified = await verifyStatementBundle(bundle, trustRoot, await expectedFor(archive, heldOut));
    expect(verified.keyId).toBe(key.keyId);
    expect(verified.signedAt).toBe(SIGNED_AT);
    expect(verified.statement.subject.map((subject) => subject.name)).toEqual([names.bundle, names.heldOut]);
    expect(verified.statement.predicate).toEqual(predicate);
  });

  it('verifies through a JSON round trip, and by digest alone when names are not given', async () => {
    const reread: unknown = JSON.parse(JSON.stringify(bundle));
    const expected = { subjects: [{ sha256: await sha256File(heldOut) }] };
    await expect(verifyStatementBundle(reread, trustRoot, expected)).resolves.toMatchObject({ keyId: key.keyId });
  });
});

describe('determinism', () => {
  it('gives the same payload bytes for the same inputs: the canonical JSON of the statement', () => {
    const again = statementPayload(createTaskBundleStatement(structuredClone(predicate)));
    expect(again).toEqual(statementPayload(statement));
    expect(again.toString('utf8')).toBe(canonicalJson(statement));
  });

  it('keeps payload and subjects when signing again, while the ECDSA signature changes (its nonce is random)', async () => {
    const second = await signer.sign(createTaskBundleStatement(predicate));
    expect(second.dsseEnvelope?.payload).toBe(bundle.dsseEnvelope?.payload);
    expect(second.dsseEnvelope?.signatures[0]?.sig).not.toBe(bundle.dsseEnvelope?.signatures[0]?.sig);
    await expect(verifyStatementBundle(second, trustRoot, await expectedFor(archive, heldOut))).resolves.toMatchObject({
      signedAt: SIGNED_AT,
    });
  });
});

describe('tampering', () => {
  it('a flipped byte in the archive is digest-mismatch', async () => {
    const tampered = path.join(dir, 'tampered.tar');
    await copyFile(archive, tampered);
    const bytes = await readFile(tampered);
    bytes[600] = (bytes[600] ?? 0) ^ 0x01;
    await writeFile(tampered, bytes);
    expect(await codeOf(verifyStatementBundle(bundle, trustRoot, await expectedFor(tampered, heldOut)))).toBe(
      'digest-mismatch',
    );
  });

  it('a held-out part that is not the signed one is digest-mismatch, by name or by digest alone', async () => {
    expect(await codeOf(verifyStatementBundle(bundle, trustRoot, await expectedFor(archive, archive)))).toBe(
      'digest-mismatch',
    );
    expect(await codeOf(verifyStatementBundle(bundle, trustRoot, { subjects: [{ sha256: 'a'.repeat(64) }] }))).toBe(
      'digest-mismatch',
    );
    expect(
      await codeOf(
        verifyStatementBundle(bundle, trustRoot, {
          subjects: [{ name: 'task/other/bundle', sha256: await sha256File(archive) }],
        }),
      ),
    ).toBe('digest-mismatch');
  });

  it('an edited statement is signature-invalid', async () => {
    const edited = withEnvelope(bundle, {
      payload: (bytes) => Buffer.from(bytes.toString('utf8').replace('"failToPass":1', '"failToPass":2')),
    });
    expect(JSON.stringify(edited)).not.toBe(JSON.stringify(bundle));
    expect(await codeOf(verifyStatementBundle(edited, trustRoot, await expectedFor(archive, heldOut)))).toBe(
      'signature-invalid',
    );
  });

  it('a statement re-pointed at another archive is signature-invalid, not digest-mismatch', async () => {
    const other = 'b'.repeat(64);
    const edited = withEnvelope(bundle, {
      payload: (bytes) => Buffer.from(bytes.toString('utf8').replace(predicate.bundleDigest.slice(7), other)),
    });
    const expected = { subjects: [{ name: names.bundle, sha256: other }] };
    expect(await codeOf(verifyStatementBundle(edited, trustRoot, expected))).toBe('signature-invalid');
  });

  it('an edited signature is signature-invalid', async () => {
    const edited = withEnvelope(bundle, {
      sig: (bytes) => {
        const copy = Buffer.from(bytes);
        copy[copy.length - 1] = (copy[copy.length - 1] ?? 0) ^ 0x01;
        return copy;
      },
    });
    expect(await codeOf(verifyStatementBundle(edited, trustRoot, await expectedFor(archive, heldOut)))).toBe(
      'signature-invalid',
    );
  });

  it('a trust root without the key is unknown-key', async () => {
    const stranger = await createSigningKey(path.join(dir, 'stranger'));
    const otherRoot = createTrustRoot(stranger, '2026-01-01T00:00:00Z');
    expect(await codeOf(verifyStatementBundle(bundle, otherRoot, await expectedFor(archive, heldOut)))).toBe(
      'unknown-key',
    );
  });

  it('a bundle naming another key id is unknown-key', async () => {
    const renamed = structuredClone(bundle);
    renamed.verificationMaterial.publicKey = { hint: 'c'.repeat(64) };
    expect(await codeOf(verifyStatementBundle(renamed, trustRoot, await expectedFor(archive, heldOut)))).toBe(
      'unknown-key',
    );
  });

  it('a log entry the trust root has no log for is witness-untrusted', async () => {
    const witnessed = structuredClone(bundle);
    witnessed.verificationMaterial.tlogEntries = [
      {
        logIndex: '7',
        logId: { keyId: Buffer.alloc(32, 1).toString('base64') },
        kindVersion: { kind: 'dsse', version: '0.0.1' },
        integratedTime: '0',
        inclusionPromise: undefined,
        inclusionProof: {
          logIndex: '7',
          rootHash: Buffer.alloc(32, 2).toString('base64'),
          treeSize: '8',
          hashes: [],
          checkpoint: { envelope: 'log\n8\nroot\n' },
        },
        canonicalizedBody: Buffer.from('{}').toString('base64'),
      },
    ];
    expect(await codeOf(verifyStatementBundle(witnessed, trustRoot, await expectedFor(archive, heldOut)))).toBe(
      'witness-untrusted',
    );
  });
});

describe('key validity', () => {
  it('a key whose validUntil is before signedAt is key-expired', async () => {
    const expired = withKeyWindow({ validUntil: '2026-06-30T23:59:59Z' });
    expect(await codeOf(verifyStatementBundle(bundle, expired, await expectedFor(archive, heldOut)))).toBe(
      'key-expired',
    );
  });

  it('a key whose window starts after signedAt is key-expired', async () => {
    const notYet = withKeyWindow({ validFrom: '2026-08-01T00:00:00Z' });
    expect(await codeOf(verifyStatementBundle(bundle, notYet, await expectedFor(archive, heldOut)))).toBe(
      'key-expired',
    );
  });

  it('a key retired after it signed still verifies what it signed; one retired before it signed is key-retired', async () => {
    const successor = await createSigningKey(path.join(dir, 'successor'));
    const rotated = addKey(withKeyWindow({ retiredAt: '2026-09-01T00:00:00Z' }), successor, '2026-09-01T00:00:00Z');
    await expect(verifyStatementBundle(bundle, rotated, await expectedFor(archive, heldOut))).resolves.toMatchObject({
      keyId: key.keyId,
    });
    const retiredEarlier = withKeyWindow({ retiredAt: '2026-07-01T00:00:00Z' });
    expect(await codeOf(verifyStatementBundle(bundle, retiredEarlier, await expectedFor(archive, heldOut)))).toBe(
      'key-retired',
    );
  });
});

describe('malformed input and wrong expectations', () => {
  it.each([
    ['an empty object', () => ({})],
    ['a string', () => 'not a bundle'],
    ['a bundle without its signature', () => withEnvelope(bundle, { sig: () => Buffer.alloc(0) })],
    [
      'a bare message signature',
      () => ({
        mediaType: bundle.mediaType,
        verificationMaterial: bundle.verificationMaterial,
        messageSignature: {
          messageDigest: { algorithm: 'SHA2_256', digest: Buffer.alloc(32, 3).toString('base64') },
          signature: bundle.dsseEnvelope?.signatures[0]?.sig,
        },
      }),
    ],
  ])('%s is malformed-bundle', async (_label, value) => {
    expect(await codeOf(verifyStatementBundle(value(), trustRoot, await expectedFor(archive, heldOut)))).toBe(
      'malformed-bundle',
    );
  });

  it('a validly signed payload that is not an in-toto statement is malformed-statement', async () => {
    const payload = Buffer.from(JSON.stringify({ hello: 'world' }));
    const forged = withEnvelope(bundle, {
      payload: () => payload,
      sig: () => signBytes('sha256', preAuthEncoding(STATEMENT_PAYLOAD_TYPE, payload), key.privateKey),
    });
    expect(await codeOf(verifyStatementBundle(forged, trustRoot, await expectedFor(archive, heldOut)))).toBe(
      'malformed-statement',
    );
  });

  it('a statement of another predicate type is predicate-type-mismatch', async () => {
    const expected = { ...(await expectedFor(archive, heldOut)), predicateType: DRAW_RECORD_PREDICATE };
    expect(await codeOf(verifyStatementBundle(bundle, trustRoot, expected))).toBe('predicate-type-mismatch');
  });

  it('an expectation without subjects, or with a prefixed digest, is invalid-expectation', async () => {
    expect(await codeOf(verifyStatementBundle(bundle, trustRoot, { subjects: [] }))).toBe('invalid-expectation');
    expect(
      await codeOf(verifyStatementBundle(bundle, trustRoot, { subjects: [{ sha256: predicate.bundleDigest }] })),
    ).toBe('invalid-expectation');
  });

  it('a statement without signedAt or with a bad predicate is refused before signing', async () => {
    expect(() => createTaskBundleStatement({ ...predicate, bundleDigest: 'abc' })).toThrow(SigningError);
    const unsigned = { ...statement, predicate: { taskId: TASK_ID } } as unknown as Statement;
    expect(await codeOf(signer.sign(unsigned))).toBe('invalid-statement');
  });
});
