import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codeOf } from './environment-error.js';
import { unpackLayer } from '../../src/environments/layer-tar.js';
import { EnvironmentStore, MAX_IMAGE_LAYER_BYTES, type ImageConfig } from '../../src/environments/store.js';

let work: string;
let store: EnvironmentStore;
beforeEach(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'abp-env-store-'));
  store = new EnvironmentStore(path.join(work, 'store'));
});
afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

function config(diffIds: string[]): ImageConfig {
  return {
    architecture: 'amd64',
    os: 'linux',
    config: { Env: ['PATH=/usr/bin:/bin'], WorkingDir: '/work/repo', Labels: {} },
    rootfs: { type: 'layers', diff_ids: diffIds },
  };
}

async function folder(name: string, files: Record<string, string>): Promise<string> {
  const dir = path.join(work, name);
  for (const [relative, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, relative)), { recursive: true });
    await writeFile(path.join(dir, relative), content);
  }
  return dir;
}

async function twoLayerImage(): Promise<string> {
  const base = await store.putLayer(await folder('base', { 'etc/os-release': 'debian', 'usr/bin/tool': 'v1' }));
  const top = await store.putLayer(await folder('top', { 'opt/abp/env/lib.py': 'x = 1', 'usr/bin/tool': 'v2' }));
  const image = await store.putImage([base, top], config([base.digest, top.digest]));
  return image.digest;
}

describe('EnvironmentStore', () => {
  it('names an image by the digest of its manifest, the same for the same layers and config', async () => {
    const first = await twoLayerImage();
    const again = await twoLayerImage();
    expect(again).toBe(first);
    const image = await store.readImage(first);
    expect(image.manifest.layers).toHaveLength(2);
    expect(image.config.rootfs.diff_ids).toEqual(image.manifest.layers.map((layer) => layer.digest));
  });

  it('unpacks the layers in order into a cached root file system', async () => {
    const digest = await twoLayerImage();
    const rootfs = await store.rootfs(digest);
    expect(await readFile(path.join(rootfs, 'usr/bin/tool'), 'utf8')).toBe('v2');
    expect(await readFile(path.join(rootfs, 'opt/abp/env/lib.py'), 'utf8')).toBe('x = 1');
    expect(await store.rootfs(digest)).toBe(rootfs);
  });

  it('refuses a tampered layer with layer-tampered and leaves no root file system behind', async () => {
    const digest = await twoLayerImage();
    const image = await store.readImage(digest);
    const layer = store.blobPath(image.manifest.layers[1]?.digest ?? '');
    const bytes = await readFile(layer);
    const at = bytes.indexOf('x = 1');
    bytes.write('x = 2', at, 'latin1');
    await writeFile(layer, bytes);
    expect(await codeOf(store.rootfs(digest))).toBe('layer-tampered');
    expect(await codeOf(store.verify(digest))).toBe('layer-tampered');
    const left = await readdir(path.join(store.root, 'rootfs')).catch(() => []);
    expect(left).toEqual([]);
    expect(await readdir(path.join(store.root, 'tmp'))).toEqual([]);
  });

  it('tells a missing layer (layer-missing) from a missing image (environment-missing)', async () => {
    const digest = await twoLayerImage();
    const image = await store.readImage(digest);
    await rm(store.blobPath(image.manifest.layers[0]?.digest ?? ''));
    expect(await codeOf(store.verify(digest))).toBe('layer-missing');
    expect(await codeOf(store.readImage(`sha256:${'0'.repeat(64)}`))).toBe('environment-missing');
    expect(await codeOf(store.readImage('python:3.12'))).toBe('invalid-image');
  });

  it('refuses a manifest whose config names other layers', async () => {
    const base = await store.putLayer(await folder('base', { a: 'a' }));
    const image = await store.putImage([base], config([`sha256:${'1'.repeat(64)}`]));
    expect(await codeOf(store.readImage(image.digest))).toBe('invalid-image');
  });

  it('exports an OCI archive: an image layout whose index names the manifest under the reference', async () => {
    const digest = await twoLayerImage();
    const archive = path.join(work, 'image.tar');
    await store.exportArchive(digest, archive, 'abp-env/demo');
    const unpacked = path.join(work, 'unpacked');
    await mkdir(unpacked);
    await unpackLayer(archive, unpacked, 'archive');
    const index = JSON.parse(await readFile(path.join(unpacked, 'index.json'), 'utf8')) as {
      manifests: Array<{ digest: string; annotations: Record<string, string> }>;
    };
    expect(index.manifests[0]?.digest).toBe(digest);
    expect(index.manifests[0]?.annotations['org.opencontainers.image.ref.name']).toBe('abp-env/demo');
    expect(JSON.parse(await readFile(path.join(unpacked, 'oci-layout'), 'utf8'))).toEqual({
      imageLayoutVersion: '1.0.0',
    });
    const blobs = await readdir(path.join(unpacked, 'blobs/sha256'));
    expect(blobs).toHaveLength(4);
    const again = path.join(work, 'again.tar');
    await store.exportArchive(digest, again, 'abp-env/demo');
    expect(await readFile(again)).toEqual(await readFile(archive));
  });
});

