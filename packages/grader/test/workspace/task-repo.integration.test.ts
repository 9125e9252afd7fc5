import { chmod, mkdir, mkdtemp, open, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cacheDigest,
  cacheProblem,
  captureDiff,
  createTrialWorkspace,
  prepareFixtureRepo,
  prepareTaskRepo,
  readBlobAtBase,
} from '../../src/workspace/index.js';
import type { SourceRepo } from './support.js';
import { binaryLogo, codeOf, createSourceRepo, git, writeFiles } from './support.js';

let root: string;
let task: SourceRepo;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-workspace-task-repo-'));
  task = await createSourceRepo(join(root, 'source'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function packCount(gitDir: string): Promise<number> {
  return (await readdir(join(gitDir, 'objects', 'pack'))).filter((name) => name.endsWith('.pack')).length;
}

describe('prepareTaskRepo', () => {
  it('is safe under concurrent callers: one complete cache, no leftovers', async () => {
    const cacheDir = join(root, 'concurrent-cache');
    const repos = await Promise.all(
      Array.from({ length: 6 }, () => prepareTaskRepo({ source: task.source, baseCommit: task.baseCommit, cacheDir })),
    );
    for (const repo of repos) expect(repo).toEqual(repos[0]);
    expect(await readdir(cacheDir)).toEqual([`${task.baseCommit}.git`]);
    expect(await packCount(repos[0]?.gitDir ?? '')).toBe(1);
    expect(await git(repos[0]?.gitDir ?? '', 'fsck', '--strict', '--no-progress')).toBe('');
  });

  it('is idempotent and accepts a bare source and an upper-case sha', async () => {
    const bare = join(root, 'source-bare.git');
    await git(root, 'clone', '--quiet', '--mirror', task.source, bare);
    const cacheDir = join(root, 'bare-cache');
    const first = await prepareTaskRepo({ source: bare, baseCommit: task.baseCommit.toUpperCase(), cacheDir });
    const again = await prepareTaskRepo({ source: bare, baseCommit: task.baseCommit, cacheDir });
    expect(again).toEqual(first);
    expect(first.baseCommit).toBe(task.baseCommit);
    expect(await git(first.gitDir, 'rev-list', '--all')).toBe(await git(task.source, 'rev-list', task.baseCommit));
  });

  it('names a base commit the source lacks: missing-base-commit, and leaves nothing behind', async () => {
    const cacheDir = join(root, 'missing-cache');
    const absent = '0123456789abcdef0123456789abcdef01234567';
    expect(await codeOf(prepareTaskRepo({ source: task.source, baseCommit: absent, cacheDir }))).toBe(
      'missing-base-commit',
    );
    const message = await prepareTaskRepo({ source: task.source, baseCommit: absent, cacheDir }).catch(
      (error: unknown) => String(error),
    );
    expect(message).toContain(absent);
    expect(message).toContain(task.source);
    expect(await readdir(cacheDir)).toEqual([]);
  });

  it('rejects an abbreviated or symbolic base commit and a source that is not a repository', async () => {
    const cacheDir = join(root, 'invalid-cache');
    for (const baseCommit of [task.baseCommit.slice(0, 12), 'HEAD', 'main', `${task.baseCommit}0`]) {
      expect(await codeOf(prepareTaskRepo({ source: task.source, baseCommit, cacheDir })), baseCommit).toBe(
        'invalid-base-commit',
      );
    }
    expect(
      await codeOf(prepareTaskRepo({ source: join(root, 'no-such-source'), baseCommit: task.baseCommit, cacheDir })),
    ).toBe('source-not-a-repository');
  });
});

describe('a cache found in place', () => {
  const prepare = (cacheDir: string) => prepareTaskRepo({ source: task.source, baseCommit: task.baseCommit, cacheDir });

  it('passes its check as built, fetched or made from a fixture, and keeps its digest while workspaces read it', async () => {
    const repo = await prepare(join(root, 'checked-cache'));
    expect(await cacheProblem(repo.gitDir, repo.baseCommit)).toBeNull();
    const digest = await cacheDigest(repo);
    expect(await readBlobAtBase(repo, 'src/app.js')).not.toBeNull();
    // A workspace's `git add` of a file base already has freshens the cache's pack: its time, not its bytes.
    await mkdir(join(root, 'checked-trial'));
    const trial = await createTrialWorkspace(repo, join(root, 'checked-trial'));
    await writeFiles(trial.workspace, { 'copy.js': 'export const answer = 41;\n' });
    await captureDiff(repo, trial);
    expect(await cacheDigest(repo)).toBe(digest);
    const fixtureDir = join(root, 'checked-fixture');
    await writeFiles(fixtureDir, { 'a.txt': 'a\n', 'dir/b.txt': 'b\n' });
    const fixture = await prepareFixtureRepo({ fixtureDir, cacheDir: join(root, 'checked-fixture-cache') });
    expect(await cacheProblem(fixture.gitDir, fixture.baseCommit)).toBeNull();
  });

  it('is built again, and says why, when a byte of its pack was rewritten in place', async () => {
    const cacheDir = join(root, 'poisoned-pack-cache');
    const repo = await prepare(cacheDir);
    const before = await cacheDigest(repo);
    const pack = (await readdir(join(repo.gitDir, 'objects', 'pack'))).find((name) => name.endsWith('.pack')) ?? '';
    const handle = await open(join(repo.gitDir, 'objects', 'pack', pack), 'r+');
    try {
      const byte = Buffer.alloc(1);
      await handle.read(byte, 0, 1, 40);
      await handle.write(Buffer.from([byte[0]! ^ 0xff]), 0, 1, 40);
    } finally {
      await handle.close();
    }
    expect(await cacheDigest(repo)).not.toBe(before);
    expect(await cacheProblem(repo.gitDir, repo.baseCommit)).toMatch(/verify-pack/);
    const again = await prepare(cacheDir);
    expect(again.rebuilt).toMatch(/verify-pack/);
    expect(await cacheProblem(again.gitDir, again.baseCommit)).toBeNull();
    expect((await readBlobAtBase(again, 'src/app.js'))?.toString()).toBe('export const answer = 41;\n');
    expect(await readdir(cacheDir)).toEqual([`${task.baseCommit}.git`]);
  });

  it('fails its check for a loose object, an alternate, another ref or a moved ref', async () => {
    const cacheDir = join(root, 'planted-cache');
    const plants: Array<[string, (gitDir: string) => Promise<void>, RegExp]> = [
      ['loose object', (gitDir) => writeFiles(join(gitDir, 'objects', 'ab'), { ['c'.repeat(38)]: 'x' }), /holds ab/],
      [
        'alternates',
        (gitDir) => writeFile(join(gitDir, 'objects', 'info', 'alternates'), '/elsewhere\n'),
        /alternates/,
      ],
      [
        'a second branch',
        (gitDir) => writeFile(join(gitDir, 'refs', 'heads', 'future'), `${task.futureCommit}\n`),
        /future/,
      ],
      ['a moved ref', (gitDir) => writeFile(join(gitDir, 'refs', 'heads', 'base'), `${task.futureCommit}\n`), /base/],
      [
        'a config setting',
        (gitDir) =>
          writeFile(join(gitDir, 'config'), '[core]\n\tbare = true\n[uploadpack]\n\tallowAnySHA1InWant = true\n'),
        /config/,
      ],
    ];
    for (const [what, plant, reason] of plants) {
      const repo = await prepare(cacheDir);
      await mkdir(join(repo.gitDir, 'objects', 'info'), { recursive: true });
      await plant(repo.gitDir);
      expect([what, await cacheProblem(repo.gitDir, repo.baseCommit)]).toEqual([what, expect.stringMatching(reason)]);
      expect((await prepare(cacheDir)).rebuilt, what).toMatch(reason);
    }
  });
});

describe('prepareFixtureRepo', () => {
  const fixture = {
    'README.md': '# fixture\n',
    'src/index.js': 'export const value = 1;\n',
    '.gitignore': '*.log\n',
    'notes.log': 'ignored by its own .gitignore, kept by the fixture\n',
    'data/bytes.bin': binaryLogo,
    'bin/run.sh': '#!/bin/sh\necho run\n',
  };

  async function writeFixture(dir: string): Promise<void> {
    await writeFiles(dir, fixture);
    await chmod(join(dir, 'bin', 'run.sh'), 0o755);
    await chmod(join(dir, 'README.md'), 0o644);
  }

  it('makes the same commit from the same files on any machine, in any cache', async () => {
    await writeFixture(join(root, 'fixture-a'));
    await writeFixture(join(root, 'fixture-b'));
    const a = await prepareFixtureRepo({
      fixtureDir: join(root, 'fixture-a'),
      cacheDir: join(root, 'fixture-cache-a'),
    });
    const b = await prepareFixtureRepo({
      fixtureDir: join(root, 'fixture-b'),
      cacheDir: join(root, 'fixture-cache-b'),
    });
    expect(b.baseCommit).toBe(a.baseCommit);
    expect(b.baseTree).toBe(a.baseTree);
    // Pinned: a change here means every fixture task's base commit moved.
    expect(a.baseCommit).toBe('51ae57fb6c6a3c0b7db78a5f2a4f138c22ea79bc');
    expect(await git(a.gitDir, 'log', '--format=%an <%ae> %ad|%cn <%ce> %cd|%s', '--date=iso-strict')).toBe(
      'ABP Fixture <fixture@abp.invalid> 2000-01-01T00:00:00+00:00|ABP Fixture <fixture@abp.invalid> 2000-01-01T00:00:00+00:00|ABP fixture\n',
    );
  });

  it('holds every file (ignored ones too, modes kept) in one pack with one ref', async () => {
    await writeFixture(join(root, 'fixture-c'));
    const cacheDir = join(root, 'fixture-cache-c');
    const repo = await prepareFixtureRepo({ fixtureDir: join(root, 'fixture-c'), cacheDir });
    const again = await prepareFixtureRepo({ fixtureDir: join(root, 'fixture-c'), cacheDir });
    expect(again).toEqual(repo);
    expect(await readdir(cacheDir)).toEqual([`${repo.baseCommit}.git`]);
    expect((await readdir(repo.gitDir)).sort()).toEqual(['HEAD', 'config', 'objects', 'refs']);
    expect(await packCount(repo.gitDir)).toBe(1);
    expect((await git(repo.gitDir, 'count-objects', '--verbose')).match(/^count: (\d+)$/m)?.[1]).toBe('0');
    expect(await git(repo.gitDir, 'for-each-ref', '--format=%(refname)')).toBe('refs/heads/base\n');
    const tree = await git(repo.gitDir, 'ls-tree', '-r', '--format=%(objectmode) %(path)', 'base');
    expect(tree.split('\n').filter(Boolean)).toEqual([
      '100644 .gitignore',
      '100644 README.md',
      '100755 bin/run.sh',
      '100644 data/bytes.bin',
      '100644 notes.log',
      '100644 src/index.js',
    ]);
  });
});

describe('readBlobAtBase', () => {
  it('reads files at base byte for byte, and null for paths base has no blob at', async () => {
    const repo = await prepareTaskRepo({
      source: task.source,
      baseCommit: task.baseCommit,
      cacheDir: join(root, 'blob-cache'),
    });
    expect((await readBlobAtBase(repo, 'src/app.js'))?.toString()).toBe('export const answer = 41;\n');
    expect(await readBlobAtBase(repo, 'assets/logo.bin')).toEqual(binaryLogo);
    expect(await readBlobAtBase(repo, 'tests/fix.test.js')).toBeNull();
    expect(await readBlobAtBase(repo, 'src')).toBeNull();
    expect(await readBlobAtBase(repo, 'no/such\nfile')).toBeNull();
  });
});
