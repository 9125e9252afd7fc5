// Owns the git side of a freeze: the fix as a patch, the "before" tree (base + test part) and the
// "after" tree (base + test part + code part) built in a scratch repository, and checkouts of them.
// The scratch repository borrows the source's objects through alternates, so the source is never written.

import { join, resolve } from 'node:path';
import { PATCH_GIT_ARGS } from '@abp/grader/diff';
import { readBlobAtBase } from '@abp/grader/workspace';
import { checkOut, git } from '@abp/grader/execution';
import { writeGitDir } from '@abp/grader/workspace';
import { FreezeError } from './errors.js';
import type { FreezeInput } from './inputs.js';

export interface FixSource {
  /** The scratch bare repository: the trees and blobs the freeze writes live here. */
  gitDir: string;
  /** Git directories a sandboxed run must be able to read for its checkout's objects. */
  objectDirs: string[];
  baseCommit: string;
  /** The whole fix as `git diff` output. */
  patch: string;
}

export type StateTrees = { applied: true; before: string; after: string } | { applied: false; detail: string };

/** Resolves the source repository and the fix's patch, and prepares the scratch repository in `scratchDir`. */
export async function openFix(input: FreezeInput, scratchDir: string): Promise<FixSource> {
  const probe = await git(['-C', resolve(input.gitDir), 'rev-parse', '--path-format=absolute', '--git-common-dir'], {
    cwd: '/',
    allowExit: [128],
  });
  if (probe.exitCode !== 0) {
    throw new FreezeError(
      'not-a-repository',
      `gitDir ${input.gitDir} is not a git repository (${probe.stderr.trim()}); point it at a clone or mirror of ${input.repo}`,
    );
  }
  const source = probe.stdout.toString('utf8').trim();
  await requireCommit(source, input.baseCommit, 'baseCommit');
  let patch: string;
  if (input.fix.kind === 'commit') {
    await requireCommit(source, input.fix.commit, 'fix.commit');
    // base..commit rather than commit^..commit: for a merge commit that is exactly what the pull request added.
    patch = (
      await git(['--git-dir', source, ...PATCH_GIT_ARGS, input.baseCommit, input.fix.commit], { cwd: source })
    ).stdout.toString('utf8');
  } else {
    patch = input.fix.patch;
  }
  if (patch.trim() === '') {
    throw new FreezeError(
      'empty-fix',
      `the fix of ${input.taskId} changes nothing between baseCommit and the fix; give the commit or patch of the merged pull request`,
    );
  }
  await writeGitDir(scratchDir, {
    bare: true,
    branch: 'base',
    commit: input.baseCommit,
    alternates: join(source, 'objects'),
  });
  return { gitDir: scratchDir, objectDirs: [scratchDir, source], baseCommit: input.baseCommit, patch };
}

async function requireCommit(gitDir: string, commit: string, field: string): Promise<void> {
  const found = await git(['--git-dir', gitDir, 'cat-file', '-e', `${commit}^{commit}`], {
    cwd: gitDir,
    allowExit: [1, 128],
  });
  if (found.exitCode !== 0) {
    throw new FreezeError(
      'missing-commit',
      `${field} ${commit} is not a commit in ${gitDir}; fetch it into that repository (git fetch <remote> ${commit})`,
    );
  }
}

/** Applies the test part, then the code part, on base; each must apply whole. */
export async function buildStateTrees(source: FixSource, parts: { test: string; code: string }): Promise<StateTrees> {
  const index = { GIT_INDEX_FILE: join(source.gitDir, 'freeze-index') };
  const inScratch = ['--git-dir', source.gitDir];
  await git([...inScratch, 'read-tree', source.baseCommit], { cwd: source.gitDir, env: index });
  const trees: string[] = [];
  for (const [name, part] of [
    ['test', parts.test],
    ['code', parts.code],
  ] as const) {
    if (part !== '') {
      const applied = await git([...inScratch, 'apply', '--cached', '--whitespace=nowarn'], {
        cwd: source.gitDir,
        env: index,
        input: part,
        allowExit: [1, 128],
      });
      if (applied.exitCode !== 0) {
        return {
          applied: false,
          detail: `the ${name} part of the fix does not apply on ${name === 'test' ? 'base' : 'base + test part'}: ${applied.stderr.trim().slice(0, 2000)}`,
        };
      }
    }
    trees.push(
      (await git([...inScratch, 'write-tree'], { cwd: source.gitDir, env: index })).stdout.toString('utf8').trim(),
    );
  }
  const [before, after] = trees as [string, string];
  return { applied: true, before, after };
}

/** A file's contents in a tree (or commit), or null when it has no blob at that path. */
export function readBlob(source: FixSource, treeish: string, path: string): Promise<Buffer | null> {
  return readBlobAtBase({ gitDir: source.gitDir, baseCommit: treeish, baseTree: treeish }, path);
}

/** Writes `tree` into the empty folder `dir`, with a .git whose HEAD is base, as a clone with the fix applied would look. */
export async function checkOutTree(source: FixSource, tree: string, dir: string): Promise<void> {
  const gitDir = join(dir, '.git');
  await writeGitDir(gitDir, {
    bare: false,
    branch: 'main',
    commit: source.baseCommit,
    alternates: join(source.gitDir, 'objects'),
  });
  await checkOut(gitDir, dir, tree);
}
