// Owns the environment store: an OCI image layout on disk (blobs by sha256, written once, each checked against its
// name before it is used), the image manifests and configs abp writes, the unpacked root file system of an image
// (cached per manifest digest, built in a staging folder and renamed into place only after every layer's digest
// matched), and export as an OCI archive that skopeo and `docker load` read.
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import {
  chmod,
  copyFile,
  lchown,
  link,
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  rename,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { canonicalJson } from '@abp/protocol/schemas/canonical-json';
import { EnvironmentError } from './errors.js';
import { unpackLayer, writeLayer } from './layer-tar.js';
import { isAlive } from '../execution/liveness.js';
import { BoundedReadError, MiB, readBoundedFile } from '@abp/protocol/files/bounded-read';

/** An image's index, manifest or config: KiB; a blob far larger is not one. */
const MAX_IMAGE_JSON_BYTES = 16 * MiB;
/**
 * One layer of an imported base, compressed and uncompressed: a slim base's layers are tens of MiB, a full one's a few
 * hundred. Read whole, so bounded; a gzip bomb stops at the bound instead of filling memory.
 */
export const MAX_IMAGE_LAYER_BYTES = 1024 * MiB;

function gunzipLayer(bytes: Buffer, archive: string): Buffer {
  try {
    return gunzipSync(bytes, { maxOutputLength: MAX_IMAGE_LAYER_BYTES });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
      throw new EnvironmentError(
        'image-too-large',
        `${archive}: a layer uncompresses to more than the ${MAX_IMAGE_LAYER_BYTES / MiB} MiB allowed for one layer`,
      );
    throw new EnvironmentError('invalid-image', `${archive}: a layer is not valid gzip (${(error as Error).message})`);
  }
}

export const MEDIA_TYPES = {
  manifest: 'application/vnd.oci.image.manifest.v1+json',
  config: 'application/vnd.oci.image.config.v1+json',
  layer: 'application/vnd.oci.image.layer.v1.tar',
  index: 'application/vnd.oci.image.index.v1+json',
} as const;

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
}

export interface ImageConfig {
  architecture: string;
  os: 'linux';
  config: { Env: string[]; WorkingDir: string; Labels: Record<string, string> };
  rootfs: { type: 'layers'; diff_ids: string[] };
}

export interface ImageManifest {
  schemaVersion: 2;
  mediaType: typeof MEDIA_TYPES.manifest;
  config: Descriptor;
  layers: Descriptor[];
}

