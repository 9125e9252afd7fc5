// A freeze split as the queues split it, against a real database: the freeze worker's activity builds a drawn task's
// merged fix and hands it over through the run store, holding no key; the publisher's activity takes it back, stores,
// signs and logs it, and records the bundle, its signature and the task's bundle digest in one transaction. Building
// again for the same inputs reuses the hand-off, publishing again records nothing twice; a hand-off lost from the run
// store is refused as lost, so the workflow builds again. A golden trace attached to the task (`abp task
// attach-trace`) is staged by the publisher, named by the manifest and signed. A task drawn before every model cutoff
// ended is rejected with its reason before anything runs. On a full disk (a real small tmpfs, filled) the freeze
// stalls, retryably, noting why on the task, and builds once there is room again. Temporal's activity environment
// gives the activities their heartbeat context without a server.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, statfs, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnvironmentStore } from '@abp/grader/environments';
import { createFreezeActivities, type BuildOutcome, type BuildRequest } from '../../src/activities/freeze.js';
import { createPublishActivities, type FreezeSummary, type PublishRequest } from '../../src/activities/publish.js';
import { selectRows, type Database } from '../../src/db/connection.js';
import type { TaskFreezeInput } from '../../src/freeze/index.js';
import { createSigningKey } from '../../src/signing/keys.js';
import { createAttestor } from '../../src/signing/attestor.js';
import { createSigner } from '../../src/signing/signer.js';
import { commitOf, insertDrawnTask, useTestDatabase } from '../support/database.js';
import { describeTasks } from '../../src/task-reads/records.js';
import { buildRepos, freezeInput, knownFix, repoNamed } from './live-repos.js';
import { GoldenTraceStore } from '../../src/freeze/golden-trace-store.js';
import { BundleStore } from '../../src/freeze/bundle/store.js';
import { FolderRunStore } from '../../src/run-store/store.js';
import { readTar } from '@abp/protocol/bundle/tar';
import { TASK_ENTRY } from '@abp/protocol/bundle/layout';
import type { AbpTask } from '@abp/protocol/schemas/abp-task';
import { unverifiedTaskBundlePredicate } from '@abp/protocol/signing/statement';
import { goldenTraceText } from '../support/golden-trace.js';

let root: string;
let input: TaskFreezeInput;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-freeze-activity-'));
  const textkit = repoNamed(await buildRepos(root), 'textkit');
  const fix = knownFix(textkit, 3);
  input = {
    ...freezeInput(textkit, 3, fix.baseOid, { kind: 'patch', patch: fix.patch }),
    issue: { number: 3, title: fix.title, body: fix.body },
    mergedPr: `https://github.com/${textkit.repo.owner}/${textkit.repo.name}/pull/41`,
    sourcedAt: '2026-06-01T00:00:00Z',
    registryVersion: 'abp-registry/2026Q2',
    drawSeed: 7,
  };
  await createSigningKey(join(root, 'keys'));
});
afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

type Built = Extract<BuildOutcome, { status: 'built' }>;

/** A task whose fix merged and whose freeze is under way, as the task workflow leaves it. */
function insertFreezingTask(db: Database, taskId: string) {
  return insertDrawnTask(db, {
    task: {
      id: taskId,
      state: 'freezing',
      prUrl: input.mergedPr,
      mergeCommit: commitOf('merge'),
      mergedAt: new Date('2026-06-02T00:00:00Z'),
    },
  });
}

/** The freeze worker's activities: its own scratch, the run store, no key. */
function builderOn(db: Database, workDir: string, runStore: FolderRunStore) {
  return createFreezeActivities({ db, workDir, runStore });
}

/** The publisher's activities, signing with the test key, writing where `dir` says. */
async function publisherOn(db: Database, dir: string, runStore: FolderRunStore) {
  return createPublishActivities({
    db,
    bundleDir: join(dir, 'bundles'),
    goldenTraceDir: join(dir, 'traces'),
    attestor: createAttestor({
      signer: await createSigner({ keyDir: join(root, 'keys') }),
      statementsDir: join(dir, 'statements'),
    }),
    runStore,
    environments: new EnvironmentStore(join(dir, 'environments')),
    dataDir: dir,
  });
}

function build(activities: ReturnType<typeof builderOn>, request: BuildRequest): Promise<BuildOutcome> {
  return new MockActivityEnvironment().run((arg: BuildRequest) => activities.buildFrozenTask(arg), request);
}

function built(outcome: BuildOutcome): Built {
  if (outcome.status !== 'built')
    throw new Error(`expected the task to be built: ${outcome.reason}: ${outcome.detail}`);
  return outcome;
}

function publish(
  activities: Awaited<ReturnType<typeof publisherOn>>,
  outcome: Built,
  goldenTrace: string | null = null,
): Promise<FreezeSummary> {
  return new MockActivityEnvironment().run((arg: PublishRequest) => activities.publishFrozenTask(arg), {
    built: outcome,
    goldenTrace,
  });
}

