// Real repositories for the workspace tests: a task source whose history runs past base (a future
// fix with a unique marker, reachable from a tag, a branch, a stash, a reflog and a note), and
// git run the way an agent runs it, with whatever config its repository holds.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmod, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { WorkspaceError } from '../../src/workspace/index.js';

const run = promisify(execFile);

/** The test runner's environment minus any GIT_* it was started with, and no user or system config. */
const agentEnv: NodeJS.ProcessEnv = {
  ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('GIT_'))),
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Agent',
  GIT_AUTHOR_EMAIL: 'agent@example.invalid',
  GIT_COMMITTER_NAME: 'Agent',
  GIT_COMMITTER_EMAIL: 'agent@example.invalid',
};

export async function git(cwd: string, ...args: string[]): Promise<string> {
  return (await run('git', args, { cwd, env: agentEnv, maxBuffer: 256 * 1024 ** 2 })).stdout;
}

/** git's raw stdout, for object dumps that are not text. */
export async function gitBytes(cwd: string, ...args: string[]): Promise<Buffer> {
  return (await run('git', args, { cwd, env: agentEnv, encoding: 'buffer', maxBuffer: 256 * 1024 ** 2 })).stdout;
}

export async function writeFiles(root: string, files: Readonly<Record<string, string | Buffer>>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
}

/** Every byte value, NULs included: git treats it as binary. */
export const binaryLogo = Buffer.from(Array.from({ length: 256 }, (_, index) => index));

export const baseFiles = {
  'README.md': '# demo\n',
  'src/app.js': 'export const answer = 41;\n',
  'tests/app.test.js': "import { answer } from '../src/app.js';\nif (answer !== 41) throw new Error('no');\n",
  '.gitignore': '*.log\nbuild/\n',
  'assets/logo.bin': binaryLogo,
};

export interface SourceRepo {
  source: string;
  baseCommit: string;
  futureCommit: string;
  marker: string;
}

/** A non-bare source: two commits up to base, then a future fix and every way git keeps history. */
export async function createSourceRepo(dir: string): Promise<SourceRepo> {
  const marker = `ABP-FUTURE-FIX-${randomUUID()}`;
  await mkdir(dir, { recursive: true });
  await git(dir, 'init', '--quiet', '--initial-branch', 'main');
  await writeFiles(dir, baseFiles);
  await git(dir, 'add', '--all');
  await git(dir, 'commit', '--quiet', '-m', 'initial');
  await writeFiles(dir, { 'README.md': '# demo\n\nRun the tests.\n' });
  await git(dir, 'commit', '--quiet', '--all', '-m', 'docs');
  const baseCommit = (await git(dir, 'rev-parse', 'HEAD')).trim();

  await writeFiles(dir, {
    'src/app.js': `export const answer = 42; // ${marker}\n`,
    'tests/fix.test.js': `// ${marker}\n`,
  });
  await git(dir, 'add', '--all');
  await git(dir, 'commit', '--quiet', '-m', `fix: ${marker}`);
  const futureCommit = (await git(dir, 'rev-parse', 'HEAD')).trim();
  await git(dir, 'tag', '--annotate', 'v1-fix', '-m', marker);
  await git(dir, 'branch', 'fix-branch');
  await git(dir, 'update-ref', 'refs/remotes/origin/fix', futureCommit);
  await git(dir, 'notes', 'add', '-m', marker, baseCommit);
  // A commit only the reflog remembers.
  await git(dir, 'checkout', '--quiet', '-b', 'scratch');
  await writeFiles(dir, { 'scratch.txt': `${marker}\n` });
  await git(dir, 'add', '--all');
  await git(dir, 'commit', '--quiet', '-m', `scratch ${marker}`);
  await git(dir, 'checkout', '--quiet', 'main');
  await git(dir, 'branch', '--quiet', '-D', 'scratch');
  await writeFiles(dir, { 'README.md': `${marker}\n` });
  await git(dir, 'stash', 'push', '--quiet', '-m', marker);
  await run('sh', ['-c', `printf '%s dangling' '${marker}' | git hash-object -w --stdin`], { cwd: dir, env: agentEnv });
  return { source: dir, baseCommit, futureCommit, marker };
}

/** Every file under dir, recursively, as raw bytes. */
export async function allFileBytes(dir: string): Promise<Array<{ path: string; bytes: Buffer }>> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
  return Promise.all(files.map(async (path) => ({ path, bytes: await readFile(path) })));
}

/** The paths a patch touches, from its `diff --git a/<path> b/<path>` headers. */
export function patchedPaths(patch: string): string[] {
  return [...patch.matchAll(/^diff --git a\/(\S+) b\//gm)].map((match) => match[1] ?? '');
}

/** A shell script that appends a line to `sentinel` whenever anything runs it. */
export async function writeTrap(path: string, sentinel: string): Promise<void> {
  await writeFile(path, `#!/bin/sh\necho "ran: $0 $*" >> '${sentinel}'\n`);
  await chmod(path, 0o755);
}

export async function codeOf(work: Promise<unknown>): Promise<string | undefined> {
  try {
    await work;
  } catch (error) {
    return error instanceof WorkspaceError ? error.code : undefined;
  }
  return undefined;
}
