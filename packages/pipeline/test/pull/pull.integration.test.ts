// `abp pull` against `abp serve`, both real: a task frozen from the simulator's live textkit repository (freezeTask with
// the bundle store and the operator's signer), its record in PGlite read through the worker's task-read endpoint (as
// `abp worker` answers it), the read-only API on a real socket, and the `abp pull` command as a child process. It pulls the task
// (also after a key rotation), proving its signature logged in the registry's transparency log (and `abp unpack` makes
// the same folder from the bundle file, its environment from the store or the registry), and fails closed, each
// with its own code and nothing left in the output folder, for a tampered bundle, a statement signed by a key after its
// retirement, a digest mismatch, an unknown signer, an unvouched trust root version, a signature the log does not hold,
// a retired key's signature logged after the retirement, a log rewritten since the consumer kept a checkpoint, and a
// forged checkpoint.
import { randomUUID } from 'node:crypto';
import {
  chmod,
  copyFile,
  cp,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  backlogIssues,
  backlogSnapshots,
  bundles,
  drawPicks,
  draws,
  registryVersions,
  tasks,
} from '../../src/db/schema/index.js';
import { keptCheckpointsFile } from '@abp/grader/pull';
import type { PulledTask } from '@abp/grader/pull';
import { BundleStore } from '../../src/freeze/bundle/store.js';
import { buildBundle } from '../../src/freeze/bundle/build.js';
import type { ExpectedResults } from '@abp/protocol/bundle/expected-results';
import { freezeTask, type PublishedTask, type TaskFreezeInput } from '../../src/freeze/index.js';
import { loadTaskDirectory } from '@abp/grader/config';
import { readTaskProvenance } from '@abp/grader/pull';
import type { TrustRoot } from '@abp/protocol/schemas/abp-trust-root';
import { canonicalJson } from '@abp/protocol/schemas/canonical-json';
import type { ServeLogRecord } from '../../src/serve/log.js';
import { startServer, type RunningServer } from '../../src/serve/server.js';
import { createTaskSource } from '../../src/serve/tasks.js';
import { startTaskReadEndpoint, type RunningTaskReads } from '../../src/task-reads/endpoint.js';
import { openTaskReads, type TaskReads } from '../../src/task-reads/reader.js';
import { signatureDigest } from '../../src/signing/attestor.js';
import { LOG_ORIGIN } from '@abp/protocol/transparency/formats';
import { signingPaths } from '../../src/signing/home.js';
import { createSigningKey, type SigningKey } from '../../src/signing/keys.js';
import { loadOperatorAttestor } from '../../src/signing/operator.js';
import { createSigner } from '../../src/signing/signer.js';
import { createTaskBundleStatement, statementSchema, type TaskBundlePredicate } from '@abp/protocol/signing/statement';
import { trustRootStatement } from '@abp/grader/trust';
import { addKey, createTrustRoot, parseTrustRoot, saveTrustRoot } from '@abp/protocol/signing/trust-root';
import { signCheckpoint, type SignedCheckpoint } from '@abp/protocol/transparency/formats';
import { openLog } from '@abp/protocol/transparency/log';
import {
  backlogIssueRow,
  backlogSnapshotRow,
  bundleRow,
  commitOf,
  drawPickRow,
  drawRow,
  registryVersionRow,
  taskRow,
  useTestDatabase,
} from '../support/database.js';
import { gradeBundledEngines } from '../support/bundled-engines.js';
import { runAbp, type CliResult } from '../support/cli.js';
import { buildRepos, freezeInput, knownFix, repoNamed } from '../freeze/live-repos.js';
import { EnvironmentError, EnvironmentStore, LABELS } from '@abp/grader/environments';
import type { AbpTask } from '@abp/protocol/schemas/abp-task';
import { sharedEnvironmentStore } from '../../../../test-support/toolchain-caches.js';

// Fixed times, so every window and signature below is what the scenario says whatever day the suite runs.
const K1_FROM = '2026-01-01T00:00:00Z';
const FROZEN_AT = new Date('2026-06-02T00:00:00Z');
const ROTATED_AT = '2026-09-01T00:00:00Z';
const AFTER_RETIREMENT = '2026-10-01T00:00:00Z';
// Before the retirement: what someone holding the retired key would write to pass the signature's own time check.
const BACKDATED = '2026-08-01T00:00:00Z';

/**
 * These tests change the database and the store under a running server, as an attacker or an operator would, and must
 * see each change at once: no task answer kept for a moment, no bundle kept in memory.
 */
const ANSWER_EVERY_CHANGE = { taskAnswerMaxAgeMs: 0, contentCacheBytes: 0 };
let endpoint: RunningTaskReads | undefined;
let reads: TaskReads;
let root: string;
let home: string;
/** The consumer's data directory: it has no trust root of its own, so only the pinned one counts. */
let consumerHome: string;
let server: RunningServer;
let store: BundleStore;
let published: PublishedTask;
let k1: SigningKey;
let k2: SigningKey;
let v1: TrustRoot;
let pinnedV1: string;
const log: ServeLogRecord[] = [];
let trackingTaskId: string;
/** The upstream repository the task was frozen from, and its base: what a second bundle of it is built from. */
let textkitGitDir: string;
let textkitBase: string;