describe('the freeze and publish activities', () => {
  const database = useTestDatabase('pglite');

  it('build without a key, publish once: bundle, signature and task recorded in one transaction', async () => {
    await insertDrawnTask(database.db, { task: { id: input.taskId } });
    const runStore = new FolderRunStore(join(root, 'run-store'));
    const builder = builderOn(database.db, join(root, 'work'), runStore);
    const publisher = await publisherOn(database.db, join(root, 'publisher'), runStore);

    const first = built(await build(builder, { input, goldenTrace: null }));
    const again = built(await build(builder, { input, goldenTrace: null }));
    // The same hand-off, taken from the worker's note: a second build would hand over another document, since the
    // document carries the build's timings.
    expect(again.handoff).toBe(first.handoff);

    const published: FreezeSummary = await publish(publisher, first);
    const republished: FreezeSummary = await publish(publisher, again);
    if (published.status !== 'frozen' || republished.status !== 'frozen') throw new Error('expected both to publish');
    expect(republished).toEqual(published);
    const store = new BundleStore(join(root, 'publisher', 'bundles'));
    expect(await store.getSignature(published.digest)).not.toBeNull();
    // The freeze worker's own folder holds its note of the hand-off and caches: no bundle, signature or log.
    const kept = await readdir(join(root, 'work'));
    expect(kept).toContain('built');
    expect(kept.filter((name) => !['built', 'go-build'].includes(name))).toEqual([]);

    const [row] = await selectRows<{ bundles: number; signatures: number; digest: string | null; base: string | null }>(
      database.db,
      sql`select (select count(*)::int from bundles) as bundles, (select count(*)::int from signatures) as signatures,
                 (select bundle_digest from tasks where id = ${input.taskId}) as digest, (select base_commit from tasks where id = ${input.taskId}) as base`,
    );
    expect(row).toEqual({ bundles: 1, signatures: 1, digest: published.digest, base: input.baseCommit });
  });

  it('refuses a hand-off the run store lost as lost, and a build after that hands it over again', async () => {
    const runStore = new FolderRunStore(join(root, 'lossy-run-store'));
    const builder = builderOn(database.db, join(root, 'lossy-work'), runStore);
    const publisher = await publisherOn(database.db, join(root, 'lossy-publisher'), runStore);
    const first = built(await build(builder, { input, goldenTrace: null }));
    const { bundle } = JSON.parse((await runStore.get(first.handoff)).toString('utf8')) as { bundle: string };
    await rm(join(root, 'lossy-run-store'), { recursive: true, force: true });
    const failure = await publish(publisher, first).catch((error: unknown) => error);
    expect(failure).toMatchObject({ nonRetryable: true, type: 'FreezeHandoffLost' });
    // Refused before anything was stored or signed.
    expect(await readdir(join(root, 'lossy-publisher')).catch((error: NodeJS.ErrnoException) => error.code)).toBe(
      'ENOENT',
    );
    // Built again from the suites, since the hand-off noted is gone: the same bundle, byte for byte.
    const rebuilt = built(await build(builder, { input, goldenTrace: null, lost: first.handoff }));
    expect(await publish(publisher, rebuilt)).toMatchObject({ status: 'frozen', taskId: input.taskId, digest: bundle });
  });

  it('takes the golden trace attached to the task: the manifest names it and the signature signs it', async () => {
    const runStore = new FolderRunStore(join(root, 'traced-run-store'));
    const builder = builderOn(database.db, join(root, 'work'), runStore);
    const publisher = await publisherOn(database.db, join(root, 'traced'), runStore);
    const traces = new GoldenTraceStore(join(root, 'traced', 'traces'));
    const attached = await traces.put(Buffer.from(goldenTraceText(input.taskId)));
    await traces.attach(input.taskId, attached);
    const staged: string | null = await new MockActivityEnvironment().run(
      (taskId: string) => publisher.stageGoldenTrace(taskId),
      input.taskId,
    );
    expect(staged).toBe(attached);
    const traced = built(await build(builder, { input, goldenTrace: staged }));
    // Published only with the trace that was staged for it: another answer sends the workflow back to build.
    expect(await publish(publisher, traced, null).catch((error: unknown) => error)).toMatchObject({
      nonRetryable: true,
      type: 'FreezeHandoffLost',
    });
    const summary = await publish(publisher, traced, staged);
    if (summary.status !== 'frozen') throw new Error(`expected the freeze to publish: ${summary.detail}`);
    expect(summary.goldenTraceDigest).toBe(attached);
    const store = new BundleStore(join(root, 'traced', 'bundles'));
    const task = readTar(await store.get(summary.digest), summary.digest).find((entry) => entry.path === TASK_ENTRY);
    expect((JSON.parse(task?.content.toString('utf8') ?? '{}') as AbpTask).golden?.trace).toBe(
      `traces/${input.taskId}.abp-trace.jsonl`,
    );
    expect(unverifiedTaskBundlePredicate((await store.getSignature(summary.digest)) ?? '')?.goldenTraceDigest).toBe(
      attached,
    );
  });

  it('sends the workflow back to staging when the staged trace is gone from the run store', async () => {
    const builder = builderOn(database.db, join(root, 'work'), new FolderRunStore(join(root, 'empty-run-store')));
    const failure = await build(builder, { input, goldenTrace: `sha256:${'e'.repeat(64)}` }).catch(
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ nonRetryable: true, type: 'FreezeHandoffLost' });
  });

  it('stalls, noted on the task, while the attached trace is not the one stored under its digest', async () => {
    const taskId = `${input.taskId}0`;
    await insertFreezingTask(database.db, taskId);
    const runStore = new FolderRunStore(join(root, 'tampered-run-store'));
    const publisher = await publisherOn(database.db, join(root, 'tampered'), runStore);
    const traces = new GoldenTraceStore(join(root, 'tampered', 'traces'));
    const attached = await traces.put(Buffer.from(goldenTraceText(taskId)));
    await traces.attach(taskId, attached);
    await writeFile(traces.path(attached), `${goldenTraceText(taskId)}\n`);
    const failure = await new MockActivityEnvironment()
      .run((id: string) => publisher.stageGoldenTrace(id), taskId)
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ nonRetryable: false, type: 'FreezeStalled:unexpected' });
    expect(await readdir(join(root, 'tampered-run-store')).catch((error: NodeJS.ErrnoException) => error.code)).toBe(
      'ENOENT',
    );
    const [task] = await describeTasks(database.db, { taskId });
    expect(task?.events.at(-1)).toMatchObject({ cause: 'freeze-stalled' });
  });

  it('rejects a task drawn before every model cutoff with its reason, before anything is cloned, built or run', async () => {
    const runStore = new FolderRunStore(join(root, 'early-run-store'));
    const outcome = await build(builderOn(database.db, join(root, 'early-work'), runStore), {
      // Nothing is at gitDir: a freeze that looked before checking the cutoffs would fail as not-a-repository.
      input: { ...input, sourcedAt: '2019-05-01T00:00:00Z', gitDir: join(root, 'no-such-mirror') },
      goldenTrace: null,
    });
    expect(outcome).toMatchObject({ status: 'rejected', taskId: input.taskId, reason: 'no-verified-cutoff' });
    if (outcome.status === 'rejected') expect(outcome.detail).toContain('before every model cutoff');
    for (const dir of ['early-run-store', 'early-work'])
      expect(await readdir(join(root, dir)).catch((error: NodeJS.ErrnoException) => error.code)).toBe('ENOENT');
  });

  it('fails without retry for an input the freeze refuses', async () => {
    const builder = builderOn(database.db, join(root, 'work'), new FolderRunStore(join(root, 'run-store')));
    const failure = await build(builder, { input: { ...input, taskId: 'gh-other-repo-3' }, goldenTrace: null }).catch(
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ nonRetryable: true, type: 'FreezeError:invalid-input' });
  });
});

