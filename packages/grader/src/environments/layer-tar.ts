// Owns an OCI layer as bytes: a folder written as an uncompressed tar whose bytes depend only on what the folder holds
// (entries sorted, mtimes zero, owners numeric, no user or group names), and a layer unpacked onto a root file system
// without trusting it (no entry may leave the root or write through a symbolic link; whiteouts delete what lower
// layers put there). Uncompressed because gzip's bytes depend on the zlib that wrote them, and a digest must not.
import { createHash, type Hash } from 'node:crypto';
import {
  chmod,
  lchown,
  link,
  lstat,
  mkdir,
  open,
  readdir,
  readlink,
  rm,
  symlink,
  type FileHandle,
} from 'node:fs/promises';
import { join } from 'node:path';
import { EnvironmentError } from './errors.js';

const BLOCK = 512;
const CHUNK = 1024 * 1024;
const WHITEOUT = '.wh.';
const OPAQUE = '.wh..wh..opq';

export interface LayerDigest {
  /** sha256:<hex> of the tar: both the layer's blob digest and its diff id, since it is not compressed. */
  digest: string;
  size: number;
  entries: number;
}

interface Entry {
  path: string;
  type: '0' | '1' | '2' | '5';
  mode: number;
  uid: number;
  gid: number;
  size: number;
  linkname: string;
  source: string | null;
}

/** Every path under `dir`, parents before children, siblings in code-unit order; sockets, fifos and devices are left out. */
async function walk(dir: string): Promise<Entry[]> {
  const entries: Entry[] = [];
  const inodes = new Map<string, string>();
  const visit = async (relative: string): Promise<void> => {
    const names = (await readdir(join(dir, relative))).sort();
    for (const name of names) {
      const path = relative === '' ? name : `${relative}/${name}`;
      const source = join(dir, path);
      const info = await lstat(source);
      const base = {
        path,
        mode: info.mode & 0o7777,
        uid: info.uid,
        gid: info.gid,
        size: 0,
        linkname: '',
        source: null,
      };
      if (info.isDirectory()) {
        entries.push({ ...base, type: '5' });
        await visit(path);
      } else if (info.isSymbolicLink()) {
        entries.push({ ...base, type: '2', linkname: await readlink(source) });
      } else if (info.isFile()) {
        const inode = `${info.dev}:${info.ino}`;
        const first = info.nlink > 1 ? inodes.get(inode) : undefined;
        if (first !== undefined) entries.push({ ...base, type: '1', linkname: first });
        else {
          if (info.nlink > 1) inodes.set(inode, path);
          entries.push({ ...base, type: '0', size: info.size, source });
        }
      }
    }
  };
  await visit('');
  return entries;
}

function octal(block: Buffer, offset: number, width: number, value: number): void {
  block.write(`${value.toString(8).padStart(width - 1, '0')}\0`, offset, 'latin1');
}

function paxRecord(key: string, value: string): Buffer {
  const body = Buffer.from(` ${key}=${value}\n`, 'utf8');
  let digits = 1;
  while (String(body.length + digits).length !== digits) digits++;
  return Buffer.concat([Buffer.from(String(body.length + digits), 'latin1'), body]);
}

function header(
  name: string,
  type: string,
  fields: { mode: number; uid: number; gid: number; size: number; linkname: string },
): Buffer {
  const block = Buffer.alloc(BLOCK);
  block.write(name, 0, 100, 'latin1');
  octal(block, 100, 8, fields.mode);
  octal(block, 108, 8, fields.uid);
  octal(block, 116, 8, fields.gid);
  octal(block, 124, 12, fields.size);
  octal(block, 136, 12, 0);
  block.write(type, 156, 'latin1');
  block.write(fields.linkname, 157, 100, 'latin1');
  block.write('ustar\u000000', 257, 'latin1');
  octal(block, 329, 8, 0);
  octal(block, 337, 8, 0);
  let sum = 0;
  for (let index = 0; index < BLOCK; index++) sum += index >= 148 && index < 156 ? 0x20 : (block[index] ?? 0);
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return block;
}