describe('abp pull against abp serve', () => {
  const database = useTestDatabase('pglite');

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'abp-pull-'));
    home = join(root, 'registry-home');
    consumerHome = join(root, 'consumer-home');
    const paths = signingPaths(home);
    k1 = await createSigningKey(paths.keyDir);
    store = new BundleStore(paths.bundles);

    // The registry's trust root, version 1, published with its statement (signed by the key it lists), as `abp init` does.
    v1 = createTrustRoot(k1, K1_FROM);
    await saveTrustRoot(paths.trustRoot, v1);
    await publishVersion(v1, paths.keyDir, new Date(K1_FROM));
    pinnedV1 = join(root, 'pinned-v1.json');
    await copyFile(join(paths.trustRoots, 'v1.json'), pinnedV1);

    // A real freeze of textkit#3: suites run, bundle built, stored, signed by k1 at FROZEN_AT and logged.
    const textkit = repoNamed(await buildRepos(root), 'textkit');
    const fix = knownFix(textkit, 3);
    textkitGitDir = textkit.upstreamPath;
    textkitBase = fix.baseOid;
    const input: TaskFreezeInput = {
      ...freezeInput(textkit, 3, fix.baseOid, { kind: 'patch', patch: fix.patch }),
      issue: { number: 3, title: fix.title, body: fix.body },
      mergedPr: `https://github.com/${textkit.repo.owner}/${textkit.repo.name}/pull/40`,
      sourcedAt: '2026-05-01T00:00:00Z',
      registryVersion: 'abp-registry/2026Q2',
      drawSeed: 424242,
    };
    const attestor = await loadOperatorAttestor(home);
    // Frozen in its environment (Node from npm, the Debian base shared with the other suites' store), which the
    // registry then serves beside the bundle.
    await symlink(sharedEnvironmentStore, join(home, 'environments'));
    const outcome = await freezeTask(input, {
      store,
      signer: attestor.signer,
      log: attestor,
      workDir: join(root, 'freeze-work'),
      now: () => FROZEN_AT,
      environments: new EnvironmentStore(join(home, 'environments')),
    });
    if (outcome.status !== 'frozen') throw new Error(`the freeze rejected textkit#3: ${JSON.stringify(outcome)}`);
    published = outcome;
    // The log signs checkpoints with the machine's clock, the scenario runs on fixed times: the checkpoint covering the
    // bundle is signed again as it was made, at the freeze, before the rotation retires k1.
    await signCheckpointAt(1, k1, FROZEN_AT.toISOString());

    // The task's record, scored with that bundle, and one still being tracked, in the worker's database.
    const db = database.db;
    const registry = (
      await db
        .insert(registryVersions)
        .values(registryVersionRow({ quarter: '2026Q2', id: 'abp-registry/2026Q2' }))
        .returning()
    )[0];
    if (registry === undefined) throw new Error('no registry row');
    const snapshot = backlogSnapshotRow({ registryVersion: registry.id });
    await db.insert(backlogSnapshots).values(snapshot);
    const draw = drawRow({ registryVersion: registry.id, backlogSnapshotId: snapshot.id ?? '' });
    await db.insert(draws).values(draw);
    const repo = input.repo;
    for (const issue of [3, 5]) {
      await db
        .insert(backlogIssues)
        .values(backlogIssueRow({ snapshotId: snapshot.id ?? '', repo, issueNumber: issue }));
      await db.insert(drawPicks).values(
        drawPickRow({
          drawId: draw.id ?? '',
          backlogSnapshotId: snapshot.id ?? '',
          repo,
          issueNumber: issue,
          position: issue,
        }),
      );
    }
    await db.insert(tasks).values(taskRow({ drawId: draw.id ?? '', repo, issueNumber: 3, state: 'drawn' }));
    await db.insert(bundles).values(bundleRow({ taskId: published.taskId, digest: published.digest }));
    await db
      .update(tasks)
      .set({
        state: 'scored',
        prUrl: input.mergedPr,
        baseCommit: fix.baseOid,
        mergeCommit: commitOf('textkit-3-merge'),
        mergedAt: new Date('2026-06-01T12:00:00Z'),
        scoredUntil: new Date('2026-11-28T12:00:00Z'),
        bundleDigest: published.digest,
      })
      .where(eq(tasks.id, published.taskId));
    trackingTaskId = `${published.taskId.replace(/-3$/, '')}-5`;
    await db.insert(tasks).values(
      taskRow({
        drawId: draw.id ?? '',
        repo,
        issueNumber: 5,
        state: 'tracking',
        prUrl: `https://github.com/${repo}/pull/50`,
      }),
    );

    // The database answers reads through the endpoint a worker runs; the server reads it as `abp serve` does.
    endpoint = await startTaskReadEndpoint({ db, home });
    reads = await openTaskReads({ home, env: {} });
    server = await startServer({
      port: 0,
      host: '127.0.0.1',
      api: { home, tasks: createTaskSource(reads), ...ANSWER_EVERY_CHANGE },
      log: (record) => log.push(record),
    });
    // A real freeze, in an environment the suite may be the first to build (a Debian base, Node from npm, the install),
    // with its gold proof: minutes on a loaded 2-core machine, more than the tier's default for a hook.
  }, 600_000);
  afterAll(async () => {
    await server?.close();
    await endpoint?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  /** Publishes `document` as its version, its statement signed with the key in `keyDir` at `signedAt`. */
  async function publishVersion(document: TrustRoot, keyDir: string, signedAt: Date): Promise<void> {
    const dir = signingPaths(home).trustRoots;
    await saveTrustRoot(join(dir, `v${document.version}.json`), document);
    const signer = await createSigner({ keyDir });
    await writeFile(
      join(dir, `v${document.version}.sigstore.json`),
      `${JSON.stringify(await signer.sign(trustRootStatement(document, signedAt)), null, 2)}\n`,
    );
  }

  /** Writes the operator's checkpoint of the first `size` entries, signed by `key` with the time `timestamp`. */
  async function signCheckpointAt(size: number, key: SigningKey, timestamp: string): Promise<SignedCheckpoint> {
    const log = await openLog(signingPaths(home).log, LOG_ORIGIN);
    const signed = signCheckpoint({ origin: LOG_ORIGIN, size, rootHash: log.rootHash(size), timestamp }, key);
    await writeFile(join(signingPaths(home).log, 'checkpoints', `${size}.json`), `${canonicalJson(signed)}\n`);
    return signed;
  }

  /** Runs `during` with the registry's log folder replaced by `replacement`, then puts the original back. */
  async function withLog(replacement: string, during: () => Promise<void>): Promise<void> {
    const dir = signingPaths(home).log;
    const original = join(root, `log-original-${randomUUID()}`);
    await rename(dir, original);
    await cp(replacement, dir, { recursive: true });
    try {
      await during();
    } finally {
      await rm(dir, { recursive: true, force: true });
      await rename(original, dir);
    }
  }

  async function unpublishVersion(version: number): Promise<void> {
    const dir = signingPaths(home).trustRoots;
    await rm(join(dir, `v${version}.json`), { force: true });
    await rm(join(dir, `v${version}.sigstore.json`), { force: true });
  }

  async function pull(
    outputDir: string,
    options: {
      taskId?: string;
      trustRoot?: string;
      from?: string;
      json?: false;
      checkpoints?: string;
      environments?: string;
    } = {},
  ): Promise<CliResult> {
    const args = [
      'pull',
      options.taskId ?? published.taskId,
      '--from',
      options.from ?? server.url,
      '--trust-root',
      options.trustRoot ?? pinnedV1,
      '-o',
      outputDir,
    ];
    if (options.checkpoints !== undefined) args.push('--checkpoints', options.checkpoints);
    if (options.environments !== undefined) args.push('--environments', options.environments);
    return runAbp(options.json === false ? args : [...args, '--json'], { ABP_HOME: consumerHome });
  }

  /** The digest of the environment the task names. */
  function environmentDigest(): string {
    const { image } = published.manifest.environment;
    return image.slice(image.indexOf('@') + 1);
  }

  /** Every blob of the task's environment in the shared store: manifest, config, then the layers in order. */
  async function environmentBlobs(): Promise<string[]> {
    const image = await new EnvironmentStore(sharedEnvironmentStore).readImage(environmentDigest());
    return [image.digest, image.manifest.config.digest, ...image.manifest.layers.map((layer) => layer.digest)];
  }

  /** The checkpoints a consumer keeps of this server in `dir`; null when it keeps none. */
  async function keptIn(dir: string): Promise<SignedCheckpoint[] | null> {
    const text = await readFile(keptCheckpointsFile(dir, server.url), 'utf8').catch(() => null);
    return text === null ? null : (JSON.parse(text) as SignedCheckpoint[]);
  }

  /** Pulls into a fresh empty folder, expects refusal with `code`, and that the folder is still empty afterwards. */
  async function refusedWith(code: string, options: Parameters<typeof pull>[1] = {}): Promise<string> {
    const outputDir = join(root, `out-${randomUUID()}`);
    await mkdir(outputDir);
    const result = await pull(outputDir, options);
    expect(result.code, result.stderr).toBe(code === 'invalid-setting' ? 2 : 1);
    const { error } = JSON.parse(result.stdout) as { error: { code: string; message: string } };
    expect(error.code, error.message).toBe(code);
    expect(await readdir(outputDir)).toEqual([]);
    return error.message;
  }

  /** The statement the freeze signed, as stored beside the bundle. */
  async function frozenStatement(): Promise<TaskBundlePredicate> {
    const signature = JSON.parse((await store.getSignature(published.digest)) ?? '') as {
      dsseEnvelope: { payload: string };
    };
    return statementSchema.parse(JSON.parse(Buffer.from(signature.dsseEnvelope.payload, 'base64').toString('utf8')))
      .predicate as TaskBundlePredicate;
  }

  /** Replaces the bundle's stored signature for the duration of `during`. */
  async function withSignature(signature: string, during: () => Promise<void>): Promise<void> {
    const original = (await store.getSignature(published.digest)) ?? '';
    await store.putSignature(published.digest, signature);
    try {
      await during();
    } finally {
      await store.putSignature(published.digest, original);
    }
  }

  it('pulls the frozen task: the agent-visible part and the held-out part in separate folders, verified against the pinned root', async () => {
    const outputDir = join(root, 'pulled');
    const result = await pull(outputDir);
    expect(result.code, result.stderr).toBe(0);
    const pulled = JSON.parse(result.stdout) as PulledTask;
    const taskFolder = join(outputDir, published.taskId);
    expect(pulled).toEqual({
      taskId: published.taskId,
      state: 'scored',
      from: server.url,
      digest: published.digest,
      heldOutDigest: published.heldOutDigest,
      taskDir: join(taskFolder, 'task'),
      heldOutDir: join(taskFolder, 'held-out'),
      signer: { kind: 'keyed', keyId: k1.keyId },
      keyId: k1.keyId,
      signedAt: '2026-06-02T00:00:00Z',
      trustRoot: { pinnedVersion: 1, version: 1 },
      environment: {
        digest: environmentDigest(),
        store: join(consumerHome, 'environments'),
        fetched: (await environmentBlobs()).length,
        reused: 0,
        bytesFetched: expect.any(Number) as number,
      },
      // Frozen without a golden trace: none is signed, so none is fetched.
      goldenTrace: null,
      log: {
        origin: LOG_ORIGIN,
        index: 0,
        checkpointSize: 1,
        rootHash: expect.stringMatching(/^[A-Za-z0-9+/]{43}=$/) as string,
        keptSize: null,
        loggedBeforeRetirement: null,
        keptIn: keptCheckpointsFile(join(consumerHome, 'kept-checkpoints'), server.url),
      },
    });
    // The entry is the freeze's: the signature's bytes as stored, under the task's bundle subject.
    const entry = (await (await fetch(`${server.url}/v1/log/entries/0`)).json()) as {
      kind: string;
      subject: string;
      digest: string;
    };
    expect(entry).toMatchObject({
      kind: 'task-bundle',
      subject: `task/${published.taskId}/bundle`,
      digest: signatureDigest((await store.getSignature(published.digest)) ?? ''),
    });
    // The provenance records where the signature is in the log; the consumer keeps the checkpoint it proved against.
    expect((await readTaskProvenance(pulled.taskDir, published.taskId))?.log).toEqual({
      origin: LOG_ORIGIN,
      index: 0,
      checkpointSize: 1,
      rootHash: pulled.log.rootHash,
    });
    const kept = await keptIn(join(consumerHome, 'kept-checkpoints'));
    expect(kept?.map((signed) => signed.checkpoint)).toEqual([
      { origin: LOG_ORIGIN, size: 1, rootHash: pulled.log.rootHash, timestamp: '2026-06-02T00:00:00.000Z' },
    ]);
    // Nothing but the two parts: no archive, no staging folder.
    expect(await readdir(outputDir)).toEqual([published.taskId]);
    expect((await readdir(taskFolder)).sort()).toEqual(['held-out', 'task']);
    expect((await readdir(pulled.taskDir)).sort()).toEqual(['issue.md', 'provenance.json', 'repo', 'task.json']);
    expect((await readdir(pulled.heldOutDir)).sort()).toEqual(['expected-results.json', 'files', 'golden.patch']);
    // The grader loads the pulled folder as it is: the agent's part from task/, the held-out part from beside it.
    const task = await loadTaskDirectory(taskFolder);
    expect(task.visibleDir).toBe(pulled.taskDir);
    expect(task.source).toMatchObject({
      kind: 'repo',
      gitDir: join(pulled.taskDir, 'repo'),
      baseCommit: published.manifest.source.kind === 'github-issue' ? published.manifest.source.baseCommit : '',
    });
    expect(task.heldOutFilesDir).toBe(join(pulled.heldOutDir, 'files'));
    expect(task.heldOutPaths.length).toBeGreaterThan(0);
    expect(task.goldenPatch).toBe(await readFile(join(pulled.heldOutDir, 'golden.patch'), 'utf8'));
    expect(JSON.parse(await readFile(join(pulled.taskDir, 'task.json'), 'utf8'))).toEqual(published.manifest);
    // The server logged the reads the pull made, and nothing it refused.
    const reads = log.filter((record) => record.kind === 'request-served').map((record) => record.path);
    expect(reads).toEqual(
      expect.arrayContaining([
        `/v1/tasks/${published.taskId}`,
        `/v1/bundles/${published.digest}`,
        `/v1/bundles/${published.digest}/signature`,
        '/v1/log/checkpoints/latest',
        '/v1/log/lookup',
        '/v1/log/proofs/inclusion',
      ]),
    );

    // Pulling again into the same folder is refused and changes nothing there.
    const again = await pull(outputDir);
    expect(again.code).toBe(1);
    expect((JSON.parse(again.stdout) as { error: { code: string } }).error.code).toBe('destination-exists');
    expect((await readdir(taskFolder)).sort()).toEqual(['held-out', 'task']);
  });

  it("fetches the task's environment once, every blob verified: a second pull transfers none of it", async () => {
    const consumerStore = new EnvironmentStore(join(consumerHome, 'environments'));
    await consumerStore.verify(environmentDigest());
    const result = await pull(join(root, 'pulled-again'));
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as PulledTask).environment).toMatchObject({
      fetched: 0,
      reused: (await environmentBlobs()).length,
      bytesFetched: 0,
    });
  });

  it('unpacks the bundle file with abp unpack: its environment from the store, or from the registry with --from', async () => {
    const unpack = (outputDir: string, extra: string[]) =>
      runAbp(['unpack', store.path(published.digest), '-o', outputDir, '--trust-root', pinnedV1, ...extra, '--json'], {
        ABP_HOME: consumerHome,
      });
    const blobs = (await environmentBlobs()).length;
    // A store without the environment, and no registry to fetch it from: refused, nothing written.
    const empty = join(root, `environments-${randomUUID()}`);
    const missingOutput = join(root, 'unpacked-missing');
    const missing = await unpack(missingOutput, ['--environments', empty]);
    expect(missing.code).toBe(1);
    expect((JSON.parse(missing.stdout) as { error: { code: string } }).error.code).toBe('environment-missing');
    expect(await readdir(missingOutput).catch((error: NodeJS.ErrnoException) => error.code)).toBe('ENOENT');
    // With the registry: the environment is fetched and verified, and the signature proved logged, as a pull does.
    const fetched = await unpack(join(root, 'unpacked-fetched'), [
      ...['--environments', empty, '--from', server.url, '--checkpoints', join(root, 'unpack-checkpoints')],
    ]);
    expect(fetched.code, fetched.stderr).toBe(0);
    expect(JSON.parse(fetched.stdout)).toMatchObject({
      taskId: published.taskId,
      digest: published.digest,
      environment: { fetched: blobs, reused: 0 },
      log: { origin: LOG_ORIGIN, index: 0 },
    });
    // The consumer's own store holds it since the pull: no registry needed, and the folder is the pull's.
    const local = await unpack(join(root, 'unpacked-local'), []);
    expect(local.code, local.stderr).toBe(0);
    const unpacked = JSON.parse(local.stdout) as { taskDir: string; environment: unknown; log: unknown };
    expect(unpacked).toMatchObject({ environment: { fetched: 0, reused: blobs }, log: null });
    const task = await loadTaskDirectory(join(root, 'unpacked-local', published.taskId));
    expect(task.digest).toBe((await loadTaskDirectory(join(root, 'pulled', published.taskId))).digest);
  });

  it('grades the pulled task in the fresh data directory: the reference engine resolved, the no-op unresolved', async () => {
    const dir = join(root, 'graded');
    await mkdir(dir);
    // A third engine prints the Node its commands find: the environment's, which the recipe named, not the host's.
    const probe = join(root, 'node-probe.mjs');
    await writeFile(
      probe,
      [
        "import { execFileSync } from 'node:child_process';",
        "if (process.argv.includes('--preflight')) { process.stdout.write('ABP-PREFLIGHT-OK\\n'); process.exit(0); }",
        "process.stdout.write(execFileSync('node', ['--version'], { encoding: 'utf8' }));",
        '',
      ].join('\n'),
    );
    const outcome = await gradeBundledEngines({
      dir,
      tasksDir: join(root, 'pulled'),
      taskIds: [published.taskId],
      environments: join(consumerHome, 'environments'),
      extraAdapters: [
        {
          engine: 'node-probe',
          command: [process.execPath, probe],
          program: [process.execPath, probe],
          preflight: {
            prompt: 'Reply with exactly: ABP-PREFLIGHT-OK',
            sentinel: 'ABP-PREFLIGHT-OK',
            timeoutSeconds: 60,
            command: [process.execPath, probe, '--preflight'],
          },
        },
      ],
    });
    expect(Object.fromEntries(outcome.trials.map((trial) => [trial.engine, trial.outcome]))).toEqual({
      reference: 'resolved',
      noop: 'unresolved',
      'node-probe': 'unresolved',
    });
    const image = await new EnvironmentStore(join(consumerHome, 'environments')).readImage(environmentDigest());
    const named = image.config.config.Labels['org.abp.toolchain.node'];
    expect(named).toMatch(/^22\./);
    expect(process.version).not.toBe(`v${named}`);
    const probed = outcome.trials.find((trial) => trial.engine === 'node-probe');
    const seen = await readFile(join(outcome.runDir, probed?.receipts.stdout ?? ''), 'utf8');
    expect(seen.trim()).toBe(`v${named}`);
  });

  it("refuses to grade a task whose manifest names another environment than its repository's: environment-mismatch", async () => {
    // Another environment in the consumer's store: the same layers, recorded as built from another package.json. The
    // task's copy names it instead of its own; the grader checks the files the image records against the repository.
    const consumerStore = new EnvironmentStore(join(consumerHome, 'environments'));
    const own = await consumerStore.readImage(environmentDigest());
    const recorded = JSON.parse(own.config.config.Labels[LABELS.dependencyFiles] ?? '{}') as Record<string, string>;
    expect(Object.keys(recorded)).toContain('package.json');
    const other = await consumerStore.putImage(own.manifest.layers, {
      ...own.config,
      config: {
        ...own.config.config,
        Labels: {
          ...own.config.config.Labels,
          [LABELS.dependencyFiles]: JSON.stringify({ ...recorded, 'package.json': `sha256:${'0'.repeat(64)}` }),
        },
      },
    });
    const tasksDir = join(root, 'renamed-environment');
    await cp(join(root, 'pulled', published.taskId), join(tasksDir, published.taskId), { recursive: true });
    const manifestPath = join(tasksDir, published.taskId, 'task', 'task.json');
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as AbpTask;
    manifest.environment.image = manifest.environment.image.replace(environmentDigest(), other.digest);
    await writeFile(manifestPath, JSON.stringify(manifest));
    const dir = join(root, 'graded-mismatch');
    await mkdir(dir);
    const refused = await gradeBundledEngines({
      dir,
      tasksDir,
      taskIds: [published.taskId],
      environments: join(consumerHome, 'environments'),
    }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(EnvironmentError);
    expect((refused as EnvironmentError).code).toBe('environment-mismatch');
    expect((refused as EnvironmentError).message).toContain(`package.json sha256:${'0'.repeat(64)}`);
  });

  it("refuses a signed task whose manifest names another environment than its repository's: environment-mismatch", async () => {
    // A freeze that named the wrong environment (a damaged build cache, a faulty builder), signed and logged like any
    // other: the same task, its manifest naming an image recorded as built from another package.json, served in place
    // of the real one. Every signature and proof holds; the environment does not fit the repository the bundle carries.
    const serverStore = new EnvironmentStore(join(home, 'environments'));
    const own = await serverStore.readImage(environmentDigest());
    const recorded = JSON.parse(own.config.config.Labels[LABELS.dependencyFiles] ?? '{}') as Record<string, string>;
    const other = await serverStore.putImage(own.manifest.layers, {
      ...own.config,
      config: {
        ...own.config.config,
        Labels: {
          ...own.config.config.Labels,
          [LABELS.dependencyFiles]: JSON.stringify({ ...recorded, 'package.json': `sha256:${'1'.repeat(64)}` }),
        },
      },
    });
    const pulledDir = join(root, 'pulled', published.taskId);
    const filesDir = join(pulledDir, 'held-out', 'files');
    const files = await Promise.all(
      (await readdir(filesDir, { recursive: true, withFileTypes: true }))
        .filter((entry) => entry.isFile())
        .map(async (entry) => ({
          path: relative(filesDir, join(entry.parentPath, entry.name)),
          content: await readFile(join(entry.parentPath, entry.name)),
        })),
    );
    const manifest: AbpTask = {
      ...published.manifest,
      environment: {
        ...published.manifest.environment,
        image: published.manifest.environment.image.replace(environmentDigest(), other.digest),
      },
    };
    const bundle = await buildBundle({
      manifest,
      issueText: await readFile(join(pulledDir, 'task', 'issue.md'), 'utf8'),
      gitDir: textkitGitDir,
      baseCommit: textkitBase,
      heldOut: {
        files,
        expected: JSON.parse(
          await readFile(join(pulledDir, 'held-out', 'expected-results.json'), 'utf8'),
        ) as ExpectedResults,
        goldenPatch: await readFile(join(pulledDir, 'held-out', 'golden.patch'), 'utf8'),
      },
    });
    const digest = await store.put(bundle.archive);
    const signer = await createSigner({ keyDir: signingPaths(home).keyDir });
    const statement = { ...(await frozenStatement()), bundleDigest: digest, heldOutDigest: bundle.heldOutDigest };
    const signature = JSON.stringify(await signer.sign(createTaskBundleStatement(statement)), null, 2);
    await store.putSignature(digest, signature);
    // Logged in a copy of the registry's log, so the suite's own log stays as the later scenarios expect it.
    const logCopy = join(root, `log-copy-${randomUUID()}`);
    await cp(signingPaths(home).log, logCopy, { recursive: true });
    await withLog(logCopy, async () => {
      const log = await openLog(signingPaths(home).log, LOG_ORIGIN);
      const appended = await log.append({
        kind: 'task-bundle',
        subject: `task/${published.taskId}/bundle`,
        digest: signatureDigest(signature),
        appendedAt: FROZEN_AT.toISOString(),
      });
      await signCheckpointAt(appended.index + 1, k1, FROZEN_AT.toISOString());
      const db = database.db;
      await db.insert(bundles).values(bundleRow({ taskId: published.taskId, digest }));
      await db.update(tasks).set({ bundleDigest: digest }).where(eq(tasks.id, published.taskId));
      try {
        const message = await refusedWith('environment-mismatch', {
          environments: join(root, `consumer-environments-${randomUUID()}`),
        });
        expect(message).toContain(other.digest);
        expect(message).toContain(`package.json sha256:${'1'.repeat(64)}`);
      } finally {
        await db.update(tasks).set({ bundleDigest: published.digest }).where(eq(tasks.id, published.taskId));
        await db.delete(bundles).where(eq(bundles.digest, digest));
      }
    });
  });

  it('refuses an environment layer changed on the server (environment-tampered) or missing there (environment-missing)', async () => {
    const served = join(home, 'environments');
    const aside = join(root, 'environments-aside');
    await rename(served, aside);
    try {
      for (const [code, change] of [
        [
          'environment-tampered',
          (bytes: Buffer) => Buffer.concat([bytes.subarray(0, -1), Buffer.from([(bytes.at(-1) ?? 0) ^ 1])]),
        ],
        ['environment-missing', null],
      ] as const) {
        // The server's store: this image's blobs, copied (never linked: the shared store must stay intact), the
        // install layer changed or left out.
        await rm(served, { recursive: true, force: true });
        const store = new EnvironmentStore(served);
        const blobs = await environmentBlobs();
        const layer = blobs.at(-1) ?? '';
        for (const blob of blobs) {
          const bytes = await readFile(new EnvironmentStore(aside).blobPath(blob));
          if (blob !== layer) await store.putBytes(bytes);
          else if (change !== null) {
            await mkdir(join(served, 'blobs', 'sha256'), { recursive: true });
            await writeFile(store.blobPath(blob), change(bytes));
          }
        }
        const message = await refusedWith(code, { environments: join(root, `consumer-environments-${randomUUID()}`) });
        expect(message).toContain(environmentDigest());
      }
    } finally {
      await rm(served, { recursive: true, force: true });
      await rename(aside, served);
    }
  });

  it('follows a key rotation from the pinned version: what the retired key signed before retiring still verifies', async () => {
    // Version 2 retires k1 and trusts k2; k1, which version 1 trusts, vouches for it.
    k2 = await createSigningKey(join(root, 'k2'));
    const extended = addKey(v1, k2, ROTATED_AT);
    const v2 = parseTrustRoot(
      {
        ...extended,
        keys: extended.keys.map((key) => (key.keyId === k1.keyId ? { ...key, retiredAt: ROTATED_AT } : key)),
      },
      'trust root version 2',
    );
    await publishVersion(v2, signingPaths(home).keyDir, new Date(ROTATED_AT));
    await saveTrustRoot(signingPaths(home).trustRoot, v2);

    const outputDir = join(root, 'pulled-after-rotation');
    const result = await pull(outputDir);
    expect(result.code, result.stderr).toBe(0);
    // k1 is retired now: what it signed counts because a checkpoint signed before its retirement covers the entry; and the
    // log extends the checkpoint kept at the first pull.
    expect(JSON.parse(result.stdout)).toMatchObject({
      digest: published.digest,
      keyId: k1.keyId,
      trustRoot: { pinnedVersion: 1, version: 2 },
      log: {
        index: 0,
        checkpointSize: 1,
        keptSize: 1,
        loggedBeforeRetirement: { size: 1, timestamp: '2026-06-02T00:00:00.000Z' },
      },
    });
    // For a person: both folders, the digest, the signer and the trust root version used.
    const person = await pull(join(root, 'pulled-for-a-person'), { json: false });
    expect(person.code, person.stderr).toBe(0);
    const taskFolder = join(root, 'pulled-for-a-person', published.taskId);
    expect(person.stdout.split('\n')).toEqual([
      `pulled ${published.taskId} (scored) from ${server.url}: ${published.digest}`,
      `  task (what the agent sees): ${join(taskFolder, 'task')}`,
      `  held-out part (keep it from the agent): ${join(taskFolder, 'held-out')}, ${published.heldOutDigest}`,
      `  signed by key ${k1.keyId} at 2026-06-02T00:00:00Z; trust root version 2, reached from the pinned version 1`,
      `  logged as entry 0 of ${LOG_ORIGIN}, included in its checkpoint of size 1: consistent with the checkpoint of size 1 kept before`,
      '  the signing key is retired: the entry was covered by the checkpoint of size 1 signed at 2026-06-02T00:00:00.000Z, before its retirement',
      `  checkpoint kept in ${keptCheckpointsFile(join(consumerHome, 'kept-checkpoints'), server.url)}`,
      `  environment ${environmentDigest()} in ${join(consumerHome, 'environments')}: 0 blobs fetched (0.0 MiB), ${(await environmentBlobs()).length} already there, every one verified`,
      '',
    ]);
    // The server's versions as served: 1 and 2.
    expect(await (await fetch(`${server.url}/v1/trust-roots`)).json()).toMatchObject({
      versions: [{ version: 1 }, { version: 2 }],
    });
  });

  it('refuses a statement signed by the key after its retirement: key-retired', async () => {
    // Someone holding the retired key signs the same bundle again, after the rotation.
    const predicate = { ...(await frozenStatement()), signedAt: AFTER_RETIREMENT };
    const signer = await createSigner({ keyDir: signingPaths(home).keyDir });
    const lateSignature = JSON.stringify(await signer.sign(createTaskBundleStatement(predicate)), null, 2);
    await withSignature(lateSignature, async () => {
      const message = await refusedWith('key-retired');
      // The pinned version 1 does not retire k1: the refusal comes from version 2, reached by walking the chain.
      expect(message).toContain(`retired at ${ROTATED_AT} (trust root version 2)`);
    });
  });

  it('refuses a signature by a key the trust root does not list: unknown-signer', async () => {
    await createSigningKey(join(root, 'stranger'));
    const stranger = await createSigner({ keyDir: join(root, 'stranger') });
    const strangerSignature = JSON.stringify(
      await stranger.sign(createTaskBundleStatement(await frozenStatement())),
      null,
      2,
    );
    await withSignature(strangerSignature, async () => {
      expect(await refusedWith('unknown-signer')).toContain('unknown-key');
    });
  });

  it('refuses a bundle whose bytes changed while its advertised digest was updated to match: tampered-bundle', async () => {
    // The attacker changes the archive, stores it under its new digest with the old signature, and points the task at it.
    const bytes = await readFile(store.path(published.digest));
    bytes[bytes.length - 4096] = (bytes[bytes.length - 4096] ?? 0) ^ 0x01;
    const tamperedDigest = await store.put(bytes);
    await store.putSignature(tamperedDigest, (await store.getSignature(published.digest)) ?? '');
    await database.db.insert(bundles).values(bundleRow({ taskId: published.taskId, digest: tamperedDigest }));
    await database.db.update(tasks).set({ bundleDigest: tamperedDigest }).where(eq(tasks.id, published.taskId));
    try {
      expect(await (await fetch(`${server.url}/v1/tasks/${published.taskId}`)).json()).toMatchObject({
        bundleDigest: tamperedDigest,
      });
      expect(await refusedWith('tampered-bundle')).toContain('digest-mismatch');
    } finally {
      await database.db.update(tasks).set({ bundleDigest: published.digest }).where(eq(tasks.id, published.taskId));
    }
  });

  it('refuses a signed statement changed after signing: tampered-bundle', async () => {
    const envelope = JSON.parse((await store.getSignature(published.digest)) ?? '') as {
      dsseEnvelope: { payload: string };
    };
    const statement = JSON.parse(Buffer.from(envelope.dsseEnvelope.payload, 'base64').toString('utf8')) as {
      predicate: { freeze: { failToPass: number } };
    };
    statement.predicate.freeze.failToPass += 1;
    envelope.dsseEnvelope.payload = Buffer.from(JSON.stringify(statement)).toString('base64');
    await withSignature(JSON.stringify(envelope), async () => {
      expect(await refusedWith('tampered-bundle')).toContain('signature-invalid');
    });
  });

  it('refuses bytes that do not hash to the advertised digest: digest-mismatch', async () => {
    const path = store.path(published.digest);
    const original = await readFile(path);
    const changed = Buffer.from(original);
    changed[1000] = (changed[1000] ?? 0) ^ 0xff;
    await chmod(path, 0o644);
    await writeFile(path, changed);
    try {
      expect(await refusedWith('digest-mismatch')).toContain(
        `advertises task ${published.taskId} as ${published.digest}`,
      );
    } finally {
      await writeFile(path, original);
      await chmod(path, 0o444);
    }
  });

  it('refuses a newer trust root version its predecessor did not sign: trust-root-unverified', async () => {
    const rogue = await createSigningKey(join(root, 'rogue'));
    const current = parseTrustRoot(
      JSON.parse(await readFile(join(signingPaths(home).trustRoots, 'v2.json'), 'utf8')),
      'v2',
    );
    const v3 = addKey(current, rogue, '2026-11-01T00:00:00Z');
    await publishVersion(v3, join(root, 'rogue'), new Date('2026-11-01T00:00:00Z'));
    try {
      expect(await refusedWith('trust-root-unverified')).toContain(
        'trust root version 3 is not vouched for by version 2',
      );
    } finally {
      await unpublishVersion(3);
    }
  });

  it('refuses a signature the registry never logged, even one that verifies: not-logged', async () => {
    // The same signature in other bytes (no indentation): it verifies, but the log holds the digest of what was stored.
    const original = (await store.getSignature(published.digest)) ?? '';
    const unlogged = JSON.stringify(JSON.parse(original));
    expect(unlogged).not.toBe(original);
    await withSignature(unlogged, async () => {
      const message = await refusedWith('not-logged');
      expect(message).toContain(
        `no task-bundle entry task/${published.taskId}/bundle with digest ${signatureDigest(unlogged)}`,
      );
    });
  });

  it("refuses a retired key's signature that reached the log only after the retirement, whatever time it states: key-retired", async () => {
    // Someone holding the retired k1 signs the bundle again, dated before the retirement so the statement's own time
    // passes; the registry logs it (now, after the retirement) and checkpoints with k2, its current key.
    const predicate = { ...(await frozenStatement()), signedAt: BACKDATED };
    const signer = await createSigner({ keyDir: signingPaths(home).keyDir });
    const backdated = JSON.stringify(await signer.sign(createTaskBundleStatement(predicate)), null, 2);
    const log = await openLog(signingPaths(home).log, LOG_ORIGIN);
    const appended = await log.append({
      kind: 'task-bundle',
      subject: `task/${published.taskId}/bundle`,
      digest: signatureDigest(backdated),
      appendedAt: AFTER_RETIREMENT,
    });
    await signCheckpointAt(appended.index + 1, k2, AFTER_RETIREMENT);
    await withSignature(backdated, async () => {
      const message = await refusedWith('key-retired');
      expect(message).toContain(
        `log entry ${appended.index}) is first covered by the checkpoint of size ${appended.index + 1} signed at ${AFTER_RETIREMENT}`,
      );
    });
    // The log grew by that entry; the frozen signature still pulls, proved in the new checkpoint, and still counts as
    // logged before the retirement (its first covering checkpoint is the old one, which the new one extends).
    const result = await pull(join(root, 'pulled-after-late-entry'));
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      log: { index: 0, checkpointSize: appended.index + 1, keptSize: 1, loggedBeforeRetirement: { size: 1 } },
    });
  });

  it('refuses a log rewritten after the consumer kept a checkpoint of it: log-inconsistent', async () => {
    const keptDir = join(root, 'kept-before-rewrite');
    const first = await pull(join(root, `out-${randomUUID()}`), { checkpoints: keptDir });
    expect(first.code, first.stderr).toBe(0);
    const before = await keptIn(keptDir);
    const keptSize = (JSON.parse(first.stdout) as PulledTask).log.checkpointSize;
    expect(before?.map((signed) => signed.checkpoint.size)).toEqual([keptSize]);

    // The operator rebuilds the log with an entry slipped in front, and signs every checkpoint afresh with a trusted key
    // and early times: the rebuilt log agrees with itself, and still holds the bundle's signature.
    const rebuilt = join(root, `rebuilt-log-${randomUUID()}`);
    const original = await openLog(signingPaths(home).log, LOG_ORIGIN);
    const forged = await openLog(rebuilt, LOG_ORIGIN);
    await forged.append({
      kind: 'draw-record',
      subject: 'draw/slipped-in',
      digest: `sha256:${'0'.repeat(64)}`,
      appendedAt: FROZEN_AT.toISOString(),
    });
    for (const entry of original.entries())
      await forged.append({
        kind: entry.kind,
        subject: entry.subject,
        digest: entry.digest,
        appendedAt: entry.appendedAt,
      });
    await mkdir(join(rebuilt, 'checkpoints'), { recursive: true });
    for (let size = 1; size <= forged.size(); size += 1) {
      const signed = signCheckpoint(
        { origin: LOG_ORIGIN, size, rootHash: forged.rootHash(size), timestamp: FROZEN_AT.toISOString() },
        k1,
      );
      await writeFile(join(rebuilt, 'checkpoints', `${size}.json`), `${canonicalJson(signed)}\n`);
    }

    await withLog(rebuilt, async () => {
      const message = await refusedWith('log-inconsistent', { checkpoints: keptDir });
      expect(message).toContain(`does not extend the checkpoint of size ${keptSize}`);
      // Nothing new is kept from a log that failed.
      expect(await keptIn(keptDir)).toEqual(before);
      // A consumer who kept nothing is fooled: the rebuilt log proves the signature included. The kept checkpoint is what
      // catches the rewrite.
      const fresh = await pull(join(root, `out-${randomUUID()}`), { checkpoints: join(root, `kept-${randomUUID()}`) });
      expect(fresh.code, fresh.stderr).toBe(0);
      expect(JSON.parse(fresh.stdout)).toMatchObject({
        log: { index: 1, checkpointSize: keptSize + 1, keptSize: null },
      });
    });
  });

  it('refuses a forged checkpoint: log-proof-invalid', async () => {
    const latest = (await (await fetch(`${server.url}/v1/log/checkpoints/latest`)).json()) as SignedCheckpoint;
    const path = join(signingPaths(home).log, 'checkpoints', `${latest.checkpoint.size}.json`);
    const original = await readFile(path);
    const fresh = () => ({ checkpoints: join(root, `kept-${randomUUID()}`) });
    try {
      // Signed by a key the trust root does not list.
      const stranger = await createSigningKey(join(root, `checkpoint-stranger-${randomUUID()}`));
      await writeFile(path, `${canonicalJson(signCheckpoint(latest.checkpoint, stranger))}\n`);
      expect(await refusedWith('log-proof-invalid', fresh())).toContain('checkpoint-forged');
      // A head changed after it was signed.
      await writeFile(
        path,
        `${canonicalJson({ ...latest, checkpoint: { ...latest.checkpoint, rootHash: Buffer.alloc(32, 7).toString('base64') } })}\n`,
      );
      expect(await refusedWith('log-proof-invalid', fresh())).toContain('checkpoint-forged');
      // Signed by a trusted key, over a head that is not the log's: the inclusion proof does not reach it.
      await writeFile(
        path,
        `${canonicalJson(signCheckpoint({ ...latest.checkpoint, rootHash: Buffer.alloc(32, 7).toString('base64') }, k2))}\n`,
      );
      expect(await refusedWith('log-proof-invalid', fresh())).toContain('inclusion-failed');
    } finally {
      await writeFile(path, original);
    }
    // The genuine checkpoint pulls again.
    const again = await pull(join(root, `out-${randomUUID()}`), fresh());
    expect(again.code, again.stderr).toBe(0);
  });

  it('refuses tasks it cannot have, servers that are not there and malformed requests, writing nothing', async () => {
    expect(await refusedWith('not-found', { taskId: 'gh-nobody-nothing-1' })).toContain('no task gh-nobody-nothing-1');
    expect(await refusedWith('not-found', { taskId: trackingTaskId })).toContain('is tracking');
    const closed = await startServer({
      port: 0,
      host: '127.0.0.1',
      api: { home, tasks: createTaskSource(reads), ...ANSWER_EVERY_CHANGE },
      log: () => undefined,
    });
    await closed.close();
    expect(await refusedWith('unreachable', { from: closed.url })).toContain('did not answer');
    expect(await refusedWith('invalid-setting', { from: 'ftp://registry.example.org' })).toContain('http or https');
    expect(await refusedWith('invalid-setting', { taskId: '../etc' })).toContain('not a task id');
    expect(await refusedWith('trust-root-missing', { trustRoot: join(root, 'no-such-root.json') })).toContain(
      '--trust-root',
    );

    // An output folder that did not exist is not left behind by a refused pull.
    const absent = join(root, 'never-made', 'nested');
    const result = await pull(absent, { taskId: trackingTaskId });
    expect(result.code).toBe(1);
    await expect(stat(join(root, 'never-made'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
