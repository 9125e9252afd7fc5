// Owns the per-task cache: a bare repository holding exactly the objects reachable from the
// task's base commit and nothing newer, so no workspace built from it can leak a future fix.
// The cache outlives runs and lives where any process of the user may write, so it is never
// trusted as found: before each run uses it, its layout and every object's hash are checked,
// and a cache that fails is built again. During a run no engine can write it (it is bound
// read-only into their namespaces); where namespaces are missing, a digest of its files taken
// at that check is compared again before each trial's verification.

import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readFile, mkdir, mkdtemp, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { WorkspaceError } from './errors.js';
import { git } from '../execution/git.js';
import { writeGitDir } from './git-dir.js';

export interface TaskRepo {
  gitDir: string;
  baseCommit: string;
  baseTree: string;
  /** Why a cache found in place failed its check and was built again; absent when it passed or was new. */
  rebuilt?: string;
}

/** The one ref a cache holds. */
const BASE_BRANCH = 'base';

/** Fixture commits are made by this identity at this instant, so their sha is the same everywhere. */
const FIXTURE_IDENTITY = {
  GIT_AUTHOR_NAME: 'ABP Fixture',
  GIT_AUTHOR_EMAIL: 'fixture@abp.invalid',
  GIT_AUTHOR_DATE: '946684800 +0000',
  GIT_COMMITTER_NAME: 'ABP Fixture',
  GIT_COMMITTER_EMAIL: 'fixture@abp.invalid',
  GIT_COMMITTER_DATE: '946684800 +0000',
};

