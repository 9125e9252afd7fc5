// Owns a trial's two git dirs: the agent's (inside its workspace, base's history only) and the
// grader's private one beside it, through which alone the grader reads what the agent changed.

import { isUtf8 } from 'node:buffer';
import { copyFile, lstat, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { WorkspaceError } from './errors.js';
import { ExecutionError } from '../execution/errors.js';
import { checkOut, git } from '../execution/git.js';
import { writeGitDir } from './git-dir.js';
import type { TaskRepo } from './task-repo.js';

export interface TrialWorkspace {
  workspace: string;
  privateGitDir: string;
}

/**
 * One checkout, through the private git dir; its index (stat data of the very files written) is
 * then copied into the agent's .git, so both see a clean tree without a second checkout.
 * The agent's .git reads objects through alternates into the scrubbed cache, which holds base's
 * history and nothing past it, so there is nothing to hide there and no pack to copy per trial.
 * The cache stays out of the agent's reach for writing: under the sandboxed policy the host is
 * mounted read-only, and a trusted-local engine runs as the operator anyway (an acknowledgement).
 */
export async function createTrialWorkspace(
  repo: TaskRepo,
  trialRoot: string,
  options: {
    /** Where the engine will see the cache's objects, when not at their host path (inside an environment). */
    agentObjects?: string;
  } = {},
): Promise<TrialWorkspace> {
  const root = resolve(trialRoot);
  const entries = await readdir(root).catch((error: unknown) => {
    throw new WorkspaceError(
      'invalid-trial-root',
      `trial root ${root} cannot be read; create it (empty) before the trial`,
      { cause: error },
    );
  });
  if (entries.length > 0)
    throw new WorkspaceError(
      'invalid-trial-root',
      `trial root ${root} already holds ${entries.join(', ')}; give every trial a new empty directory`,
    );
  const workspace = join(root, 'workspace');
  const agentGitDir = join(workspace, '.git');
  const privateGitDir = join(root, '.grader', 'git');
  const commit = repo.baseCommit;
  const alternates = join(repo.gitDir, 'objects');
  await Promise.all([
    writeGitDir(agentGitDir, { bare: false, branch: 'main', commit, alternates: options.agentObjects ?? alternates }),
    writeGitDir(privateGitDir, { bare: false, branch: 'main', commit, alternates }),
  ]);
  await checkOut(privateGitDir, workspace, commit);
  await copyFile(join(privateGitDir, 'index'), join(agentGitDir, 'index'));
  return { workspace, privateGitDir };
}

/**
 * Records the workspace as it is now (after the task's environment.setup ran in it) in the private
 * index and returns its tree, so captureDiff can leave what setup wrote out of the agent's changes.
 */
export async function snapshotWorkspace(trial: TrialWorkspace): Promise<string> {
  const privately = ['--git-dir', trial.privateGitDir, '--work-tree', trial.workspace];
  await git([...privately, 'add', '--all', '--ignore-errors'], { cwd: trial.workspace, allowExit: [1] });
  return (await git([...privately, 'write-tree'], { cwd: trial.workspace })).stdout.toString('utf8').trim();
}

/**
 * What the grader takes of a workspace. Everything in it is the engine's to shape, so a file of gigabytes or a million
 * files must end in a scored trial, not in a grader out of memory: past these limits the changes cannot be graded
 * (workspace-too-large), and the trial is unresolved.
 */
export const CAPTURE_LIMITS = { fileBytes: 16 * 1024 ** 2, files: 20_000, patchBytes: 64 * 1024 ** 2 } as const;

/**
 * Refuses a workspace whose changed or new files (ignored ones aside) pass CAPTURE_LIMITS, before git reads any of them.
 * Only regular files have a size that counts: git records a symlink as its target and skips FIFOs and sockets.
 */
async function checkCaptureLimits(trial: TrialWorkspace, privately: readonly string[]): Promise<void> {
  const listed = await git([...privately, 'ls-files', '-z', '--others', '--modified', '--exclude-standard'], {
    cwd: trial.workspace,
  });
  const paths = [...new Set(listed.stdout.toString('utf8').split('\0').filter(Boolean))];
  if (paths.length > CAPTURE_LIMITS.files)
    throw new WorkspaceError(
      'workspace-too-large',
      `the workspace has ${paths.length} changed or new files, more than the ${CAPTURE_LIMITS.files} the grader takes`,
    );
  for (const path of paths) {
    const found = await lstat(join(trial.workspace, path)).catch(() => null);
    if (found?.isFile() === true && found.size > CAPTURE_LIMITS.fileBytes)
      throw new WorkspaceError(
        'workspace-too-large',
        `${path} holds ${found.size} bytes, more than the ${CAPTURE_LIMITS.fileBytes} the grader takes of one file`,
      );
  }
}

/**
 * The agent's changes against base (or against `since`, a snapshot taken after setup), untracked files included and ignored ones (per the
 * workspace's .gitignore files; never its .git/info/exclude) left out. Rename detection is off: a
 * move is a deletion and an addition, so the patch never depends on similarity heuristics.
 * A repository the agent nested in the workspace is recorded as git records one, a gitlink
 * (its files are not captured); a file git cannot read or index is skipped, not fatal.
 */
export async function captureDiff(
  repo: TaskRepo,
  trial: TrialWorkspace,
  since: string = repo.baseCommit,
): Promise<string> {
  const root = await lstat(trial.workspace).catch(() => null);
  if (root === null || !root.isDirectory()) {
    throw new WorkspaceError(
      'workspace-missing',
      `workspace ${trial.workspace} is gone or no longer a directory; the trial's changes cannot be captured`,
    );
  }
  const privately = ['--git-dir', trial.privateGitDir, '--work-tree', trial.workspace];
  await checkCaptureLimits(trial, privately);
  await git([...privately, 'add', '--all', '--ignore-errors'], { cwd: trial.workspace, allowExit: [1] });
  const diff = () =>
    git(
      [
        ...privately,
        'diff',
        '--cached',
        '--binary',
        '--full-index',
        '--no-color',
        '--no-ext-diff',
        '--no-textconv',
        '--no-renames',
        since,
      ],
      { cwd: trial.workspace, maxOutputBytes: CAPTURE_LIMITS.patchBytes },
    ).catch((error: unknown) => {
      // Many files each under the limit can still make a patch the grader will not hold.
      if (
        error instanceof ExecutionError &&
        error.cause instanceof ExecutionError &&
        error.cause.code === 'program-output-too-large'
      )
        throw new WorkspaceError(
          'workspace-too-large',
          `the workspace's changes make a patch of more than ${CAPTURE_LIMITS.patchBytes} bytes, which the grader does not take`,
          { cause: error },
        );
      throw error;
    });
  const patch = (await diff()).stdout;
  if (isUtf8(patch)) return patch.toString('utf8');
  // Text in another encoding would not survive a JS string: diff every file as binary instead
  // (base85, plain ASCII, lossless). info/attributes outranks any .gitattributes the agent wrote.
  const attributes = join(trial.privateGitDir, 'info', 'attributes');
  await mkdir(join(trial.privateGitDir, 'info'), { recursive: true });
  await writeFile(attributes, '* binary\n');
  try {
    return (await diff()).stdout.toString('utf8');
  } finally {
    await rm(attributes);
  }
}

/**
 * A file as captureDiff recorded it in the private index, or null when the index has no blob there: what the agent's
 * patch says the file is, read from git's object store and never from the workspace, where a path may have become a
 * symlink to a FIFO or to a device since.
 */
export async function readCapturedBlob(trial: TrialWorkspace, path: string): Promise<Buffer | null> {
  if (path.includes('\0') || path.includes('\n')) return null;
  const { stdout } = await git(['--git-dir', trial.privateGitDir, 'cat-file', '--batch'], {
    cwd: trial.workspace,
    input: `:${path}\n`,
    maxOutputBytes: CAPTURE_LIMITS.fileBytes + 1024,
  });
  const headerEnd = stdout.indexOf(0x0a);
  const [, type, size] = stdout.subarray(0, headerEnd).toString('utf8').split(' ');
  if (type !== 'blob' || size === undefined) return null;
  return stdout.subarray(headerEnd + 1, headerEnd + 1 + Number(size));
}
