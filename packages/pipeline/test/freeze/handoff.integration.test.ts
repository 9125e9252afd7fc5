// A built task on its way from a freeze worker to the publisher, through a real run store folder: every part comes back
// byte for byte, what is signed is read from the bundle itself, the environment arrives whole in the publisher's own
// store, and a hand-off that lost a part, a document that is not one, or one that does not match its bundle is refused
// with the run store's or the freeze's own code rather than published.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnvironmentStore } from '@abp/grader/environments';
import { sha256Hex } from '@abp/protocol/bundle/digest';
import { EXPECTED_RESULTS_SCHEMA_ID, type ExpectedResults } from '@abp/protocol/bundle/expected-results';
import { canonicalJson } from '@abp/protocol/schemas/canonical-json';
import { taskSchema, type AbpTask } from '@abp/protocol/schemas/abp-task';
import { buildBundle } from '../../src/freeze/bundle/build.js';
import { handoffKept, handOver, takeOver } from '../../src/freeze/handoff.js';
import type { BuiltTask } from '../../src/freeze/index.js';
import { FolderRunStore } from '../../src/run-store/store.js';
import { goldenTraceText } from '../support/golden-trace.js';
import { oneLayerImage } from '../support/environment-image.js';

let root = '';
let built: BuiltTask;
let here: EnvironmentStore;

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    env: { ...process.env, GIT_AUTHOR_DATE: '2026-06-01T00:00:00Z', GIT_COMMITTER_DATE: '2026-06-01T00:00:00Z' },
  })
    .toString()
    .trim();

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-handoff-'));
  // The environment a freeze worker built: one layer and its image, in the worker's own store.
  here = new EnvironmentStore(join(root, 'freeze-machine', 'environments'));
  const { image } = await oneLayerImage(here, join(root, 'layer'));
  // A real bundle of the spec's example task, at the base commit of a one-commit repository, named to run in that image.
  const repo = join(root, 'repo');
  await mkdir(repo, { recursive: true });
  git(repo, 'init', '-q');
  await writeFile(join(repo, 'README.md'), 'slug\n');
  git(repo, 'add', '.');
  git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'base');
  const baseCommit = git(repo, 'rev-parse', 'HEAD');
  const example = JSON.parse(
    await readFile(
      new URL('../../../protocol/test/fixtures/documents/valid/task-spec-example.json', import.meta.url),
      'utf8',
    ),
  ) as AbpTask;
  if (example.source.kind !== 'github-issue' || example.golden === undefined)
    throw new Error('not a github-issue task');
  const manifest = taskSchema.parse({
    ...example,
    source: { ...example.source, baseCommit },
    environment: { image: `abp-env/next.js@${image.digest}`, setup: [] },
  });
  const expected: ExpectedResults = {
    schema: EXPECTED_RESULTS_SCHEMA_ID,
    runner: 'vitest',
    reportFormat: 'jest-json',
    failToPass: ['test/router/edge-case.test.ts > trailing slash'],
    passToPass: ['test/router/basic.test.ts > no slug', 'test/router/basic.test.ts > slug'],
    flaky: [{ id: 'test/router/basic.test.ts > timing', outcomes: { before: ['pass', 'fail'], after: ['pass'] } }],
    commands: { failToPass: ['pnpm test -- test/router/edge-case.test.ts'], passToPass: ['pnpm test -- test/router/'] },
  };
  const bundle = await buildBundle({
    manifest,
    issueText: '# slug\n',
    gitDir: join(repo, '.git'),
    baseCommit,
    heldOut: { files: [], expected, goldenPatch: '' },
  });
  const trace = Buffer.from(goldenTraceText(manifest.id));
  built = {
    status: 'built',
    taskId: manifest.id,
    archive: bundle.archive,
    heldOutDigest: bundle.heldOutDigest,
    goldenTrace: { bytes: trace, digest: `sha256:${sha256Hex(trace)}` },
    manifest,
    facts: {
      repo: example.source.repo,
      baseCommit,
      mergedPr: example.golden.mergedPr,
      failToPass: 1,
      passToPass: 2,
      flaky: 1,
      builder: 'abp/0.2.0',
    },
    failToPass: expected.failToPass,
    passToPass: expected.passToPass,
    flaky: ['test/router/basic.test.ts > timing'],
    volatile: ['test/router/basic.test.ts > at 12:00:01'],
    gold: { trials: 3 },
    environment: image.digest,
    timings: { freezeMs: 1200, goldMs: 800, bundleMs: 30 },
  };
}, 60_000);

afterAll(async () => {
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

  it('is not kept once a part is gone, and taking it over fails as not-found; a damaged part is dropped', async () => {
    const store = new FolderRunStore(join(root, 'lossy-run-store'));
    const digest = await handOver(built, store, here);
    await rm(join(store.location, 'sha256', sha256Hex(built.archive)));
    expect(await handoffKept(store, digest)).toBe(false);
    await expect(takeOver(digest, store, new EnvironmentStore(join(root, 'p2')))).rejects.toMatchObject({
      code: 'not-found',
    });
    // Damaged rather than gone: found so on reading, and dropped, so that handing over again stores it afresh.
    await handOver(built, store, here);
    const bundlePath = join(store.location, 'sha256', sha256Hex(built.archive));
    await rm(bundlePath);
    await writeFile(bundlePath, Buffer.concat([built.archive.subarray(0, -1), Buffer.from('x')]));
    await expect(takeOver(digest, store, new EnvironmentStore(join(root, 'p2')))).rejects.toMatchObject({
      code: 'corrupt-store',
    });
    expect(await handoffKept(store, digest)).toBe(false);
    expect(await handOver(built, store, here)).toBe(digest);
    expect((await takeOver(digest, store, new EnvironmentStore(join(root, 'p2')))).archive).toEqual(built.archive);
  });

  it('refuses a document whose trace, environment, task or bundle is not what its bundle says', async () => {
    const store = new FolderRunStore(join(root, 'lying-run-store'));
    const digest = await handOver(built, store, here);
    const honest = JSON.parse((await store.get(digest)).toString('utf8')) as Record<string, unknown>;
    const notABundle = await store.put(Buffer.from('not a bundle\n'));
    for (const lie of [
      { goldenTrace: null },
      { environment: null },
      { taskId: 'gh-acme-other-1' },
      { bundle: notABundle },
    ]) {
      const lying = await store.put(Buffer.from(canonicalJson({ ...honest, ...lie })));
      await expect(takeOver(lying, store, new EnvironmentStore(join(root, 'p5')))).rejects.toMatchObject({
        code: 'handoff-unreadable',
      });
    }
  });

  it('refuses a document that is not a hand-off, naming it', async () => {
    const store = new FolderRunStore(join(root, 'other-run-store'));
    const digest = await store.put(
      Buffer.from(JSON.stringify({ schema: 'abp-freeze-handoff/0', taskId: built.taskId })),
    );
    const refusal = await takeOver(digest, store, new EnvironmentStore(join(root, 'p3'))).catch(
      (error: unknown) => error,
    );
    expect(refusal).toMatchObject({ code: 'handoff-unreadable' });
    expect((refusal as Error).message).toContain(`${digest} in the run store`);
  });

  it('refuses to hand over an environment without the store it was built in', async () => {
    await expect(handOver(built, new FolderRunStore(join(root, 'rs4')), null)).rejects.toMatchObject({
      code: 'invalid-options',
    });
  });
});
