// The repository at base with nothing after it, as a byte stream of raw objects that depends on base alone (packfiles
// would not: zlib and delta choices vary by machine), and its rehydration into a bare repository checked object by object.
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { ExecutionError } from '../execution/errors.js';
import { git } from '../execution/git.js';
import { writeGitDir } from '../workspace/git-dir.js';
import { BundleError } from '@abp/protocol/bundle/errors';

/**
 * First line of a stream. Each object of base's closure follows, sorted by id, as `<oid> <type> <size>\n<raw bytes>\n`:
 * exactly what `git rev-list --objects --no-object-names <base> | sort | git cat-file --batch` prints.
 */
export const OBJECT_STREAM_HEADER = 'abp-git-objects/v1\n';

export type GitObjectType = 'commit' | 'tree' | 'blob';

export interface GitObject {
  oid: string;
  type: GitObjectType;
  /** The raw object body (a commit keeps its signature header), a view into the stream. */
  content: Buffer;
}

/** The branch a rehydrated repository's HEAD names. */
export const REHYDRATED_BRANCH = 'main';
/** Object type numbers of the pack format. */
const PACK_TYPES: Record<GitObjectType, number> = { commit: 1, tree: 2, blob: 3 };
/** Offsets from here on go to the index's 64-bit table. */
const LARGE_OFFSET = 0x80000000;
const OBJECT_LINE = /^([0-9a-f]{40}) (commit|tree|blob) (0|[1-9][0-9]*)$/;

function objectId(type: GitObjectType, content: Buffer): string {
  return createHash('sha1').update(`${type} ${content.length}\0`).update(content).digest('hex');
}

async function closureOf(gitArgs: readonly string[], cwd: string, commit: string): Promise<string[]> {
  const { stdout } = await git([...gitArgs, 'rev-list', '--objects', '--no-object-names', commit], { cwd });
  return stdout.toString('latin1').split('\n').filter(Boolean).sort();
}

/** The object stream of `baseCommit` and everything reachable from it in `repoDir` (a work tree or a git directory). */
export async function writeObjectStream(repoDir: string, baseCommit: string): Promise<Buffer> {
  const inRepo = ['-C', repoDir];
  if (!/^[0-9a-f]{40}$/.test(baseCommit))
    throw new BundleError(
      'missing-base-commit',
      `base commit ${JSON.stringify(baseCommit)} is not a full lowercase 40-hex commit id; pin it with git rev-parse`,
    );
  const [type, shallow] = await Promise.all([
    git([...inRepo, 'cat-file', '-t', baseCommit], { cwd: repoDir, allowExit: [128] }),
    git([...inRepo, 'rev-parse', '--is-shallow-repository'], { cwd: repoDir, allowExit: [128] }),
  ]).catch((error: unknown) => {
    if (!(error instanceof ExecutionError)) throw error;
    throw new BundleError(
      'missing-base-commit',
      `${repoDir} cannot be read as a git repository (${error.message}); point the bundle at a clone holding ${baseCommit}`,
      { cause: error },
    );
  });
  if (type.exitCode !== 0 || type.stdout.toString('latin1').trim() !== 'commit') {
    throw new BundleError(
      'missing-base-commit',
      `${repoDir} holds no commit ${baseCommit} (${type.stderr.trim() || `it is a ${type.stdout.toString('latin1').trim()}`}); fetch it or fix the base commit`,
    );
  }
  if (shallow.stdout.toString('latin1').trim() === 'true') {
    throw new BundleError(
      'missing-base-commit',
      `${repoDir} is a shallow clone, so the history up to ${baseCommit} is incomplete; run git fetch --unshallow first`,
    );
  }
  const oids = await closureOf(inRepo, repoDir, baseCommit);
  const { stdout } = await git([...inRepo, 'cat-file', '--batch'], { cwd: repoDir, input: `${oids.join('\n')}\n` });
  const stream = Buffer.concat([Buffer.from(OBJECT_STREAM_HEADER, 'latin1'), stdout]);
  const written = parseObjectStream(stream, repoDir).map((object) => object.oid);
  if (written.join('\n') !== oids.join('\n'))
    throw new BundleError(
      'object-mismatch',
      `${repoDir}: git cat-file returned other objects than base's closure lists; check the repository with git fsck`,
    );
  return stream;
}

function corrupt(label: string, offset: number, problem: string): BundleError {
  return new BundleError(
    'corrupt-object-stream',
    `${label}: ${problem} at byte ${offset}; the object stream is damaged, rebuild or fetch the bundle again`,
  );
}

/** Reads a stream, insisting on its one form: the header, then well-formed objects in strictly increasing id order. */
export function parseObjectStream(stream: Buffer, label: string): GitObject[] {
  if (stream.toString('latin1', 0, OBJECT_STREAM_HEADER.length) !== OBJECT_STREAM_HEADER)
    throw corrupt(label, 0, `it does not start with ${JSON.stringify(OBJECT_STREAM_HEADER.trim())}`);
  const objects: GitObject[] = [];
  let previous = '';
  for (let offset = OBJECT_STREAM_HEADER.length; offset < stream.length;) {
    const newline = stream.indexOf(0x0a, offset);
    const match =
      newline === -1 || newline - offset > 80 ? null : OBJECT_LINE.exec(stream.toString('latin1', offset, newline));
    if (match === null) throw corrupt(label, offset, 'an object header is not "<40-hex id> <commit|tree|blob> <size>"');
    const [, oid = '', type = '', size = ''] = match;
    const end = newline + 1 + Number(size);
    if (end >= stream.length || stream[end] !== 0x0a) throw corrupt(label, offset, `object ${oid} is cut short`);
    if (oid <= previous) throw corrupt(label, offset, `object ${oid} is out of order or repeated`);
    objects.push({ oid, type: type as GitObjectType, content: stream.subarray(newline + 1, end) });
    previous = oid;
    offset = end + 1;
  }
  return objects;
}

