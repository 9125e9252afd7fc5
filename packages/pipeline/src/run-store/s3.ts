// The run store in an S3-compatible bucket (ABP_RUN_STORE=s3://bucket[/prefix]): each file is the object
// `<prefix>/sha256/<hex>`, written once (a HEAD finds it already there) and checked against its name whenever it is read
// back, so an object overwritten behind the store's back is refused, never handed to a worker. Three layers: the
// settings read from the environment (pure, checked before any request), the SDK's errors turned into ours, and the
// RunStore on top.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { sha256Hex } from '@abp/protocol/bundle/digest';
import { BundleError } from '@abp/protocol/bundle/errors';
import { StackError } from '../worker/errors.js';
import { fileDigest, type RunStore } from './store.js';

type Env = Readonly<Record<string, string | undefined>>;

/** Where the store is and how to reach it, as the environment says; the secret key is kept out of every message. */
export interface S3Settings {
  bucket: string;
  /** Key prefix without leading or trailing slashes; '' for the bucket's root. */
  prefix: string;
  region: string;
  /** A non-AWS server (MinIO, Ceph, moto...), addressed path-style; undefined for AWS itself. */
  endpoint: string | undefined;
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

const DIGEST = /^sha256:([0-9a-f]{64})$/;
// AWS's rules for a bucket name (3 to 63 of lowercase letters, digits, dots and hyphens), with the underscore other
// S3-compatible servers still accept.
const BUCKET = /^[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]$/;
const EXAMPLE =
  'e.g. ABP_RUN_STORE=s3://abp-runs/team-a AWS_ACCESS_KEY_ID=... AWS_SECRET_ACCESS_KEY=... (AWS_ENDPOINT_URL=https://minio.example:9000 for a bucket not on AWS)';

const setting = (message: string) => new StackError('invalid-setting', `${message}; ${EXAMPLE}`);

/** Reads the store's settings from `url` and the AWS_* variables of `env`; throws invalid-setting naming the fix. */
export function readS3Settings(url: string, env: Env): S3Settings {
  const match = /^s3:\/\/([^/]*)(.*)$/.exec(url.trim());
  if (match === null) throw setting(`ABP_RUN_STORE=${url} is not an s3:// address`);
  const bucket = match[1] ?? '';
  if (bucket === '') throw setting(`ABP_RUN_STORE=${url} names no bucket: write s3://<bucket>[/<prefix>]`);
  if (!BUCKET.test(bucket))
    throw setting(
      `ABP_RUN_STORE=${url}: ${JSON.stringify(bucket)} is not a bucket name (3 to 63 lowercase letters, digits, dots and hyphens)`,
    );
  const segments = (match[2] ?? '').split('/').filter((segment) => segment !== '');
  if (segments.some((segment) => segment === '.' || segment === '..' || /[\s?#\\]/.test(segment)))
    throw setting(`ABP_RUN_STORE=${url}: the prefix after the bucket must be plain folder names separated by /`);

  const accessKeyId = env.AWS_ACCESS_KEY_ID?.trim() ?? '';
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY?.trim() ?? '';
  const missing = [
    ...(accessKeyId === '' ? ['AWS_ACCESS_KEY_ID'] : []),
    ...(secretAccessKey === '' ? ['AWS_SECRET_ACCESS_KEY'] : []),
  ];
  // Read from the environment only, never from ~/.aws or an instance role: every worker then reaches the bucket the
  // same way, and a worker without keys fails here rather than at its first trial.
  if (missing.length > 0)
    throw setting(
      `ABP_RUN_STORE=${url} needs ${missing.join(' and ')} set: the keys of an account that may read and write objects in ${bucket} (s3:GetObject, s3:PutObject, s3:ListBucket)`,
    );
  const sessionToken = env.AWS_SESSION_TOKEN?.trim() ?? '';

  const region = env.AWS_REGION?.trim() || 'us-east-1';
  if (!/^[a-z0-9-]+$/.test(region))
    throw setting(`AWS_REGION=${region} is not a region name (like us-east-1, or whatever your S3 server expects)`);

  // The S3-specific variable wins over the general one, as in the AWS tools.
  const endpointName = env.AWS_ENDPOINT_URL_S3?.trim() ? 'AWS_ENDPOINT_URL_S3' : 'AWS_ENDPOINT_URL';
  const endpointText = env[endpointName]?.trim() || undefined;
  let endpoint: string | undefined;
  if (endpointText !== undefined) {
    let parsed: URL;
    try {
      parsed = new URL(endpointText);
    } catch {
      throw setting(`${endpointName} is not a URL: write the server's address, like https://minio.example:9000`);
    }
    // Keys go in their own variables; a URL carrying them would end up in messages and logs.
    if (parsed.username !== '' || parsed.password !== '')
      throw setting(
        `${endpointName} carries a user name or password: remove it from the URL and set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY instead`,
      );
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw setting(`${endpointName}=${endpointText} is not an http:// or https:// address`);
    if (parsed.search !== '' || parsed.hash !== '')
      throw setting(`${endpointName}=${parsed.origin}... has a query or fragment: give the server's address only`);
    endpoint = parsed.href.replace(/\/+$/, '');
  }

  return {
    bucket,
    prefix: segments.join('/'),
    region,
    endpoint,
    credentials: { accessKeyId, secretAccessKey, ...(sessionToken === '' ? {} : { sessionToken }) },
  };
}

/** The error the SDK threw for a request, turned into ours: settings the operator must fix, or a server not answering. */
function requestFailed(error: unknown, what: string, where: string): Error {
  if (error instanceof StackError || error instanceof BundleError) return error;
  // A local file's error (a full disk, a folder not writable) says itself what went wrong, and where.
  if (error instanceof Error && typeof (error as NodeJS.ErrnoException).path === 'string') return error;
  const name = error instanceof S3ServiceException ? error.name : '';
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  switch (name) {
    case 'NoSuchBucket':
      return new StackError(
        'invalid-setting',
        `${what} failed: there is no bucket ${where}; create it or fix ABP_RUN_STORE`,
        {
          cause: error,
        },
      );
    case 'AccessDenied':
    case 'Forbidden':
    case 'InvalidAccessKeyId':
    case 'SignatureDoesNotMatch':
    case 'ExpiredToken':
    case 'InvalidToken':
    case 'AuthorizationHeaderMalformed':
    case 'PermanentRedirect':
      return new StackError(
        'invalid-setting',
        `${what} failed (${detail}): check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), AWS_REGION and AWS_ENDPOINT_URL; the keys need s3:GetObject, s3:PutObject and s3:ListBucket on ${where}`,
        { cause: error },
      );
    default:
      return new StackError(
        'unreachable',
        `${what} failed (${detail}); check that the S3 server for ${where} is up and reachable, then try again`,
        { cause: error },
      );
  }
}

/** HEAD answers 404 with no body, so the SDK names it NotFound; GET names it NoSuchKey. */
function isMissing(error: unknown): boolean {
  return (
    error instanceof S3ServiceException &&
    (error.name === 'NotFound' || error.name === 'NoSuchKey' || error.$metadata.httpStatusCode === 404) &&
    error.name !== 'NoSuchBucket'
  );
}

/** Passes bytes through while hashing them and counting them. */
class Digesting extends Transform {
  private readonly hash = createHash('sha256');
  bytes = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null, data?: Buffer) => void) {
    this.hash.update(chunk);
    this.bytes += chunk.length;
    done(null, chunk);
  }

  digest(): string {
    return `sha256:${this.hash.digest('hex')}`;
  }
}

class S3RunStore implements RunStore {
  readonly location: string;
  private readonly where: string;

  constructor(
    private readonly client: S3Client,
    private readonly settings: S3Settings,
  ) {
    this.location = `s3://${settings.bucket}${settings.prefix === '' ? '' : `/${settings.prefix}`}`;
    this.where = settings.endpoint === undefined ? this.location : `${this.location} at ${settings.endpoint}`;
  }

  /** Checks that the bucket is there and the keys may use it, so a bad setting fails when the store is opened. */
  async check(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.settings.bucket }));
    } catch (error) {
      // HEAD has no body: a missing bucket is only a 404.
      if (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404)
        throw new StackError(
          'invalid-setting',
          `there is no bucket ${this.settings.bucket} for the run store ${this.where}; create it, or fix ABP_RUN_STORE (and AWS_ENDPOINT_URL)`,
          { cause: error },
        );
      throw requestFailed(error, `opening the run store ${this.where}`, this.where);
    }
  }

  private key(digest: string): string {
    const hex = DIGEST.exec(digest)?.[1];
    if (hex === undefined)
      throw new BundleError(
        'invalid-digest',
        `${JSON.stringify(digest)} is not a run file digest; expected "sha256:" followed by 64 lowercase hex digits`,
      );
    return this.settings.prefix === '' ? `sha256/${hex}` : `${this.settings.prefix}/sha256/${hex}`;
  }

  private object(digest: string): string {
    return `s3://${this.settings.bucket}/${this.key(digest)}`;
  }

  /** The object is dropped (best effort) so that the next put of those bytes stores them afresh. */
  private async damaged(digest: string): Promise<BundleError> {
    await this.client
      .send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: this.key(digest) }))
      .catch(() => undefined);
    return new BundleError(
      'corrupt-store',
      `${this.object(digest)}${this.settings.endpoint === undefined ? '' : ` at ${this.settings.endpoint}`} held bytes whose digest is not ${digest}: the run store was written over, and the object is removed; start the run again`,
    );
  }

  private missing(digest: string, error: unknown): BundleError {
    return new BundleError(
      'not-found',
      `no run file ${digest} in the run store ${this.where} (no object ${this.object(digest)}); start the run again, and check that every machine names the same ABP_RUN_STORE`,
      { cause: error },
    );
  }

  /** The object's size, or null when there is none. */
  private async size(digest: string): Promise<number | null> {
    const key = this.key(digest);
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.settings.bucket, Key: key }));
      return head.ContentLength ?? 0;
    } catch (error) {
      if (isMissing(error)) return null;
      throw requestFailed(error, `HEAD ${this.object(digest)}`, this.where);
    }
  }

  async has(digest: string): Promise<boolean> {
    return (await this.size(digest)) !== null;
  }

  async put(bytes: Buffer): Promise<string> {
    const digest = `sha256:${sha256Hex(bytes)}`;
    // An object of another length is a damaged one: writing the right bytes over it repairs the store.
    if ((await this.size(digest)) === bytes.length) return digest;
    await this.upload(digest, bytes, bytes.length);
    return digest;
  }

  async putFile(path: string): Promise<string> {
    const digest = await fileDigest(path);
    const { size } = await stat(path);
    if ((await this.size(digest)) === size) return digest;
    // Streamed, and hashed again on the way: a file changed since it was digested must not be kept under the old name.
    // The server checks the same with the checksum the upload carries, where it supports checksums.
    const digesting = new Digesting();
    const source = createReadStream(path);
    // pipe() does not pass a read error on: without this, the upload would wait for bytes that never come.
    source.on('error', (error) => digesting.destroy(error));
    await this.upload(digest, source.pipe(digesting), size);
    if (digesting.bytes !== size || digesting.digest() !== digest) {
      await this.client
        .send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: this.key(digest) }))
        .catch(() => undefined);
      throw new StackError('invalid-setting', `${path} changed while it was stored in the run store ${this.where}`);
    }
    return digest;
  }

  private async upload(digest: string, body: Buffer | Readable, length: number): Promise<void> {
    const hex = DIGEST.exec(digest)?.[1] ?? '';
    try {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.settings.bucket,
          Key: this.key(digest),
          Body: body,
          ContentLength: length,
          ContentType: 'application/octet-stream',
          // The whole object's sha256, which the server checks the bytes it received against.
          ChecksumSHA256: Buffer.from(hex, 'hex').toString('base64'),
        }),
      );
    } catch (error) {
      if (
        error instanceof S3ServiceException &&
        (error.name === 'BadDigest' || error.name === 'XAmzContentSHA256Mismatch')
      )
        throw new StackError(
          'invalid-setting',
          `the bytes of ${digest} changed while they were stored in the run store ${this.where}; store them again`,
          { cause: error },
        );
      throw requestFailed(error, `PUT ${this.object(digest)}`, this.where);
    }
  }

  /** The object's bytes as a stream; not-found when there is none. */
  private async open(digest: string): Promise<Readable> {
    try {
      const got = await this.client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: this.key(digest) }));
      if (!(got.Body instanceof Readable))
        throw new StackError('unreachable', `GET ${this.object(digest)} from ${this.where} returned no body`);
      return got.Body;
    } catch (error) {
      if (isMissing(error)) throw this.missing(digest, error);
      throw requestFailed(error, `GET ${this.object(digest)}`, this.where);
    }
  }

  async get(digest: string): Promise<Buffer> {
    const body = await this.open(digest);
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of body) chunks.push(chunk as Buffer);
    } catch (error) {
      throw requestFailed(error, `reading ${this.object(digest)}`, this.where);
    }
    const bytes = Buffer.concat(chunks);
    if (`sha256:${sha256Hex(bytes)}` !== digest) throw await this.damaged(digest);
    return bytes;
  }

  async getFile(digest: string, path: string): Promise<void> {
    const body = await this.open(digest);
    await mkdir(dirname(path), { recursive: true });
    // Beside the target, so the rename is atomic; unique, so two downloads to one path do not share it.
    const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    const digesting = new Digesting();
    try {
      try {
        await pipeline(body, digesting, createWriteStream(temporary, { flush: true }));
      } catch (error) {
        throw requestFailed(error, `downloading ${this.object(digest)} to ${temporary}`, this.where);
      }
      if (digesting.digest() !== digest) throw await this.damaged(digest);
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }
}

/** Opens the store ABP_RUN_STORE=`url` names, checking the settings and that the bucket answers. */
export async function openS3RunStore(url: string, env: Env): Promise<RunStore> {
  const settings = readS3Settings(url, env);
  const client = new S3Client({
    region: settings.region,
    credentials: settings.credentials,
    ...(settings.endpoint === undefined ? {} : { endpoint: settings.endpoint, forcePathStyle: true }),
    // Bounded waits: a server that never answers fails the attempt (Temporal retries it) instead of hanging a worker.
    requestHandler: { connectionTimeout: 10_000, requestTimeout: 120_000 },
  });
  const store = new S3RunStore(client, settings);
  await store.check();
  return store;
}
