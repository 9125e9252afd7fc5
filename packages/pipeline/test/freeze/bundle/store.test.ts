import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BundleStore } from '../../../src/freeze/bundle/store.js';
import { sha256Hex } from '@abp/protocol/bundle/digest';
import { codeOf } from './support.js';

let root = '';
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-bundle-store-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

const archive = Buffer.from('a bundle stands in here\n');
const digest = `sha256:${sha256Hex(archive)}`;

describe('BundleStore', () => {
  it('stores an archive under the sha256 of its bytes and reads it back', async () => {
    const store = new BundleStore(join(root, 'data'));
    expect(await store.has(digest)).toBe(false);
    expect(await store.put(archive)).toBe(digest);
    expect(store.path(digest)).toBe(join(root, 'data', 'sha256', `${sha256Hex(archive)}.tar`));
    expect(await readFile(store.path(digest))).toEqual(archive);
    expect(await store.has(digest)).toBe(true);
    expect(await store.get(digest)).toEqual(archive);
    expect(await readdir(join(root, 'data', 'sha256'))).toEqual([`${sha256Hex(archive)}.tar`]);
  });

  it('is idempotent: storing the same bytes again, even concurrently, leaves one file and no temp files', async () => {
    const store = new BundleStore(join(root, 'idempotent'));
    await store.put(archive);
    const before = await stat(store.path(digest));
    expect(await store.put(archive)).toBe(digest);
    expect((await stat(store.path(digest))).mtimeMs).toBe(before.mtimeMs);
    const others = Array.from({ length: 8 }, (_, index) => Buffer.from(`bundle ${index}\n`));
    const digests = await Promise.all([...others, ...others].map((bytes) => store.put(bytes)));
    expect(new Set(digests).size).toBe(others.length);
    expect((await readdir(join(root, 'idempotent', 'sha256'))).sort()).toEqual(
      [archive, ...others].map((bytes) => `${sha256Hex(bytes)}.tar`).sort(),
    );
  });

  it('refuses a stored file whose bytes do not match its name', async () => {
    const store = new BundleStore(join(root, 'corrupt'));
    await store.put(archive);
    await chmod(store.path(digest), 0o644);
    await writeFile(store.path(digest), 'rotted bits\n');
    expect(await codeOf(store.put(archive))).toBe('corrupt-store');
    expect(await codeOf(store.get(digest))).toBe('corrupt-store');
  });

  it('refuses unknown and malformed digests', async () => {
    const store = new BundleStore(join(root, 'empty'));
    expect(await codeOf(store.get(`sha256:${'0'.repeat(64)}`))).toBe('not-found');
    expect(await codeOf(store.get(sha256Hex(archive)))).toBe('invalid-digest');
    expect(await codeOf(store.get('sha256:../../etc/passwd'))).toBe('invalid-digest');
  });

  it('keeps a signature beside its archive, replaced atomically, and none for an archive it lacks', async () => {
    const store = new BundleStore(join(root, 'signed'));
    expect(await codeOf(store.putSignature(digest, '{}'))).toBe('not-found');
    await store.put(archive);
    expect(await store.getSignature(digest)).toBeNull();
    await store.putSignature(digest, '{"first":true}');
    await store.putSignature(digest, '{"second":true}');
    expect(await store.getSignature(digest)).toBe('{"second":true}');
    expect(store.signaturePath(digest)).toBe(join(root, 'signed', 'sha256', `${sha256Hex(archive)}.sigstore.json`));
    expect((await readdir(join(root, 'signed', 'sha256'))).sort()).toEqual([
      `${sha256Hex(archive)}.sigstore.json`,
      `${sha256Hex(archive)}.tar`,
    ]);
  });
});