const fitsUstar = (text: string, bytes: number): boolean => /^[\x20-\x7e]*$/.test(text) && text.length <= bytes;

/** The header blocks of one entry: a pax header first where a name, a link or an id does not fit ustar's fields. */
function headersOf(entry: Entry): Buffer {
  const name = entry.type === '5' ? `${entry.path}/` : entry.path;
  const pax: Buffer[] = [];
  if (!fitsUstar(name, 100)) pax.push(paxRecord('path', name));
  if (!fitsUstar(entry.linkname, 100)) pax.push(paxRecord('linkpath', entry.linkname));
  if (entry.uid > 0o7777777) pax.push(paxRecord('uid', String(entry.uid)));
  if (entry.gid > 0o7777777) pax.push(paxRecord('gid', String(entry.gid)));
  const fields = {
    mode: entry.mode,
    uid: Math.min(entry.uid, 0o7777777),
    gid: Math.min(entry.gid, 0o7777777),
    size: entry.size,
    linkname: fitsUstar(entry.linkname, 100) ? entry.linkname : '',
  };
  const own = header(fitsUstar(name, 100) ? name : 'pax-path', entry.type, fields);
  if (pax.length === 0) return own;
  const body = Buffer.concat(pax);
  const extended = header('PaxHeader', 'x', { mode: 0o644, uid: 0, gid: 0, size: body.length, linkname: '' });
  return Buffer.concat([extended, body, Buffer.alloc((BLOCK - (body.length % BLOCK)) % BLOCK), own]);
}

/**
 * Writes `dir` as a layer to `file` (created; it must not exist) and returns its digest. A file that changes size while
 * it is read fails the write: the layer would not describe the folder.
 */
export async function writeLayer(dir: string, file: string): Promise<LayerDigest> {
  const entries = await walk(dir);
  const hash = createHash('sha256');
  const out = await open(file, 'wx');
  let size = 0;
  const emit = async (bytes: Buffer): Promise<void> => {
    hash.update(bytes);
    size += bytes.length;
    await out.write(bytes);
  };
  try {
    for (const entry of entries) {
      await emit(headersOf(entry));
      if (entry.type !== '0' || entry.source === null) continue;
      const input = await open(entry.source, 'r');
      try {
        let copied = 0;
        const buffer = Buffer.alloc(Math.min(CHUNK, Math.max(entry.size, 1)));
        while (copied < entry.size) {
          const { bytesRead } = await input.read(buffer, 0, Math.min(buffer.length, entry.size - copied), copied);
          if (bytesRead === 0) break;
          await emit(Buffer.from(buffer.subarray(0, bytesRead)));
          copied += bytesRead;
        }
        if (copied !== entry.size)
          throw new EnvironmentError(
            'layer-source-changed',
            `${entry.source} shrank while it was written into a layer; build the layer again`,
          );
      } finally {
        await input.close();
      }
      await emit(Buffer.alloc((BLOCK - (entry.size % BLOCK)) % BLOCK));
    }
    await emit(Buffer.alloc(BLOCK * 2));
    await out.sync();
  } finally {
    await out.close();
  }
  return { digest: `sha256:${hash.digest('hex')}`, size, entries: entries.length };
}

/** Reads a tar sequentially, hashing every byte it reads. */
class TarReader {
  offset = 0;
  readonly hash: Hash = createHash('sha256');
  constructor(
    private readonly file: FileHandle,
    private readonly label: string,
  ) {}

  async read(length: number): Promise<Buffer> {
    const buffer = Buffer.alloc(length);
    let filled = 0;
    while (filled < length) {
      const { bytesRead } = await this.file.read(buffer, filled, length - filled, this.offset + filled);
      if (bytesRead === 0) throw unsafe(this.label, `ends in the middle of an entry at byte ${this.offset + filled}`);
      filled += bytesRead;
    }
    this.offset += length;
    this.hash.update(buffer);
    return buffer;
  }

  /** The rest of the file (the end-of-archive blocks and any padding after them), hashed too. */
  async drain(): Promise<void> {
    const buffer = Buffer.alloc(CHUNK);
    for (;;) {
      const { bytesRead } = await this.file.read(buffer, 0, buffer.length, this.offset);
      if (bytesRead === 0) return;
      this.hash.update(buffer.subarray(0, bytesRead));
      this.offset += bytesRead;
    }
  }
}

