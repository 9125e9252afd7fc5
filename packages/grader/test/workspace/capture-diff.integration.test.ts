import { appendFile, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskRepo, TrialWorkspace } from '../../src/workspace/index.js';
import {
  CAPTURE_LIMITS,
  captureDiff,
  createTrialWorkspace,
  createVerificationCheckout,
  prepareFixtureRepo,
  readCapturedBlob,
} from '../../src/workspace/index.js';
import { runProgram, hostPathEnvironment } from '../../src/execution/index.js';
import { baseFiles, codeOf, git, patchedPaths, writeFiles, writeTrap } from './support.js';

describe('captureDiff', () => {
  let root: string;
  let repo: TaskRepo;
  let trials = 0;

  async function newTrial(): Promise<TrialWorkspace> {
    const trialRoot = join(root, `trial-${++trials}`);
    await mkdir(trialRoot);
    return createTrialWorkspace(repo, trialRoot);
  }

  /** Applies a captured patch to a fresh checkout and reads `paths` there. */
  async function roundTrip(patch: string, paths: string[]): Promise<Map<string, Buffer | null>> {
    const dir = join(root, `verify-${++trials}`);
    const result = await createVerificationCheckout(repo, dir, { patch, overlayDir: null });
    expect(result).toEqual({ applied: true, applyError: null, restored: [] });
    return new Map(
      await Promise.all(paths.map(async (path) => [path, await readFile(join(dir, path)).catch(() => null)] as const)),
    );
  }

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'abp-workspace-capture-'));
    await writeFiles(join(root, 'fixture'), { ...baseFiles, 'keep.log': 'tracked although ignored\n' });
    repo = await prepareFixtureRepo({ fixtureDir: join(root, 'fixture'), cacheDir: join(root, 'cache') });
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('is the empty string when nothing changed, even after the agent ran git', async () => {
    const trial = await newTrial();
    await git(trial.workspace, 'status');
    await git(trial.workspace, 'log', '--oneline');
    expect(await captureDiff(repo, trial)).toBe('');
  });

  it('survives the agent committing, branching and deleting .git', async () => {
    const trial = await newTrial();
    await writeFile(join(trial.workspace, 'src', 'app.js'), 'export const answer = 42;\n');
    await writeFiles(trial.workspace, { 'src/extra.js': 'export const extra = 1;\n' });
    await rm(join(trial.workspace, 'README.md'));
    const uncommitted = await captureDiff(repo, trial);
    expect(patchedPaths(uncommitted)).toEqual(['README.md', 'src/app.js', 'src/extra.js']);

    await git(trial.workspace, 'add', '--all');
    await git(trial.workspace, 'commit', '--quiet', '-m', 'agent fix');
    await git(trial.workspace, 'checkout', '--quiet', '-b', 'experiment');
    expect(await captureDiff(repo, trial)).toBe(uncommitted);

    await rm(join(trial.workspace, '.git'), { recursive: true });
    expect(await captureDiff(repo, trial)).toBe(uncommitted);
    const files = await roundTrip(uncommitted, ['README.md', 'src/app.js', 'src/extra.js']);
    expect(files.get('README.md')).toBeNull();
    expect(files.get('src/app.js')?.toString()).toBe('export const answer = 42;\n');
    expect(files.get('src/extra.js')?.toString()).toBe('export const extra = 1;\n');
  });

  it('includes untracked files and honours the workspace’s .gitignore files, not the agent’s .git/info/exclude', async () => {
    const trial = await newTrial();
    await writeFiles(trial.workspace, {
      'new.txt': 'new\n',
      'debug.log': 'ignored by the root .gitignore\n',
      'build/out.js': 'ignored directory\n',
      'sub/.gitignore': 'secret.txt\n',
      'sub/secret.txt': 'ignored by a nested .gitignore\n',
      'sub/kept.txt': 'kept\n',
      '.git/info/exclude': 'new.txt\n',
    });
    await appendFile(join(trial.workspace, 'keep.log'), 'changed\n');
    expect(patchedPaths(await captureDiff(repo, trial))).toEqual([
      'keep.log',
      'new.txt',
      'sub/.gitignore',
      'sub/kept.txt',
    ]);
  });

  it('captures binary files and text in other encodings byte for byte', async () => {
    const trial = await newTrial();
    const reversed = Buffer.from(baseFiles['assets/logo.bin']).reverse();
    const added = Buffer.from([0, 1, 2, 255, 0, 13, 10, 0]);
    const latin1 = Buffer.from('caf\xe9 cr\xe8me\n', 'latin1');
    await writeFiles(trial.workspace, {
      'assets/logo.bin': reversed,
      'assets/new.bin': added,
      'docs/latin1.txt': latin1,
    });
    const patch = await captureDiff(repo, trial);
    expect(patch).toContain('GIT binary patch');
    expect(patchedPaths(patch)).toEqual(['assets/logo.bin', 'assets/new.bin', 'docs/latin1.txt']);
    const files = await roundTrip(patch, ['assets/logo.bin', 'assets/new.bin', 'docs/latin1.txt']);
    expect(files.get('assets/logo.bin')).toEqual(reversed);
    expect(files.get('assets/new.bin')).toEqual(added);
    expect(files.get('docs/latin1.txt')).toEqual(latin1);
  });

  it('records a symlink as a symlink and never follows it out of the workspace', async () => {
    const trial = await newTrial();
    await writeFiles(root, { 'outside/secret.txt': 'outside the workspace\n' });
    await symlink(join(root, 'outside'), join(trial.workspace, 'escape'));
    const patch = await captureDiff(repo, trial);
    expect(patch).toContain('new file mode 120000');
    expect(patch).not.toContain('outside the workspace');
  });

  it('never runs what the agent’s git config, hooks, attributes or a nested repository name', async () => {
    const trial = await newTrial();
    const sentinel = join(root, 'grader-ran-agent-code');
    const trap = join(root, 'trap.sh');
    await writeTrap(trap, sentinel);
    const gitDir = join(trial.workspace, '.git');
    for (const [key, value] of [
      ['core.fsmonitor', trap],
      ['core.hooksPath', join(root, 'hooks')],
      ['core.pager', trap],
      ['core.editor', trap],
      ['diff.external', trap],
      ['filter.evil.clean', trap],
      ['filter.evil.smudge', trap],
      ['filter.evil.process', trap],
      ['diff.evil.textconv', trap],
      ['diff.evil.command', trap],
    ] as const) {
      await git(trial.workspace, 'config', key, value);
    }
    for (const hooks of [join(root, 'hooks'), join(gitDir, 'hooks')]) {
      await mkdir(hooks, { recursive: true });
      for (const hook of [
        'pre-commit',
        'post-checkout',
        'post-index-change',
        'pre-auto-gc',
        'reference-transaction',
        'fsmonitor-watchman',
      ])
        await writeTrap(join(hooks, hook), sentinel);
    }
    await writeFiles(trial.workspace, { '.gitattributes': '* filter=evil diff=evil\n' });
    await appendFile(join(trial.workspace, 'src', 'app.js'), '// edited\n');
    const nested = join(trial.workspace, 'vendor', 'nested');
    await mkdir(nested, { recursive: true });
    await git(nested, 'init', '--quiet');
    await git(nested, 'commit', '--quiet', '--allow-empty', '-m', 'nested');
    await git(nested, 'config', 'core.fsmonitor', trap);

    const patch = await captureDiff(repo, trial);
    expect(patchedPaths(patch)).toEqual(['.gitattributes', 'src/app.js', 'vendor/nested']);
    await createVerificationCheckout(repo, join(root, `verify-${++trials}`), { patch, overlayDir: null });
    expect(
      await stat(sentinel).then(
        () => 'ran',
        () => 'never ran',
      ),
    ).toBe('never ran');

    // The trap is armed: the agent's own git runs it (and then fails on the filter's silence).
    await git(trial.workspace, 'status').catch(() => undefined);
    expect(await readFile(sentinel, 'utf8')).toContain('ran:');
  });

  it('takes a FIFO and a symlink to one as git does, and reads what it captured from git, never from the workspace', async () => {
    const trial = await newTrial();
    await writeFile(join(trial.workspace, 'src', 'app.js'), 'export const answer = 42;\n');
    await runProgram(['mkfifo', join(trial.workspace, 'pipe')], { cwd: root, env: hostPathEnvironment() });
    await symlink('pipe', join(trial.workspace, 'src', 'to-pipe'));
    await symlink('/nonexistent/target', join(trial.workspace, 'dangling'));
    const patch = await captureDiff(repo, trial);
    expect(patchedPaths(patch)).toEqual(['dangling', 'src/app.js', 'src/to-pipe']);
    expect((await readCapturedBlob(trial, 'src/app.js'))?.toString()).toBe('export const answer = 42;\n');
    expect((await readCapturedBlob(trial, 'src/to-pipe'))?.toString()).toBe('pipe');
    expect(await readCapturedBlob(trial, 'pipe')).toBeNull();
    expect(await readCapturedBlob(trial, 'no/such/file')).toBeNull();
  });

  it('refuses, as workspace-too-large, a file or a number of files past its limits before git reads them', async () => {
    const big = await newTrial();
    await writeFile(join(big.workspace, 'huge.bin'), Buffer.alloc(CAPTURE_LIMITS.fileBytes + 1));
    expect(await codeOf(captureDiff(repo, big))).toBe('workspace-too-large');
    // Ignored files are not the engine's changes: any size is fine there.
    const ignored = await newTrial();
    await mkdir(join(ignored.workspace, 'build'));
    await writeFile(join(ignored.workspace, 'build', 'huge.bin'), Buffer.alloc(CAPTURE_LIMITS.fileBytes + 1));
    expect(await captureDiff(repo, ignored)).toBe('');
    const many = await newTrial();
    await mkdir(join(many.workspace, 'many'));
    for (let index = 0; index <= CAPTURE_LIMITS.files; index += 1)
      await writeFile(join(many.workspace, 'many', `${index}`), '');
    expect(await codeOf(captureDiff(repo, many))).toBe('workspace-too-large');
  });

  it('fails with workspace-missing when the workspace is gone', async () => {
    const trial = await newTrial();
    await rm(trial.workspace, { recursive: true });
    expect(await codeOf(captureDiff(repo, trial))).toBe('workspace-missing');
  });

  it('refuses a trial root that is missing or not empty', async () => {
    const trialRoot = join(root, 'not-empty');
    expect(await codeOf(createTrialWorkspace(repo, trialRoot))).toBe('invalid-trial-root');
    await writeFiles(trialRoot, { 'planted.txt': 'x' });
    expect(await codeOf(createTrialWorkspace(repo, trialRoot))).toBe('invalid-trial-root');
  });

  it('works from a relative trial root', async () => {
    const trialRoot = join(root, 'relative');
    await mkdir(trialRoot);
    const trial = await createTrialWorkspace(repo, relative(process.cwd(), trialRoot));
    await writeFiles(trial.workspace, { 'new.txt': 'new\n' });
    expect(patchedPaths(await captureDiff(repo, trial))).toEqual(['new.txt']);
  });
});
