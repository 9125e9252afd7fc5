import { mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskRepo, TrialWorkspace } from '../../src/workspace/index.js';
import { createTrialWorkspace, prepareTaskRepo } from '../../src/workspace/index.js';
import type { SourceRepo } from './support.js';
import { allFileBytes, createSourceRepo, git, gitBytes } from './support.js';

/** Everything an agent could ask git to find history with. */
const historyCommands = [
  ['log', '--all', '--format=%H %s%n%b%N'],
  ['reflog'],
  ['tag', '--list'],
  ['branch', '--all'],
  ['remote', '--verbose'],
  ['stash', 'list'],
  ['notes', 'list'],
  ['for-each-ref'],
  ['rev-list', '--all', '--objects'],
  ['fsck', '--unreachable', '--lost-found', '--no-progress'],
  ['fsck', '--dangling', '--no-reflogs', '--no-progress'],
  ['cat-file', '--batch-all-objects', '--batch-check'],
  ['count-objects', '--verbose'],
];

describe('a trial workspace holds base and its history, nothing later', () => {
  let root: string;
  let task: SourceRepo;
  let repo: TaskRepo;
  let trial: TrialWorkspace;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'abp-workspace-isolation-'));
    task = await createSourceRepo(join(root, 'source'));
    repo = await prepareTaskRepo({ source: task.source, baseCommit: task.baseCommit, cacheDir: join(root, 'cache') });
    await mkdir(join(root, 'trial'));
    trial = await createTrialWorkspace(repo, join(root, 'trial'));
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('the source really holds the future fix where every command looks (so the checks below can fail)', async () => {
    const outputs = await Promise.all(historyCommands.map((args) => git(task.source, ...args)));
    const found = historyCommands.filter(
      (_, index) =>
        outputs[index]?.includes(task.marker) === true || outputs[index]?.includes(task.futureCommit) === true,
    );
    expect(found.map((args) => args.join(' '))).toEqual(
      expect.arrayContaining([
        'log --all --format=%H %s%n%b%N',
        'reflog',
        'for-each-ref',
        'rev-list --all --objects',
        'cat-file --batch-all-objects --batch-check',
      ]),
    );
    expect(await git(task.source, 'tag', '--list')).toContain('v1-fix');
    expect(await git(task.source, 'stash', 'list')).toContain(task.marker);
  });

  it('no git command run inside the workspace finds the future commit or the marker', async () => {
    for (const args of historyCommands) {
      const output = await git(trial.workspace, ...args);
      expect(output, `git ${args.join(' ')}`).not.toContain(task.marker);
      expect(output, `git ${args.join(' ')}`).not.toContain(task.futureCommit);
    }
    expect(await git(trial.workspace, 'tag', '--list')).toBe('');
    expect(await git(trial.workspace, 'stash', 'list')).toBe('');
    expect(await git(trial.workspace, 'reflog')).toBe('');
    expect(await git(trial.workspace, 'remote')).toBe('');
    await expect(git(trial.workspace, 'cat-file', '-e', task.futureCommit)).rejects.toThrow();
  });

  it('reachable history is exactly base and its ancestors, objects exactly their closure', async () => {
    expect(await git(trial.workspace, 'rev-list', '--all')).toBe(await git(task.source, 'rev-list', task.baseCommit));
    const closure = (await git(task.source, 'rev-list', '--objects', task.baseCommit))
      .split('\n')
      .filter(Boolean)
      .map((line) => line.slice(0, 40))
      .sort();
    const present = (await git(trial.workspace, 'cat-file', '--batch-all-objects', '--batch-check=%(objectname)'))
      .split('\n')
      .filter(Boolean)
      .sort();
    expect(present).toEqual(closure);
    expect(await git(trial.workspace, 'fsck', '--unreachable', '--dangling', '--no-progress')).toBe('');
  });

  it('no byte of the workspace, .git included and every object decompressed, holds the marker', async () => {
    const dump = await gitBytes(trial.workspace, 'cat-file', '--batch-all-objects', '--batch');
    expect(dump.includes('export const answer = 41;')).toBe(true);
    expect(dump.includes(task.marker)).toBe(false);
    // The workspace's .git borrows objects from the scrubbed cache: scan the folder it points at too.
    const alternates = (await readFile(join(trial.workspace, '.git', 'objects', 'info', 'alternates'), 'utf8')).trim();
    const files = [...(await allFileBytes(trial.workspace)), ...(await allFileBytes(alternates))];
    expect(files.some((file) => file.path.endsWith('.pack'))).toBe(true);
    for (const file of files) {
      expect(file.bytes.includes(task.marker), file.path).toBe(false);
      expect(file.bytes.includes(task.futureCommit), file.path).toBe(false);
    }
  });

  it('the .git has no packed-refs, FETCH_HEAD, ORIG_HEAD, logs, stash, notes or remotes', async () => {
    const gitDir = join(trial.workspace, '.git');
    for (const path of [
      'packed-refs',
      'FETCH_HEAD',
      'ORIG_HEAD',
      'logs',
      'refs/stash',
      'refs/notes',
      'refs/remotes',
      'shallow',
    ]) {
      expect(
        await stat(join(gitDir, path)).then(
          () => path,
          () => null,
        ),
      ).toBeNull();
    }
    expect(await readdir(join(gitDir, 'refs', 'heads'))).toEqual(['main']);
  });

  it('is branch main at base with a clean status and base’s history before it', async () => {
    expect((await git(trial.workspace, 'rev-parse', '--abbrev-ref', 'HEAD')).trim()).toBe('main');
    expect((await git(trial.workspace, 'rev-parse', 'HEAD')).trim()).toBe(task.baseCommit);
    expect(await git(trial.workspace, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expect((await git(trial.workspace, 'log', '--format=%s')).split('\n').filter(Boolean)).toEqual(['docs', 'initial']);
    expect(await git(trial.workspace, 'show', 'HEAD:src/app.js')).toBe('export const answer = 41;\n');
  });

  it('the cache is bare, one pack, one ref, no reflogs and only base’s closure', async () => {
    expect((await readdir(repo.gitDir)).sort()).toEqual(['HEAD', 'config', 'objects', 'refs']);
    expect((await readdir(join(repo.gitDir, 'objects', 'pack'))).filter((name) => name.endsWith('.pack'))).toHaveLength(
      1,
    );
    expect(await git(repo.gitDir, 'for-each-ref', '--format=%(refname) %(objectname)')).toBe(
      `refs/heads/base ${task.baseCommit}\n`,
    );
    expect((await git(repo.gitDir, 'count-objects', '--verbose')).match(/^count: (\d+)$/m)?.[1]).toBe('0');
    expect(
      (await git(repo.gitDir, 'cat-file', '--batch-all-objects', '--batch-check=%(objectname)'))
        .split('\n')
        .filter(Boolean)
        .sort(),
    ).toEqual(
      (await git(trial.workspace, 'cat-file', '--batch-all-objects', '--batch-check=%(objectname)'))
        .split('\n')
        .filter(Boolean)
        .sort(),
    );
    expect(repo.baseTree).toBe((await git(task.source, 'rev-parse', `${task.baseCommit}^{tree}`)).trim());
  });
});
