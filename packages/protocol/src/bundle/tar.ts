// Deterministic POSIX ustar archives, written and read by us so the bytes depend on nothing but the entries: regular files
// only, sorted by path, every header field fixed except name, mode and size. The reader refuses what could escape or alias.
import { compareCodeUnits } from '../schemas/primitives.js';
import { BundleError } from './errors.js';

export interface TarEntry {
  /** Relative POSIX path; directories are implied by their files and never stored. */
  path: string;
  content: Buffer;
  /** Stored as mode 0755, otherwise 0644: the executable bit is the only permission a checkout keeps. */
  executable?: boolean;
}

const BLOCK = 512;
const NAME_BYTES = 100;
const PREFIX_BYTES = 155;
const FILE_MODE = 0o644;
const EXECUTABLE_MODE = 0o755;
/** Names of a pax extended header and of the ustar name field of the file it describes: fixed, so they add no variation. */
const PAX_HEADER_NAME = 'PaxHeader';
const PAX_FALLBACK_NAME = 'pax-path';
const utf8 = new TextDecoder('utf-8', { fatal: true });

function unsafe(path: string, label: string, problem: string): BundleError {
  return new BundleError(
    'unsafe-path',
    `${label}: entry ${JSON.stringify(path)} ${problem}; archive paths are relative, with no ".", ".." or empty segment`,
  );
}

function checkEntryPath(path: string, label: string): void {
  if (path === '') throw unsafe(path, label, 'is empty');
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) throw unsafe(path, label, 'is absolute');
  if (/[\\\0]/.test(path)) throw unsafe(path, label, 'holds a backslash or a NUL');
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.' || segment === '..')
      throw unsafe(path, label, `has the segment ${JSON.stringify(segment)}`);
  }
}

/** A path stored twice, or stored as a file and as a folder of another file, would make extraction order matter. */
function checkEntrySet(paths: readonly string[], label: string): void {
  const seen = new Set<string>();
  for (const path of paths) {
    if (seen.has(path))
      throw new BundleError(
        'duplicate-entry',
        `${label}: entry ${JSON.stringify(path)} appears twice; each path is stored once`,
      );
    seen.add(path);
  }
  for (const path of paths) {
    for (let slash = path.indexOf('/'); slash !== -1; slash = path.indexOf('/', slash + 1)) {
      const folder = path.slice(0, slash);
      if (seen.has(folder))
        throw new BundleError(
          'path-conflict',
          `${label}: ${JSON.stringify(folder)} is a file, but ${JSON.stringify(path)} needs it as a folder; rename one of them`,
        );
    }
  }
}

function writeOctal(block: Buffer, offset: number, width: number, value: number): void {
  block.write(`${value.toString(8).padStart(width - 1, '0')}\0`, offset, 'latin1');
}

function checksum(block: Buffer): number {
  let sum = 0;
  for (let index = 0; index < BLOCK; index++) sum += index >= 148 && index < 156 ? 0x20 : (block[index] ?? 0);
  return sum;
}

