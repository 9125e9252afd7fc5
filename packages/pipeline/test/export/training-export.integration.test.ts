// `abp export training` over real frozen tasks: two merged fixes of a live-world repository frozen into the operator's
// store, one of them moved to practice by a signed aging statement. The export writes the practice task only (the scored
// one would contaminate the benchmark), byte-identical on a second run; --include-scored adds the scored one with a
// warning; and it fails closed, naming what does not verify: a tampered bundle, a bundle signed by a key the pinned
// trust root does not list, and an aging statement forged with another key.
import { chmod, copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BundleStore } from '../../src/freeze/bundle/store.js';
import { unpackBundle } from '@abp/grader/bundle';
import { freezeTask, type PublishedTask } from '../../src/freeze/index.js';
import { TRAINING_SCHEMA_ID, trainingRecordSchema, type TrainingRecord } from '../../src/export/training-record.js';
import { createAttestor, statementPath } from '../../src/signing/attestor.js';
import { signingPaths } from '../../src/signing/home.js';
import { createSigningKey } from '../../src/signing/keys.js';
import { loadOperatorAttestor } from '../../src/signing/operator.js';
import { createSigner } from '../../src/signing/signer.js';
import { createAgingTransitionStatement, signedAtOf, taskBundleSubjectNames } from '@abp/protocol/signing/statement';
import { createTrustRoot, saveTrustRoot } from '@abp/protocol/signing/trust-root';
import type { BuiltRepo, KnownFix } from '@abp/github-sim/world/live/build';
import { runAbp, type CliResult } from '../support/cli.js';
import { buildRepos, freezeInput, repoNamed } from '../freeze/live-repos.js';

const DAY_MS = 86_400_000;
let root: string;
let home: string;
let textkit: BuiltRepo;
/** Frozen in this order; `practice` has a signed aging statement, `scored` has none. */
let practice: { fix: KnownFix; task: PublishedTask };
let scored: { fix: KnownFix; task: PublishedTask };

const abp = (args: string[]): Promise<CliResult> => runAbp(args, { ABP_HOME: home }, 300_000);

/** `abp export training … --json`, expecting it to succeed. */
async function exportTraining(
  output: string,
  ...flags: string[]
): Promise<{
  result: CliResult;
  summary: { sha256: string; tasks: Array<{ taskId: string; set: string }>; excludedScored: Array<{ taskId: string }> };
}> {
  const result = await abp(['export', 'training', '-o', output, ...flags, '--json']);
  expect(result.code, result.stderr).toBe(0);
  return {
    result,
    summary: JSON.parse(result.stdout) as {
      sha256: string;
      tasks: Array<{ taskId: string; set: string }>;
      excludedScored: Array<{ taskId: string }>;
    },
  };
}

/** `abp export training … --json`, expecting it to fail; returns the error it reports. */
async function failedExport(output: string, ...flags: string[]): Promise<{ code: string; message: string }> {
  const result = await abp(['export', 'training', '-o', output, ...flags, '--json']);
  expect(result.code, result.stdout).toBe(1);
  return (JSON.parse(result.stdout) as { error: { code: string; message: string } }).error;
}

const lines = (text: string): TrainingRecord[] =>
  text
    .trimEnd()
    .split('\n')
    .map((line) => trainingRecordSchema.parse(JSON.parse(line)));

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-export-'));
  home = join(root, 'home');
  const paths = signingPaths(home);
  const key = await createSigningKey(paths.keyDir);
  await saveTrustRoot(paths.trustRoot, createTrustRoot(key, '2026-01-01T00:00:00Z'));
  textkit = repoNamed(await buildRepos(root), 'textkit');
  const attestor = await loadOperatorAttestor(home);
  const store = new BundleStore(paths.bundles);
  const frozen: Array<{ fix: KnownFix; task: PublishedTask }> = [];
  for (const fix of textkit.fixes.slice(0, 2)) {
    const outcome = await freezeTask(
      {
        ...freezeInput(textkit, fix.issue, fix.baseOid, { kind: 'patch', patch: fix.patch }),
        issue: { number: fix.issue, title: fix.title, body: fix.body },
        mergedPr: `https://github.com/${fix.repo}/pull/${40 + fix.issue}`,
        sourcedAt: '2026-06-01T00:00:00Z',
        registryVersion: 'abp-registry/2026Q2',
        drawSeed: 424242,
      },
      { workDir: join(root, 'freeze-work'), store, signer: attestor.signer, log: attestor },
    );
    if (outcome.status !== 'frozen')
      throw new Error(`${fix.repo}#${fix.issue} did not freeze: ${outcome.reason} ${outcome.detail}`);
    frozen.push({ fix, task: outcome });
  }
  [practice, scored] = frozen as [typeof practice, typeof scored];
  // What the task workflow's aging activity signs when the timer runs out (activities/aging.ts): here for one task only.
  const mergedAt = '2026-06-10T12:00:00.000Z';
  await attestor.attest(
    'aging-transition',
    createAgingTransitionStatement({
      taskId: practice.task.taskId,
      bundleDigest: practice.task.digest,
      from: 'scored',
      to: 'practice',
      mergedAt,
      scoredUntil: new Date(Date.parse(mergedAt) + 180 * DAY_MS).toISOString(),
      signedAt: signedAtOf(new Date()),
    }),
  );
}, 600_000);
afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

