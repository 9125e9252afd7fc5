// A merged fix frozen into a signed bundle through the real `abp init`, `abp freeze` and `abp verify` commands: the bundle
// verifies, each of the four tamperings is rejected with its own code, freezing again (and from a fresh clone) yields the
// same digest, and the bundle unpacks into a task folder the grader loads.
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unpackBundle } from '@abp/grader/bundle';
import type { PublishedTask } from '../../src/freeze/index.js';
import { loadTaskDirectory } from '@abp/grader/config';
import { createSigningKey } from '../../src/signing/keys.js';
import { createTrustRoot, loadTrustRoot, saveTrustRoot } from '@abp/protocol/signing/trust-root';
import type { BuiltRepo, KnownFix } from '@abp/github-sim/world/live/build';
import { runAbp, type CliResult } from '../support/cli.js';
import { buildRepos, knownFix, RECIPES, repoNamed } from './live-repos.js';

const run = promisify(execFile);

let root: string;
let home: string;
let textkit: BuiltRepo;
let fix: KnownFix;
let first: PublishedTask;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-freeze-task-'));
  home = join(root, 'home');
  textkit = repoNamed(await buildRepos(root), 'textkit');
  fix = knownFix(textkit, 3);
  await writeFile(join(root, 'fix.patch'), fix.patch);
  await writeFile(join(root, 'issue.json'), JSON.stringify({ number: 3, title: fix.title, body: fix.body }));
  await writeFile(join(root, 'recipe.json'), JSON.stringify(RECIPES['node-test']));
  expect((await runAbp(['init'], { ABP_HOME: home })).code).toBe(0);
});
afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

const abp = (args: string[]): Promise<CliResult> => runAbp(args, { ABP_HOME: home }, 300_000);

async function freeze(gitDir: string, abpHome = home): Promise<PublishedTask> {
  const result = await runAbp(
    [
      'freeze',
      '--repo',
      `${textkit.repo.owner}/${textkit.repo.name}`,
      '--base',
      fix.baseOid,
      '--fix',
      join(root, 'fix.patch'),
      '--issue',
      join(root, 'issue.json'),
      '--pr',
      `https://github.com/${textkit.repo.owner}/${textkit.repo.name}/pull/40`,
      '--git-dir',
      gitDir,
      '--recipe',
      join(root, 'recipe.json'),
      '--registry-version',
      'abp-registry/2026Q2',
      '--draw-seed',
      '424242',
      '--sourced-at',
      '2026-06-01T00:00:00Z',
      // textkit needs only Node: frozen on the host's toolchains (environments have suites of their own).
      '--host',
      '--json',
    ],
    { ABP_HOME: abpHome },
    300_000,
  );
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as PublishedTask;
}

/** `abp verify` of a (possibly tampered) copy, returning the error code it reports. */
async function verifyCode(archive: string, signature: string, trustRoot?: string): Promise<string> {
  const result = await abp([
    'verify',
    archive,
    '--signature',
    signature,
    ...(trustRoot ? ['--trust-root', trustRoot] : []),
    '--json',
  ]);
  if (result.code === 0) return 'verified';
  return (JSON.parse(result.stdout) as { error: { code: string } }).error.code;
}