function unsafe(label: string, problem: string): EnvironmentError {
  return new EnvironmentError('unsafe-layer', `${label} ${problem}; the layer cannot be unpacked`);
}

function field(block: Buffer, offset: number, width: number): string {
  const raw = block.subarray(offset, offset + width);
  const end = raw.indexOf(0);
  return raw.subarray(0, end === -1 ? width : end).toString('utf8');
}

function number(block: Buffer, offset: number, width: number): number {
  const text = field(block, offset, width).trim();
  return text === '' ? 0 : parseInt(text, 8);
}

function parsePax(body: Buffer): Record<string, string> {
  const records: Record<string, string> = {};
  let at = 0;
  while (at < body.length) {
    const space = body.indexOf(0x20, at);
    const length = Number(body.subarray(at, space).toString('latin1'));
    if (space === -1 || !Number.isSafeInteger(length) || length <= 0) break;
    const record = body.subarray(space + 1, at + length - 1).toString('utf8');
    const equals = record.indexOf('=');
    records[record.slice(0, equals)] = record.slice(equals + 1);
    at += length;
  }
  return records;
}

/** A layer path made relative, or the reason it cannot be unpacked. */
function normalize(name: string, label: string): string {
  const trimmed = name.replace(/^(\.\/)+/, '').replace(/\/+$/, '');
  if (trimmed === '' || trimmed === '.') return '';
  if (trimmed.startsWith('/')) throw unsafe(label, `holds the absolute path ${JSON.stringify(name)}`);
  for (const segment of trimmed.split('/'))
    if (segment === '..' || segment === '.' || segment === '')
      throw unsafe(label, `holds the path ${JSON.stringify(name)}, with a "${segment}" segment`);
  return trimmed;
}

export interface UnpackResult {
  digest: string;
  size: number;
}

/**
 * Unpacks the layer in `file` onto `root` (a folder holding the layers below it) and returns the digest of the bytes it
 * read, which the caller compares with the one it expected before it trusts `root`. Owners are kept where this process
 * may set them (as root); modes of folders are set last, so a read-only folder can still be filled.
 */