// Mounting a small tmpfs needs root, which CI and the machines this runs on have; elsewhere the block is skipped, named.
describe.runIf(process.getuid?.() === 0)('the freeze activity on a full disk', () => {
  const database = useTestDatabase('pglite');
  let small: string;

  beforeAll(async () => {
    small = join(root, 'small-disk');
    await mkdir(small, { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', small]);
  });
  afterAll(() => {
    if (small) execFileSync('umount', [small]);
  });

  it('stalls, retryably and noted on the task, while the disk is full, and builds once there is room', async () => {
    const taskId = input.taskId;
    await insertFreezingTask(database.db, taskId);
    const runStore = new FolderRunStore(join(small, 'run-store'));
    const builder = builderOn(database.db, join(small, 'freeze-work'), runStore);
    const publisher = await publisherOn(database.db, join(small, 'publisher'), runStore);

    // Every byte taken, as another process filling the data directory would leave it.
    const free = await statfs(small);
    const filler = join(small, 'filler');
    await writeFile(filler, Buffer.alloc(free.bavail * free.bsize)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOSPC') throw error;
    });
    expect((await statfs(small)).bavail).toBe(0);
    const failure = await build(builder, { input, goldenTrace: null }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ nonRetryable: false, type: 'MachineFault:disk-full' });
    const [stalledTask] = await describeTasks(database.db, { taskId });
    expect(stalledTask?.state).toBe('freezing');
    expect(stalledTask?.events.at(-1)).toMatchObject({
      from: 'freezing',
      to: 'freezing',
      cause: 'freeze-stalled',
      detail: { fault: 'disk-full' },
    });

    await rm(filler);
    const summary = await publish(publisher, built(await build(builder, { input, goldenTrace: null })));
    expect(summary).toMatchObject({ status: 'frozen', taskId });
    const [frozen] = await describeTasks(database.db, { taskId });
    expect(frozen?.bundleDigest).toBe(summary.status === 'frozen' ? summary.digest : null);
    // The stalled attempt left no checkout behind in the scratch folder, only the cache kept between freezes and the
    // note of the hand-off.
    expect(
      (await readdir(join(small, 'freeze-work'))).filter((name) => name !== 'go-build' && name !== 'built'),
    ).toEqual([]);
  });
});
