// A local Sigstore for tests, on 127.0.0.1 port 0: a Fulcio that certifies ephemeral keys under a locally made CA
// chain, a Rekor (v1 API, "dsse" entries) with a signed entry timestamp and a signed checkpoint over an RFC 9162 tree,
// and an RFC 3161 timestamp authority backed by `openssl ts`. The production keyless signer (signing/signer.ts) talks
// to them over HTTP exactly as it would to the public instance, so the bundles are the ones production makes.
// Stand-ins, not services: Fulcio reads the OIDC token's claims without checking the token's signature, and each
// service takes its clock from the test, so certificate and log times can be placed anywhere.
import { execFile } from 'node:child_process';
import { createHash, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { TrustRoot } from '@abp/protocol/schemas/abp-trust-root';
import { canonicalJson } from '@abp/protocol/schemas/canonical-json';
import { inclusionProof, leafHash, rootOf } from '@abp/protocol/transparency/merkle';
import {
  createCertificateAuthority,
  issueCertificate,
  newKeyPair,
  type CertificateAuthority,
  type IssuerExtension,
} from './keyless-x509.js';

const run = promisify(execFile);

type KeylessEntry = TrustRoot['keyless'][number];
type Window = { validFrom: string; validUntil: string | null };

/** Fulcio's certificates live ten minutes: the window a log time must fall in. */
export const CERTIFICATE_LIFETIME_MS = 10 * 60 * 1000;
const OPEN_WINDOW: Window = { validFrom: '2020-01-01T00:00:00Z', validUntil: null };

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

interface Service {
  url: string;
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function readJson(body: Buffer): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new HttpError(400, 'the request body is not a JSON object');
}

/** One POST route on its own server; the handler answers with a status and a JSON value or raw bytes. */
async function serve(
  route: string,
  handle: (body: Buffer) => Promise<{ status: number; json?: unknown; bytes?: Buffer }>,
): Promise<Service> {
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const reply = (status: number, body: Buffer, type: string) => {
      response.writeHead(status, { 'content-type': type, 'content-length': body.length });
      response.end(body);
    };
    readBody(request)
      .then(async (body) => {
        if (request.method !== 'POST' || request.url !== route)
          throw new HttpError(
            404,
            `no route ${request.method ?? ''} ${request.url ?? ''}; this stand-in serves POST ${route}`,
          );
        const answer = await handle(body);
        if (answer.bytes) reply(answer.status, answer.bytes, 'application/timestamp-reply');
        else reply(answer.status, Buffer.from(JSON.stringify(answer.json)), 'application/json');
      })
      .catch((error: unknown) => {
        const status = error instanceof HttpError ? error.status : 500;
        reply(
          status,
          Buffer.from(JSON.stringify({ code: status, message: (error as Error).message })),
          'application/json',
        );
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the stand-in has no TCP address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

function publicKeyPem(key: KeyObject): string {
  return key.export({ type: 'spki', format: 'pem' }).toString();
}

// ---- Fulcio ----

export interface LocalFulcio extends Service {
  ca: CertificateAuthority;
  /** When the next certificate's validity starts. */
  clock: () => Date;
  /** Which issuer extension the next certificate carries. */
  issuerExtension: IssuerExtension;
}

function tokenClaims(token: string): Record<string, unknown> {
  const part = token.split('.')[1];
  if (part === undefined) throw new HttpError(401, 'the identity token is not a JWT');
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    throw new HttpError(401, "the identity token's claims are not JSON");
  }
}

/** A Fulcio (API v2 `signingCert`) issuing ten-minute certificates under `ca` for keys that prove possession. */
export async function startLocalFulcio(
  ca: CertificateAuthority,
  options: { clock?: () => Date } = {},
): Promise<LocalFulcio> {
  const fulcio = { ca, clock: options.clock ?? (() => new Date()), issuerExtension: 'current' as IssuerExtension };
  const service = await serve('/api/v2/signingCert', (body) => {
    const request = readJson(body) as {
      credentials?: { oidcIdentityToken?: string };
      publicKeyRequest?: { publicKey?: { content?: string }; proofOfPossession?: string };
    };
    const claims = tokenClaims(request.credentials?.oidcIdentityToken ?? '');
    const issuer = claims.iss;
    if (typeof issuer !== 'string') throw new HttpError(401, 'the identity token has no issuer (iss)');
    // The subject as FulcioSigner signs it for the proof of possession: a verified email, else sub.
    const email = typeof claims.email === 'string' && claims.email_verified === true ? claims.email : undefined;
    const subject = email ?? claims.sub;
    if (typeof subject !== 'string') throw new HttpError(401, 'the identity token has no subject');
    let publicKey: KeyObject;
    try {
      publicKey = createPublicKey(request.publicKeyRequest?.publicKey?.content ?? '');
    } catch {
      throw new HttpError(400, 'publicKeyRequest.publicKey.content is not a PEM public key');
    }
    if (
      !verify(
        'sha256',
        Buffer.from(subject),
        publicKey,
        Buffer.from(request.publicKeyRequest?.proofOfPossession ?? '', 'base64'),
      )
    ) {
      throw new HttpError(400, 'the proof of possession is not a signature of the subject by the key');
    }
    if (email === undefined && !URL.canParse(subject))
      throw new HttpError(400, `the subject ${subject} is neither a verified email nor a URI`);
    const notBefore = fulcio.clock();
    const leaf = issueCertificate({
      subject: {},
      publicKey,
      issuer: ca.intermediate,
      notBefore,
      notAfter: new Date(notBefore.getTime() + CERTIFICATE_LIFETIME_MS),
      usage: 'codeSigning',
      san: email === undefined ? { uri: subject } : { email },
      oidcIssuer: { issuer, extension: fulcio.issuerExtension },
    });
    return Promise.resolve({
      status: 201,
      json: { signedCertificateEmbeddedSct: { chain: { certificates: [leaf.pem, ...ca.chainPem] } } },
    });
  });
  return Object.assign(fulcio, service);
}

// ---- Rekor ----

export interface LocalRekor extends Service {
  /** The log's public key, as a trust root lists it. */
  publicKeyPem: string;
  /** When the next entry is integrated. */
  clock: () => Date;
  /** How many entries the log holds. */
  size(): number;
}

interface ProposedDsse {
  kind?: string;
  apiVersion?: string;
  spec?: { proposedContent?: { envelope?: string; verifiers?: string[] } };
}

function preAuthEncoding(payloadType: string, payload: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`DSSEv1 ${Buffer.byteLength(payloadType)} ${payloadType} ${payload.length} `),
    payload,
  ]);
}