export async function unpackLayer(file: string, root: string, label: string): Promise<UnpackResult> {
  const handle = await open(file, 'r');
  const reader = new TarReader(handle, label);
  const realFolders = new Set<string>(['']);
  const folderModes = new Map<string, number>();
  const createdHere = new Set<string>();
  const opaque: string[] = [];
  const canChown = process.getuid?.() === 0;

  // Every parent of `path` must be a real folder inside root, never a link out of it.
  const ensureParents = async (path: string): Promise<void> => {
    const segments = path.split('/');
    let at = '';
    for (const segment of segments.slice(0, -1)) {
      at = at === '' ? segment : `${at}/${segment}`;
      if (realFolders.has(at)) continue;
      const info = await lstat(join(root, at)).catch(() => null);
      if (info === null) await mkdir(join(root, at), { mode: 0o755 });
      else if (!info.isDirectory())
        throw unsafe(label, `writes ${JSON.stringify(path)} through ${JSON.stringify(at)}, which is not a folder`);
      realFolders.add(at);
    }
  };
  const clear = async (path: string, keepFolder: boolean): Promise<void> => {
    const info = await lstat(join(root, path)).catch(() => null);
    if (info === null || (keepFolder && info.isDirectory())) return;
    await rm(join(root, path), { recursive: true, force: true });
    for (const known of realFolders) if (known === path || known.startsWith(`${path}/`)) realFolders.delete(known);
  };

  try {
    let pax: Record<string, string> = {};
    let longName: string | null = null;
    let longLink: string | null = null;
    for (;;) {
      const block = await reader.read(BLOCK);
      if (block.every((byte) => byte === 0)) break;
      const type = String.fromCharCode(block[156] ?? 0x30);
      const size = pax['size'] !== undefined ? Number(pax['size']) : number(block, 124, 12);
      const body = async (): Promise<Buffer> => {
        const bytes = await reader.read(size + ((BLOCK - (size % BLOCK)) % BLOCK));
        return bytes.subarray(0, size);
      };
      if (type === 'x') {
        pax = { ...pax, ...parsePax(await body()) };
        continue;
      }
      if (type === 'g') {
        await body();
        continue;
      }
      if (type === 'L' || type === 'K') {
        const text = (await body()).toString('utf8').replace(/\0+$/, '');
        if (type === 'L') longName = text;
        else longLink = text;
        continue;
      }
      const prefix = field(block, 345, 155);
      const rawName =
        pax['path'] ?? longName ?? (prefix === '' ? field(block, 0, 100) : `${prefix}/${field(block, 0, 100)}`);
      const linkname = pax['linkpath'] ?? longLink ?? field(block, 157, 100);
      const uid = pax['uid'] !== undefined ? Number(pax['uid']) : number(block, 108, 8);
      const gid = pax['gid'] !== undefined ? Number(pax['gid']) : number(block, 116, 8);
      const mode = number(block, 100, 8) & 0o7777;
      pax = {};
      longName = null;
      longLink = null;
      const path = normalize(rawName, label);
      const content = type === '0' || type === '\0' || type === '7' ? size : 0;
      if (path === '') {
        if (type === '5') folderModes.set('', mode);
        await reader.read(content + ((BLOCK - (content % BLOCK)) % BLOCK));
        continue;
      }
      const slash = path.lastIndexOf('/');
      const name = path.slice(slash + 1);
      const parent = slash === -1 ? '' : path.slice(0, slash);
      await ensureParents(path);
      if (name === OPAQUE) {
        opaque.push(parent);
        continue;
      }
      if (name.startsWith(WHITEOUT)) {
        await clear(parent === '' ? name.slice(WHITEOUT.length) : `${parent}/${name.slice(WHITEOUT.length)}`, false);
        continue;
      }
      const target = join(root, path);
      createdHere.add(path);
      switch (type) {
        case '5':
          await clear(path, true);
          await mkdir(target, { recursive: true, mode: 0o755 });
          realFolders.add(path);
          folderModes.set(path, mode);
          break;
        case '2':
          await clear(path, false);
          await symlink(linkname, target);
          break;
        case '1': {
          const source = normalize(linkname, label);
          await ensureParents(source);
          await clear(path, false);
          await link(join(root, source), target).catch((error: unknown) => {
            throw unsafe(
              label,
              `links ${JSON.stringify(path)} to ${JSON.stringify(linkname)}, which is not a file unpacked before it (${(error as Error).message})`,
            );
          });
          break;
        }
        case '0':
        case '\0':
        case '7': {
          await clear(path, false);
          const out = await open(target, 'wx', 0o600);
          try {
            for (let left = size; left > 0;) {
              const chunk = await reader.read(Math.min(CHUNK, left));
              await out.write(chunk);
              left -= chunk.length;
            }
            await reader.read((BLOCK - (size % BLOCK)) % BLOCK);
          } finally {
            await out.close();
          }
          await chmod(target, mode);
          break;
        }
        default:
          // Devices, fifos and sockets have no place in an environment: bubblewrap gives each run its own /dev.
          await reader.read(content + ((BLOCK - (content % BLOCK)) % BLOCK));
          createdHere.delete(path);
          continue;
      }
      if (canChown) await lchown(target, uid, gid);
    }
    await reader.drain();
    // An opaque folder keeps only what this layer put in it.
    for (const folder of opaque) {
      const names = await readdir(join(root, folder)).catch(() => []);
      for (const name of names) {
        const path = folder === '' ? name : `${folder}/${name}`;
        if (!createdHere.has(path)) await rm(join(root, path), { recursive: true, force: true });
      }
    }
    const deepestFirst = [...folderModes].sort((a, b) => b[0].split('/').length - a[0].split('/').length);
    for (const [folder, folderMode] of deepestFirst) await chmod(join(root, folder), folderMode);
  } finally {
    await handle.close();
  }
  return { digest: `sha256:${reader.hash.digest('hex')}`, size: reader.offset };
}
