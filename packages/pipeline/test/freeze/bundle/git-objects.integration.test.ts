import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OBJECT_STREAM_HEADER, parseObjectStream, rehydrateRepository, writeObjectStream } from '@abp/grader/bundle';
import { codeOf, createHistoryRepo, git, serializeObjects as serialize, type HistoryRepo } from './support.js';

let root = '';
let repo: HistoryRepo;
let stream: Buffer;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-bundle-objects-'));
  repo = await createHistoryRepo(join(root, 'source'));
  stream = await writeObjectStream(repo.dir, repo.baseCommit);
});
afterAll(() => rm(root, { recursive: true, force: true }));

const lines = (text: string) => text.split('\n').filter(Boolean).sort();

describe('writeObjectStream', () => {
  it('holds exactly the closure of base, sorted by id, in git cat-file --batch form', async () => {
    const closure = lines(await git(repo.dir, 'rev-list', '--objects', '--no-object-names', repo.baseCommit));
    const objects = parseObjectStream(stream, 'stream');
    expect(objects.map((object) => object.oid)).toEqual(closure);
    expect(closure).toContain(repo.baseCommit);
    expect(closure).not.toContain(repo.futureCommit);
    expect(stream.includes(repo.marker)).toBe(false);
    expect(serialize(objects).equals(stream)).toBe(true);
  });

  it('is the same from a fresh clone and from a bare mirror', async () => {
    await git(root, 'clone', '--quiet', '--no-hardlinks', repo.dir, join(root, 'clone'));
    await git(root, 'clone', '--quiet', '--mirror', repo.dir, join(root, 'mirror.git'));
    expect((await writeObjectStream(join(root, 'clone'), repo.baseCommit)).equals(stream)).toBe(true);
    expect((await writeObjectStream(join(root, 'mirror.git'), repo.baseCommit)).equals(stream)).toBe(true);
  });

  it('refuses a base the repository lacks, an abbreviated one and a shallow clone', async () => {
    expect(await codeOf(writeObjectStream(repo.dir, 'f'.repeat(40)))).toBe('missing-base-commit');
    expect(await codeOf(writeObjectStream(repo.dir, repo.baseCommit.slice(0, 12)))).toBe('missing-base-commit');
    expect(await codeOf(writeObjectStream(join(root, 'not-a-repo'), repo.baseCommit))).toBe('missing-base-commit');
    await git(
      root,
      'clone',
      '--quiet',
      '--depth',
      '1',
      '--branch',
      'main',
      `file://${repo.dir}`,
      join(root, 'shallow'),
    );
    const shallowHead = (await git(join(root, 'shallow'), 'rev-parse', 'HEAD')).trim();
    expect(await codeOf(writeObjectStream(join(root, 'shallow'), shallowHead))).toBe('missing-base-commit');
  });
});

describe('rehydrateRepository', () => {
  it('writes a repository holding base and its history, nothing later, commits byte for byte', async () => {
    const gitDir = join(root, 'rehydrated.git');
    const count = await rehydrateRepository(stream, gitDir, repo.baseCommit, 'stream');
    expect(count).toBe(parseObjectStream(stream, 'stream').length);
    expect(await git(gitDir, 'rev-list', '--all')).toBe(await git(repo.dir, 'rev-list', repo.baseCommit));
    expect(lines(await git(gitDir, 'cat-file', '--batch-all-objects', '--batch-check=%(objectname)'))).toEqual(
      lines(await git(repo.dir, 'rev-list', '--objects', '--no-object-names', repo.baseCommit)),
    );
    expect(await git(gitDir, 'rev-parse', 'HEAD', 'refs/heads/main')).toBe(`${repo.baseCommit}\n${repo.baseCommit}\n`);
    expect(await git(gitDir, 'cat-file', 'commit', repo.baseCommit)).toContain('gpgsig -----BEGIN PGP SIGNATURE-----');
    expect(await git(gitDir, 'cat-file', 'commit', repo.baseCommit)).toBe(
      await git(repo.dir, 'cat-file', 'commit', repo.baseCommit),
    );
    expect((await git(gitDir, 'rev-list', '--parents', '--max-count=1', 'HEAD')).trim().split(' ')).toHaveLength(3);
    expect(await git(gitDir, 'ls-tree', '-r', 'HEAD', 'scripts/run.sh')).toMatch(/^100755 blob /);
    expect(await git(gitDir, 'fsck', '--full', '--strict', '--no-progress')).toBe('');
    expect(await git(gitDir, 'tag', '--list')).toBe('');
    expect(await readFile(join(gitDir, 'HEAD'), 'utf8')).toBe('ref: refs/heads/main\n');
  });

  it('refuses an object whose bytes were changed', async () => {
    const objects = parseObjectStream(stream, 'stream');
    const blob = objects.findIndex((object) => object.type === 'blob' && object.content.includes('answer = 41'));
    const altered = objects.map((object, index) =>
      index === blob ? { ...object, content: Buffer.from(object.content.toString().replace('41', '43')) } : object,
    );
    expect(
      await codeOf(rehydrateRepository(serialize(altered), join(root, 'altered.git'), repo.baseCommit, 'altered')),
    ).toBe('object-mismatch');
  });

  it('refuses a stream with an object from after base, or without one of base', async () => {
    const future = await writeObjectStream(repo.dir, repo.futureCommit);
    const extra = parseObjectStream(future, 'future').find(
      (object) => object.content.includes(repo.marker) && object.type === 'blob',
    );
    if (extra === undefined) throw new Error('the future fix has no blob with the marker');
    const withFuture = [...parseObjectStream(stream, 'stream'), extra].sort((a, b) => (a.oid < b.oid ? -1 : 1));
    expect(
      await codeOf(
        rehydrateRepository(serialize(withFuture), join(root, 'with-future.git'), repo.baseCommit, 'with-future'),
      ),
    ).toBe('object-mismatch');
    const withoutBlob = parseObjectStream(stream, 'stream').filter((object) => !object.content.includes('answer = 41'));
    expect(
      await codeOf(
        rehydrateRepository(serialize(withoutBlob), join(root, 'without-blob.git'), repo.baseCommit, 'without-blob'),
      ),
    ).toBe('object-mismatch');
    expect(
      await codeOf(rehydrateRepository(stream, join(root, 'other-base.git'), repo.futureCommit, 'other-base')),
    ).toBe('object-mismatch');
  });

  it('refuses a stream out of order, repeated, cut short or without its header', async () => {
    const objects = parseObjectStream(stream, 'stream');
    const broken = [
      serialize([...objects].reverse()),
      serialize([...objects, ...objects.slice(-1)]),
      stream.subarray(0, stream.length - 2),
      stream.subarray(OBJECT_STREAM_HEADER.length),
    ];
    for (const [index, bytes] of broken.entries()) {
      expect(
        await codeOf(rehydrateRepository(bytes, join(root, `broken-${index}.git`), repo.baseCommit, 'broken')),
        `case ${index}`,
      ).toBe('corrupt-object-stream');
    }
  });
});