describe('root file systems by chain of layers', () => {
  it('starts an image one layer above another from a hard-linked copy, never writing through the shared files', async () => {
    const base = await store.putLayer(await folder('base', { 'usr/lib/shared.so': 'lib', 'usr/bin/tool': 'v1' }));
    const lower = await store.putImage([base], config([base.digest]));
    const lowerRoot = await store.rootfs(lower.digest);
    const top = await store.putLayer(await folder('top', { 'usr/bin/tool': 'v2' }));
    const upper = await store.putImage([base, top], config([base.digest, top.digest]));
    const upperRoot = await store.rootfs(upper.digest);
    const { stat } = await import('node:fs/promises');
    expect((await stat(path.join(upperRoot, 'usr/lib/shared.so'))).ino).toBe(
      (await stat(path.join(lowerRoot, 'usr/lib/shared.so'))).ino,
    );
    expect(await readFile(path.join(upperRoot, 'usr/bin/tool'), 'utf8')).toBe('v2');
    expect(await readFile(path.join(lowerRoot, 'usr/bin/tool'), 'utf8')).toBe('v1');
  });
});

describe('importing an OCI archive as a base', () => {
  let archives = 0;
  /** An OCI layout as registries serve it: one gzip layer, the config naming its uncompressed digest. */
  async function layoutArchive(diffIdOverride?: string, layerOverride?: Buffer): Promise<string> {
    const { gzipSync } = await import('node:zlib');
    const { createHash } = await import('node:crypto');
    const { writeLayer } = await import('../../src/environments/layer-tar.js');
    const sha = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
    const made = (archives += 1);
    const tar = path.join(work, `base-layer-${made}.tar`);
    const plain = await writeLayer(
      await folder(`base-root-${made}`, { 'etc/os-release': 'ID=debian\n', 'usr/bin/python3': '#!' }),
      tar,
    );
    const gzipped = layerOverride ?? gzipSync(await readFile(tar));
    const config = Buffer.from(
      JSON.stringify({
        architecture: 'amd64',
        os: 'linux',
        config: { Env: ['PATH=/usr/local/bin:/usr/bin:/bin'] },
        rootfs: { type: 'layers', diff_ids: [diffIdOverride ?? plain.digest] },
      }),
    );
    const manifest = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: sha(config), size: config.length },
        layers: [
          { mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', digest: sha(gzipped), size: gzipped.length },
        ],
      }),
    );
    const layout = path.join(work, `layout-${Math.random()}`);
    await mkdir(path.join(layout, 'blobs', 'sha256'), { recursive: true });
    for (const blob of [config, manifest, gzipped])
      await writeFile(path.join(layout, 'blobs', 'sha256', sha(blob).slice(7)), blob);
    await writeFile(path.join(layout, 'oci-layout'), '{"imageLayoutVersion":"1.0.0"}');
    await writeFile(
      path.join(layout, 'index.json'),
      JSON.stringify({
        schemaVersion: 2,
        manifests: [
          { mediaType: 'application/vnd.oci.image.manifest.v1+json', digest: sha(manifest), size: manifest.length },
        ],
      }),
    );
    const archive = `${layout}.tar`;
    await writeLayer(layout, archive);
    return archive;
  }

  it('stores gzip layers uncompressed under their diff ids and names the base by its new manifest', async () => {
    const image = await store.importArchive(await layoutArchive());
    expect(image.manifest.layers).toHaveLength(1);
    expect(image.manifest.layers[0]?.digest).toBe(image.config.rootfs.diff_ids[0]);
    const rootfs = await store.rootfs(image.digest);
    expect(await readFile(path.join(rootfs, 'etc/os-release'), 'utf8')).toBe('ID=debian\n');
  });

  it('refuses a layer that does not uncompress to the diff id its config names', async () => {
    expect(await codeOf(store.importArchive(await layoutArchive(`sha256:${'2'.repeat(64)}`)))).toBe('layer-tampered');
  });

  it('refuses a gzip layer that is not gzip, and one that uncompresses past the bound (a gzip bomb), by their codes', async () => {
    expect(await codeOf(store.importArchive(await layoutArchive(undefined, Buffer.from('not gzip at all'))))).toBe(
      'invalid-image',
    );
    // Seventeen gzip members of 64 MiB of zeros each: about 1 MiB that would uncompress to 1088 MiB.
    const { gzipSync } = await import('node:zlib');
    const member = gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });
    const bomb = Buffer.concat(Array.from({ length: 17 }, () => member));
    const refusal = store.importArchive(await layoutArchive(undefined, bomb));
    await expect(refusal).rejects.toThrow(`uncompresses to more than the ${MAX_IMAGE_LAYER_BYTES / (1024 * 1024)} MiB`);
    expect(await codeOf(refusal)).toBe('image-too-large');
  });
});

describe('scratch left behind', () => {
  it("removes this machine's scratch of processes that are gone, and keeps live processes' and other machines'", async () => {
    const tmp = path.join(work, 'store', 'tmp');
    await mkdir(tmp, { recursive: true });
    const host = os.hostname().replace(/[^A-Za-z0-9.]/g, '_');
    // A pid no process has: above the kernel's pid_max.
    const gone = 4_194_305;
    const uuid = '0f8fad5b-d9cb-469f-a165-70867728950e';
    const names = {
      abandoned: `install-${host}-${gone}-${uuid}`,
      abandonedFolder: `mount-points-${host}-${gone}-${uuid.replace('0f8f', '1f8f')}`,
      live: `install-${host}-${process.pid}-${uuid}`,
      otherMachine: `install-elsewhere-${gone}-${uuid}`,
      unknown: 'notes.txt',
    };
    for (const name of Object.values(names)) await writeFile(path.join(tmp, name), 'partial');
    await rm(path.join(tmp, names.abandonedFolder));
    await mkdir(path.join(tmp, names.abandonedFolder, 'deep'), { recursive: true });
    const fresh = await store.scratch('layer');
    expect(path.basename(fresh)).toMatch(new RegExp(`^layer-${host.replace(/\./g, '\\.')}-${process.pid}-`));
    expect((await readdir(tmp)).sort()).toEqual([names.live, names.otherMachine, names.unknown].sort());
  });
});