/** The canonical "dsse" 0.0.1 body Rekor stores for a proposed entry, after checking its signature as Rekor does. */
function dsseBody(proposed: ProposedDsse): string {
  if (proposed.kind !== 'dsse' || proposed.apiVersion !== '0.0.1') {
    throw new HttpError(
      400,
      `this stand-in logs "dsse" 0.0.1 entries, got ${String(proposed.kind)} ${String(proposed.apiVersion)}`,
    );
  }
  const content = proposed.spec?.proposedContent;
  const verifier = content?.verifiers?.[0];
  if (content?.envelope === undefined || verifier === undefined)
    throw new HttpError(400, 'spec.proposedContent needs an envelope and a verifier');
  const envelope = JSON.parse(content.envelope) as {
    payloadType: string;
    payload: string;
    signatures: Array<{ sig: string }>;
  };
  const payload = Buffer.from(envelope.payload, 'base64');
  const key = createPublicKey(Buffer.from(verifier, 'base64').toString('utf8'));
  const signatures = envelope.signatures.map((signature) => {
    if (!verify('sha256', preAuthEncoding(envelope.payloadType, payload), key, Buffer.from(signature.sig, 'base64'))) {
      throw new HttpError(400, "the envelope's signature does not verify with the verifier's key");
    }
    return { signature: signature.sig, verifier };
  });
  const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
  return canonicalJson({
    apiVersion: '0.0.1',
    kind: 'dsse',
    spec: {
      envelopeHash: { algorithm: 'sha256', value: sha256(canonicalJson(envelope)) },
      payloadHash: { algorithm: 'sha256', value: sha256(payload) },
      signatures,
    },
  });
}

