// A run's inputs on their way to a worker: packed deterministically into the run store, unpacked whole into a copy
// that gives the run's own fingerprint, the machine's results and caches left behind, an environment arriving under
// the digest its task names, and a damaged store refused rather than unpacked.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRunInputs } from '@abp/grader/config';
import { EnvironmentStore } from '@abp/grader/environments';
import { runFingerprint } from '@abp/grader/run';
import { buildRunFixture, SLUG_TASK, type RunFixture } from '../../../grader/test/support/run-fixture.js';
import { packRunInputs, refDigest, unpackRunInputs } from '../../src/grading/run-inputs.js';
import { FolderRunStore } from '../../src/run-store/store.js';
import { oneLayerImage } from '../support/environment-image.js';

let fixture: RunFixture;
let root = '';

beforeAll(async () => {
  fixture = await buildRunFixture({ adapters: [{ engine: 'fix', script: 'fix' }] });
  root = await mkdtemp(join(tmpdir(), 'abp-run-inputs-'));
}, 60_000);

afterAll(async () => {
  await fixture?.cleanup();
  if (root) await rm(root, { recursive: true, force: true });
});

const paths = () => ({ config: fixture.config, adapters: fixture.adapters, tasks: fixture.tasks });
const taskIds = async () => (await loadRunInputs(paths())).config.tasks;

describe('run inputs through the run store', () => {
  it('packs the same inputs to the same reference, and a copy gives the run fingerprint', async () => {
    // Results and a data directory inside the adapters folder must stay on this machine.
    const results = join(fixture.dir, 'results');
    await mkdir(results, { recursive: true });
    await writeFile(join(results, 'secret-verdict.json'), '{}');
    const store = new FolderRunStore(join(root, 'store'));
    const environments = join(root, 'environments-here');
    const first = await packRunInputs(store, paths(), await taskIds(), [results], environments);
    const again = await packRunInputs(
      new FolderRunStore(join(root, 'store-2')),
      paths(),
      await taskIds(),
      [results],
      environments,
    );
    expect(refDigest(again)).toBe(refDigest(first));
    expect(first.tasks.map((task) => task.id)).toEqual([...(await taskIds())].sort());
    expect(first.environments).toEqual([]);

    const copy = await unpackRunInputs(store, first, join(root, 'copies'), join(root, 'environments-there'));
    const adapterFiles = await readdir(join(copy.root, 'adapters'), { recursive: true });
    expect(adapterFiles).toContain('engines/fix.mjs');
    expect(adapterFiles.some((file) => String(file).startsWith('tasks'))).toBe(false);
    expect(adapterFiles.some((file) => String(file).startsWith('results'))).toBe(false);
    const fingerprintOf = async (where: { config: string; adapters: string; tasks: string }) =>
      runFingerprint(await loadRunInputs(where), { runUnsupported: false });
    expect(await fingerprintOf(copy.paths)).toBe(await fingerprintOf(paths()));

    // A second unpack finds the copy in place; two at once end with the one copy and no partial folders.
    const [one, two] = await Promise.all([
      unpackRunInputs(store, first, join(root, 'copies-2'), join(root, 'environments-there')),
      unpackRunInputs(store, first, join(root, 'copies-2'), join(root, 'environments-there')),
    ]);
    expect(one.root).toBe(two.root);
    expect(await readdir(join(root, 'copies-2'))).toEqual([refDigest(first).slice('sha256:'.length)]);
  });

  it('refuses a store whose task archive no longer hashes to its name, leaving no copy', async () => {
    const store = new FolderRunStore(join(root, 'damaged'));
    const ref = await packRunInputs(store, paths(), await taskIds(), [], join(root, 'environments-here'));
    const archive = store['files'].path(ref.tasks[0]?.digest ?? '');
    const bytes = await readFile(archive);
    bytes[600] = (bytes[600] ?? 0) ^ 1;
    await rm(archive, { force: true });
    await writeFile(archive, bytes);
    const into = join(root, 'damaged-copies');
    await expect(unpackRunInputs(store, ref, into, join(root, 'environments-there'))).rejects.toThrow(
      /hash|damaged|digest/,
    );
    expect(await readdir(into).catch(() => [])).toEqual([]);
  });

  it("carries a task's environment to another store under the digest the task names", async () => {
    const here = new EnvironmentStore(join(root, 'env-here'));
    const { image, layer } = await oneLayerImage(here, join(root, 'layer'));
    // The fixture's github-issue task, named to run in that image.
    const copied = join(root, 'with-image');
    await mkdir(copied, { recursive: true });
    const { cp } = await import('node:fs/promises');
    await cp(fixture.dir, copied, { recursive: true });
    const taskId = SLUG_TASK;
    const manifestPath = join(copied, 'tasks', taskId, 'task.json');
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as { environment: { image: string } };
    manifest.environment.image = `abp-env@${image.digest}`;
    await writeFile(manifestPath, JSON.stringify(manifest, null, 2));
    const store = new FolderRunStore(join(root, 'env-store'));
    const where = {
      config: join(copied, 'abp-run.json'),
      adapters: join(copied, 'abp-adapters.json'),
      tasks: join(copied, 'tasks'),
    };
    const ref = await packRunInputs(store, where, [taskId], [], here.root);
    expect(ref.environments).toEqual([
      { image: image.digest, blobs: [image.digest, image.manifest.config.digest, layer.digest] },
    ]);
    // On one file system the run store shares the environment's blobs (hard links) rather than copying them.
    const { stat } = await import('node:fs/promises');
    const [stored, kept] = await Promise.all([
      stat(join(store.location, 'sha256', layer.digest.slice('sha256:'.length))),
      stat(here.blobPath(layer.digest)),
    ]);
    expect([stored.ino, stored.nlink]).toEqual([kept.ino, 2]);
    const there = join(root, 'env-there');
    await unpackRunInputs(store, ref, join(root, 'env-copies'), there);
    expect((await new EnvironmentStore(there).verify(image.digest)).digest).toBe(image.digest);
  });
});
