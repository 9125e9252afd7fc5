import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskRepo } from '../../src/workspace/index.js';
import {
  captureDiff,
  createTrialWorkspace,
  createVerificationCheckout,
  prepareTaskRepo,
  readBlobAtBase,
} from '../../src/workspace/index.js';
import type { SourceRepo } from './support.js';
import { baseFiles, codeOf, createSourceRepo, git, writeFiles } from './support.js';

describe('createVerificationCheckout', () => {
  let root: string;
  let task: SourceRepo;
  let repo: TaskRepo;
  let overlayDir: string;
  let outside: string;
  /** What an agent that tried to plant its own verification left behind. */
  let plantedPatch: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'abp-workspace-verify-'));
    task = await createSourceRepo(join(root, 'source'));
    repo = await prepareTaskRepo({ source: task.source, baseCommit: task.baseCommit, cacheDir: join(root, 'cache') });
    overlayDir = join(root, 'held-out');
    await writeFiles(overlayDir, {
      'tests/held-out.test.js': 'real held-out test\n',
      'tests/data/expected.json': '{"real": true}\n',
      'tests/fixture.txt': 'real fixture\n',
    });
    outside = join(root, 'outside');
    await mkdir(outside);

    await mkdir(join(root, 'trial'));
    const trial = await createTrialWorkspace(repo, join(root, 'trial'));
    await writeFiles(trial.workspace, {
      'src/app.js': 'export const answer = 42;\n',
      'tests/held-out.test.js': 'fake test that always passes\n',
      'tests/fixture.txt/decoy.txt': 'a directory where a held-out file goes\n',
    });
    await symlink(outside, join(trial.workspace, 'tests', 'data'));
    plantedPatch = await captureDiff(repo, trial);
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('applies the patch, then the held-out files replace whatever the agent planted at or above their paths', async () => {
    const dir = join(root, 'verify-planted');
    expect(await createVerificationCheckout(repo, dir, { patch: plantedPatch, overlayDir })).toEqual({
      applied: true,
      applyError: null,
      restored: [],
    });
    expect(await readFile(join(dir, 'src', 'app.js'), 'utf8')).toBe('export const answer = 42;\n');
    expect(await readFile(join(dir, 'tests', 'held-out.test.js'), 'utf8')).toBe('real held-out test\n');
    expect((await lstat(join(dir, 'tests', 'data'))).isDirectory()).toBe(true);
    expect(await readFile(join(dir, 'tests', 'data', 'expected.json'), 'utf8')).toBe('{"real": true}\n');
    expect(await readFile(join(dir, 'tests', 'fixture.txt'), 'utf8')).toBe('real fixture\n');
    expect(await readdir(outside)).toEqual([]);
  });

  it('is a normal repository on branch main at base, reading history without the agent’s objects', async () => {
    const dir = join(root, 'verify-repo');
    await createVerificationCheckout(repo, dir, { patch: plantedPatch, overlayDir: null });
    expect((await git(dir, 'rev-parse', '--abbrev-ref', 'HEAD')).trim()).toBe('main');
    expect((await git(dir, 'rev-parse', 'HEAD')).trim()).toBe(task.baseCommit);
    expect((await git(dir, 'log', '--format=%s')).split('\n').filter(Boolean)).toEqual(['docs', 'initial']);
    expect(await git(dir, 'status', '--porcelain')).toContain(' M src/app.js');
    expect(await git(dir, 'log', '--all', '--format=%B')).not.toContain(task.marker);
  });

  it('with an empty patch and no overlay, is base exactly', async () => {
    const dir = join(root, 'verify-base');
    expect(await createVerificationCheckout(repo, dir, { patch: '', overlayDir: null })).toEqual({
      applied: true,
      applyError: null,
      restored: [],
    });
    expect(await readFile(join(dir, 'README.md'), 'utf8')).toBe('# demo\n\nRun the tests.\n');
    for (const path of Object.keys(baseFiles))
      expect(await readFile(join(dir, path))).toEqual(await readBlobAtBase(repo, path));
    expect(await git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
  });

  it('puts guarded paths back as base held them, a symlink or a file the patch added included, and lists them', async () => {
    const trialRoot = join(root, 'trial-guarded');
    await mkdir(trialRoot);
    const trial = await createTrialWorkspace(repo, trialRoot);
    await writeFiles(trial.workspace, {
      'src/app.js': 'export const answer = 42;\n',
      '.gitignore': '*.log\n',
      'pytest.ini': '[pytest]\naddopts = -p planted\n',
    });
    await symlink(join(outside, 'runner.js'), join(trial.workspace, 'jest.config.js'));
    const patch = await captureDiff(repo, trial);
    const dir = join(root, 'verify-guarded');
    const seen: Array<[string, string | null, string | null]> = [];
    const result = await createVerificationCheckout(repo, dir, {
      patch,
      overlayDir: null,
      guarded: {
        paths: ['.gitignore', 'jest.config.js', 'pytest.ini'],
        restore: (path, before, after) => {
          seen.push([path, before, after]);
          return before;
        },
      },
    });
    expect(result).toEqual({
      applied: true,
      applyError: null,
      restored: ['.gitignore', 'jest.config.js', 'pytest.ini'],
    });
    // The symlink is never followed or handed to the rule as text: it goes back whole.
    expect(seen).toEqual([
      ['.gitignore', '*.log\nbuild/\n', '*.log\n'],
      ['pytest.ini', null, '[pytest]\naddopts = -p planted\n'],
    ]);
    expect(await readFile(join(dir, '.gitignore'), 'utf8')).toBe('*.log\nbuild/\n');
    expect(await readFile(join(dir, 'src', 'app.js'), 'utf8')).toBe('export const answer = 42;\n');
    expect(await lstat(join(dir, 'jest.config.js')).catch(() => null)).toBeNull();
    expect(await lstat(join(dir, 'pytest.ini')).catch(() => null)).toBeNull();
  });

  it('reports a patch that does not apply and leaves base plus the held-out files', async () => {
    const dir = join(root, 'verify-stale');
    const stale = plantedPatch.replace('-export const answer = 41;', '-export const answer = 40;');
    expect(stale).not.toBe(plantedPatch);
    const result = await createVerificationCheckout(repo, dir, { patch: stale, overlayDir });
    expect(result.applied).toBe(false);
    expect(result.applyError).toMatch(/\S/);
    expect(await readFile(join(dir, 'src', 'app.js'), 'utf8')).toBe('export const answer = 41;\n');
    expect(await readFile(join(dir, 'tests', 'held-out.test.js'), 'utf8')).toBe('real held-out test\n');
  });

  it('refuses a directory that already exists', async () => {
    const dir = join(root, 'verify-exists');
    await mkdir(dir);
    await writeFile(join(dir, 'planted'), 'x');
    expect(await codeOf(createVerificationCheckout(repo, dir, { patch: '', overlayDir: null }))).toBe(
      'verification-dir-exists',
    );
  });
});