/** A Rekor (API v1 `log/entries`): each entry gets an integrated time, a signed entry timestamp and an inclusion proof. */
export async function startLocalRekor(options: { clock?: () => Date } = {}): Promise<LocalRekor> {
  const keys = newKeyPair();
  const logId = createHash('sha256')
    .update(keys.publicKey.export({ type: 'spki', format: 'der' }))
    .digest();
  const leaves: Buffer[] = [];
  const rekor = {
    publicKeyPem: publicKeyPem(keys.publicKey),
    clock: options.clock ?? (() => new Date()),
    size: () => leaves.length,
  };
  let name = '';
  const service = await serve('/api/v1/log/entries', (body) => {
    const canonicalBody = Buffer.from(dsseBody(readJson(body) as ProposedDsse), 'utf8');
    const logIndex = leaves.length;
    leaves.push(leafHash(canonicalBody));
    const integratedTime = Math.floor(rekor.clock().getTime() / 1000);
    const bodyBase64 = canonicalBody.toString('base64');
    // The SET: the log's signature over the entry's canonical JSON summary, what @sigstore/verify recomputes.
    const signedEntryTimestamp = sign(
      'sha256',
      Buffer.from(canonicalJson({ body: bodyBase64, integratedTime, logID: logId.toString('hex'), logIndex })),
      keys.privateKey,
    );
    const treeSize = leaves.length;
    const rootHash = rootOf(leaves);
    // A checkpoint in the signed-note format: origin, size, root; then "— <name> base64(key hint ‖ signature)".
    const note = `${name} - local\n${treeSize}\n${rootHash.toString('base64')}\n`;
    const noteSignature = Buffer.concat([logId.subarray(0, 4), sign('sha256', Buffer.from(note), keys.privateKey)]);
    const checkpoint = `${note}\n\u2014 ${name} ${noteSignature.toString('base64')}\n`;
    const uuid = leafHash(canonicalBody).toString('hex');
    return Promise.resolve({
      status: 201,
      json: {
        [uuid]: {
          body: bodyBase64,
          integratedTime,
          logID: logId.toString('hex'),
          logIndex,
          verification: {
            signedEntryTimestamp: signedEntryTimestamp.toString('base64'),
            inclusionProof: {
              checkpoint,
              hashes: inclusionProof(leaves, logIndex).map((hash) => hash.toString('hex')),
              logIndex,
              rootHash: rootHash.toString('hex'),
              treeSize,
            },
          },
        },
      },
    });
  });
  // The log signs its checkpoints under its host name, which a verifier matches against the trust root's baseUrl.
  name = new URL(service.url).host;
  return Object.assign(rekor, service);
}

// ---- Timestamp authority ----

export interface LocalTimestampAuthority extends Service {
  /** The timestamping certificate first, its root last: a trust root's timestampAuthorities entry. */
  chainPem: [string, string];
}

/**
 * An RFC 3161 TSA (the `POST /api/v1/timestamp` JSON API @sigstore/sign speaks) answering with `openssl ts -reply`.
 * openssl stamps the current time, so this one clock the tests cannot move.
 */
