// Owns reading an agent's patch: the output of `git <PATCH_GIT_ARGS> <base>`, split into one
// FileChange per file, each keeping its own section of the patch verbatim so it can be re-applied.

import { PatchError } from './errors.js';

/**
 * The git arguments whose output parsePatch reads (append the base commit). Every option
 * that a user's or a repository's git config could change is pinned: rename detection on
 * (a moved file is not a rewrite), three lines of context (findTestWeakening relies on
 * context to tell an emptied file), a/ b/ prefixes, quoted non-ASCII paths, no external
 * diff or textconv, one-line submodule entries. Copies are not detected (no -C).
 */
export const PATCH_GIT_ARGS = [
  '-c',
  'core.quotePath=true',
  'diff',
  '--binary',
  '--no-color',
  '--no-ext-diff',
  '--no-textconv',
  '--find-renames',
  '--unified=3',
  '--diff-algorithm=myers',
  '--submodule=short',
  '--src-prefix=a/',
  '--dst-prefix=b/',
] as const;

export interface FileChange {
  /** The path after the change (for a deletion, the deleted path). Repository-relative, '/'-separated. */
  path: string;
  /** The path before a rename; null for every other status. */
  oldPath: string | null;
  status: 'added' | 'modified' | 'deleted' | 'renamed';
  binary: boolean;
  /** Lines the patch adds, without the '+' marker or the newline. */
  addedLines: string[];
  /** Lines the patch removes, without the '-' marker or the newline. */
  removedLines: string[];
  /** This file's section of the patch, verbatim, from its `diff --git` line on. */
  text: string;
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;
const BINARY_BLOCK_HEADER = /^(?:literal|delta) \d+$/;
// git's base85 alphabet, one length character first (see git's base85.c).
const BINARY_DATA_LINE = /^[A-Za-z][0-9A-Za-z!#$%&()*+;<=>?@^_`{|}~-]+$/;
const C_ESCAPES: Readonly<Record<string, number>> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };

interface Line {
  readonly content: string;
  readonly start: number;
}

export function parsePatch(text: string): FileChange[] {
  const lines = splitLines(text);
  const changes: FileChange[] = [];
  let index = 0;
  while (index < lines.length) {
    const { change, next } = parseSection(lines, index);
    change.text = text.slice(lines[index]?.start ?? 0, lines[next]?.start ?? text.length);
    changes.push(change);
    index = next;
  }
  return changes;
}

function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  while (start < text.length) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    lines.push({ content: text.slice(start, end), start });
    start = end + 1;
  }
  return lines;
}

/** The file section starting at `index` (its `text` still empty) and the index after it. */
function parseSection(lines: readonly Line[], index: number): { change: FileChange; next: number } {
  const header = at(lines, index);
  if (!header.startsWith('diff --git ')) {
    throw unexpected(index, header, 'expected a `diff --git` line');
  }
  let i = index + 1;
  let status: FileChange['status'] = 'modified';
  let renameFrom: string | null = null;
  let renameTo: string | null = null;
  for (; i < lines.length; i += 1) {
    const line = at(lines, i);
    if (isSectionBody(line)) break;
    if (line.startsWith('new file mode ')) status = 'added';
    else if (line.startsWith('deleted file mode ')) status = 'deleted';
    else if (line.startsWith('rename from ')) renameFrom = parsePathToken(line.slice('rename from '.length), i);
    else if (line.startsWith('rename to ')) renameTo = parsePathToken(line.slice('rename to '.length), i);
    else if (line.startsWith('copy from ') || line.startsWith('copy to ')) {
      throw new PatchError(
        'unsupported-copy',
        `patch line ${i + 1} is a copy ("${line}"); produce the patch without -C/--find-copies (see PATCH_GIT_ARGS)`,
      );
    } else if (!/^(?:old mode|new mode|similarity index|dissimilarity index|index) /.test(line)) {
      throw unexpected(i, line, 'expected an extended header line (mode, rename, index)');
    }
  }

  const change: FileChange = {
    path: '',
    oldPath: null,
    status,
    binary: false,
    addedLines: [],
    removedLines: [],
    text: '',
  };
  let oldName: string | null = null;
  let newName: string | null = null;
  let sawFileNames = false;
  const body = lines[i]?.content;
  if (body?.startsWith('--- ')) {
    oldName = parseDiffName(body.slice(4), 'a/', i);
    const plus = lines[i + 1]?.content;
    if (plus?.startsWith('+++ ') !== true) throw unexpected(i + 1, plus ?? '', 'expected a `+++` line after `---`');
    newName = parseDiffName(plus.slice(4), 'b/', i + 1);
    sawFileNames = true;
    i += 2;
    while (lines[i]?.content.startsWith('@@') === true) i = parseHunk(lines, i, change);
  } else if (body === 'GIT binary patch') {
    change.binary = true;
    i = skipBinaryPatch(lines, i + 1);
  } else if (body?.startsWith('Binary files ') === true && body.endsWith(' differ')) {
    change.binary = true;
    i += 1;
  }
  if (i < lines.length && !at(lines, i).startsWith('diff --git ')) {
    throw unexpected(i, at(lines, i), 'expected a hunk or the next `diff --git` line');
  }

  if (renameFrom !== null || renameTo !== null) {
    if (renameFrom === null || renameTo === null) {
      throw new PatchError(
        'bad-file-header',
        `the section at patch line ${index + 1} has only one of "rename from" / "rename to"`,
      );
    }
    change.status = 'renamed';
    change.oldPath = renameFrom;
    change.path = renameTo;
  } else if (sawFileNames) {
    const name = status === 'deleted' ? oldName : newName;
    if (name === null) {
      throw new PatchError(
        'bad-file-header',
        `the section at patch line ${index + 1} names /dev/null for a ${status} file`,
      );
    }
    change.path = name;
  } else {
    change.path = parseSamePathHeader(header.slice('diff --git '.length), index);
  }
  return { change, next: i };
}