export interface Image {
  digest: string;
  manifest: ImageManifest;
  config: ImageConfig;
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;

export function checkDigest(digest: string, what: string): string {
  if (!DIGEST.test(digest))
    throw new EnvironmentError(
      'invalid-image',
      `${what} ${JSON.stringify(digest)} is not a digest; give sha256: and 64 lowercase hex digits`,
    );
  return digest.slice('sha256:'.length);
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** Copies the tree at `from` into the empty folder `to`: folders made anew, files hard-linked, links copied. */
async function linkTree(from: string, to: string): Promise<void> {
  const folders: Array<{ path: string; mode: number; uid: number; gid: number }> = [];
  const visit = async (relative: string): Promise<void> => {
    for (const entry of await readdir(join(from, relative), { withFileTypes: true })) {
      const path = join(relative, entry.name);
      if (entry.isDirectory()) {
        const info = await lstat(join(from, path));
        await mkdir(join(to, path));
        folders.push({ path, mode: info.mode & 0o7777, uid: info.uid, gid: info.gid });
        await visit(path);
      } else if (entry.isSymbolicLink()) {
        const info = await lstat(join(from, path));
        await symlink(await readlink(join(from, path)), join(to, path));
        if (process.getuid?.() === 0) await lchown(join(to, path), info.uid, info.gid);
      } else if (entry.isFile()) await link(join(from, path), join(to, path));
    }
  };
  await visit('');
  for (const folder of folders.reverse()) {
    if (process.getuid?.() === 0) await lchown(join(to, folder.path), folder.uid, folder.gid);
    await chmod(join(to, folder.path), folder.mode);
  }
}

async function hashFile(path: string): Promise<{ digest: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { digest: `sha256:${hash.digest('hex')}`, size };
}

// Scratch names carry the machine and process that made them (`<kind>-<host>-<pid>-<uuid>`): what a killed build, pull
// or unpack left behind is recognisable as abandoned, while a live process's, or another machine's on a shared store,
// is left alone.
const SCRATCH_HOST = hostname().replace(/[^A-Za-z0-9.]/g, '_');

/** Removes this machine's scratch entries whose process is gone (SIGKILL, a crash, a full disk mid-build). */
async function removeAbandonedScratch(tmp: string): Promise<void> {
  for (const name of await readdir(tmp).catch(() => [] as string[])) {
    const owner = /-([^-]+)-(\d+)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.exec(name);
    if (owner === null || owner[1] !== SCRATCH_HOST || isAlive(Number(owner[2]))) continue;
    // Best effort: what cannot be removed now (a read-only folder of a half-unpacked layer) is tried again next time.
    await rm(join(tmp, name), { recursive: true, force: true }).catch(() => undefined);
  }
}

export class EnvironmentStore {
  private swept = false;

  constructor(readonly root: string) {}

  blobPath(digest: string): string {
    return join(this.root, 'blobs', 'sha256', checkDigest(digest, 'blob digest'));
  }

  /** A fresh path inside the store for a file or folder that will be moved into place (same file system). */
  async scratch(name: string): Promise<string> {
    const tmp = join(this.root, 'tmp');
    await mkdir(tmp, { recursive: true });
    if (!this.swept) {
      this.swept = true;
      await removeAbandonedScratch(tmp);
    }
    return join(tmp, `${name}-${SCRATCH_HOST}-${process.pid}-${randomUUID()}`);
  }

  async has(digest: string): Promise<boolean> {
    return stat(this.blobPath(digest)).then(
      () => true,
      () => false,
    );
  }

  /** Moves `file` into the store under its own digest; a blob already there is kept and `file` removed. */
  async adoptFile(file: string, known?: { digest: string; size: number }): Promise<{ digest: string; size: number }> {
    const { digest, size } = known ?? (await hashFile(file));
    const target = this.blobPath(digest);
    await mkdir(join(this.root, 'blobs', 'sha256'), { recursive: true });
    if (await this.has(digest)) await rm(file, { force: true });
    else await rename(file, target);
    await writeFile(join(this.root, 'oci-layout'), '{"imageLayoutVersion":"1.0.0"}\n', { flag: 'w' });
    return { digest, size };
  }

  async putBytes(bytes: Buffer): Promise<{ digest: string; size: number }> {
    const file = await this.scratch('blob');
    await writeFile(file, bytes, { flag: 'wx' });
    return this.adoptFile(file, {
      digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
      size: bytes.length,
    });
  }

  /** Writes `dir` as a layer blob. */
  async putLayer(dir: string): Promise<Descriptor> {
    const file = await this.scratch('layer');
    const layer = await writeLayer(dir, file);
    await this.adoptFile(file, layer);
    return { mediaType: MEDIA_TYPES.layer, digest: layer.digest, size: layer.size };
  }

  /** A blob's bytes, after checking they still hash to its name. */
  async readBlob(digest: string): Promise<Buffer> {
    const bytes = await readFile(this.blobPath(digest)).catch(() => {
      throw new EnvironmentError(
        'layer-missing',
        `blob ${digest} is not in the environment store ${this.root}; pull the task again`,
      );
    });
    const found = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
    if (found !== digest)
      throw new EnvironmentError(
        'layer-tampered',
        `blob ${digest} in ${this.root} hashes to ${found}; delete it and pull the task again`,
      );
    return bytes;
  }

  /** Stores an image's config and manifest; its identity is the manifest's digest. */
  async putImage(layers: Descriptor[], config: ImageConfig): Promise<Image> {
    const configBlob = await this.putBytes(Buffer.from(canonicalJson(config)));
    const manifest: ImageManifest = {
      schemaVersion: 2,
      mediaType: MEDIA_TYPES.manifest,
      config: { mediaType: MEDIA_TYPES.config, ...configBlob },
      layers,
    };
    const { digest } = await this.putBytes(Buffer.from(canonicalJson(manifest)));
    return { digest, manifest, config };
  }

  async readImage(digest: string): Promise<Image> {
    const parse = async (blob: string, what: string): Promise<unknown> => {
      try {
        return JSON.parse((await this.readBlob(blob)).toString('utf8')) as unknown;
      } catch (error) {
        if (error instanceof EnvironmentError) {
          if (error.code === 'layer-missing')
            throw new EnvironmentError(
              'environment-missing',
              `environment ${digest} is not in ${this.root}: its ${what} is absent; pull the task with its environment`,
            );
          throw error;
        }
        throw new EnvironmentError('invalid-image', `environment ${digest}: its ${what} is not JSON`);
      }
    };
    const manifest = (await parse(digest, 'manifest')) as ImageManifest;
    if (manifest.mediaType !== MEDIA_TYPES.manifest || !Array.isArray(manifest.layers))
      throw new EnvironmentError('invalid-image', `environment ${digest} is not an OCI image manifest`);
    const config = (await parse(manifest.config.digest, 'config')) as ImageConfig;
    const diffIds = manifest.layers.map((layer) => layer.digest);
    if (canonicalJson(config.rootfs?.diff_ids) !== canonicalJson(diffIds))
      throw new EnvironmentError(
        'invalid-image',
        `environment ${digest}: its config's diff_ids do not name its layers`,
      );
    return { digest, manifest, config };
  }

  /**
   * The image's root file system, unpacked once per chain of layers into rootfs/<chain id>: images that share their
   * layers share it, and an image one layer above another starts from a hard-linked copy of that one's (a layer
   * replaces a file by unlinking it first, so the shared copy is never written through). Each layer is hashed while it
   * is unpacked; one that does not match its descriptor leaves nothing behind and fails with `layer-tampered`.
   */
  async rootfs(digest: string): Promise<string> {
    const image = await this.readImage(digest);
    const layers = image.manifest.layers.map((layer) => layer.digest);
    const target = this.chainPath(layers);
    if (await exists(target)) return target;
    const staging = await this.scratch('rootfs');
    try {
      let from = layers.length;
      while (from > 0 && !(await exists(this.chainPath(layers.slice(0, from))))) from--;
      await mkdir(staging, { recursive: true });
      if (from > 0) await linkTree(this.chainPath(layers.slice(0, from)), staging);
      for (const layer of layers.slice(from)) {
        if (!(await this.has(layer)))
          throw new EnvironmentError(
            'layer-missing',
            `environment ${digest}: layer ${layer} is not in ${this.root}; pull the task again`,
          );
        const unpacked = await unpackLayer(this.blobPath(layer), staging, `layer ${layer}`);
        if (unpacked.digest !== layer)
          throw new EnvironmentError(
            'layer-tampered',
            `environment ${digest}: layer ${layer} hashes to ${unpacked.digest}; delete it and pull the task again`,
          );
      }
      await mkdir(join(this.root, 'rootfs'), { recursive: true });
      await rename(staging, target).catch(async (error: NodeJS.ErrnoException) => {
        // Another process unpacked the same layers first: its copy is as good as ours.
        if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
        await rm(staging, { recursive: true, force: true });
      });
      return target;
    } catch (error) {
      await rm(staging, { recursive: true, force: true });
      throw error;
    }
  }

  /** Where the root file system of these layers, in this order, is unpacked. */
  private chainPath(layers: readonly string[]): string {
    return join(this.root, 'rootfs', createHash('sha256').update(layers.join('\n')).digest('hex'));
  }

  /** Checks that every blob of the image is present and hashes to its name. */
  async verify(digest: string): Promise<Image> {
    const image = await this.readImage(digest);
    for (const layer of image.manifest.layers) {
      if (!(await this.has(layer.digest)))
        throw new EnvironmentError(
          'layer-missing',
          `environment ${digest}: layer ${layer.digest} is missing from ${this.root}`,
        );
      const found = await hashFile(this.blobPath(layer.digest));
      if (found.digest !== layer.digest || found.size !== layer.size)
        throw new EnvironmentError(
          'layer-tampered',
          `environment ${digest}: layer ${layer.digest} hashes to ${found.digest} (${found.size} bytes); delete it and pull the task again`,
        );
    }
    return image;
  }

  /**
   * Imports the image an OCI archive holds (`skopeo copy docker://python:3.9-slim@sha256:… oci-archive:base.tar`) as a
   * base: every blob is checked against its digest, gzip layers are stored uncompressed and must then hash to the
   * config's diff_ids, and the manifest is rewritten over them. Returns the imported image, named by its new digest.
   */
  async importArchive(archive: string): Promise<Image> {
    const staging = await this.scratch('import');
    await mkdir(staging, { recursive: true });
    try {
      await unpackLayer(archive, staging, `OCI archive ${archive}`);
      // Each blob read whole, bounded: a JSON one to MAX_IMAGE_JSON_BYTES, a layer to MAX_IMAGE_LAYER_BYTES.
      const read = async (digest: string, maxBytes = MAX_IMAGE_JSON_BYTES): Promise<Buffer> => {
        const path = join(staging, 'blobs', 'sha256', checkDigest(digest, `${archive}: blob`));
        const bytes = await readBoundedFile(path, { maxBytes, what: `a blob of ${archive}` }).catch(
          (error: unknown) => {
            if (error instanceof BoundedReadError && error.code === 'unreadable')
              throw new EnvironmentError('layer-missing', `${archive} names blob ${digest} but does not hold it`);
            throw error;
          },
        );
        const found = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
        if (found !== digest)
          throw new EnvironmentError(
            'layer-tampered',
            `${archive}: blob ${digest} hashes to ${found}; export the image again`,
          );
        return bytes;
      };
      const index = JSON.parse(
        (
          await readBoundedFile(join(staging, 'index.json'), {
            maxBytes: MAX_IMAGE_JSON_BYTES,
            what: `the index of ${archive}`,
          })
        ).toString('utf8'),
      ) as { manifests?: Descriptor[] };
      const entry = index.manifests?.[0];
      if (entry === undefined)
        throw new EnvironmentError('invalid-image', `${archive}: its index.json names no manifest`);
      const manifest = JSON.parse((await read(entry.digest)).toString('utf8')) as ImageManifest;
      if (manifest.mediaType !== MEDIA_TYPES.manifest && !(manifest.config as Descriptor | undefined)?.digest)
        throw new EnvironmentError(
          'invalid-image',
          `${archive}: ${entry.digest} is not an image manifest (an index of platforms? copy one platform with skopeo --override-arch)`,
        );
      const config = JSON.parse((await read(manifest.config.digest)).toString('utf8')) as ImageConfig;
      const layers: Descriptor[] = [];
      for (const [position, layer] of manifest.layers.entries()) {
        const bytes = await read(layer.digest, MAX_IMAGE_LAYER_BYTES);
        const plain =
          layer.mediaType.endsWith('+gzip') || layer.mediaType.endsWith('.tar.gzip')
            ? gunzipLayer(bytes, archive)
            : bytes;
        if (layer.mediaType.endsWith('+zstd'))
          throw new EnvironmentError(
            'invalid-image',
            `${archive}: layer ${layer.digest} is zstd-compressed; copy the image with skopeo --dest-compress-format gzip`,
          );
        const stored = await this.putBytes(plain);
        if (stored.digest !== config.rootfs.diff_ids[position])
          throw new EnvironmentError(
            'layer-tampered',
            `${archive}: layer ${position + 1} uncompresses to ${stored.digest}, not the config's diff id ${config.rootfs.diff_ids[position] ?? 'none'}`,
          );
        layers.push({ mediaType: MEDIA_TYPES.layer, digest: stored.digest, size: stored.size });
      }
      const configured: ImageConfig = {
        architecture: config.architecture,
        os: 'linux',
        config: {
          Env: config.config?.Env ?? [],
          WorkingDir: config.config?.WorkingDir ?? '/',
          Labels: { ...(config.config?.Labels ?? {}), 'org.abp.imported-from': entry.digest },
        },
        rootfs: { type: 'layers', diff_ids: layers.map((layer) => layer.digest) },
      };
      return await this.putImage(layers, configured);
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }

  /** Writes the image as an OCI archive (an image layout in a tar), tagged `reference` for `docker load`. */
  async exportArchive(digest: string, out: string, reference: string): Promise<void> {
    const image = await this.verify(digest);
    const staging = await this.scratch('export');
    const blobs = join(staging, 'blobs', 'sha256');
    await mkdir(blobs, { recursive: true });
    try {
      for (const blob of [
        digest,
        image.manifest.config.digest,
        ...image.manifest.layers.map((layer) => layer.digest),
      ]) {
        const hex = checkDigest(blob, 'blob');
        await link(this.blobPath(blob), join(blobs, hex)).catch(() => copyFile(this.blobPath(blob), join(blobs, hex)));
      }
      const manifestSize = (await stat(this.blobPath(digest))).size;
      const index = {
        schemaVersion: 2,
        mediaType: MEDIA_TYPES.index,
        manifests: [
          {
            mediaType: MEDIA_TYPES.manifest,
            digest,
            size: manifestSize,
            annotations: { 'org.opencontainers.image.ref.name': reference },
          },
        ],
      };
      await writeFile(join(staging, 'index.json'), canonicalJson(index));
      await writeFile(join(staging, 'oci-layout'), '{"imageLayoutVersion":"1.0.0"}');
      const temporary = `${out}.${randomUUID()}.tmp`;
      try {
        await writeLayer(staging, temporary);
        await rename(temporary, out);
      } finally {
        await rm(temporary, { force: true });
      }
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }
}
