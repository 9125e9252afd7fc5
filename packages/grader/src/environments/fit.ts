// Whether an environment is the one a task's repository needs: the image records the files its install read (lockfiles,
// manifests) with their digests, and the task's repository at its base commit must hold those files with those
// contents. A signed task whose manifest names another repository's environment, or one built from other dependency
// files, fails here with `environment-mismatch` before anything runs in it.
import type { ImageConfig } from './store.js';
import { fileDigest } from './build.js';
import { EnvironmentError } from './errors.js';
import { LABELS } from './runtime.js';
import { git } from '../execution/git.js';

/** The dependency files an image was built from, by path, with their sha256; null for an image that records none. */
export function recordedDependencyFiles(config: ImageConfig): Record<string, string> | null {
  const value = config.config.Labels[LABELS.dependencyFiles];
  if (value === undefined) return null;
  const parsed = JSON.parse(value) as unknown;
  if (
    parsed === null ||
    typeof parsed !== 'object' ||
    Array.isArray(parsed) ||
    !Object.values(parsed).every((digest) => typeof digest === 'string')
  )
    throw new EnvironmentError('invalid-image', `the image's label ${LABELS.dependencyFiles} is not a map of digests`);
  return parsed as Record<string, string>;
}

/**
 * Throws `environment-mismatch` unless every dependency file the image records is in the task's repository with the
 * same digest. `read` gives a file of the repository at the task's base commit, or null when it has none.
 */
export async function checkEnvironmentFits(
  what: { taskId: string; digest: string; config: ImageConfig },
  read: (path: string) => Promise<Buffer | null>,
): Promise<void> {
  const recorded = recordedDependencyFiles(what.config);
  if (recorded === null) return;
  for (const [path, digest] of Object.entries(recorded)) {
    const content = await read(path);
    const found = content === null ? null : fileDigest(content);
    if (found !== digest)
      throw new EnvironmentError(
        'environment-mismatch',
        `task ${what.taskId} names environment ${what.digest}, built from ${path} ${digest}, but the task's repository at its base commit ${found === null ? 'has no such file' : `has ${found}`}: the manifest names another environment; ask the registry to freeze the task again`,
      );
  }
}

/** Reads files of a git repository at `commit`: the content, or null where the commit has no such file. */
export function filesAtCommit(gitDir: string, commit: string): (path: string) => Promise<Buffer | null> {
  return async (path) => {
    const found = await git(['-C', gitDir, 'cat-file', 'blob', `${commit}:${path}`], { cwd: gitDir, allowExit: [128] });
    return found.exitCode === 0 ? found.stdout : null;
  };
}
