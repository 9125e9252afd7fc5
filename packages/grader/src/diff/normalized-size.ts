// Owns the normalized diff size that ranks resolved runs (spec §4.3, §4.5), as published in
// DIFF_SIZE_RULES (diff-size-rules.ts): change one, change the other.

import { runProgram } from '../execution/run-program.js';
import { PatchError } from './errors.js';
import { classifyChange, isGeneratedContent, type PathKind, type PathRules } from './paths.js';
import type { FileChange } from './patch.js';

export interface DiffSize {
  codeBytes: number;
  testBytes: number;
  /** Lockfiles, generated files and documentation, measured raw: informational, never ranked. */
  excludedBytes: number;
  /** Code files added, deleted, renamed, or whose normalized diff is not empty. */
  filesTouched: number;
  perFile: Array<{ path: string; kind: PathKind; bytes: number; formatter: string | null }>;
}

export interface DiffSizeInput {
  changes: readonly FileChange[];
  /** The file at the base commit; null when it does not exist there. */
  before(path: string): Promise<Buffer | null>;
  /** The file after the agent's change; null when it does not exist. */
  after(path: string): Promise<Buffer | null>;
  rules?: PathRules;
}

type FormatterName = 'prettier' | 'gofmt' | 'rustfmt';

const PRETTIER_EXTENSIONS = new Set([
  'js',
  'jsx',
  'ts',
  'tsx',
  'mjs',
  'cjs',
  'json',
  'css',
  'scss',
  'md',
  'yaml',
  'yml',
  'html',
]);
const FORMATTER_TIMEOUT_MS = 30_000;
// Above this many DP cells (lines present on both sides, multiplied), a region counts as wholly
// changed: an upper bound that keeps a pathological rewrite from stalling the grader.
const MAX_COMMON_CELLS = 50_000_000;

export async function normalizedDiffSize(input: DiffSizeInput): Promise<DiffSize> {
  const size: DiffSize = { codeBytes: 0, testBytes: 0, excludedBytes: 0, filesTouched: 0, perFile: [] };
  for (const change of input.changes) {
    const measured = await measureFile(change, input);
    size.perFile.push({ path: change.path, ...measured });
    if (measured.kind === 'code') {
      size.codeBytes += measured.bytes;
      if (measured.bytes > 0 || change.status !== 'modified') size.filesTouched += 1;
    } else if (measured.kind === 'test') {
      size.testBytes += measured.bytes;
    } else {
      size.excludedBytes += measured.bytes;
    }
  }
  return size;
}

async function measureFile(
  change: FileChange,
  input: DiffSizeInput,
): Promise<{ kind: PathKind; bytes: number; formatter: FormatterName | null }> {
  const kind = classifyChange(change, input.rules);
  if ((kind === 'lockfile' || kind === 'generated' || kind === 'docs') && !change.binary) {
    return { kind, bytes: patchLineBytes(change), formatter: null };
  }
  const oldPath = change.oldPath ?? change.path;
  const before =
    change.status === 'added' ? Buffer.alloc(0) : await readSide((path) => input.before(path), oldPath, 'before');
  const after =
    change.status === 'deleted' ? Buffer.alloc(0) : await readSide((path) => input.after(path), change.path, 'after');
  if (change.binary) return { kind, bytes: changedBinaryBytes(before, after), formatter: null };
  const beforeText = before.toString('utf8');
  // Only the base version can mark a file generated: a header the agent adds must not hide its code.
  if (kind === 'code' && isGeneratedContent(beforeText)) {
    return { kind: 'generated', bytes: patchLineBytes(change), formatter: null };
  }
  const canonical = await canonicalize(
    change.path,
    change.status === 'added' ? null : beforeText,
    change.status === 'deleted' ? null : after.toString('utf8'),
  );
  return { kind, bytes: changedLineBytes(canonical.before, canonical.after), formatter: canonical.formatter };
}

async function readSide(
  read: (path: string) => Promise<Buffer | null>,
  path: string,
  side: 'before' | 'after',
): Promise<Buffer> {
  const content = await read(path);
  if (content === null) {
    throw new PatchError(
      'missing-content',
      `the patch changes "${path}" but ${side}("${path}") returned null; pass contents of the same base and tree the patch was made from`,
    );
  }
  return content;
}

/** Excluded files are measured raw from the patch: informational, and it spares formatting huge lockfiles (and docs). */
function patchLineBytes(change: FileChange): number {
  let bytes = 0;
  for (const line of [...change.addedLines, ...change.removedLines]) bytes += Buffer.byteLength(line) + 1;
  return bytes;
}

/** Bytes between the longest common prefix and the longest common suffix, on both sides. */
function changedBinaryBytes(before: Buffer, after: Buffer): number {
  const shorter = Math.min(before.length, after.length);
  let prefix = 0;
  while (prefix < shorter && before[prefix] === after[prefix]) prefix += 1;
  let suffix = 0;
  while (suffix < shorter - prefix && before[before.length - 1 - suffix] === after[after.length - 1 - suffix])
    suffix += 1;
  return before.length + after.length - 2 * (prefix + suffix);
}

// ---- canonicalization ----

async function canonicalize(
  path: string,
  before: string | null,
  after: string | null,
): Promise<{ before: string; after: string; formatter: FormatterName | null }> {
  const sides = [before, after].map((text) => (text === null ? null : text.replace(/\r\n/g, '\n')));
  const formatter = formatterFor(path);
  if (formatter !== null && (await isAvailable(formatter))) {
    const formatted = await Promise.all(
      sides.map(async (text) => (text === null ? '' : format(formatter, path, text))),
    );
    const [formattedBefore, formattedAfter] = formatted;
    if (typeof formattedBefore === 'string' && typeof formattedAfter === 'string') {
      return { before: formattedBefore, after: formattedAfter, formatter };
    }
  }
  const [fallbackBefore, fallbackAfter] = sides.map((text) => (text === null ? '' : fallbackCanonical(text)));
  return { before: fallbackBefore ?? '', after: fallbackAfter ?? '', formatter: null };
}