function sha1(bytes: Buffer): Buffer {
  return createHash('sha1').update(bytes).digest();
}

/** A pack entry's header: the type and the size in 4 bits, then 7 bits per byte while the continuation bit is set. */
function packEntryHeader(type: GitObjectType, size: number): Buffer {
  const bytes: number[] = [];
  let byte = (PACK_TYPES[type] << 4) | (size % 16);
  for (let rest = Math.floor(size / 16); rest > 0; rest = Math.floor(rest / 128)) {
    bytes.push(byte | 0x80);
    byte = rest % 128;
  }
  bytes.push(byte);
  return Buffer.from(bytes);
}

/**
 * Writes `objects` (sorted by id) as one undeltified pack and its version-2 index. Creating thousands of loose object
 * files costs seconds on a journaling file system; two files cost milliseconds. The fastest zlib level: any is valid.
 */
async function writePack(gitDir: string, objects: readonly GitObject[]): Promise<void> {
  const header = Buffer.alloc(12);
  header.write('PACK', 0, 'latin1');
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(objects.length, 8);
  const entries = objects.map((object) =>
    Buffer.concat([packEntryHeader(object.type, object.content.length), deflateSync(object.content, { level: 1 })]),
  );
  const body = Buffer.concat([header, ...entries]);
  const packChecksum = sha1(body);

  const fanout = Buffer.alloc(256 * 4);
  const crcs = Buffer.alloc(objects.length * 4);
  const offsets = Buffer.alloc(objects.length * 4);
  const largeOffsets: Buffer[] = [];
  let offset = header.length;
  entries.forEach((entry, index) => {
    crcs.writeUInt32BE(crc32(entry), index * 4);
    if (offset < LARGE_OFFSET) offsets.writeUInt32BE(offset, index * 4);
    else {
      offsets.writeUInt32BE(LARGE_OFFSET + largeOffsets.length, index * 4);
      const large = Buffer.alloc(8);
      large.writeBigUInt64BE(BigInt(offset));
      largeOffsets.push(large);
    }
    offset += entry.length;
  });
  let count = 0;
  for (let first = 0; first < 256; first++) {
    while (count < objects.length && parseInt(objects[count]?.oid.slice(0, 2) ?? '', 16) <= first) count++;
    fanout.writeUInt32BE(count, first * 4);
  }
  const ids = Buffer.from(objects.map((object) => object.oid).join(''), 'hex');
  const index = Buffer.concat([
    Buffer.from([0xff, 0x74, 0x4f, 0x63, 0, 0, 0, 2]),
    fanout,
    ids,
    crcs,
    offsets,
    ...largeOffsets,
    packChecksum,
  ]);

  const name = join(gitDir, 'objects', 'pack', `pack-${packChecksum.toString('hex')}`);
  await writeFile(`${name}.pack`, Buffer.concat([body, packChecksum]), { mode: 0o444 });
  await writeFile(`${name}.idx`, Buffer.concat([index, sha1(index)]), { mode: 0o444 });
}

/**
 * Writes `stream` as a fresh bare repository at `gitDir` whose main branch and HEAD are `baseCommit`. Every object must
 * hash to its id, and the set must be exactly base's closure: a missing object or one from after base is refused.
 * Returns the number of objects written.
 */
export async function rehydrateRepository(
  stream: Buffer,
  gitDir: string,
  baseCommit: string,
  label: string,
): Promise<number> {
  const objects = parseObjectStream(stream, label);
  for (const object of objects) {
    if (objectId(object.type, object.content) !== object.oid)
      throw new BundleError(
        'object-mismatch',
        `${label}: the bytes stored as ${object.type} ${object.oid} hash to another id; the bundle was altered`,
      );
  }
  const base = objects.find((object) => object.oid === baseCommit);
  if (base?.type !== 'commit')
    throw new BundleError(
      'object-mismatch',
      `${label}: holds no commit ${baseCommit}, the task's base commit; the bundle and its task.json disagree`,
    );

  await writeGitDir(gitDir, { bare: true, branch: REHYDRATED_BRANCH, commit: baseCommit });
  await writePack(gitDir, objects);

  const closure = await closureOf(['--git-dir', gitDir], gitDir, baseCommit).catch((error: unknown) => {
    if (!(error instanceof ExecutionError)) throw error;
    throw new BundleError(
      'object-mismatch',
      `${label}: lacks objects of ${baseCommit}'s history (${error.message}); the bundle is incomplete`,
      { cause: error },
    );
  });
  if (closure.length !== objects.length || closure.some((oid, index) => objects[index]?.oid !== oid)) {
    throw new BundleError(
      'object-mismatch',
      `${label}: holds ${objects.length} objects where ${baseCommit}'s closure has ${closure.length}; a bundle carries base's history and nothing else`,
    );
  }
  return objects.length;
}
