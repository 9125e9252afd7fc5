// Git for live worlds, through abp's one hardened git (pinned environment: no user or system config, UTC, C locale),
// so the same inputs give the same objects on any machine. Building a world is async; the WorldWriter interface is
// synchronous, so writes use the synchronous variant (short calls on small repositories, and never while the
// in-process server waits on the same git process). Commits carry the identities and dates the world gives them.

import {
  git as hardenedGit,
  gitIdentityEnvironment,
  gitSync as hardenedGitSync,
  type GitCall as HardenedGitCall,
  type GitIdentity,
} from '@abp/grader/execution';

export type { GitIdentity };

export interface GitCall {
  cwd: string;
  input?: string;
  /** Author and committer with their dates (seconds since the epoch). */
  author?: { identity: GitIdentity; at: number };
  committer?: { identity: GitIdentity; at: number };
  /** Exit codes that are answers rather than failures (e.g. 1 from merge-tree on a conflict). */
  allowExit?: readonly number[];
  /** `network`: a clone or push over http (a solver reaching the simulator); the world's own calls are local. */
  transport?: 'local' | 'network';
}

export interface GitResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

function hardenedCall(call: GitCall): HardenedGitCall {
  const author = call.author ?? call.committer;
  return {
    cwd: call.cwd,
    ...(call.input === undefined ? {} : { input: call.input }),
    ...(call.allowExit === undefined ? {} : { allowExit: call.allowExit }),
    ...(call.transport === undefined ? {} : { transport: call.transport }),
    ...(author === undefined ? {} : { env: gitIdentityEnvironment(author, call.committer ?? author) }),
  };
}

export async function git(args: readonly string[], call: GitCall): Promise<GitResult> {
  const result = await hardenedGit(args, hardenedCall(call));
  return { exitCode: result.exitCode, stdout: result.stdout.toString('utf8'), stderr: result.stderr };
}

export function gitSync(args: readonly string[], call: GitCall): GitResult {
  const result = hardenedGitSync(args, hardenedCall(call));
  return { exitCode: result.exitCode, stdout: result.stdout.toString('utf8'), stderr: result.stderr };
}

/** GitHub's commit identity for a user: the login and its noreply address. */
export function userIdentity(login: string, id: number): GitIdentity {
  return { name: login, email: `${id}+${login}@users.noreply.github.com` };
}

/** Who commits what GitHub's merge button makes. */
export const GITHUB_COMMITTER: GitIdentity = { name: 'GitHub', email: 'noreply@github.com' };

/** Branch names the writer accepts: git's rules, minus anything that could read as a refspec or option. */
export function isSafeBranchName(name: string): boolean {
  return (
    /^[A-Za-z0-9][A-Za-z0-9._/-]*$/.test(name) &&
    !name.includes('..') &&
    !name.includes('//') &&
    !name.endsWith('/') &&
    !name.endsWith('.lock') &&
    !name.endsWith('.')
  );
}

/** A `git fast-import` stream: one process writes a whole history, with exactly the dates given. */
export class FastImport {
  private readonly parts: string[] = [];
  private nextMark = 1;

  /** Writes a commit whose tree is exactly `files`; returns its mark. */
  commit(input: {
    ref: string;
    from: number | null;
    merge?: number;
    author: GitIdentity;
    authorAt: number;
    committer: GitIdentity;
    committerAt: number;
    message: string;
    files: ReadonlyMap<string, string>;
  }): number {
    const mark = this.nextMark++;
    const lines = [
      `commit ${input.ref}`,
      `mark :${mark}`,
      `author ${input.author.name} <${input.author.email}> ${input.authorAt} +0000`,
      `committer ${input.committer.name} <${input.committer.email}> ${input.committerAt} +0000`,
      data(input.message),
    ];
    if (input.from !== null) lines.push(`from :${input.from}`);
    if (input.merge !== undefined) lines.push(`merge :${input.merge}`);
    lines.push('deleteall');
    for (const path of [...input.files.keys()].sort())
      lines.push(`M 100644 inline ${path}`, data(input.files.get(path) ?? ''));
    this.parts.push(`${lines.join('\n')}\n`);
    return mark;
  }

  stream(): string {
    return `${this.parts.join('\n')}\ndone\n`;
  }
}

function data(content: string): string {
  return `data ${Buffer.byteLength(content, 'utf8')}\n${content}`;
}

/** Reads `--export-marks` output into mark → oid. */
export function parseMarks(text: string): Map<number, string> {
  const marks = new Map<number, string>();
  for (const line of text.split('\n')) {
    const match = /^:(\d+) ([0-9a-f]{40})$/.exec(line.trim());
    if (match) marks.set(Number(match[1]), match[2] ?? '');
  }
  return marks;
}

/** Sums `git diff --numstat` output as GitHub counts a pull request's size. */
export function numstat(output: string): { additions: number; deletions: number; changedFiles: number } {
  let additions = 0;
  let deletions = 0;
  let changedFiles = 0;
  for (const line of output.split('\n')) {
    const [added, deleted] = line.split('\t');
    if (deleted === undefined) continue;
    changedFiles++;
    // Binary files show '-'; GitHub counts them as changed with no lines.
    additions += Number.parseInt(added ?? '', 10) || 0;
    deletions += Number.parseInt(deleted, 10) || 0;
  }
  return { additions, deletions, changedFiles };
}

/** Every file of a commit's tree as UTF-8 text, sorted by path (live repositories hold text only). */
export function readTreeSync(cwd: string, commit: string): { path: string; content: string }[] {
  const listing = gitSync(['ls-tree', '-r', '-z', commit], { cwd }).stdout;
  const entries: { oid: string; path: string }[] = [];
  for (const record of listing.split('\0')) {
    const match = /^\d+ blob ([0-9a-f]{40})\t(.+)$/s.exec(record);
    if (match) entries.push({ oid: match[1] ?? '', path: match[2] ?? '' });
  }
  const output = hardenedGitSync(['cat-file', '--batch'], {
    cwd,
    input: entries.map((entry) => `${entry.oid}\n`).join(''),
  }).stdout;
  const files: { path: string; content: string }[] = [];
  let offset = 0;
  for (const entry of entries) {
    const headerEnd = output.indexOf(0x0a, offset);
    const size = Number(output.subarray(offset, headerEnd).toString('latin1').split(' ')[2]);
    files.push({ path: entry.path, content: output.subarray(headerEnd + 1, headerEnd + 1 + size).toString('utf8') });
    offset = headerEnd + 1 + size + 1;
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