function isSectionBody(line: string): boolean {
  return (
    line.startsWith('diff --git ') ||
    line.startsWith('--- ') ||
    line.startsWith('@@') ||
    line === 'GIT binary patch' ||
    line.startsWith('Binary files ')
  );
}

function parseHunk(lines: readonly Line[], index: number, change: FileChange): number {
  const header = at(lines, index);
  const match = HUNK_HEADER.exec(header);
  if (match === null) {
    throw new PatchError(
      'bad-hunk-header',
      `patch line ${index + 1} is not a hunk header of the form "@@ -1,3 +1,4 @@": "${header}"`,
    );
  }
  let oldLeft = Number(match[2] ?? '1');
  let newLeft = Number(match[4] ?? '1');
  let i = index + 1;
  while (oldLeft > 0 || newLeft > 0) {
    const line = lines[i]?.content;
    if (line === undefined) {
      throw new PatchError(
        'hunk-length-mismatch',
        `the hunk at patch line ${index + 1} ends early: ${oldLeft} old and ${newLeft} new lines missing; was the patch truncated?`,
      );
    }
    const marker = line.charAt(0);
    // An empty line is an empty context line whose space was dropped (git's diff.suppressBlankEmpty).
    if ((marker === ' ' || line === '') && oldLeft > 0 && newLeft > 0) {
      oldLeft -= 1;
      newLeft -= 1;
    } else if (marker === '-' && oldLeft > 0) {
      change.removedLines.push(line.slice(1));
      oldLeft -= 1;
    } else if (marker === '+' && newLeft > 0) {
      change.addedLines.push(line.slice(1));
      newLeft -= 1;
    } else if (marker !== '\\') {
      throw new PatchError(
        'hunk-length-mismatch',
        `patch line ${i + 1} ("${line}") does not fit the hunk header at line ${index + 1}; was the patch edited by hand?`,
      );
    }
    i += 1;
  }
  // "\ No newline at end of file" follows the last line it qualifies.
  while (lines[i]?.content.startsWith('\\') === true) i += 1;
  return i;
}

function skipBinaryPatch(lines: readonly Line[], index: number): number {
  if (!BINARY_BLOCK_HEADER.test(lines[index]?.content ?? '')) {
    throw new PatchError(
      'bad-binary-patch',
      `patch line ${index + 1} should start a binary block ("literal N" or "delta N")`,
    );
  }
  let i = index;
  for (; i < lines.length; i += 1) {
    const line = at(lines, i);
    if (line.startsWith('diff --git ')) break;
    if (line !== '' && !BINARY_BLOCK_HEADER.test(line) && !BINARY_DATA_LINE.test(line)) {
      throw new PatchError('bad-binary-patch', `patch line ${i + 1} is not part of a git binary patch: "${line}"`);
    }
  }
  return i;
}

