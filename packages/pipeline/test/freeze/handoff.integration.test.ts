// A built task on its way from a freeze worker to the publisher, through a real run store folder: every part comes back
// byte for byte, the environment arrives whole in the publisher's own store, and a hand-off that lost a part, or a
// document that is not one, is refused with the run store's or the freeze's own code rather than published.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnvironmentStore } from '@abp/grader/environments';
import { sha256Hex } from '@abp/protocol/bundle/digest';
import { taskSchema } from '@abp/protocol/schemas/abp-task';
import { buildRunFixture, SLUG_TASK, type RunFixture } from '../../../grader/test/support/run-fixture.js';
import { handoffKept, handOver, takeOver } from '../../src/freeze/handoff.js';
import type { BuiltTask } from '../../src/freeze/index.js';
import { FolderRunStore } from '../../src/run-store/store.js';
import { goldenTraceText } from '../support/golden-trace.js';
import { oneLayerImage } from '../support/environment-image.js';

let fixture: RunFixture;
let root = '';
let built: BuiltTask;
let here: EnvironmentStore;

beforeAll(async () => {
  fixture = await buildRunFixture({ adapters: [{ engine: 'fix', script: 'fix' }] });
  root = await mkdtemp(join(tmpdir(), 'abp-handoff-'));
  // The environment a freeze worker built: one layer and its image, in the worker's own store.
  here = new EnvironmentStore(join(root, 'freeze-machine', 'environments'));
  const { image } = await oneLayerImage(here, join(root, 'layer'));
  const manifest = taskSchema.parse(JSON.parse(await readFile(join(fixture.tasks, SLUG_TASK, 'task.json'), 'utf8')));
  const trace = Buffer.from(goldenTraceText(manifest.id));
  built = {
    status: 'built',
    taskId: manifest.id,
    archive: Buffer.from('the bundle archive, as the freeze built it\n'),
    heldOutDigest: `sha256:${'a'.repeat(64)}`,
    goldenTrace: { bytes: trace, digest: `sha256:${sha256Hex(trace)}` },
    manifest,
    facts: {
      repo: 'acme/slug',
      baseCommit: 'b'.repeat(40),
      mergedPr: 'https://github.com/acme/slug/pull/7',
      failToPass: 2,
      passToPass: 5,
      flaky: 1,
      builder: 'abp/0.2.0',
    },
    failToPass: ['test/slug.test.js::slugify drops accents', 'test/slug.test.js::slugify trims'],
    passToPass: ['a', 'b', 'c', 'd', 'e'],
    flaky: ['test/slug.test.js::timing'],
    volatile: [],
    gold: { trials: 3 },
    environment: image.digest,
    timings: { freezeMs: 1200, goldMs: 800, bundleMs: 30 },
  };
}, 60_000);

afterAll(async () => {
  await fixture?.cleanup();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('the freeze hand-off', () => {
  it('comes back whole, with the environment in the publisher’s own store', async () => {
    const store = new FolderRunStore(join(root, 'run-store'));
    const digest = await handOver(built, store, here);
    expect(await handOver(built, store, here)).toBe(digest);
    expect(await handoffKept(store, digest)).toBe(true);
    const publisherEnvironments = new EnvironmentStore(join(root, 'publisher', 'environments'));
    const taken = await takeOver(digest, store, publisherEnvironments);
    expect(taken).toEqual(built);
    expect((await publisherEnvironments.verify(built.environment ?? '')).digest).toBe(built.environment);
  });

  it('is not kept once a part is gone, and taking it over fails as not-found', async () => {
    const store = new FolderRunStore(join(root, 'lossy-run-store'));
    const digest = await handOver(built, store, here);
    await rm(join(store.location, 'sha256', sha256Hex(built.archive)));
    expect(await handoffKept(store, digest)).toBe(false);
    await expect(takeOver(digest, store, new EnvironmentStore(join(root, 'p2')))).rejects.toMatchObject({
      code: 'not-found',
    });
  });

  it('refuses a document that is not a hand-off, naming it', async () => {
    const store = new FolderRunStore(join(root, 'other-run-store'));
    const digest = await store.put(
      Buffer.from(JSON.stringify({ schema: 'abp-freeze-handoff/0', taskId: built.taskId })),
    );
    const refusal = await takeOver(digest, store, new EnvironmentStore(join(root, 'p3'))).catch(
      (error: unknown) => error,
    );
    expect(refusal).toMatchObject({ code: 'invalid-input' });
    expect((refusal as Error).message).toContain(`${digest} in the run store`);
  });

  it('refuses to hand over an environment without the store it was built in', async () => {
    await expect(handOver(built, new FolderRunStore(join(root, 'rs4')), null)).rejects.toMatchObject({
      code: 'invalid-options',
    });
  });
});
