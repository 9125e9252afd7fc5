// The transparency log as the read-only API sees it: a snapshot of its complete entries and the sizes it has signed
// checkpoints for, and the proofs a consumer checks against those checkpoints (transparency/audit.ts verifyInclusionOf,
// verifyConsistencyOf). Never opens the log for writing: the worker is its one writer, and may be appending meanwhile.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConsistencyProof, InclusionProof, LogEntry } from '@abp/protocol/transparency/formats';
import { CHECKPOINTS_DIR, ENTRIES_FILE, parseEntries } from '@abp/protocol/transparency/log';
import { consistencyProof, inclusionProof, leafHash } from '@abp/protocol/transparency/merkle';

export interface LogSnapshot {
  entries: readonly LogEntry[];
  leafHashes: readonly Buffer[];
}

const NEWLINE = 0x0a;

/**
 * The entries whose lines are complete. Unlike transparency/log.ts readEntryLines, a last line without its newline is
 * left out rather than reported torn: here it is an append in progress, and it is published once its newline is.
 */
export async function readLogSnapshot(dir: string): Promise<LogSnapshot> {
  let content: Buffer;
  try {
    content = await readFile(join(dir, ENTRIES_FILE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], leafHashes: [] };
    throw error;
  }
  const lines: Buffer[] = [];
  let start = 0;
  for (let end = content.indexOf(NEWLINE); end !== -1; end = content.indexOf(NEWLINE, start)) {
    lines.push(content.subarray(start, end));
    start = end + 1;
  }
  return { entries: parseEntries(lines), leafHashes: lines.map((line) => leafHash(line)) };
}

/** The sizes the log has signed checkpoints for, smallest first. */
export async function checkpointSizes(dir: string): Promise<number[]> {
  const names = await readdir(join(dir, CHECKPOINTS_DIR)).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  return names
    .flatMap((name) => /^([1-9]\d{0,15})\.json$/.exec(name)?.[1] ?? [])
    .map(Number)
    .sort((a, b) => a - b);
}

export function checkpointPath(dir: string, size: number): string {
  return join(dir, CHECKPOINTS_DIR, `${size}.json`);
}

/** The proof that entry `index` is in the tree of the first `size` entries; both checked by the caller. */
export function proveInclusion(snapshot: LogSnapshot, index: number, size: number): InclusionProof {
  const path = inclusionProof(snapshot.leafHashes.slice(0, size), index);
  return { index, size, path: path.map((hash) => hash.toString('base64')) };
}

/** The proof that the tree of `oldSize` entries is a prefix of the tree of `newSize`; both checked by the caller. */
export function proveConsistency(snapshot: LogSnapshot, oldSize: number, newSize: number): ConsistencyProof {
  const path = consistencyProof(snapshot.leafHashes.slice(0, newSize), oldSize);
  return { oldSize, newSize, path: path.map((hash) => hash.toString('base64')) };
}