function header(name: string, prefix: string, mode: number, size: number, type: '0' | 'x'): Buffer {
  const block = Buffer.alloc(BLOCK);
  block.write(name, 0, 'latin1');
  writeOctal(block, 100, 8, mode);
  writeOctal(block, 108, 8, 0); // uid
  writeOctal(block, 116, 8, 0); // gid
  // Node caps a Buffer below 8 GiB, the most 11 octal digits can hold.
  writeOctal(block, 124, 12, size);
  writeOctal(block, 136, 12, 0); // mtime
  block.write(type, 156, 'latin1');
  block.write('ustar\u000000', 257, 'latin1');
  writeOctal(block, 329, 8, 0); // devmajor
  writeOctal(block, 337, 8, 0); // devminor
  block.write(prefix, 345, 'latin1');
  block.write(`${checksum(block).toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return block;
}

function padding(size: number): Buffer {
  return Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);
}

/** name and prefix fields for a printable-ASCII path that fits them, split at the last "/" the prefix can hold; else null. */
function ustarFields(path: string): { name: string; prefix: string } | null {
  if (!/^[\x20-\x7e]+$/.test(path)) return null;
  if (path.length <= NAME_BYTES) return { name: path, prefix: '' };
  const slash = path.lastIndexOf('/', PREFIX_BYTES);
  if (slash <= 0 || path.length - slash - 1 > NAME_BYTES) return null;
  return { name: path.slice(slash + 1), prefix: path.slice(0, slash) };
}

/** One pax record, "<length> path=<value>\n", whose length counts its own digits. */
function paxPathRecord(path: string): Buffer {
  const body = Buffer.from(` path=${path}\n`, 'utf8');
  let digits = 1;
  while (String(body.length + digits).length !== digits) digits++;
  return Buffer.concat([Buffer.from(String(body.length + digits), 'latin1'), body]);
}

/** The archive of `entries`: the same entries in any order give the same bytes. */
export function writeTar(entries: readonly TarEntry[], label: string): Buffer {
  const sorted = [...entries].sort((a, b) => compareCodeUnits(a.path, b.path));
  for (const entry of sorted) checkEntryPath(entry.path, label);
  checkEntrySet(
    sorted.map((entry) => entry.path),
    label,
  );
  const chunks: Buffer[] = [];
  for (const entry of sorted) {
    const mode = entry.executable === true ? EXECUTABLE_MODE : FILE_MODE;
    let fields = ustarFields(entry.path);
    if (fields === null) {
      // Longer or non-ASCII paths travel in a pax header (UTF-8, as POSIX specifies), never in GNU extensions.
      const record = paxPathRecord(entry.path);
      chunks.push(header(PAX_HEADER_NAME, '', FILE_MODE, record.length, 'x'), record, padding(record.length));
      fields = { name: PAX_FALLBACK_NAME, prefix: '' };
    }
    chunks.push(
      header(fields.name, fields.prefix, mode, entry.content.length, '0'),
      entry.content,
      padding(entry.content.length),
    );
  }
  chunks.push(Buffer.alloc(2 * BLOCK));
  return Buffer.concat(chunks);
}

function corrupt(label: string, offset: number, problem: string): BundleError {
  return new BundleError(
    'corrupt-archive',
    `${label}: ${problem} at byte ${offset}; the archive is damaged or not an abp bundle, fetch it again`,
  );
}

function readString(block: Buffer, offset: number, width: number): Buffer {
  const field = block.subarray(offset, offset + width);
  const end = field.indexOf(0);
  return end === -1 ? field : field.subarray(0, end);
}

function readOctal(block: Buffer, offset: number, width: number, label: string, at: number): number {
  const text = readString(block, offset, width).toString('latin1').trim();
  if (!/^[0-7]+$/.test(text))
    throw corrupt(label, at + offset, `the header field holds ${JSON.stringify(text)}, not an octal number`);
  return parseInt(text, 8);
}

function decodePath(bytes: Buffer, label: string, at: number): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw corrupt(label, at, 'an entry name is not UTF-8');
  }
}

function readPaxPath(records: Buffer, label: string, at: number): string {
  let path: string | null = null;
  for (let offset = 0; offset < records.length;) {
    const space = records.indexOf(0x20, offset);
    const digits = records.subarray(offset, space).toString('latin1');
    const length = Number(digits);
    if (
      space === -1 ||
      !/^[0-9]+$/.test(digits) ||
      length <= space - offset ||
      offset + length > records.length ||
      records[offset + length - 1] !== 0x0a
    ) {
      throw corrupt(label, at, 'a pax header record is malformed');
    }
    const record = decodePath(records.subarray(space + 1, offset + length - 1), label, at);
    const equals = record.indexOf('=');
    if (equals <= 0) throw corrupt(label, at, 'a pax header record has no key');
    const key = record.slice(0, equals);
    if (key !== 'path')
      throw new BundleError(
        'unsupported-entry',
        `${label}: a pax header sets ${JSON.stringify(key)}; abp archives set only "path"`,
      );
    path = record.slice(equals + 1);
    offset += length;
  }
  if (path === null) throw corrupt(label, at, 'a pax header sets no path');
  return path;
}

const refusedTypes: Record<string, string> = {
  '1': 'a hard link',
  '2': 'a symbolic link',
  '3': 'a character device',
  '4': 'a block device',
  '5': 'a folder',
  '6': 'a FIFO',
};

/**
 * The regular files of an archive, in stored order. Throws on anything that is not a plain relative file: links,
 * devices, folders, absolute or ".." paths, a path stored twice, bad checksums, and trailing bytes after the end.
 * Contents are views into `archive`, not copies.
 */
export function readTar(archive: Buffer, label: string): Array<Required<TarEntry>> {
  const entries: Array<Required<TarEntry>> = [];
  let paxPath: string | null = null;
  let offset = 0;
  for (;;) {
    if (offset + 2 * BLOCK > archive.length)
      throw corrupt(label, offset, 'the archive ends without its two zero blocks');
    const block = archive.subarray(offset, offset + BLOCK);
    if (block.every((byte) => byte === 0)) {
      if (paxPath !== null) throw corrupt(label, offset, 'a pax header describes no file');
      if (!archive.subarray(offset).every((byte) => byte === 0))
        throw corrupt(label, offset, 'bytes follow the end of the archive');
      break;
    }
    if (readOctal(block, 148, 8, label, offset) !== checksum(block))
      throw corrupt(label, offset, 'a header checksum does not match');
    if (block.toString('latin1', 257, 265) !== 'ustar\u000000')
      throw corrupt(label, offset, 'a header is not POSIX ustar');
    const size = readOctal(block, 124, 12, label, offset);
    const dataStart = offset + BLOCK;
    if (dataStart + size > archive.length) throw corrupt(label, offset, 'an entry runs past the end of the archive');
    const content = archive.subarray(dataStart, dataStart + size);
    const type = String.fromCharCode(block[156] ?? 0);
    const at = offset;
    offset = dataStart + size + padding(size).length;
    if (type === 'x') {
      if (paxPath !== null) throw corrupt(label, at, 'two pax headers describe one file');
      paxPath = readPaxPath(content, label, at);
      continue;
    }
    const prefix = readString(block, 345, PREFIX_BYTES);
    const name = readString(block, 0, NAME_BYTES);
    const path =
      paxPath ?? decodePath(prefix.length === 0 ? name : Buffer.concat([prefix, Buffer.from('/'), name]), label, at);
    paxPath = null;
    if (type !== '0' && type !== '\0') {
      const kind = refusedTypes[type] ?? `an entry of type ${JSON.stringify(type)}`;
      throw new BundleError(
        'unsupported-entry',
        `${label}: ${JSON.stringify(path)} is ${kind}; abp archives hold regular files only`,
      );
    }
    checkEntryPath(path, label);
    entries.push({ path, content, executable: (readOctal(block, 100, 8, label, at) & 0o111) !== 0 });
  }
  checkEntrySet(
    entries.map((entry) => entry.path),
    label,
  );
  return entries;
}
