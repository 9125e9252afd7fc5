// abp's append-only transparency log in one folder: entries.jsonl holds one canonical JSON line per logged statement
// (the line is the Merkle leaf), checkpoints/<size>.json the signed tree heads. One writer per folder; readers and
// auditors only read. docs/transparency-log.md describes the formats and how to verify them.
import { mkdir, open, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { z } from 'zod';
import { canonicalJson } from '../schemas/canonical-json.js';
import { syncFolder, writeFileOnce } from '../files/durable-files.js';
import { describeIssues, TransparencyError } from './errors.js';
import {
  checkSigningKey,
  entryLine,
  isOrigin,
  logEntrySchema,
  parseEntryLine,
  parseSignedCheckpoint,
  signCheckpoint,
  type CheckpointSigningKey,
  type ConsistencyProof,
  type InclusionProof,
  type LogEntry,
  type SignedCheckpoint,
} from './formats.js';
import { consistencyProof, inclusionProof, leafHash, rootOf } from './merkle.js';

export const ENTRIES_FILE = 'entries.jsonl';
export const CHECKPOINTS_DIR = 'checkpoints';

const NEWLINE = 0x0a;

const appendInputSchema = logEntrySchema
  .omit({ index: true })
  .extend({ appendedAt: logEntrySchema.shape.appendedAt.optional() });
/** What a caller logs: the log assigns the index, and the time unless one is given. */
export type AppendInput = z.input<typeof appendInputSchema>;

export interface Appended {
  index: number;
  /** Base64 of the entry's leaf hash. */
  leafHash: string;
  entry: LogEntry;
}

/** The raw contents of entries.jsonl: every complete line, its bytes and its leaf hash. */
export interface EntryLines {
  lines: Buffer[];
  leafHashes: Buffer[];
  byteLength: number;
}

export interface TransparencyLog {
  readonly dir: string;
  readonly origin: string;
  /** The number of entries. */
  size(): number;
  entries(): readonly LogEntry[];
  /** Base64 tree head of the first `size` entries (default all). */
  rootHash(size?: number): string;
  /** Appends an entry, or returns the existing one when the same (kind, subject, digest) is already logged. */
  append(input: AppendInput): Promise<Appended>;
  /** Signs the current tree head into checkpoints/<size>.json; returns the stored one when that size is checkpointed. */
  checkpoint(signingKey: CheckpointSigningKey): Promise<SignedCheckpoint>;
  proveInclusion(index: number, size?: number): InclusionProof;
  proveConsistency(oldSize: number, newSize?: number): ConsistencyProof;
  /** The stored checkpoints, smallest first. */
  checkpoints(): Promise<SignedCheckpoint[]>;
}

/**
 * Reads entries.jsonl without judging its entries. A last line without its newline is a torn append (a crash or a full
 * disk mid-write): it is reported as `torn-entry`, never dropped, since only an operator can tell whether to cut it.
 */
export async function readEntryLines(dir: string): Promise<EntryLines> {
  const path = join(dir, ENTRIES_FILE);
  let content: Buffer;
  try {
    content = await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { lines: [], leafHashes: [], byteLength: 0 };
    throw error;
  }
  const lines: Buffer[] = [];
  let start = 0;
  while (start < content.length) {
    const end = content.indexOf(NEWLINE, start);
    if (end === -1) {
      throw new TransparencyError(
        'torn-entry',
        `${path} ends in an incomplete line ${lines.length + 1} (bytes ${start}..${content.length}): an append was interrupted; ` +
          `if no checkpoint covers ${lines.length + 1} entries, cut the file back to ${start} bytes with \`truncate -s ${start} ${path}\``,
      );
    }
    lines.push(content.subarray(start, end));
    start = end + 1;
  }
  return { lines, leafHashes: lines.map((line) => leafHash(line)), byteLength: content.length };
}

/** Parses every line as a canonical entry whose index is its line number. */
export function parseEntries(lines: readonly Buffer[]): LogEntry[] {
  return lines.map((bytes, position) => {
    const line = bytes.toString('utf8');
    const entry = parseEntryLine(line, position);
    if (entry.index > position) {
      throw new TransparencyError(
        'entry-dropped',
        `line ${position + 1} of ${ENTRIES_FILE} holds entry ${entry.index}: entries ${position}..${entry.index - 1} are missing`,
      );
    }
    if (entry.index < position) {
      throw new TransparencyError(
        'malformed-entry',
        `line ${position + 1} of ${ENTRIES_FILE} holds entry ${entry.index} again or out of order`,
      );
    }
    // The leaf is the line's bytes, and a consumer recomputes them from the entry: both must agree.
    if (line !== entryLine(entry))
      throw new TransparencyError(
        'malformed-entry',
        `line ${position + 1} of ${ENTRIES_FILE} is not in canonical JSON form`,
      );
    return entry;
  });
}

/** Reads checkpoints/, smallest first; a file must be named by its checkpoint's size. Temporary dot files are skipped. */
export async function readCheckpoints(dir: string): Promise<SignedCheckpoint[]> {
  const folder = join(dir, CHECKPOINTS_DIR);
  let names: string[];
  try {
    names = await readdir(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const checkpoints: SignedCheckpoint[] = [];
  for (const name of names) {
    if (name.startsWith('.')) continue;
    const path = join(folder, name);
    if (!/^[1-9][0-9]*\.json$/.test(name))
      throw new TransparencyError('malformed-checkpoint', `${path} is not named <size>.json`);
    const signed = await readCheckpointFile(path);
    if (`${signed.checkpoint.size}.json` !== name) {
      throw new TransparencyError(
        'malformed-checkpoint',
        `${path} holds the checkpoint of size ${signed.checkpoint.size}`,
      );
    }
    checkpoints.push(signed);
  }
  return checkpoints.sort((a, b) => a.checkpoint.size - b.checkpoint.size);
}

async function readCheckpointFile(path: string): Promise<SignedCheckpoint> {
  const text = await readFile(path, 'utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new TransparencyError('malformed-checkpoint', `${path} is not JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return parseSignedCheckpoint(value, path);
}

function identityOf(entry: Pick<LogEntry, 'kind' | 'subject' | 'digest'>): string {
  return JSON.stringify([entry.kind, entry.subject, entry.digest]);
}

function checkRange(name: string, value: number, min: number, max: number): void {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new TransparencyError(
      'out-of-range',
      `${name} must be from ${min} to ${max} for a log of ${max} entries, got ${value}`,
    );
  }
}

class FolderLog implements TransparencyLog {
  private readonly logged: LogEntry[];
  private readonly leafHashes: Buffer[];
  private readonly byIdentity = new Map<string, number>();
  private byteLength: number;
  // Appends and checkpoints run one at a time: an index is assigned, written and counted before the next begins.
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly dir: string,
    readonly origin: string,
    entries: LogEntry[],
    lines: EntryLines,
  ) {
    this.logged = entries;
    this.leafHashes = lines.leafHashes;
    this.byteLength = lines.byteLength;
    for (const entry of entries) this.byIdentity.set(identityOf(entry), entry.index);
  }

  size(): number {
    return this.logged.length;
  }

  entries(): readonly LogEntry[] {
    return this.logged;
  }

  rootHash(size = this.logged.length): string {
    checkRange('size', size, 0, this.logged.length);
    return rootOf(this.leafHashes.slice(0, size)).toString('base64');
  }

  append(input: AppendInput): Promise<Appended> {
    return this.serialize(() => this.appendNow(input));
  }

  async checkpoint(signingKey: CheckpointSigningKey): Promise<SignedCheckpoint> {
    checkSigningKey(signingKey);
    return this.serialize(() => this.checkpointNow(signingKey));
  }

  proveInclusion(index: number, size = this.logged.length): InclusionProof {
    checkRange('size', size, 1, this.logged.length);
    checkRange('index', index, 0, size - 1);
    const path = inclusionProof(this.leafHashes.slice(0, size), index);
    return { index, size, path: path.map((hash) => hash.toString('base64')) };
  }

  proveConsistency(oldSize: number, newSize = this.logged.length): ConsistencyProof {
    checkRange('newSize', newSize, 1, this.logged.length);
    checkRange('oldSize', oldSize, 1, newSize);
    const path = consistencyProof(this.leafHashes.slice(0, newSize), oldSize);
    return { oldSize, newSize, path: path.map((hash) => hash.toString('base64')) };
  }

  checkpoints(): Promise<SignedCheckpoint[]> {
    return readCheckpoints(this.dir);
  }

  private serialize<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async appendNow(input: AppendInput): Promise<Appended> {
    const parsed = appendInputSchema.safeParse(input);
    if (!parsed.success)
      throw new TransparencyError('invalid-entry', `not a log entry: ${describeIssues(parsed.error.issues)}`);
    const known = this.byIdentity.get(identityOf(parsed.data));
    if (known !== undefined) return this.appended(known);

    const entry: LogEntry = {
      index: this.logged.length,
      kind: parsed.data.kind,
      subject: parsed.data.subject,
      digest: parsed.data.digest,
      appendedAt: parsed.data.appendedAt ?? new Date().toISOString(),
    };
    const line = Buffer.from(entryLine(entry), 'utf8');
    const record = Buffer.concat([line, Buffer.from([NEWLINE])]);
    const path = join(this.dir, ENTRIES_FILE);
    const handle = await open(path, 'a'); // O_APPEND: the line lands at the end whatever the file offset says
    try {
      const { size } = await handle.stat();
      if (size !== this.byteLength) {
        throw new TransparencyError(
          'concurrent-append',
          `${path} changed since this log was opened (${this.byteLength} bytes then, ${size} now): abp allows one writer per log; reopen it`,
        );
      }
      // One write call: a reader never sees half a line unless the disk fills or the machine dies mid-write.
      const { bytesWritten } = await handle.write(record);
      if (bytesWritten !== record.length) {
        throw new TransparencyError(
          'torn-entry',
          `${path}: only ${bytesWritten} of ${record.length} bytes of entry ${entry.index} were written`,
        );
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (this.byteLength === 0) await syncFolder(this.dir); // the first append may have created the file: its name must survive a crash too
    this.byteLength += record.length;
    this.logged.push(entry);
    this.leafHashes.push(leafHash(line));
    this.byIdentity.set(identityOf(entry), entry.index);
    return this.appended(entry.index);
  }

  private appended(index: number): Appended {
    const entry = this.logged[index];
    const hash = this.leafHashes[index];
    if (entry === undefined || hash === undefined) throw new RangeError(`no entry ${index}`);
    return { index, leafHash: hash.toString('base64'), entry };
  }

  private async checkpointNow(signingKey: CheckpointSigningKey): Promise<SignedCheckpoint> {
    const size = this.logged.length;
    if (size === 0)
      throw new TransparencyError(
        'empty-log',
        `${this.dir} has no entries yet, and a checkpoint of nothing proves nothing`,
      );
    const rootHash = this.rootHash(size);
    const folder = join(this.dir, CHECKPOINTS_DIR);
    const path = join(folder, `${size}.json`);
    await mkdir(folder, { recursive: true });

    const signed = signCheckpoint(
      { origin: this.origin, size, rootHash, timestamp: new Date().toISOString() },
      signingKey,
    );
    // Written once: a checkpoint once published is never replaced, so a second one for this size finds the first.
    const written = await writeFileOnce(path, `${canonicalJson(signed)}\n`);
    if (!written.created) return this.storedCheckpoint(path, rootHash);
    return signed;
  }

  /** The checkpoint already stored for this size, which must be of this log and this tree. */
  private async storedCheckpoint(path: string, rootHash: string): Promise<SignedCheckpoint> {
    const stored = await readCheckpointFile(path);
    if (stored.checkpoint.origin !== this.origin || stored.checkpoint.rootHash !== rootHash) {
      throw new TransparencyError(
        'inconsistent-checkpoints',
        `${path} signs ${stored.checkpoint.origin} with root ${stored.checkpoint.rootHash}, but ${this.origin} at that size has root ${rootHash}: the entries changed after it was signed; run \`abp audit log\``,
      );
    }
    return stored;
  }
}

/**
 * Opens the log in `dir` (created when missing) for `origin`, `abp-log/<name>`. Fails on a torn last line and on any
 * entry that is not the canonical line of its own index, so nothing is appended on top of a damaged log.
 */
export async function openLog(dir: string, origin: string): Promise<TransparencyLog> {
  if (!isOrigin(origin)) {
    throw new TransparencyError(
      'invalid-origin',
      `the log origin must be "abp-log/<name>" with a name of lowercase letters, digits, ".", "_" and "-", e.g. "abp-log/main"; got ${JSON.stringify(origin)}`,
    );
  }
  await mkdir(dir, { recursive: true });
  const lines = await readEntryLines(dir);
  return new FolderLog(dir, origin, parseEntries(lines.lines), lines);
}
