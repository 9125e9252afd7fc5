// A task frozen as an operator freezes one by hand: `abp init`, then `abp freeze` with the detected recipe, its
// environment built in the tests' shared store (so each Debian base and install is built once for every suite), and
// the bundle unpacked into a tasks folder the way `abp pull` lays one out, ready for `abp run`.
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { unpackBundle } from '@abp/grader/bundle';
import type { PublishedTask } from '../../src/freeze/index.js';
import { runAbp } from './cli.js';
import { sharedEnvironmentStore } from '../../../../test-support/toolchain-caches.js';

export async function freezeWithCli(input: {
  /** A folder of the test's own: the data directory, the issue file and the tasks folder go here. */
  root: string;
  repo: string;
  gitDir: string;
  base: string;
  /** The fix: a commit, or the path of a patch file. */
  fix: string;
  issue: { number: number; title: string; body: string };
  pr: string;
}): Promise<{ task: PublishedTask; tasksDir: string }> {
  const home = join(input.root, 'home');
  await mkdir(home, { recursive: true });
  await symlink(sharedEnvironmentStore, join(home, 'environments'));
  expect((await runAbp(['init'], { ABP_HOME: home })).code).toBe(0);
  const issueFile = join(input.root, 'issue.json');
  await writeFile(issueFile, JSON.stringify(input.issue));
  const frozen = await runAbp(
    [
      'freeze',
      ...['--repo', input.repo, '--base', input.base, '--fix', input.fix, '--git-dir', input.gitDir],
      ...['--issue', issueFile, '--pr', input.pr],
      ...['--registry-version', 'abp-registry/2026Q2', '--sourced-at', '2026-06-01T00:00:00Z', '--draw-seed', '7'],
      '--json',
    ],
    { ABP_HOME: home },
    900_000,
  );
  expect(frozen.code, frozen.stderr).toBe(0);
  const task = JSON.parse(frozen.stdout) as PublishedTask;
  const tasksDir = join(input.root, 'tasks');
  await unpackBundle(task.archivePath, {
    taskDir: join(tasksDir, task.taskId, 'task'),
    heldOutDir: join(tasksDir, task.taskId, 'held-out'),
    expectedDigest: task.digest,
  });
  return { task, tasksDir };
}