function cachePath(cacheDir: string, commit: string): string {
  return join(cacheDir, `${commit}.git`);
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

async function treeOf(gitDir: string, commit: string): Promise<string> {
  const { stdout } = await git(['--git-dir', gitDir, 'rev-parse', '--verify', `${commit}^{tree}`], { cwd: gitDir });
  return stdout.toString('utf8').trim();
}

/** The files a cache holds, as writeGitDir and one fetch (or one repack) leave them: nothing else may be there. */
const PACK_FILE = /^pack-[0-9a-f]{40,64}\.(pack|idx|rev)$/;

/**
 * Why the cache at `gitDir` cannot be trusted as base's history, or null: HEAD, config and the one ref as written, no
 * alternates, loose objects or other refs, and one pack whose every object git hashes again (index-pack --verify), so a
 * blob rewritten in place is found whatever wrote it.
 */
export async function cacheProblem(gitDir: string, baseCommit: string): Promise<string | null> {
  const text = (path: string) => readFile(join(gitDir, path), 'utf8').catch(() => null);
  if ((await text('HEAD')) !== `ref: refs/heads/${BASE_BRANCH}\n`) return 'HEAD was changed';
  if ((await text(join('refs', 'heads', BASE_BRANCH))) !== `${baseCommit}\n`)
    return `refs/heads/${BASE_BRANCH} was changed`;
  const config = await text('config');
  if (config === null || !/^\[core\]\n(\t[a-z]+ = [a-z0-9]+\n)+$/.test(config)) return 'config was changed';
  const listing = async (path: string) => (await readdir(join(gitDir, path)).catch(() => null)) ?? [];
  const stray = [
    ...(await listing('objects')).filter((name) => name !== 'pack' && name !== 'info'),
    ...(await listing(join('objects', 'info'))),
    ...(await listing(join('refs', 'heads'))).filter((name) => name !== BASE_BRANCH),
    ...(await listing(join('refs', 'tags'))),
  ];
  if (stray.length > 0 || (await exists(join(gitDir, 'packed-refs')))) return `it holds ${stray[0] ?? 'packed-refs'}`;
  const packs = await listing(join('objects', 'pack'));
  const odd = packs.find((name) => !PACK_FILE.test(name));
  if (odd !== undefined) return `objects/pack holds ${odd}`;
  const indexes = packs.filter((name) => name.endsWith('.idx'));
  if (indexes.length !== 1) return `it holds ${indexes.length} packs, not one`;
  const verified = await git(
    ['--git-dir', gitDir, 'verify-pack', join(gitDir, 'objects', 'pack', indexes[0] as string)],
    {
      cwd: gitDir,
      allowExit: [1, 128],
    },
  );
  return verified.exitCode === 0
    ? null
    : `its pack fails git verify-pack (${verified.stderr.trim().split('\n')[0] ?? ''})`;
}

/**
 * A digest of every file of the cache, by content: equal digests mean its bytes are as they were. Not by time stamps,
 * which git itself moves (it freshens a pack when a workspace's `git add` finds an object the pack already holds).
 */
export async function cacheDigest(repo: TaskRepo): Promise<string> {
  const hash = createHash('sha256');
  const files = (await readdir(repo.gitDir, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => relative(repo.gitDir, join(entry.parentPath, entry.name)))
    .sort();
  for (const file of files) {
    hash.update(`${file}\0`);
    for await (const chunk of createReadStream(join(repo.gitDir, file))) hash.update(chunk as Buffer);
    hash.update('\0');
  }
  return `sha256:${hash.digest('hex')}`;
}

/**
 * Builds a cache in a fresh temporary directory beside its final place, then renames it there:
 * rename is atomic, so concurrent callers either win or find a complete cache and use it.
 * A cache already in place is used only once it passes cacheProblem; one that fails is moved
 * aside and removed, and the new build takes its place.
 */
async function buildThenPublish(
  cacheDir: string,
  build: (tempGitDir: string) => Promise<string>,
  rebuilt?: string,
): Promise<TaskRepo> {
  await mkdir(cacheDir, { recursive: true });
  const temp = await mkdtemp(join(cacheDir, '.build-'));
  try {
    const commit = await build(temp);
    const gitDir = cachePath(cacheDir, commit);
    try {
      await rename(temp, gitDir);
    } catch (error) {
      if (!(await exists(gitDir))) throw error;
      // Another caller published the same commit first: theirs is identical if it passes the check.
      const problem = await cacheProblem(gitDir, commit);
      if (problem !== null) {
        await discard(gitDir);
        await rename(temp, gitDir);
        return { gitDir, baseCommit: commit, baseTree: await treeOf(gitDir, commit), rebuilt: problem };
      }
    }
    return { gitDir, baseCommit: commit, baseTree: await treeOf(gitDir, commit), ...(rebuilt ? { rebuilt } : {}) };
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

/** Moves a failed cache out of the way at once (a rename), then removes it. */
async function discard(gitDir: string): Promise<void> {
  const aside = `${gitDir}.discarded-${process.pid}-${Date.now()}`;
  await rename(gitDir, aside);
  await rm(aside, { recursive: true, force: true });
}

export async function prepareTaskRepo(input: {
  source: string;
  baseCommit: string;
  cacheDir: string;
}): Promise<TaskRepo> {
  if (!/^[0-9a-fA-F]{40}$/.test(input.baseCommit)) {
    throw new WorkspaceError(
      'invalid-base-commit',
      `base commit "${input.baseCommit}" of ${input.source} is not a full 40-hex sha; pin tasks to the full commit id (git rev-parse <commit>)`,
    );
  }
  const baseCommit = input.baseCommit.toLowerCase();
  const cacheDir = resolve(input.cacheDir);
  const cached = cachePath(cacheDir, baseCommit);
  let rebuilt: string | undefined;
  if (await exists(cached)) {
    const problem = await cacheProblem(cached, baseCommit);
    if (problem === null) return { gitDir: cached, baseCommit, baseTree: await treeOf(cached, baseCommit) };
    rebuilt = problem;
    await discard(cached);
  }
  const source = resolve(input.source);
  return buildThenPublish(
    cacheDir,
    async (temp) => {
      await writeGitDir(temp, { bare: true, branch: BASE_BRANCH, commit: null });
      // Protocol v2 lets upload-pack serve any object by sha, so only base's closure is fetched
      // (no tags, no other refs); unpackLimit=1 keeps it as the one pack the fetch received.
      const fetch = [
        '--git-dir',
        temp,
        '-c',
        'protocol.version=2',
        '-c',
        'fetch.unpackLimit=1',
        '-c',
        'fetch.writeCommitGraph=false',
      ];
      const fetched = await git(
        [
          ...fetch,
          'fetch',
          '--quiet',
          '--no-tags',
          '--no-write-fetch-head',
          '--no-recurse-submodules',
          '--no-auto-maintenance',
          source,
          `+${baseCommit}:refs/heads/${BASE_BRANCH}`,
        ],
        { cwd: temp, allowExit: [1, 128] },
      );
      if (fetched.exitCode !== 0) await explainFetchFailure(source, baseCommit, fetched.stderr);
      return baseCommit;
    },
    rebuilt,
  );
}

async function explainFetchFailure(source: string, baseCommit: string, fetchError: string): Promise<never> {
  const probe = await git(['-C', source, 'rev-parse', '--verify', '--quiet', `${baseCommit}^{commit}`], {
    cwd: '/',
    allowExit: [1, 128],
  });
  if (probe.exitCode === 128) {
    throw new WorkspaceError(
      'source-not-a-repository',
      `task source ${source} is not a git repository (${probe.stderr.trim()}); point the task at a clone of its repository`,
    );
  }
  if (probe.exitCode === 1) {
    throw new WorkspaceError(
      'missing-base-commit',
      `task source ${source} has no commit ${baseCommit}; fetch the commit into the source (or fix the task's baseCommit)`,
    );
  }
  throw new WorkspaceError(
    'git-failed',
    `fetching ${baseCommit} from ${source} failed although the source has it: ${fetchError.trim().slice(0, 800)}`,
  );
}

/** Every file under fixtureDir (ignored ones too) becomes the tree of one commit with a fixed identity and date. */
export async function prepareFixtureRepo(input: { fixtureDir: string; cacheDir: string }): Promise<TaskRepo> {
  const fixtureDir = resolve(input.fixtureDir);
  return buildThenPublish(resolve(input.cacheDir), async (temp) => {
    await writeGitDir(temp, { bare: true, branch: BASE_BRANCH, commit: null });
    const inTemp = ['--git-dir', temp];
    await git([...inTemp, '--work-tree', fixtureDir, 'add', '--all', '--force', '--', '.'], { cwd: fixtureDir });
    const tree = (await git([...inTemp, 'write-tree'], { cwd: temp })).stdout.toString('utf8').trim();
    const commit = (
      await git([...inTemp, 'commit-tree', tree, '-m', 'ABP fixture'], { cwd: temp, env: FIXTURE_IDENTITY })
    ).stdout
      .toString('utf8')
      .trim();
    await Promise.all([
      unlink(join(temp, 'index')),
      writeFile(join(temp, 'refs', 'heads', BASE_BRANCH), `${commit}\n`),
    ]);
    // `add` wrote loose objects; the cache holds one pack like every other.
    await git([...inTemp, 'repack', '-a', '-d', '-q', '-n', '--no-write-bitmap-index'], { cwd: temp });
    return commit;
  });
}

/** A file's contents at base, or null when base has no blob at that path. */
export async function readBlobAtBase(repo: TaskRepo, path: string): Promise<Buffer | null> {
  if (path.includes('\0')) return null;
  const { stdout } = await git(['--git-dir', repo.gitDir, 'cat-file', '--batch', '-z'], {
    cwd: repo.gitDir,
    input: `${repo.baseCommit}:${path}\0`,
  });
  const headerEnd = stdout.indexOf(0x0a);
  const [, type, size] = stdout.subarray(0, headerEnd).toString('utf8').split(' ');
  if (type !== 'blob' || size === undefined) return null;
  return stdout.subarray(headerEnd + 1, headerEnd + 1 + Number(size));
}