/** A path on a `---`/`+++` line: /dev/null, or prefix + path, maybe quoted, maybe followed by a tab. */
function parseDiffName(rest: string, prefix: string, index: number): string | null {
  if (rest === '/dev/null') return null;
  let name: string;
  if (rest.startsWith('"')) {
    const quoted = parseQuoted(rest, 0, index);
    if (quoted.end !== rest.length && rest.charAt(quoted.end) !== '\t') {
      throw new PatchError('bad-quoted-path', `patch line ${index + 1} has text after the quoted path: "${rest}"`);
    }
    name = quoted.value;
  } else {
    // git appends a tab after a name containing a space, so that the name's end is unambiguous.
    const tab = rest.indexOf('\t');
    name = tab === -1 ? rest : rest.slice(0, tab);
  }
  return stripPrefix(name, prefix, index);
}

/** A path after "rename from"/"rename to": no prefix, maybe quoted. */
function parsePathToken(rest: string, index: number): string {
  if (!rest.startsWith('"')) return rest;
  const quoted = parseQuoted(rest, 0, index);
  if (quoted.end !== rest.length) {
    throw new PatchError('bad-quoted-path', `patch line ${index + 1} has text after the quoted path: "${rest}"`);
  }
  return quoted.value;
}

/**
 * The path of a section with no `---`/`+++` or rename lines (mode-only, binary, empty file):
 * its header names the same path twice, as `a/P b/P`, each side quoted or not alike.
 */
function parseSamePathHeader(names: string, index: number): string {
  let oldName: string;
  let newName: string;
  if (names.startsWith('"')) {
    const first = parseQuoted(names, 0, index);
    if (names.charAt(first.end) !== ' ' || names.charAt(first.end + 1) !== '"') {
      throw new PatchError(
        'bad-file-header',
        `patch line ${index + 1} should name two quoted paths: "diff --git ${names}"`,
      );
    }
    const second = parseQuoted(names, first.end + 1, index);
    if (second.end !== names.length)
      throw new PatchError('bad-file-header', `patch line ${index + 1} has text after the second path`);
    oldName = first.value;
    newName = second.value;
  } else {
    // Unquoted names may contain spaces, so split "a/P b/P" in the middle.
    const half = (names.length - 1) / 2;
    oldName = names.slice(0, half);
    newName = names.slice(half + 1);
  }
  const oldPath = stripPrefix(oldName, 'a/', index);
  const newPath = stripPrefix(newName, 'b/', index);
  if (oldPath !== newPath) {
    throw new PatchError(
      'bad-file-header',
      `patch line ${index + 1} names two different paths without rename lines: "diff --git ${names}"`,
    );
  }
  return oldPath;
}

function stripPrefix(name: string, prefix: string, index: number): string {
  if (!name.startsWith(prefix) || name.length === prefix.length) {
    throw new PatchError(
      'bad-file-header',
      `patch line ${index + 1}: the path "${name}" lacks the "${prefix}" prefix; produce the patch with --src-prefix=a/ --dst-prefix=b/ (see PATCH_GIT_ARGS)`,
    );
  }
  return name.slice(prefix.length);
}

/** A C-style quoted string as git writes it (octal escapes are UTF-8 bytes). */
function parseQuoted(text: string, start: number, index: number): { value: string; end: number } {
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  let i = start + 1;
  for (;;) {
    const char = text.charAt(i);
    if (char === '')
      throw new PatchError('bad-quoted-path', `patch line ${index + 1} has an unterminated quoted path: ${text}`);
    if (char === '"') break;
    if (char !== '\\') {
      bytes.push(...encoder.encode(char));
      i += 1;
      continue;
    }
    const escaped = text.charAt(i + 1);
    const octal = /^[0-3][0-7]{2}/.exec(text.slice(i + 1, i + 4));
    const simple = C_ESCAPES[escaped];
    if (octal !== null) {
      bytes.push(parseInt(octal[0], 8));
      i += 4;
    } else if (simple !== undefined) {
      bytes.push(simple);
      i += 2;
    } else {
      throw new PatchError(
        'bad-quoted-path',
        `patch line ${index + 1} has an unknown escape "\\${escaped}" in a quoted path`,
      );
    }
  }
  try {
    return { value: new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array(bytes)), end: i + 1 };
  } catch (cause) {
    throw new PatchError(
      'bad-quoted-path',
      `patch line ${index + 1} names a path that is not UTF-8; rename the file to UTF-8`,
      { cause },
    );
  }
}

function at(lines: readonly Line[], index: number): string {
  const line = lines[index];
  if (line === undefined) throw new PatchError('unexpected-line', `the patch ends unexpectedly at line ${index + 1}`);
  return line.content;
}

function unexpected(index: number, line: string, expected: string): PatchError {
  return new PatchError(
    'unexpected-line',
    `patch line ${index + 1} ("${line.slice(0, 80)}") is not git diff output: ${expected}`,
  );
}
