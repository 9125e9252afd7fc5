// The freeze activity against a real database: a drawn task's merged fix is frozen, and the bundle, its signature and
// the task's bundle digest are recorded in one transaction; running the activity again records nothing twice. A golden
// trace attached to the task before its freeze (`abp task attach-trace`) is named by the manifest and signed. A task
// drawn before every model cutoff ended is rejected with its reason before anything runs. On a full disk (a real small
// tmpfs, filled) the freeze stalls, retryably, noting why on the task, and freezes once there is room again.
// Temporal's activity environment gives the activity its heartbeat context without a server.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, statfs, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFreezeActivities, type FreezeSummary } from '../../src/activities/freeze.js';
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

/** The freeze activities on `db`, signing with the test key, writing where `dirs` say. */
async function activitiesOn(db: Database, dirs: { bundleDir: string; statementsDir: string; workDir: string }) {
  return createFreezeActivities({
    db,
    bundleDir: dirs.bundleDir,
    goldenTraceDir: `${dirs.bundleDir}-traces`,
    attestor: createAttestor({
      signer: await createSigner({ keyDir: join(root, 'keys') }),
      statementsDir: dirs.statementsDir,
    }),
    workDir: dirs.workDir,
  });
}

describe('the freeze activity', () => {
  const database = useTestDatabase('pglite');

  it('records the bundle, its signature and the task in one transaction, once', async () => {
    await insertDrawnTask(database.db, { task: { id: input.taskId } });
    const activities = await activitiesOn(database.db, {
      bundleDir: join(root, 'bundles'),
      statementsDir: join(root, 'statements'),
      workDir: join(root, 'work'),
    });
    const env = new MockActivityEnvironment();
    const first: FreezeSummary = await env.run((arg: TaskFreezeInput) => activities.freezeMergedFix(arg), input);
    const again: FreezeSummary = await env.run((arg: TaskFreezeInput) => activities.freezeMergedFix(arg), input);
    if (first.status !== 'frozen' || again.status !== 'frozen') throw new Error('expected both freezes to publish');
    expect(again.digest).toBe(first.digest);

    const [row] = await selectRows<{ bundles: number; signatures: number; digest: string | null; base: string | null }>(
      database.db,
      sql`select (select count(*)::int from bundles) as bundles, (select count(*)::int from signatures) as signatures,
                 (select bundle_digest from tasks where id = ${input.taskId}) as digest, (select base_commit from tasks where id = ${input.taskId}) as base`,
    );
    expect(row).toEqual({ bundles: 1, signatures: 1, digest: first.digest, base: input.baseCommit });
  });

  it('takes the golden trace attached to the task: the manifest names it and the signature signs it', async () => {
    const bundleDir = join(root, 'traced-bundles');
    const activities = await activitiesOn(database.db, {
      bundleDir,
      statementsDir: join(root, 'traced-statements'),
      workDir: join(root, 'work'),
    });
    const traces = new GoldenTraceStore(`${bundleDir}-traces`);
    const attached = await traces.put(Buffer.from(goldenTraceText(input.taskId)));
    await traces.attach(input.taskId, attached);
    const summary: FreezeSummary = await new MockActivityEnvironment().run(
      (arg: TaskFreezeInput) => activities.freezeMergedFix(arg),
      input,
    );
    if (summary.status !== 'frozen') throw new Error(`expected the freeze to publish: ${summary.detail}`);
    expect(summary.goldenTraceDigest).toBe(attached);
    const store = new BundleStore(bundleDir);
    const task = readTar(await store.get(summary.digest), summary.digest).find((entry) => entry.path === TASK_ENTRY);
    expect((JSON.parse(task?.content.toString('utf8') ?? '{}') as AbpTask).golden?.trace).toBe(
      `traces/${input.taskId}.abp-trace.jsonl`,
    );
    expect(unverifiedTaskBundlePredicate((await store.getSignature(summary.digest)) ?? '')?.goldenTraceDigest).toBe(
      attached,
    );
  });

  it('rejects a task drawn before every model cutoff with its reason, before anything is cloned, built or run', async () => {
    const activities = await activitiesOn(database.db, {
      bundleDir: join(root, 'early-bundles'),
      statementsDir: join(root, 'statements'),
      workDir: join(root, 'work'),
    });
    const summary: FreezeSummary = await new MockActivityEnvironment().run(
      (arg: TaskFreezeInput) => activities.freezeMergedFix(arg),
      // Nothing is at gitDir: a freeze that looked before checking the cutoffs would fail as not-a-repository.
      { ...input, sourcedAt: '2019-05-01T00:00:00Z', gitDir: join(root, 'no-such-mirror') },
    );
    expect(summary).toMatchObject({ status: 'rejected', taskId: input.taskId, reason: 'no-verified-cutoff' });
    if (summary.status === 'rejected') expect(summary.detail).toContain('before every model cutoff');
    expect(await readdir(join(root, 'early-bundles')).catch((error: NodeJS.ErrnoException) => error.code)).toBe(
      'ENOENT',
    );
  });

  it('fails without retry for an input the freeze refuses', async () => {
    const activities = await activitiesOn(database.db, {
      bundleDir: join(root, 'bundles'),
      statementsDir: join(root, 'statements'),
      workDir: join(root, 'work'),
    });
    const failure = await new MockActivityEnvironment()
      .run((arg: TaskFreezeInput) => activities.freezeMergedFix(arg), { ...input, taskId: 'gh-other-repo-3' })
      .catch((error: unknown) => error);
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

  it('stalls, retryably and noted on the task, while the disk is full, and freezes once there is room', async () => {
    const taskId = input.taskId;
    await insertDrawnTask(database.db, {
      task: {
        id: taskId,
        state: 'freezing',
        prUrl: input.mergedPr,
        mergeCommit: commitOf('merge'),
        mergedAt: new Date('2026-06-02T00:00:00Z'),
      },
    });
    const activities = await activitiesOn(database.db, {
      bundleDir: join(small, 'bundles'),
      statementsDir: join(small, 'statements'),
      workDir: join(small, 'freeze-work'),
    });
    const freeze = () =>
      new MockActivityEnvironment().run<
        [TaskFreezeInput],
        FreezeSummary,
        (arg: TaskFreezeInput) => Promise<FreezeSummary>
      >((arg) => activities.freezeMergedFix(arg), input);

    // Every byte taken, as another process filling the data directory would leave it.
    const free = await statfs(small);
    const filler = join(small, 'filler');
    await writeFile(filler, Buffer.alloc(free.bavail * free.bsize)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOSPC') throw error;
    });
    expect((await statfs(small)).bavail).toBe(0);
    const failure = await freeze().catch((error: unknown) => error);
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
    const summary: FreezeSummary = await freeze();
    expect(summary).toMatchObject({ status: 'frozen', taskId });
    const [frozen] = await describeTasks(database.db, { taskId });
    expect(frozen?.bundleDigest).toBe(summary.status === 'frozen' ? summary.digest : null);
    // The stalled attempt left no checkout behind in the scratch folder, only the cache kept between freezes.
    expect((await readdir(join(small, 'freeze-work'))).filter((name) => name !== 'go-build')).toEqual([]);
  });
});