export async function startLocalTimestampAuthority(): Promise<LocalTimestampAuthority> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'abp-local-tsa-'));
  const validity = { notBefore: new Date('2020-01-01T00:00:00Z'), notAfter: new Date('2040-01-01T00:00:00Z') };
  const rootKeys = newKeyPair();
  const root = {
    certificate: issueCertificate({
      subject: { organization: 'abp local TSA', commonName: 'abp local TSA root' },
      publicKey: rootKeys.publicKey,
      selfSigningKey: rootKeys.privateKey,
      ca: {},
      ...validity,
    }),
    privateKey: rootKeys.privateKey,
  };
  const signerKeys = newKeyPair();
  const signer = issueCertificate({
    subject: { organization: 'abp local TSA', commonName: 'abp local TSA signer' },
    publicKey: signerKeys.publicKey,
    issuer: root,
    usage: 'timeStamping',
    ...validity,
  });
  const files = {
    cert: path.join(dir, 'tsa.pem'),
    key: path.join(dir, 'tsa-key.pem'),
    chain: path.join(dir, 'chain.pem'),
    serial: path.join(dir, 'serial'),
    config: path.join(dir, 'tsa.cnf'),
  };
  await writeFile(files.cert, signer.pem);
  await writeFile(files.key, signerKeys.privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  await writeFile(files.chain, `${signer.pem}${root.certificate.pem}`);
  await writeFile(files.serial, '01\n');
  await writeFile(
    files.config,
    [
      '[ tsa ]',
      'default_tsa = local_tsa',
      '[ local_tsa ]',
      `serial = ${files.serial}`,
      `signer_cert = ${files.cert}`,
      `certs = ${files.chain}`,
      `signer_key = ${files.key}`,
      'signer_digest = sha256',
      'default_policy = 1.3.6.1.4.1.57264.99.1',
      'digests = sha256',
      'accuracy = secs:1',
      'ordering = yes',
      'tsa_name = no',
      'ess_cert_id_chain = no',
      'ess_cert_id_alg = sha256',
      '',
    ].join('\n'),
  );
  let sequence = 0;
  const service = await serve('/api/v1/timestamp', async (body) => {
    const request = readJson(body) as { artifactHash?: string; hashAlgorithm?: string };
    if (request.hashAlgorithm !== 'sha256' || request.artifactHash === undefined)
      throw new HttpError(400, 'send { artifactHash: base64 sha256, hashAlgorithm: "sha256" }');
    sequence += 1;
    const query = path.join(dir, `${sequence}.tsq`);
    const reply = path.join(dir, `${sequence}.tsr`);
    const digest = Buffer.from(request.artifactHash, 'base64').toString('hex');
    await run('openssl', ['ts', '-query', '-sha256', '-digest', digest, '-cert', '-out', query]);
    await run('openssl', ['ts', '-reply', '-config', files.config, '-queryfile', query, '-out', reply]);
    return { status: 201, bytes: await readFile(reply) };
  });
  return {
    url: service.url,
    chainPem: [signer.pem, root.certificate.pem],
    close: async () => {
      await service.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

// ---- The whole local instance ----

export interface LocalSigstore {
  fulcio: LocalFulcio;
  rekor: LocalRekor;
  /** Sets both clocks: the next certificate starts, and the next log entry is integrated, at `at`. */
  setClock(at: Date | (() => Date)): void;
  close(): Promise<void>;
}

export async function startLocalSigstore(options: { label?: string; clock?: () => Date } = {}): Promise<LocalSigstore> {
  const ca = createCertificateAuthority(options.label ?? 'abp local Fulcio', {
    notBefore: new Date('2020-01-01T00:00:00Z'),
    notAfter: new Date('2040-01-01T00:00:00Z'),
  });
  const fulcio = await startLocalFulcio(ca, options.clock ? { clock: options.clock } : {});
  const rekor = await startLocalRekor(options.clock ? { clock: options.clock } : {});
  return {
    fulcio,
    rekor,
    setClock(at) {
      const clock = typeof at === 'function' ? at : () => at;
      fulcio.clock = clock;
      rekor.clock = clock;
    },
    close: async () => {
      await fulcio.close();
      await rekor.close();
    },
  };
}

/**
 * The trust root's keyless entry accepting `identity` from `issuer`, certified by `fulcio`'s CA and logged in `rekor`
 * (each trusted over an open window unless one is given), with timestamp authorities when given.
 */
export function keylessEntry(options: {
  identity: string;
  issuer: string;
  fulcio?: Pick<LocalFulcio, 'ca'> | null;
  rekor?: Pick<LocalRekor, 'url' | 'publicKeyPem'> | null;
  caWindow?: Window;
  logWindow?: Window;
  timestampAuthorities?: Array<Pick<LocalTimestampAuthority, 'chainPem'>>;
}): KeylessEntry {
  const entry: KeylessEntry = { issuer: options.issuer, identity: options.identity };
  if (options.fulcio)
    entry.certificateAuthorities = [
      { certificateChainPem: [...options.fulcio.ca.chainPem], ...(options.caWindow ?? OPEN_WINDOW) },
    ];
  if (options.rekor)
    entry.transparencyLogs = [
      { baseUrl: options.rekor.url, publicKeyPem: options.rekor.publicKeyPem, ...(options.logWindow ?? OPEN_WINDOW) },
    ];
  if (options.timestampAuthorities)
    entry.timestampAuthorities = options.timestampAuthorities.map((authority) => ({
      certificateChainPem: [...authority.chainPem],
      ...OPEN_WINDOW,
    }));
  return entry;
}

/** An OIDC identity token as the CI would hand it over; unsigned, since the stand-in Fulcio reads only its claims. */
export function identityToken(claims: { iss: string; sub?: string; email?: string }): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const body = claims.email === undefined ? claims : { ...claims, email_verified: true };
  return `${part({ alg: 'none', typ: 'JWT' })}.${part(body)}.`;
}