describe('abp export training', () => {
  it('exports the practice task as an (issue, repository state, verified diff) triple and leaves the scored one out', async () => {
    const output = join(root, 'out', 'training.jsonl');
    const { summary } = await exportTraining(output);
    expect(summary.tasks).toEqual([
      { taskId: practice.task.taskId, set: 'practice', bundleDigest: practice.task.digest },
    ]);
    expect(summary.excludedScored).toEqual([{ taskId: scored.task.taskId, bundleDigest: scored.task.digest }]);

    const [record, ...rest] = lines(await readFile(output, 'utf8'));
    expect(rest).toEqual([]);
    const { fix, task } = practice;
    // The golden patch as the held-out part carries it, read back by the bundle's own unpacker.
    const unpacked = await unpackBundle(task.archivePath, { taskDir: join(root, 'unpacked', task.taskId) });
    const golden = await readFile(join(unpacked.heldOutDir, 'golden.patch'), 'utf8');
    expect(golden).toMatch(/^diff --git /);
    expect(record).toEqual({
      schema: TRAINING_SCHEMA_ID,
      taskId: task.taskId,
      set: 'practice',
      repo: fix.repo,
      issue: { number: fix.issue, title: fix.title, body: fix.body.trim() },
      repository: { url: `https://github.com/${fix.repo}`, baseCommit: fix.baseOid },
      diff: golden,
      bundleDigest: task.digest,
      heldOutDigest: task.heldOutDigest,
      mergedPr: `https://github.com/${fix.repo}/pull/${40 + fix.issue}`,
      sourcedAt: '2026-06-01T00:00:00Z',
      cutoffsVerified: task.manifest.cutoffsVerified,
    });
    expect(record?.cutoffsVerified.length).toBeGreaterThan(0);
  });

  it('writes byte-identical output on a second run', async () => {
    const first = join(root, 'again', 'first.jsonl');
    const second = join(root, 'again', 'second.jsonl');
    const one = await exportTraining(first, '--include-scored');
    const two = await exportTraining(second, '--include-scored');
    expect((await readFile(second)).equals(await readFile(first))).toBe(true);
    expect(two.summary.sha256).toBe(one.summary.sha256);
  });

  it('adds the scored task with --include-scored, sorted by task id, and warns that it contaminates', async () => {
    const output = join(root, 'with-scored.jsonl');
    const { result } = await exportTraining(output, '--include-scored');
    const records = lines(await readFile(output, 'utf8'));
    expect(records.map((record) => record.taskId)).toEqual([practice.task.taskId, scored.task.taskId].sort());
    expect(records.find((record) => record.taskId === scored.task.taskId)).toMatchObject({
      set: 'scored',
      bundleDigest: scored.task.digest,
    });
    expect(result.stderr).toContain('contaminated');
    expect(result.stderr).toContain(scored.task.taskId);
  });

  it('fails closed on a tampered bundle, naming it, and leaves the last export as it was', async () => {
    const output = join(root, 'kept.jsonl');
    await exportTraining(output);
    const before = await readFile(output);
    const archive = scored.task.archivePath;
    const pristine = await readFile(archive);
    const tampered = Buffer.from(pristine);
    tampered[tampered.length - 2048] = (tampered[tampered.length - 2048] ?? 0) ^ 0x01;
    await chmod(archive, 0o644);
    await writeFile(archive, tampered);
    try {
      const error = await failedExport(output);
      expect(error.code).toBe('bundle-unverified');
      expect(error.message).toContain(archive);
      expect((await readFile(output)).equals(before)).toBe(true);
    } finally {
      await writeFile(archive, pristine);
      await chmod(archive, 0o444);
    }
    await exportTraining(output);
  });

  it('fails closed on a bundle signed by a key the pinned trust root does not list', async () => {
    const other = await createSigningKey(join(root, 'other-keys'));
    const pinned = join(root, 'other-trust-root.json');
    await saveTrustRoot(pinned, createTrustRoot(other, '2026-01-01T00:00:00Z'));
    const error = await failedExport(join(root, 'never.jsonl'), '--trust-root', pinned);
    expect(error.code).toBe('bundle-unverified');
    expect(error.message).toMatch(/unknown-key/);
    // The store's first bundle in digest order is the one named.
    const first = [practice.task, scored.task].sort((a, b) => (a.digest < b.digest ? -1 : 1))[0];
    expect(error.message).toContain(first?.archivePath);
  });

  it('fails closed on an aging statement signed by another key: a forged move to practice exports nothing', async () => {
    const paths = signingPaths(home);
    const forgerKeys = join(root, 'forger-keys');
    await createSigningKey(forgerKeys);
    const forger = createAttestor({
      signer: await createSigner({ keyDir: forgerKeys }),
      statementsDir: join(root, 'forged'),
    });
    const forged = await forger.attest(
      'aging-transition',
      createAgingTransitionStatement({
        taskId: scored.task.taskId,
        bundleDigest: scored.task.digest,
        from: 'scored',
        to: 'practice',
        mergedAt: '2026-06-10T12:00:00Z',
        scoredUntil: '2026-12-07T12:00:00Z',
        signedAt: signedAtOf(new Date()),
      }),
    );
    const planted = statementPath(
      paths.statements,
      'aging-transition',
      taskBundleSubjectNames(scored.task.taskId).bundle,
    );
    await copyFile(forged.path, planted);
    try {
      const error = await failedExport(join(root, 'never.jsonl'));
      expect(error.code).toBe('aging-unverified');
      expect(error.message).toContain(planted);
      expect(error.message).toMatch(/unknown-key/);
    } finally {
      await rm(planted);
    }
  });
});
