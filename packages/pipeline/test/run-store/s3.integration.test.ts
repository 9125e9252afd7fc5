// The S3 run store against a real server speaking the S3 wire protocol: moto's server, which scripts/setup.sh installs
// into .tools/moto, on a free port of 127.0.0.1. Skipped, saying why, only when that server is not installed.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import {
  CreateBucketCommand,
  HeadObjectCommand,
  ListObjectVersionsCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AbpError } from '@abp/protocol/errors';
import { freePort, tailOf } from '../../src/dev-stack/processes.js';
import { packageRoot } from '../../src/package-root.js';
import { openRunStore } from '../../src/run-store/open.js';
import type { RunStore } from '../../src/run-store/store.js';
import { openS3RunStore } from '../../src/run-store/s3.js';
import { StackError } from '../../src/worker/errors.js';

const MOTO_SERVER = join(packageRoot, '..', '..', '.tools', 'moto', 'bin', 'moto_server');
const installed = existsSync(MOTO_SERVER);

const ACCESS_KEY = 'abp-test-access-key';
const SECRET_KEY = 'abp-test-secret-never-shown';
const BUCKET = 'abp-runs';

const digestOf = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
const hexOf = (digest: string) => digest.slice('sha256:'.length);

/** The error `action` fails with, which the test then asserts by code. */
async function failure(action: () => Promise<unknown>): Promise<AbpError> {
  try {
    await action();
  } catch (error) {
    if (error instanceof AbpError) return error;
    throw error;
  }
  throw new Error('expected the action to fail');
}

/** Waits until the server answers HTTP at all (any status), or fails with its log. */
async function waitForServer(url: string, server: ChildProcess, log: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`moto_server exited with ${server.exitCode}:\n${tailOf(log)}`);
    const answered = await fetch(url).then(
      () => true,
      () => false,
    );
    if (answered) return;
    await new Promise((resolveWait) => setTimeout(resolveWait, 200));
  }
  throw new Error(`moto_server did not answer at ${url} within 60 s:\n${tailOf(log)}`);
}