describe('abp freeze and abp verify', () => {
  it('freezes the merged fix into a stored, signed bundle that verifies', async () => {
    first = await freeze(textkit.upstreamPath);
    expect(first.failToPass.length).toBeGreaterThan(0);
    expect(first.manifest.golden?.mergedPr).toMatch(/\/pull\/40$/);
    expect(first.manifest.cutoffsVerified.length).toBeGreaterThan(0);
    // No image was built or run: the manifest says so rather than naming a public image.
    expect(first.manifest.environment).toEqual({ image: 'abp-host/node', setup: ['node --version'] });
    const verified = await abp(['verify', first.archivePath, '--json']);
    expect(verified.code, verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({
      verified: true,
      taskId: first.taskId,
      digest: first.digest,
      heldOutDigest: first.heldOutDigest,
    });
  });

  it('rejects a tampered archive, a tampered statement, an unknown key and an expired key, each with its own code', async () => {
    const signature = first.signaturePath;
    const archive = join(root, 'tampered.tar');
    const bytes = await readFile(first.archivePath);
    bytes[bytes.length - 2048] = (bytes[bytes.length - 2048] ?? 0) ^ 0x01;
    await writeFile(archive, bytes);
    expect(await verifyCode(archive, signature)).toBe('digest-mismatch');

    const envelope = JSON.parse(await readFile(signature, 'utf8')) as { dsseEnvelope: { payload: string } };
    const statement = JSON.parse(Buffer.from(envelope.dsseEnvelope.payload, 'base64').toString('utf8')) as {
      predicate: { freeze: { failToPass: number } };
    };
    statement.predicate.freeze.failToPass += 1;
    envelope.dsseEnvelope.payload = Buffer.from(JSON.stringify(statement)).toString('base64');
    await writeFile(join(root, 'tampered.sigstore.json'), JSON.stringify(envelope));
    expect(await verifyCode(first.archivePath, join(root, 'tampered.sigstore.json'))).toBe('signature-invalid');

    const stranger = await createSigningKey(join(root, 'stranger'));
    await saveTrustRoot(join(root, 'stranger-root.json'), createTrustRoot(stranger, '2026-01-01T00:00:00Z'));
    expect(await verifyCode(first.archivePath, signature, join(root, 'stranger-root.json'))).toBe('unknown-key');

    const ours = await loadTrustRoot(join(home, 'trust-root.json'));
    const expired = {
      ...ours,
      keys: ours.keys.map((key) => ({ ...key, validFrom: '2020-01-01T00:00:00Z', validUntil: '2021-01-01T00:00:00Z' })),
    };
    await writeFile(join(root, 'expired-root.json'), JSON.stringify(expired));
    expect(await verifyCode(first.archivePath, signature, join(root, 'expired-root.json'))).toBe('key-expired');
  });

  it('gives the same digest when frozen again, and from a fresh clone with another data directory', async () => {
    const signatureBefore = await readFile(first.signaturePath);
    // Same inputs: the published freeze is returned from its record (same timings: the suites did not run again).
    expect(await freeze(textkit.upstreamPath)).toEqual(first);
    // The store kept the first signature: a re-run changes no byte.
    expect((await readFile(first.signaturePath)).equals(signatureBefore)).toBe(true);

    const clone = join(root, 'fresh-clone');
    await run('git', ['clone', '--quiet', '--no-local', textkit.upstreamPath, clone]);
    const otherHome = join(root, 'other-home');
    expect((await runAbp(['init'], { ABP_HOME: otherHome })).code).toBe(0);
    const again = await freeze(clone, otherHome);
    expect(again.digest).toBe(first.digest);
    expect(again.heldOutDigest).toBe(first.heldOutDigest);
  });

  it('logs the signed statement once in the transparency log, which `abp audit log` checks and catches a rewrite in', async () => {
    const audited = await abp(['audit', 'log', '--json']);
    expect(audited.code, audited.stderr).toBe(0);
    expect(JSON.parse(audited.stdout)).toMatchObject({ origin: 'abp-log/registry', size: 2, checkpointSizes: [1, 2] });
    const entries = join(home, 'log', 'entries.jsonl');
    await writeFile(entries, (await readFile(entries, 'utf8')).replace('task-bundle', 'draw-record'));
    const rewritten = await abp(['audit', 'log', '--json']);
    expect(rewritten.code).toBe(1);
    expect((JSON.parse(rewritten.stdout) as { error: { code: string } }).error.code).toBe('entry-rewritten');
  });

  it('unpacks into a task folder the grader loads, with the held-out part apart', async () => {
    const copy = join(root, 'copy.tar');
    await copyFile(first.archivePath, copy);
    // The layout `abp pull` writes: the agent-visible part in task/, the held-out part beside it.
    const unpacked = await unpackBundle(copy, {
      taskDir: join(root, 'pulled', 'task'),
      heldOutDir: join(root, 'pulled', 'held-out'),
      expectedDigest: first.digest,
    });
    expect(unpacked.manifest.id).toBe(first.taskId);
    const task = await loadTaskDirectory(join(root, 'pulled'));
    expect(task.source).toMatchObject({ kind: 'repo', baseCommit: fix.baseOid });
    expect(task.expected?.failToPass.length).toBeGreaterThan(0);
  });
});
