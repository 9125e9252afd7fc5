import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBundle, type BuiltBundle } from '../../../src/freeze/bundle/build.js';
import { parseObjectStream, writeObjectStream } from '@abp/grader/bundle';
import { readBundleSubjects, unpackBundle } from '@abp/grader/bundle';
import { readTar, writeTar, type TarEntry } from '@abp/protocol/bundle/tar';
import { loadTaskDirectory } from '@abp/grader/config';
import { createTrialWorkspace, prepareTaskRepo } from '@abp/grader/workspace';
import { bundleInput, codeOf, createHistoryRepo, git, serializeObjects, type HistoryRepo } from './support.js';

let root = '';
let repo: HistoryRepo;
let built: BuiltBundle;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-bundle-unpack-'));
  repo = await createHistoryRepo(join(root, 'source'));
  built = await buildBundle(bundleInput(repo));
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** The bundle with one outer entry replaced (or added) by `change`, written again with our own writer. */
function rewritten(change: (entries: TarEntry[]) => TarEntry[]): Buffer {
  return writeTar(change(readTar(built.archive, 'bundle')), 'rewritten');
}

/** Everything in `parent`: an unpack that failed must leave no folder, staged or published. */
const leftovers = (parent: string) => readdir(parent);

describe('unpackBundle', () => {
  it('writes a task folder the grader loads, its repository holding base and nothing later', async () => {
    const taskDir = join(root, 'tasks', 'demo');
    const unpacked = await unpackBundle(built.archive, { taskDir, expectedDigest: built.digest });
    expect(unpacked).toMatchObject({
      digest: built.digest,
      heldOutDigest: built.heldOutDigest,
      taskDir,
      heldOutDir: join(taskDir, 'held-out'),
    });
    expect((await readdir(taskDir)).sort()).toEqual(['held-out', 'issue.md', 'repo', 'task.json']);
    expect(await readFile(join(taskDir, 'issue.md'), 'utf8')).toBe(bundleInput(repo).issueText);

    const task = await loadTaskDirectory(taskDir);
    expect(task.source).toEqual({ kind: 'repo', gitDir: join(taskDir, 'repo'), baseCommit: repo.baseCommit });
    expect(task.heldOutPaths).toEqual(['tests/data/fixture.bin', 'tests/fix.test.js']);
    expect(task.goldenPatch).toBe(bundleInput(repo).heldOut.goldenPatch);
    expect(JSON.parse(await readFile(join(taskDir, 'held-out', 'expected-results.json'), 'utf8'))).toMatchObject({
      schema: 'abp-expected-results/v1',
      passToPass: ['tests/lib.test.js::loads'],
    });

    const gitDir = join(taskDir, 'repo');
    expect(await git(gitDir, 'rev-list', '--all')).toBe(await git(repo.dir, 'rev-list', repo.baseCommit));
    expect(unpacked.objects).toBe(
      (await git(gitDir, 'cat-file', '--batch-all-objects', '--batch-check')).trim().split('\n').length,
    );
    // The grader's own path from here: its per-task cache and a trial workspace at base.
    const cached = await prepareTaskRepo({
      source: gitDir,
      baseCommit: repo.baseCommit,
      cacheDir: join(root, 'cache'),
    });
    await mkdir(join(root, 'trial'));
    const trial = await createTrialWorkspace(cached, join(root, 'trial'));
    expect(await readFile(join(trial.workspace, 'src', 'lib.js'), 'utf8')).toBe('export const answer = 41;\n');
  });

  it('puts the held-out part in a separate folder when asked, from a path as well as from bytes', async () => {
    const archivePath = join(root, 'bundle.tar');
    await writeFile(archivePath, built.archive);
    const taskDir = join(root, 'separate', 'task');
    const heldOutDir = join(root, 'separate', 'judge-only', 'held-out');
    await unpackBundle(archivePath, { taskDir, heldOutDir });
    expect((await readdir(taskDir)).sort()).toEqual(['issue.md', 'repo', 'task.json']);
    expect((await readdir(heldOutDir)).sort()).toEqual(['expected-results.json', 'files', 'golden.patch']);
    // The visible part alone cannot be graded: the frozen test ids are held out with the tests.
    await expect(loadTaskDirectory(taskDir)).rejects.toMatchObject({ code: 'invalid-task' });
    expect(await readFile(join(heldOutDir, 'files', 'tests', 'data', 'fixture.bin'))).toEqual(
      Buffer.from([0, 1, 2, 255]),
    );
  });

  it('refuses another digest than the expected one, before writing anything', async () => {
    const parent = join(root, 'wrong-digest');
    await mkdir(parent);
    expect(
      await codeOf(
        unpackBundle(built.archive, { taskDir: join(parent, 'task'), expectedDigest: `sha256:${'0'.repeat(64)}` }),
      ),
    ).toBe('digest-mismatch');
    expect(await leftovers(parent)).toEqual([]);
  });

  it('leaves nothing behind when the repository part fails its checks, early or late', async () => {
    const objects =
      readTar(built.archive, 'bundle').find((entry) => entry.path === 'repo.objects')?.content ?? Buffer.alloc(0);
    const withObjects = (content: Buffer) =>
      rewritten((entries) => entries.map((entry) => (entry.path === 'repo.objects' ? { ...entry, content } : entry)));
    // Early: a changed byte fails its object's hash before any object is written.
    const at = objects.indexOf('answer = 41');
    const altered = withObjects(
      Buffer.concat([objects.subarray(0, at), Buffer.from('answer = 43'), objects.subarray(at + 11)]),
    );
    // Late: every object hashes right, but one from after base only shows once the repository is written and walked.
    const future = parseObjectStream(await writeObjectStream(repo.dir, repo.futureCommit), 'future').find((object) =>
      object.content.includes(repo.marker),
    );
    const smuggled = withObjects(
      serializeObjects(
        [...parseObjectStream(objects, 'base'), ...(future ? [future] : [])].sort((a, b) => (a.oid < b.oid ? -1 : 1)),
      ),
    );
    for (const [name, archive] of Object.entries({ altered, smuggled })) {
      const parent = join(root, `tampered-${name}`);
      await mkdir(parent);
      expect(
        await codeOf(unpackBundle(archive, { taskDir: join(parent, 'task'), heldOutDir: join(parent, 'held-out') })),
        name,
      ).toBe('object-mismatch');
      expect(await leftovers(parent), name).toEqual([]);
    }
  });

  it('refuses a bundle with another layout, a fixture manifest or bad expected results', async () => {
    const parent = join(root, 'layouts');
    await mkdir(parent);
    const extra = rewritten((entries) => [...entries, { path: 'notes.txt', content: Buffer.from('x') }]);
    expect(await codeOf(unpackBundle(extra, { taskDir: join(parent, 'extra') }))).toBe('invalid-layout');
    const fixture = rewritten((entries) =>
      entries.map((entry) =>
        entry.path === 'task.json'
          ? {
              ...entry,
              content: Buffer.from(
                JSON.stringify({
                  ...JSON.parse(entry.content.toString()),
                  source: { kind: 'fixture', fixture: 'workspace' },
                  golden: undefined,
                }),
              ),
            }
          : entry,
      ),
    );
    expect(await codeOf(unpackBundle(fixture, { taskDir: join(parent, 'fixture') }))).toBe('invalid-manifest');
    const heldOut = readTar(readTar(built.archive, 'bundle')[0]?.content ?? Buffer.alloc(0), 'held-out');
    const badExpected = writeTar(
      heldOut.map((entry) =>
        entry.path === 'expected-results.json'
          ? { ...entry, content: Buffer.from('{"schema":"abp-expected-results/v1"}') }
          : entry,
      ),
      'held-out',
    );
    expect(
      await codeOf(
        unpackBundle(
          rewritten((entries) =>
            entries.map((entry) => (entry.path === 'held-out.tar' ? { ...entry, content: badExpected } : entry)),
          ),
          { taskDir: join(parent, 'expected') },
        ),
      ),
    ).toBe('invalid-expected-results');
    expect(await leftovers(parent)).toEqual([]);
  });

  it('refuses to write over an existing folder', async () => {
    const taskDir = join(root, 'existing');
    await mkdir(taskDir);
    await writeFile(join(taskDir, 'keep.txt'), 'mine');
    expect(await codeOf(unpackBundle(built.archive, { taskDir }))).toBe('destination-exists');
    expect(await readdir(taskDir)).toEqual(['keep.txt']);
  });
});

describe('readBundleSubjects', () => {
  it('gives the hex sha256 of the archive and of its held-out part, from bytes or a path', async () => {
    const subjects = {
      archive: built.digest.slice('sha256:'.length),
      heldOut: built.heldOutDigest.slice('sha256:'.length),
    };
    expect(await readBundleSubjects(built.archive)).toEqual(subjects);
    const path = join(root, 'subjects.tar');
    await writeFile(path, built.archive);
    expect(await readBundleSubjects(path)).toEqual(subjects);
    expect(await codeOf(readBundleSubjects(join(root, 'absent.tar')))).toBe('not-found');
  });
});