describe.skipIf(!installed)(
  installed
    ? 'the S3 run store against a moto server'
    : `the S3 run store (skipped: no moto server at ${MOTO_SERVER}; run bash scripts/setup.sh to install it)`,
  () => {
    let scratch: string;
    let server: ChildProcess;
    let endpoint: string;
    let raw: S3Client;
    let env: Record<string, string>;
    let store: RunStore;

    beforeAll(async () => {
      scratch = await mkdtemp(join(tmpdir(), 'abp-s3-store-'));
      const log = join(scratch, 'moto.log');
      const port = await freePort();
      const output = createWriteStream(log);
      await once(output, 'open');
      server = spawn(MOTO_SERVER, ['-H', '127.0.0.1', '-p', String(port)], {
        stdio: ['ignore', output, output],
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: scratch },
      });
      endpoint = `http://127.0.0.1:${port}`;
      await waitForServer(`${endpoint}/moto-api/`, server, log);
      env = {
        AWS_ENDPOINT_URL: endpoint,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: ACCESS_KEY,
        AWS_SECRET_ACCESS_KEY: SECRET_KEY,
      };
      raw = new S3Client({
        region: 'us-east-1',
        endpoint,
        forcePathStyle: true,
        credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY },
      });
      await raw.send(new CreateBucketCommand({ Bucket: BUCKET }));
      // Versioned, so every PUT the store makes is counted: a second put of the same bytes must add no version.
      await raw.send(
        new PutBucketVersioningCommand({ Bucket: BUCKET, VersioningConfiguration: { Status: 'Enabled' } }),
      );
      store = await openS3RunStore(`s3://${BUCKET}/runs`, env);
    });

    afterAll(async () => {
      raw?.destroy();
      if (server !== undefined && server.exitCode === null && server.signalCode === null) {
        const exited = once(server, 'exit');
        server.kill('SIGTERM');
        const timer = setTimeout(() => server.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
    });

    const versionsOf = async (key: string) => {
      const listed = await raw.send(new ListObjectVersionsCommand({ Bucket: BUCKET, Prefix: key }));
      return (listed.Versions ?? []).filter((version) => version.Key === key).length;
    };

    it('keeps bytes under <prefix>/sha256/<hex> and gives them back, checked, by their digest', async () => {
      const bytes = Buffer.from('the record of one trial\n');
      const digest = await store.put(bytes);
      expect(digest).toBe(digestOf(bytes));
      expect(store.location).toBe(`s3://${BUCKET}/runs`);
      const head = await raw.send(new HeadObjectCommand({ Bucket: BUCKET, Key: `runs/sha256/${hexOf(digest)}` }));
      expect(head.ContentLength).toBe(bytes.length);
      expect((await store.get(digest)).equals(bytes)).toBe(true);
    });

    it('has() is false before the bytes are stored and true after', async () => {
      const bytes = randomBytes(64);
      expect(await store.has(digestOf(bytes))).toBe(false);
      await store.put(bytes);
      expect(await store.has(digestOf(bytes))).toBe(true);
    });

    it('stores a file of several MiB and writes it back whole', async () => {
      const source = join(scratch, 'environment.tar');
      const bytes = randomBytes(12 * 1024 * 1024 + 7);
      await writeFile(source, bytes);
      const digest = await store.putFile(source);
      expect(digest).toBe(digestOf(bytes));
      const target = join(scratch, 'worker', 'copies', 'environment.tar');
      await store.getFile(digest, target);
      expect((await readFile(target)).equals(bytes)).toBe(true);
      expect(await readdir(join(scratch, 'worker', 'copies'))).toEqual(['environment.tar']);
    });

    it('uploads nothing when the same bytes are stored again', async () => {
      const bytes = randomBytes(1024);
      const digest = await store.put(bytes);
      const key = `runs/sha256/${hexOf(digest)}`;
      expect(await versionsOf(key)).toBe(1);
      expect(await store.put(bytes)).toBe(digest);
      const file = join(scratch, 'again.bin');
      await writeFile(file, bytes);
      expect(await store.putFile(file)).toBe(digest);
      expect(await versionsOf(key)).toBe(1);
    });

    it('refuses an object written over behind its back, and getFile leaves no file', async () => {
      const bytes = Buffer.from('what the worker produced\n');
      const digest = await store.put(bytes);
      const key = `runs/sha256/${hexOf(digest)}`;
      await raw.send(
        new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: Buffer.from('what someone else wrote\n') }),
      );

      const read = await failure(() => store.get(digest));
      expect(read.code).toBe('corrupt-store');
      expect(read.message).toContain(`s3://${BUCKET}/${key}`);
      expect(read.message).toContain('the object is removed');
      // Dropped as found, so that whoever stores those bytes next stores them afresh.
      expect(await store.has(digest)).toBe(false);

      await raw.send(
        new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: Buffer.from('what someone else wrote\n') }),
      );
      const folder = join(scratch, 'tampered');
      const written = await failure(() => store.getFile(digest, join(folder, 'record.json')));
      expect(written.code).toBe('corrupt-store');
      expect(await readdir(folder)).toEqual([]);
      expect(await store.has(digest)).toBe(false);

      await store.put(bytes);
      expect((await store.get(digest)).equals(bytes)).toBe(true);
    });

    it('says which digest is missing, and refuses what is not a digest', async () => {
      const digest = digestOf(Buffer.from('never stored'));
      const read = await failure(() => store.get(digest));
      expect(read.code).toBe('not-found');
      expect(read.message).toContain(digest);
      expect(read.message).toContain(`s3://${BUCKET}/runs`);

      const folder = join(scratch, 'missing');
      expect((await failure(() => store.getFile(digest, join(folder, 'x')))).code).toBe('not-found');
      expect(existsSync(join(folder, 'x'))).toBe(false);

      expect((await failure(() => store.get('sha256:not-hex'))).code).toBe('invalid-digest');
      expect((await failure(() => store.has('md5:abc'))).code).toBe('invalid-digest');
    });

    it('is what openRunStore opens for ABP_RUN_STORE=s3://bucket/prefix', async () => {
      const opened = await openRunStore(join(scratch, 'home'), {
        ...env,
        ABP_RUN_STORE: `s3://${BUCKET}/other/prefix/`,
      });
      expect(opened.location).toBe(`s3://${BUCKET}/other/prefix`);
      const bytes = Buffer.from('config: {}\n');
      const digest = await opened.put(bytes);
      expect((await opened.get(digest)).equals(bytes)).toBe(true);
      const head = await raw.send(
        new HeadObjectCommand({ Bucket: BUCKET, Key: `other/prefix/sha256/${hexOf(digest)}` }),
      );
      expect(head.ContentLength).toBe(bytes.length);
      // The store under another prefix is another store.
      expect(await store.has(digest)).toBe(false);
      expect(existsSync(join(scratch, 'home'))).toBe(false);
    });

    it('refuses bad settings with invalid-setting, naming the variable and never the secret', async () => {
      const refused = async (url: string, overrides: Record<string, string | undefined>) => {
        const error = await failure(() => openS3RunStore(url, { ...env, ...overrides }));
        expect(error).toBeInstanceOf(StackError);
        expect(error.message).not.toContain(SECRET_KEY);
        return error;
      };
      for (const url of ['s3://', 's3:///prefix', 's3://Not_A_Bucket!/x']) {
        const error = await refused(url, {});
        expect(error.code).toBe('invalid-setting');
        expect(error.message).toContain('ABP_RUN_STORE');
      }
      const noSecret = await refused(`s3://${BUCKET}`, { AWS_SECRET_ACCESS_KEY: undefined });
      expect(noSecret.code).toBe('invalid-setting');
      expect(noSecret.message).toContain('AWS_SECRET_ACCESS_KEY');
      const noKeys = await refused(`s3://${BUCKET}`, { AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: undefined });
      expect(noKeys.message).toContain('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY');

      const notUrl = await refused(`s3://${BUCKET}`, { AWS_ENDPOINT_URL: 'localhost 9000' });
      expect(notUrl.code).toBe('invalid-setting');
      expect(notUrl.message).toContain('AWS_ENDPOINT_URL');
      const withPassword = await refused(`s3://${BUCKET}`, {
        AWS_ENDPOINT_URL_S3: `http://user:${SECRET_KEY}@127.0.0.1:9`,
      });
      expect(withPassword.code).toBe('invalid-setting');
      expect(withPassword.message).toContain('AWS_ENDPOINT_URL_S3');

      const noBucket = await refused('s3://no-such-bucket/runs', {});
      expect(noBucket.code).toBe('invalid-setting');
      expect(noBucket.message).toContain('no-such-bucket');

      // Through openRunStore too, as `abp run` and the workers reach it.
      const viaRunStore = await failure(() =>
        openRunStore(join(scratch, 'home'), { ABP_RUN_STORE: `s3://${BUCKET}`, AWS_ENDPOINT_URL: endpoint }),
      );
      expect(viaRunStore.code).toBe('invalid-setting');
      expect(viaRunStore.message).toContain('AWS_ACCESS_KEY_ID');
    });

    it('says unreachable when nothing answers at the endpoint', async () => {
      const port = await freePort();
      const error = await failure(() =>
        openS3RunStore(`s3://${BUCKET}`, { ...env, AWS_ENDPOINT_URL: `http://127.0.0.1:${port}` }),
      );
      expect(error.code).toBe('unreachable');
      expect(error.message).toContain(`127.0.0.1:${port}`);
      expect(error.message).not.toContain(SECRET_KEY);
    });
  },
);
