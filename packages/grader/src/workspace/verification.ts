// Owns verification checkouts: base checked out fresh from the cache, the captured patch applied,
// then the held-out files copied over whatever the patch planted at or above their paths.

import { copyFile, lstat, mkdir, readdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { WorkspaceError } from './errors.js';
import { checkOut, git } from '../execution/git.js';
import { writeGitDir } from './git-dir.js';
import type { TaskRepo } from './task-repo.js';

export interface VerificationCheckout {
  dir: string;
  gitDir: string;
}

/**
 * A fresh checkout of base, owned by the grader. It reads objects through alternates into the
 * cache rather than a copy of its pack: nothing the agent touched lives here, and code under test
 * that cannot reach the cache (a sandbox mounting only `dir`) cannot reach its objects either.
 * Split from applying the patch so the checkout can be written while the agent's diff is analysed.
 */
export async function checkOutForVerification(repo: TaskRepo, dir: string): Promise<VerificationCheckout> {
  const root = resolve(dir);
  await mkdir(dirname(root), { recursive: true });
  await mkdir(root).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    throw new WorkspaceError(
      'verification-dir-exists',
      `verification checkout ${root} already exists; give each verification a new directory`,
      { cause: error },
    );
  });
  const gitDir = join(root, '.git');
  await writeGitDir(gitDir, {
    bare: false,
    branch: 'main',
    commit: repo.baseCommit,
    alternates: join(repo.gitDir, 'objects'),
  });
  await checkOut(gitDir, root, repo.baseCommit);
  return { dir: root, gitDir };
}

/** Paths the patch may not change for verification, and what each is put back to. */
export interface GuardedPaths {
  readonly paths: readonly string[];
  /** The text to leave, given the file as the checkout held it before the patch and after; null removes it. */
  restore(path: string, before: string | null, after: string | null): string | null;
}

/** A regular file's text; null for anything else (absent, a folder, a symlink, a FIFO): never followed or opened. */
async function regularText(path: string): Promise<string | null> {
  const found = await lstat(path).catch(() => null);
  return found?.isFile() === true ? readFile(path, 'utf8') : null;
}

/**
 * Applies the engine's patch (all or nothing), puts the guarded paths back, then copies the held-out files over
 * whatever it planted. `restored` lists the guarded paths whose content the patch had changed.
 */
export async function applyForVerification(
  checkout: VerificationCheckout,
  input: { patch: string; overlayDir: string | null; guarded?: GuardedPaths },
): Promise<{ applied: boolean; applyError: string | null; restored: string[] }> {
  const { dir: root, gitDir } = checkout;
  const guarded = input.guarded?.paths ?? [];
  const found = await Promise.all(guarded.map((path) => regularText(join(root, path))));
  let applyError: string | null = null;
  if (input.patch !== '') {
    // All or nothing: git apply checks every hunk before it writes, so a failure leaves base.
    // It writes relative to its working directory, not --work-tree: cwd must be the root.
    const applied = await git(['--git-dir', gitDir, '--work-tree', root, 'apply', '--whitespace=nowarn'], {
      cwd: root,
      input: input.patch,
      allowExit: [1, 128],
    });
    if (applied.exitCode !== 0) applyError = applied.stderr.trim() || `git apply exited ${applied.exitCode}`;
  }
  const restored: string[] = [];
  if (applyError === null && input.guarded !== undefined) {
    for (const [index, path] of guarded.entries()) {
      const before = found[index] ?? null;
      const target = join(root, path);
      const after = await regularText(target);
      const present = await lstat(target).then(
        () => true,
        () => false,
      );
      // Anything but a regular file (a symlink, a folder) goes back whole: the runner would follow it.
      const wanted = after === null && present ? before : input.guarded.restore(path, before, after);
      if (wanted === after && !(after === null && present)) continue;
      await rm(target, { recursive: true, force: true });
      if (wanted !== null) {
        await makeRealDirectories(root, dirname(path));
        await writeFile(target, wanted);
      }
      restored.push(path);
    }
  }
  if (input.overlayDir !== null) await overlay(resolve(input.overlayDir), root);
  return { applied: applyError === null, applyError, restored };
}

export async function createVerificationCheckout(
  repo: TaskRepo,
  dir: string,
  input: { patch: string; overlayDir: string | null; guarded?: GuardedPaths },
): Promise<{ applied: boolean; applyError: string | null; restored: string[] }> {
  return applyForVerification(await checkOutForVerification(repo, dir), input);
}

/** Copies every file under `from` to the same relative path under `to`, replacing what is there. */
async function overlay(from: string, to: string): Promise<void> {
  const entries = await readdir(from, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (entry.isDirectory()) continue;
    const source = join(entry.parentPath, entry.name);
    const path = relative(from, source);
    await makeRealDirectories(to, dirname(path));
    const target = join(to, path);
    // A planted symlink would redirect the write, a planted directory would refuse it.
    await rm(target, { recursive: true, force: true });
    if (entry.isSymbolicLink()) await symlink(await readlink(source), target);
    else await copyFile(source, target);
  }
}

/** Makes each component of `path` under `root` a real directory, removing files or symlinks in the way. */
async function makeRealDirectories(root: string, path: string): Promise<void> {
  let current = root;
  for (const component of path.split(sep)) {
    if (component === '' || component === '.') continue;
    current = join(current, component);
    const found = await lstat(current).catch(() => null);
    if (found?.isDirectory()) continue;
    if (found !== null) await rm(current, { force: true });
    await mkdir(current);
  }
}