/** Trailing whitespace stripped, runs of blank lines collapsed to one, exactly one final newline. */
function fallbackCanonical(text: string): string {
  const collapsed = text
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/\n+$/, '');
  return collapsed === '' ? '' : `${collapsed}\n`;
}

function formatterFor(path: string): FormatterName | null {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return null;
  const extension = name.slice(dot + 1);
  if (PRETTIER_EXTENSIONS.has(extension)) return 'prettier';
  if (extension === 'go') return 'gofmt';
  if (extension === 'rs') return 'rustfmt';
  return null;
}

/** The formatted text, or null when the formatter rejects it (a syntax error, a timeout). */
async function format(formatter: FormatterName, path: string, text: string): Promise<string | null> {
  switch (formatter) {
    case 'prettier': {
      const prettier = await import('prettier');
      // Default options and no config lookup: the repository's own style must not change the count.
      return prettier.format(text, { filepath: path }).catch(() => null);
    }
    case 'gofmt':
      return runFilter('gofmt', [], text);
    case 'rustfmt':
      // --config-path /dev/null: ignore any rustfmt.toml in the working directory or above.
      return runFilter('rustfmt', ['--emit', 'stdout', '--edition', '2021', '--config-path', '/dev/null'], text);
  }
}

const availability = new Map<FormatterName, Promise<boolean>>();

/** Checked once per process, so a missing tool costs one probe, not one per file. */
function isAvailable(formatter: FormatterName): Promise<boolean> {
  let available = availability.get(formatter);
  if (available === undefined) {
    available = probe(formatter);
    availability.set(formatter, available);
  }
  return available;
}

async function probe(formatter: FormatterName): Promise<boolean> {
  switch (formatter) {
    case 'prettier':
      return import('prettier').then(
        () => true,
        () => false,
      );
    case 'gofmt':
      return (await runFilter('gofmt', [], 'package probe\n')) !== null;
    case 'rustfmt':
      return (await runFilter('rustfmt', ['--version'], '')) !== null;
  }
}

/**
 * Runs `command` (found on PATH) with `input` on stdin, from `/` so that no configuration file of the grader's own
 * folder applies; its stdout if it exits 0, else null. Toolchain managers (rustup) find their toolchain through HOME
 * and their own variables, so those pass; nothing else of the grader's environment does.
 */
async function runFilter(command: string, args: readonly string[], input: string): Promise<string | null> {
  const env = Object.fromEntries(
    ['PATH', 'HOME', 'RUSTUP_HOME', 'RUSTUP_TOOLCHAIN', 'CARGO_HOME'].flatMap((name) =>
      process.env[name] ? [[name, process.env[name]]] : [],
    ),
  );
  return runProgram([command, ...args], { cwd: '/', env, input, timeoutMs: FORMATTER_TIMEOUT_MS }).then(
    (result) => result.stdout.toString('utf8'),
    () => null,
  );
}

// ---- the line diff ----

/**
 * Bytes of the removed plus added lines (each with its newline) of the line diff that keeps
 * the most bytes in common. That quantity is unique, so it does not depend on how an
 * implementation breaks ties between equally short edit scripts.
 */
function changedLineBytes(before: string, after: string): number {
  const a = splitLines(before);
  const b = splitLines(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA -= 1;
    endB -= 1;
  }
  const middleA = a.slice(start, endA);
  const middleB = b.slice(start, endB);
  return totalBytes(middleA) + totalBytes(middleB) - 2 * maxCommonBytes(middleA, middleB);
}

/** Lines with their newline; the last one lacks it when the text does not end in one. */
function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

function totalBytes(lines: readonly string[]): number {
  let bytes = 0;
  for (const line of lines) bytes += Buffer.byteLength(line);
  return bytes;
}

/** Byte-weighted longest common subsequence, in O(rows × columns) time and O(columns) space. */
function maxCommonBytes(a: readonly string[], b: readonly string[]): number {
  // A line found on one side only can never be common; dropping it shrinks the table.
  const inA = new Set(a);
  const inB = new Set(b);
  const rows = a.filter((line) => inB.has(line));
  const columns = b.filter((line) => inA.has(line));
  if (rows.length === 0 || columns.length === 0 || rows.length * columns.length > MAX_COMMON_CELLS) return 0;
  const ids = new Map<string, number>();
  const idOf = (line: string): number => {
    let id = ids.get(line);
    if (id === undefined) {
      id = ids.size;
      ids.set(line, id);
    }
    return id;
  };
  const rowIds = Int32Array.from(rows, idOf);
  const columnIds = Int32Array.from(columns, idOf);
  const rowWeights = Float64Array.from(rows, (line) => Buffer.byteLength(line));
  // best[j]: the most common bytes between the rows so far and the first j columns.
  const best = new Float64Array(columns.length + 1);
  for (let i = 0; i < rowIds.length; i += 1) {
    const id = rowIds[i];
    const weight = rowWeights[i] ?? 0;
    let diagonal = 0;
    let left = 0;
    for (let j = 0; j < columnIds.length; j += 1) {
      const up = best[j + 1] ?? 0;
      const value = columnIds[j] === id ? diagonal + weight : up > left ? up : left;
      best[j + 1] = value;
      diagonal = up;
      left = value;
    }
  }
  return best[columns.length] ?? 0;
}
