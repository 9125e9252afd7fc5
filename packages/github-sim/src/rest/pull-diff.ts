// A pull request's changes read from the world's bare git repositories, as GitHub computes them:
// the diff from the merge base of base and head to the head (three dots), with renames found,
// split per file into GitHub's `diff-entry` fields, and the commits as `git format-patch` mail.
// Git runs synchronously, like the live world's writes: short calls on small local repositories
// that never wait on the in-process server. Object ids never change, so results are cached.
import { gitSync } from '../world/live/git.js';

export type DiffStatus = 'added' | 'removed' | 'modified' | 'renamed' | 'copied' | 'changed' | 'unchanged';

export interface DiffFile {
  filename: string;
  /** The path before a rename or copy. */
  previousFilename: string | null;
  status: DiffStatus;
  additions: number;
  deletions: number;
  /** The file's blob at the head; for a removed file, its blob at the base. */
  blob: string;
  /** The hunks from the first `@@` line, as GitHub's `patch`; null for binary and unchanged content. */
  patch: string | null;
}

export interface PullDiff {
  files: DiffFile[];
  /** The whole unified diff, as the `application/vnd.github.diff` media type serves it. */
  text: string;
  /** Added plus deleted lines over all files. */
  changedLines: number;
}

const statusByLetter: Record<string, DiffStatus> = {
  A: 'added',
  D: 'removed',
  M: 'modified',
  R: 'renamed',
  C: 'copied',
  T: 'changed',
};
const diffOptions = ['--no-color', '--no-ext-diff', '--find-renames'];
const cacheSize = 64;
const diffCache = new Map<string, PullDiff>();

interface RawEntry {
  status: DiffStatus;
  oldBlob: string;
  newBlob: string;
  path: string;
  previous: string | null;
}

/** `git diff --raw -z --no-abbrev`: `:<modes> <old> <new> <letter>[score]\0<path>\0[<new path>\0]`. */
function parseRaw(output: string): RawEntry[] {
  const fields = output.split('\0');
  const entries: RawEntry[] = [];
  for (let i = 0; i < fields.length;) {
    const header = fields[i++] ?? '';
    if (header === '') continue;
    const [, , oldBlob = '', newBlob = '', code = ''] = header.slice(1).split(' ');
    const letter = code.charAt(0);
    const status = statusByLetter[letter] ?? 'changed';
    if (letter === 'R' || letter === 'C') {
      const previous = fields[i++] ?? '';
      entries.push({ status, oldBlob, newBlob, path: fields[i++] ?? '', previous });
    } else {
      entries.push({ status, oldBlob, newBlob, path: fields[i++] ?? '', previous: null });
    }
  }
  return entries;
}

/** `git diff --numstat -z`: `<added>\t<deleted>\t<path>\0`, or `...\t\0<old>\0<new>\0` for a rename. */
function parseNumstat(output: string): { additions: number; deletions: number }[] {
  const fields = output.split('\0');
  const counts: { additions: number; deletions: number }[] = [];
  for (let i = 0; i < fields.length;) {
    const record = fields[i++] ?? '';
    if (record === '') continue;
    const [added = '', deleted = '', path = ''] = record.split('\t');
    if (path === '') i += 2;
    // Binary files count as changed with no lines, as GitHub shows them.
    counts.push({ additions: Number.parseInt(added, 10) || 0, deletions: Number.parseInt(deleted, 10) || 0 });
  }
  return counts;
}

/** The per-file parts of a unified diff, each from its `diff --git` line. */
function splitPatch(text: string): string[] {
  const chunks: string[] = [];
  for (const line of text.split('\n')) {
    // Inside a hunk every line starts with ' ', '+', '-', '\' or '@': this can only be a header.
    if (line.startsWith('diff --git ') || chunks.length === 0) chunks.push(line);
    else chunks[chunks.length - 1] += `\n${line}`;
  }
  return chunks.filter((chunk) => chunk.startsWith('diff --git '));
}

function hunks(chunk: string): string | null {
  const lines = chunk.split('\n');
  const first = lines.findIndex((line) => line.startsWith('@@'));
  if (first < 0) return null;
  return lines.slice(first).join('\n').replace(/\n+$/, '');
}

export function pullDiff(gitPath: string, baseOid: string, headOid: string): PullDiff {
  const key = `${gitPath}\0${baseOid}\0${headOid}`;
  const cached = diffCache.get(key);
  if (cached) return cached;
  const range = `${baseOid}...${headOid}`;
  const raw = parseRaw(gitSync(['diff', ...diffOptions, '--raw', '-z', '--no-abbrev', range], { cwd: gitPath }).stdout);
  const counts = parseNumstat(gitSync(['diff', ...diffOptions, '--numstat', '-z', range], { cwd: gitPath }).stdout);
  const text = gitSync(['diff', ...diffOptions, range], { cwd: gitPath }).stdout;
  const chunks = splitPatch(text);
  if (raw.length !== counts.length || raw.length !== chunks.length) {
    throw new Error(
      `git diff ${range} in ${gitPath}: ${raw.length} raw entries, ${counts.length} numstat lines, ${chunks.length} patches`,
    );
  }
  const files = raw.map((entry, index): DiffFile => {
    const count = counts[index] ?? { additions: 0, deletions: 0 };
    const chunk = chunks[index] ?? '';
    const binary = /^(?:Binary files .* differ|GIT binary patch)$/m.test(chunk);
    return {
      filename: entry.path,
      previousFilename: entry.previous,
      status: entry.status,
      additions: count.additions,
      deletions: count.deletions,
      blob: entry.status === 'removed' ? entry.oldBlob : entry.newBlob,
      patch: binary ? null : hunks(chunk),
    };
  });
  const diff: PullDiff = {
    files,
    text,
    changedLines: files.reduce((sum, file) => sum + file.additions + file.deletions, 0),
  };
  diffCache.set(key, diff);
  if (diffCache.size > cacheSize) diffCache.delete(diffCache.keys().next().value ?? key);
  return diff;
}

/** The head's commits as `git format-patch` mail, as the `application/vnd.github.patch` media type serves them. */
export function pullPatch(gitPath: string, baseOid: string, headOid: string): string {
  return gitSync(['format-patch', '--stdout', '--no-signature', ...diffOptions, `${baseOid}..${headOid}`], {
    cwd: gitPath,
  }).stdout;
}

/** A ref as GitHub's commit routes take it (sha, short sha, branch, tag), resolved to a commit; null when unknown. */
export function resolveCommit(gitPath: string, ref: string): string | null {
  // Nothing that git could read as an option, a range or a revision expression.
  if (!/^[A-Za-z0-9][A-Za-z0-9._/-]*$/.test(ref) || ref.includes('..') || ref.endsWith('.lock')) return null;
  const found = gitSync(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd: gitPath, allowExit: [1, 128] });
  return found.exitCode === 0 ? found.stdout.trim() : null;
}
