// A task frozen as an operator freezes one by hand: `abp init`, then `abp freeze` with the detected recipe, its
// environment built in the tests' shared store (so each Debian base and install is built once for every suite), and
// the bundle unpacked into a tasks folder the way `abp pull` lays one out, ready for `abp run`. Also the small fixture
// repositories such freezes start from (a base commit and a fix), and their grading by the bundled engines.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import { unpackBundle } from '@abp/grader/bundle';
import type { PublishedTask } from '../../src/freeze/index.js';
import { gradeBundledEngines } from './bundled-engines.js';
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

async function writeFiles(dir: string, files: Readonly<Record<string, string>>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
}

/**
 * A git repository at `<root>/<name>` whose first commit holds `base` and second adds `fix`; `prepare` runs before the
 * first commit (to write a lockfile with the real tool, say).
 */
export async function fixtureRepository(input: {
  root: string;
  name: string;
  base: Readonly<Record<string, string>>;
  fix: Readonly<Record<string, string>>;
  prepare?: (dir: string) => void;
}): Promise<{ gitDir: string; base: string; fix: string }> {
  const dir = join(input.root, input.name);
  await writeFiles(dir, input.base);
  input.prepare?.(dir);
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: dir })
      .toString()
      .trim();
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-qm', input.name);
  const base = git('rev-parse', 'HEAD');
  await writeFiles(dir, input.fix);
  git('add', '-A');
  git('commit', '-qm', 'the fix');
  return { gitDir: dir, base, fix: git('rev-parse', 'HEAD') };
}

/** The outcomes of the bundled reference and no-op engines on one frozen task, graded in its environment. */
async function referenceAndNoop(
  root: string,
  tasksDir: string,
  taskId: string,
): Promise<{ reference: string | undefined; noop: string | undefined; detail: string }> {
  const dir = join(root, 'grade');
  await mkdir(dir);
  const outcome = await gradeBundledEngines({ dir, tasksDir, taskIds: [taskId], environments: sharedEnvironmentStore });
  const byEngine = Object.fromEntries(outcome.trials.map((trial) => [trial.engine, trial]));
  return {
    reference: byEngine['reference']?.outcome,
    noop: byEngine['noop']?.outcome,
    detail: JSON.stringify(byEngine['reference']),
  };
}

/** What the freeze held out as the expected results of a task unpacked in `tasksDir`. */
export interface ExpectedResults {
  failToPass: string[];
  passToPass: string[];
  flaky: string[];
  reportFormat: string;
}

export async function expectedResults(tasksDir: string, taskId: string): Promise<ExpectedResults> {
  return JSON.parse(
    await readFile(join(tasksDir, taskId, 'held-out', 'expected-results.json'), 'utf8'),
  ) as ExpectedResults;
}

export interface FrozenFixture {
  /** The folder everything lives in; the test removes it. */
  readonly root: string;
  readonly gitDir: string;
  readonly base: string;
  readonly task: PublishedTask;
  readonly tasksDir: string;
}

/**
 * A fixture repository whose fix is "clamp returns the wrong bound" (issue `issue`, its pull request the next number),
 * made in a folder of its own and frozen with `abp freeze` and no recipe.
 */
export async function freezeFixture(input: {
  /** Names the folder, for whoever finds it left behind. */
  label: string;
  /** owner/name */
  repo: string;
  base: Readonly<Record<string, string>>;
  fix: Readonly<Record<string, string>>;
  prepare?: (dir: string) => void;
  issue: number;
}): Promise<FrozenFixture> {
  const root = await mkdtemp(join(tmpdir(), `abp-freeze-${input.label}-`));
  const name = input.repo.slice(input.repo.indexOf('/') + 1);
  const repo = await fixtureRepository({
    root,
    name,
    base: input.base,
    fix: input.fix,
    ...(input.prepare === undefined ? {} : { prepare: input.prepare }),
  });
  const { task, tasksDir } = await freezeWithCli({
    root,
    repo: input.repo,
    gitDir: repo.gitDir,
    base: repo.base,
    fix: repo.fix,
    issue: { number: input.issue, title: 'clamp returns the wrong bound', body: 'clamp(-1, 0, 10) returns 10, not 0.' },
    pr: `https://github.com/${input.repo}/pull/${input.issue + 1}`,
  });
  return { root, gitDir: repo.gitDir, base: repo.base, task, tasksDir };
}

/** Grades the task with the bundled engines and expects the reference resolved and the no-op unresolved. */
export async function expectReferenceResolvedNoopUnresolved(
  root: string,
  tasksDir: string,
  taskId: string,
): Promise<void> {
  const graded = await referenceAndNoop(root, tasksDir, taskId);
  expect(graded.reference, graded.detail).toBe('resolved');
  expect(graded.noop).toBe('unresolved');
}
