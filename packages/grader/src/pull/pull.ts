// `abp pull`: fetch one frozen task from a registry's `abp serve` and unpack it only once every check holds. The
// consumer trusts its pinned trust root and nothing the server says: newer trust root versions are taken only when the
// version before vouches for them, the download must hash to the advertised digest, the signed statement must name
// these bytes and this task, its key must have been valid when it signed, and the registry's transparency log must hold
// the signature and extend what the consumer saw of it before (distribution/log-proof.ts), and a golden trace the
// statement signs must hash to its signed digest. All of it happens in one staging folder beside the destination, renamed
// into place at the end; any failure removes everything the pull wrote.
// `abp unpack` (pull/unpack.ts) runs the same checks and the same staging on a bundle read from a file.
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { isAlive } from '../execution/liveness.js';
import { mkdir, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { BundleError } from '@abp/protocol/bundle/errors';
import { provenanceOf, writeTaskProvenance } from './provenance.js';
import { readBundleSubjects, unpackBundle, type UnpackedBundle } from '../bundle/unpack.js';
import type { TrustRoot } from '@abp/protocol/schemas/abp-trust-root';
import { conforms, documentId } from '@abp/protocol/schemas/primitives';
import { SigningError, type SigningErrorCode } from '@abp/protocol/signing/errors';
import { TASK_BUNDLE_PREDICATE, taskBundleSubjectNames } from '@abp/protocol/signing/statement';
import { goldenTracePath, type AbpTask } from '@abp/protocol/schemas/abp-task';
import { traceLimits } from '../traces/trace-limits.js';
import { advanceTrustRoot } from '../trust/trust-root-chain.js';
import { loadTrustRoot } from '@abp/protocol/signing/trust-root';
import { verifyStatementBundle, type VerifiedSigner, type VerifiedStatement } from '../trust/verify.js';
import { syncFolder } from '@abp/protocol/files/durable-files';
import { createRegistryClient, type DownloadLimits, type FetchedSignature, type RegistryClient } from './client.js';
import {
  checkEnvironmentFits,
  EnvironmentError,
  EnvironmentStore,
  filesAtCommit,
  type ImageManifest,
} from '../environments/index.js';
import { homePaths, resolveHome } from '../home.js';
import { PullError, type PullErrorCode } from './errors.js';
import { keepCheckpoints, keptCheckpointsFile, readKeptCheckpoints } from './kept-checkpoints.js';
import { proveBundleLogged, type LoggedBundle } from './log-proof.js';

export interface PullOptions {
  taskId: string;
  /** The registry's abp serve base URL. */
  from: string;
  /** The consumer's pinned abp-trust-root/v1 document. */
  trustRootPath: string;
  /** The task lands in `<outputDir>/<task id>/`. */
  outputDir: string;
  /**
   * Where the consumer keeps the log checkpoints it has seen, one file per registry (distribution/kept-checkpoints.ts):
   * the log must extend the newest one kept, and the new one is kept after. Without it, each pull trusts the log it
   * meets on first sight (inclusion is still proved).
   */
  checkpointsDir?: string;
  /**
   * The environment store a task's environment is fetched into (default: $ABP_HOME/environments, where `abp run` reads
   * it); blobs it already holds, shared by other tasks, are not transferred again.
   */
  environments?: string;
  /** How large and how slow one download may be (DEFAULT_DOWNLOAD_LIMITS by default). */
  limits?: DownloadLimits;
}

/** What the pull proved about the signature's place in the registry's transparency log. */
export interface PulledLogProof {
  /** The log's name, as its checkpoints sign it. */
  origin: string;
  /** The index of the signature's entry. */
  index: number;
  /** The size of the newest checkpoint, which the entry was proved included in. */
  checkpointSize: number;
  /** Its root hash (base64). */
  rootHash: string;
  /** The newest checkpoint kept from this registry before, proved a prefix of the new one; null when none was kept. */
  keptSize: number | null;
  /** For a retired signing key: the first checkpoint covering the entry, signed no later than the retirement. */
  loggedBeforeRetirement: { size: number; timestamp: string } | null;
  /** The file the new checkpoint is kept in; null without a checkpoints folder. */
  keptIn: string | null;
}

export interface PulledTask {
  taskId: string;
  state: 'scored' | 'practice';
  from: string;
  digest: string;
  heldOutDigest: string;
  /** What the agent sees: task.json, issue.md, repo/. */
  taskDir: string;
  /** The held-out verification part; never given to the agent. */
  heldOutDir: string;
  /** Who signed: a trust root key, or a keyless identity. */
  signer: VerifiedSigner;
  /** The signing key's id (null for a keyless signature). */
  keyId: string | null;
  /** The signing time the signer's window was checked against. */
  signedAt: string;
  trustRoot: { pinnedVersion: number; version: number };
  /** The task's environment, fetched and verified; null for a task graded on the host's toolchains. */
  environment: PulledEnvironment | null;
  /** The golden trace the signed statement names, saved beside task/ and held-out/; null when it names none. */
  goldenTrace: PulledGoldenTrace | null;
  log: PulledLogProof;
}

export interface PulledGoldenTrace {
  /** `<dir>/<task id>/traces/<task id>.abp-trace.jsonl`: the manifest's golden.trace, in the task's folder. */
  path: string;
  /** `sha256:<hex>`, as signed. */
  digest: string;
  bytes: number;
}

export interface PulledEnvironment {
  digest: string;
  store: string;
  /** Blobs transferred now, and blobs the store already held (layers shared with tasks pulled before). */
  fetched: number;
  reused: number;
  bytesFetched: number;
}

/**
 * Fetches the environment a verified task names into the store: the image manifest under the signed digest, then its
 * config and layers, each streamed to a file, hashed and compared with the digest that names it before it is kept.
 */
async function pullEnvironment(
  /** Where missing blobs are fetched from; null: every blob must be in the store already (`abp unpack`). */
  client: RegistryClient | null,
  image: string,
  store: EnvironmentStore,
  taskId: string,
  /** Files of the task's repository at its base commit, which the image's recorded dependency files must match. */
  repoFiles: ((path: string) => Promise<Buffer | null>) | null,
): Promise<PulledEnvironment | null> {
  const at = image.lastIndexOf('@sha256:');
  if (at === -1) return null;
  const digest = image.slice(at + 1);
  const counts = { fetched: 0, reused: 0, bytesFetched: 0 };
  const fetchBlob = async (blob: string, what: string): Promise<void> => {
    if (await store.has(blob)) {
      counts.reused += 1;
      return;
    }
    if (client === null)
      throw new PullError(
        'environment-missing',
        `task ${taskId} names environment ${digest}, but its ${what} ${blob} is not in ${store.root}: unpack with --from <the registry's abp serve> to fetch it, or import the environment there (abp env import)`,
      );
    const file = await store.scratch('pull');
    try {
      const got = await client.downloadEnvironmentBlob(blob, file).catch((error: unknown) => {
        if (error instanceof PullError && error.code === 'not-found')
          throw new PullError(
            'environment-missing',
            `task ${taskId} names environment ${digest}, but ${error.message}`,
          );
        throw error;
      });
      if (`sha256:${got.sha256}` !== blob)
        throw new PullError(
          'environment-tampered',
          `the ${what} ${blob} of task ${taskId}'s environment ${digest} arrived as ${got.bytes} bytes hashing to sha256:${got.sha256}: it was changed or damaged on the server`,
        );
      await store.adoptFile(file, { digest: blob, size: got.bytes });
      counts.fetched += 1;
      counts.bytesFetched += got.bytes;
    } finally {
      await rm(file, { force: true });
    }
  };
  await fetchBlob(digest, 'image manifest');
  const manifest = JSON.parse((await store.readBlob(digest)).toString('utf8')) as ImageManifest;
  await fetchBlob(manifest.config.digest, 'image config');
  for (const layer of manifest.layers) await fetchBlob(layer.digest, 'layer');
  // Blobs held from before are checked too: a store damaged since must not pass for this environment.
  const verified = await store.verify(digest).catch((error: unknown) => {
    if (error instanceof EnvironmentError)
      throw new PullError('environment-tampered', `task ${taskId}'s environment in ${store.root}: ${error.message}`);
    throw error;
  });
  if (repoFiles !== null)
    await checkEnvironmentFits({ taskId, digest, config: verified.config }, repoFiles).catch((error: unknown) => {
      if (error instanceof EnvironmentError && error.code === 'environment-mismatch')
        throw new PullError('environment-mismatch', error.message);
      throw error;
    });
  return { digest, store: store.root, ...counts };
}

/** The folder names inside `<outputDir>/<task id>/`. */
export const PULLED_TASK_DIR = 'task';
export const PULLED_HELD_OUT_DIR = 'held-out';

/** A bundle archive and its signature, as `abp pull` fetched them or `abp unpack` found them. */
export interface BundleToUnpack<Logged> {
  taskId: string;
  /** The archive's path or bytes; unpacked only once the checks hold, and hashed again as it is unpacked. */
  archive: string | Buffer;
  /** sha256 (hex) of the archive's bytes, taken before anything parsed them. */
  archiveHex: string;
  signature: FetchedSignature;
  /** The trust root the signer must be trusted by (pinned, or walked forward from the pinned one). */
  trustRoot: TrustRoot;
  /** Proves the signature logged in the registry's transparency log; runs after the signature verified. */
  proveLogged: (verified: VerifiedStatement) => Promise<Logged>;
  /** A new folder the task is unpacked into: task/ (with provenance.json) and held-out/. */
  staging: string;
  /** The `abp serve` it came from, linked in provenance.json; null for a bundle taken from a file. */
  serveUrl: string | null;
}

/**
 * The checks `abp pull` and `abp unpack` share, in order: the signature must vouch for these bytes as this task's bundle
 * (keyed or keyless, by the trust root), the log must hold it (as the caller proves), the signed held-out digest must be
 * the archive's, and the manifest must be this task's. Only then is the archive unpacked, with provenance.json beside
 * task.json, into the staging folder.
 */
export async function verifyAndUnpack<Logged extends LoggedBundle | null>(
  bundle: BundleToUnpack<Logged>,
): Promise<{ verified: VerifiedStatement; logged: Logged; unpacked: UnpackedBundle }> {
  const { taskId, archive, staging } = bundle;
  const digest = `sha256:${bundle.archiveHex}`;
  const verified = await verifySignature(bundle.signature.value, bundle.trustRoot, taskId, bundle.archiveHex);
  const logged = await bundle.proveLogged(verified);
  const subjects = await readBundleSubjects(archive).catch((error: unknown) => rethrowBundle(error, taskId));
  const signedHeldOut = verified.statement.subject.find(
    (subject) => subject.name === taskBundleSubjectNames(taskId).heldOut,
  )?.digest.sha256;
  if (signedHeldOut !== subjects.heldOut) {
    throw new PullError(
      'tampered-bundle',
      `the held-out part of ${digest} hashes to sha256:${subjects.heldOut}, but the signed statement names ${signedHeldOut === undefined ? 'no held-out part' : `sha256:${signedHeldOut}`}`,
    );
  }

  // unpackBundle hashes the bytes again: the bytes unpacked are the bytes verified, whatever touched the file since.
  const unpacked = await unpackBundle(archive, {
    taskDir: join(staging, PULLED_TASK_DIR),
    heldOutDir: join(staging, PULLED_HELD_OUT_DIR),
    expectedDigest: digest,
  }).catch((error: unknown) => rethrowBundle(error, taskId));
  if (unpacked.manifest.id !== taskId)
    throw new PullError(
      'tampered-bundle',
      `the signed bundle ${digest} holds task ${unpacked.manifest.id}, not ${taskId}`,
    );
  // Beside task.json, so the grader's report links each task to the bundle and statement it was verified from.
  const proved: LoggedBundle | null = logged;
  await writeTaskProvenance(
    join(staging, PULLED_TASK_DIR),
    provenanceOf({
      taskId,
      bundleDigest: digest,
      heldOutDigest: unpacked.heldOutDigest,
      verified,
      trustRootVersion: bundle.trustRoot.version,
      serveUrl: bundle.serveUrl,
      ...(proved === null
        ? {}
        : {
            log: {
              origin: proved.checkpoint.checkpoint.origin,
              index: proved.entry.index,
              checkpointSize: proved.checkpoint.checkpoint.size,
              rootHash: proved.checkpoint.checkpoint.rootHash,
            },
          }),
    }),
  );
  return { verified, logged, unpacked };
}

export async function pullTask(
  options: PullOptions,
  client: RegistryClient = createRegistryClient(options.from, options.limits),
): Promise<PulledTask> {
  const { taskId } = options;
  if (!conforms(documentId, taskId))
    throw new PullError(
      'invalid-setting',
      `${JSON.stringify(taskId)} is not a task id: e.g. gh-<owner>-<name>-<issue>, as \`abp task list\` or GET /v1/tasks shows`,
    );
  const pinned = await loadPinnedTrustRoot(options.trustRootPath);
  const outputDir = resolve(options.outputDir);
  await ensureAbsent(join(outputDir, taskId));
  const keptIn =
    options.checkpointsDir === undefined ? null : keptCheckpointsFile(resolve(options.checkpointsDir), options.from);
  const kept = keptIn === null ? [] : await readKeptCheckpoints(keptIn);

  const task = await client.task(taskId);
  const trustRoot = await walkTrustRoot(pinned, client);

  return intoTaskFolder({ outputDir, taskId, purpose: 'pull' }, async (staging, destination) => {
    const archive = join(staging, 'bundle.tar');
    const downloaded = await client.downloadBundle(task.bundleDigest, archive);
    const digest = `sha256:${downloaded.sha256}`;
    if (digest !== task.bundleDigest) {
      throw new PullError(
        'digest-mismatch',
        `${options.from} advertises task ${taskId} as ${task.bundleDigest}, but the ${downloaded.bytes} bytes it sent hash to ${digest}: the bundle was changed or damaged on the server`,
      );
    }

    const signature = await client.bundleSignature(digest);
    const { verified, logged, unpacked } = await verifyAndUnpack({
      taskId,
      archive,
      archiveHex: downloaded.sha256,
      signature,
      trustRoot,
      staging,
      serveUrl: options.from,
      proveLogged: (signed) =>
        proveBundleLogged({
          client,
          trustRoot,
          taskId,
          signatureSha256: signature.sha256,
          keyId: signed.keyId,
          kept,
        }),
    });
    await rm(archive);
    const goldenTrace = await pullGoldenTrace(client, verified, unpacked.manifest, staging);
    const environment = await taskEnvironment(client, unpacked, staging, options.environments);
    // Kept before the rename: a checkpoint that verified is what this consumer knows of the log, even if the rename
    // then loses a race for the destination.
    if (keptIn !== null) await keepCheckpoints(keptIn, [logged.checkpoint]);
    return {
      taskId,
      state: task.state,
      from: options.from,
      digest,
      heldOutDigest: unpacked.heldOutDigest,
      taskDir: join(destination, PULLED_TASK_DIR),
      heldOutDir: join(destination, PULLED_HELD_OUT_DIR),
      signer: verified.signer,
      keyId: verified.keyId,
      signedAt: verified.signedAt,
      trustRoot: { pinnedVersion: pinned.version, version: trustRoot.version },
      environment,
      goldenTrace: goldenTrace === null ? null : { ...goldenTrace, path: join(destination, goldenTrace.path) },
      log: logProofOf(logged, keptIn),
    };
  });
}

/**
 * The golden trace the verified statement signs (spec §4.2), fetched from where the manifest's golden.trace points under
 * the API root and saved at that path in the staging folder: beside task/ and held-out/, never in task/, since the agent
 * must not see how the fix was found. Its bytes must hash to the signed digest. Its path is returned relative to the
 * staging folder. Null when the statement signs none (a task frozen before traces were kept may name one in its
 * manifest without signing it: there is none to fetch).
 */
export async function pullGoldenTrace(
  client: RegistryClient,
  verified: VerifiedStatement,
  manifest: AbpTask,
  staging: string,
): Promise<PulledGoldenTrace | null> {
  const taskId = manifest.id;
  const signed = verified.statement.subject.find(
    (subject) => subject.name === taskBundleSubjectNames(taskId).goldenTrace,
  )?.digest.sha256;
  if (signed === undefined) return null;
  const named = manifest.golden?.trace;
  const expected = goldenTracePath(taskId);
  if (named !== expected)
    throw new PullError(
      'invalid-bundle',
      `the signed statement of task ${taskId} names a golden trace, but its manifest ${named === undefined ? 'names none' : `names it ${JSON.stringify(named)}`}: a task's golden trace is ${expected}`,
    );
  const path = join(staging, named);
  await mkdir(dirname(path));
  // The most a freeze publishes (the grader's trace receipt bound): a server sending more is not sending a trace.
  const got = await client.downloadGoldenTrace(named, path, traceLimits.maxReceiptBytes);
  if (got.sha256 !== signed)
    throw new PullError(
      'digest-mismatch',
      `the golden trace ${named} of task ${taskId} arrived as ${got.bytes} bytes hashing to sha256:${got.sha256}, but its signed statement names sha256:${signed}: it was changed or damaged on the server`,
    );
  return { path: named, digest: `sha256:${signed}`, bytes: got.bytes };
}

/** What a pull or an unpack reports of the log proof. */
export function logProofOf(logged: LoggedBundle, keptIn: string | null): PulledLogProof {
  const { checkpoint } = logged.checkpoint;
  return {
    origin: checkpoint.origin,
    index: logged.entry.index,
    checkpointSize: checkpoint.size,
    rootHash: checkpoint.rootHash,
    keptSize: logged.keptSize,
    loggedBeforeRetirement: logged.loggedBeforeRetirement,
    keptIn,
  };
}

/**
 * The environment an unpacked task names, verified in the store `abp run` reads (default $ABP_HOME/environments): blobs
 * it lacks are fetched from `client`, and without one they must be there already. Null for a task graded on the host.
 */
export async function taskEnvironment(
  client: RegistryClient | null,
  unpacked: UnpackedBundle,
  staging: string,
  environments: string | undefined,
): Promise<PulledEnvironment | null> {
  const { manifest } = unpacked;
  return pullEnvironment(
    client,
    manifest.environment.image,
    new EnvironmentStore(resolve(environments ?? homePaths(resolveHome()).environments)),
    manifest.id,
    manifest.source.kind === 'github-issue'
      ? filesAtCommit(join(staging, PULLED_TASK_DIR, 'repo'), manifest.source.baseCommit)
      : null,
  );
}

/**
 * Makes `<outputDir>/<taskId>/` whole or not at all: `fill` writes the task into a staging folder beside it, which is
 * renamed into place once `fill` returns; if anything fails, the staging folder and the folders made for it are removed.
 */
export async function intoTaskFolder<T>(
  target: { outputDir: string; taskId: string; purpose: 'pull' | 'unpack' },
  fill: (staging: string, destination: string) => Promise<T>,
): Promise<T> {
  const { outputDir, taskId } = target;
  const destination = join(outputDir, taskId);
  await ensureAbsent(destination);
  const created = await mkdir(outputDir, { recursive: true });
  await removeStaleStaging(outputDir, taskId);
  // The pid in the name tells a later pull whether the process that staged it is still at work.
  const staging = join(outputDir, `.${taskId}.${target.purpose}-${process.pid}-${randomUUID()}`);
  const unregister = removedOnSignal(staging);
  try {
    await mkdir(staging);
    const value = await fill(staging, destination);
    await publish(staging, destination);
    return value;
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    if (created !== undefined) await removeEmptyFolders(outputDir, created);
    throw error;
  } finally {
    unregister();
  }
}

/** Staging folders of `taskId` left by a process that no longer runs (killed mid-pull): removed before a new pull. */
async function removeStaleStaging(outputDir: string, taskId: string): Promise<void> {
  const names = await readdir(outputDir).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(`.${taskId}.`)) continue;
    const pid = /^\.(?:pull|unpack)-(\d+)-[0-9a-f-]{36}$/.exec(name.slice(taskId.length + 1))?.[1];
    if (pid !== undefined && !isAlive(Number(pid))) await rm(join(outputDir, name), { recursive: true, force: true });
  }
}

// The staging folders of pulls in progress in this process: SIGINT or SIGTERM removes them before the process ends, as
// docs/api.md promises that nothing half-written is left behind.
const staged = new Set<string>();
const onSignal = (signal: NodeJS.Signals) => {
  for (const folder of staged) rmSync(folder, { recursive: true, force: true });
  process.exit(signal === 'SIGINT' ? 130 : 143);
};

function removedOnSignal(folder: string): () => void {
  if (staged.size === 0) {
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }
  staged.add(folder);
  return () => {
    staged.delete(folder);
    if (staged.size === 0) {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
    }
  };
}

/**
 * The newest trust root version the registry offers that the pinned one reaches, each version vouched for by the one
 * before (`trust-root-unverified` otherwise). The server's current trust root is never taken as it is.
 */
export async function walkTrustRoot(pinned: TrustRoot, client: RegistryClient): Promise<TrustRoot> {
  return advanceTrustRoot(pinned, (version) => client.trustRootVersion(version)).catch((error: unknown) => {
    if (error instanceof SigningError) {
      throw new PullError(
        'trust-root-unverified',
        `${client.baseUrl} offers a trust root newer than the pinned version ${pinned.version} that does not verify: ${error.message}`,
        { cause: error },
      );
    }
    throw error;
  });
}

export async function loadPinnedTrustRoot(path: string): Promise<TrustRoot> {
  try {
    return await loadTrustRoot(path);
  } catch (error) {
    if (error instanceof SigningError && (error.code === 'trust-root-missing' || error.code === 'trust-root-invalid')) {
      throw new PullError(error.code, `${error.message}; pin the registry's trust root with --trust-root <file>`, {
        cause: error,
      });
    }
    throw error;
  }
}

async function ensureAbsent(path: string): Promise<void> {
  const found = await stat(path).then(
    () => true,
    () => false,
  );
  if (found)
    throw new PullError(
      'destination-exists',
      `${path} already exists: remove it, or write the task into another folder with -o`,
    );
}

/** What each refusal of signature verification means for a pull; any other is `signature-rejected`, naming its code. */
const SIGNATURE_REFUSALS: Partial<Record<SigningErrorCode, PullErrorCode>> = {
  // The signature does not vouch for these bytes as this task's bundle.
  'signature-invalid': 'tampered-bundle',
  'digest-mismatch': 'tampered-bundle',
  'predicate-type-mismatch': 'tampered-bundle',
  'key-retired': 'key-retired',
  'key-expired': 'key-expired',
  // A signer the pinned trust root (or a version it vouched for) does not trust: a key it does not list, or a keyless
  // identity or certificate chain it does not name.
  'unknown-key': 'unknown-signer',
  'identity-mismatch': 'unknown-signer',
  'certificate-untrusted': 'unknown-signer',
  'malformed-bundle': 'malformed-signature',
  'malformed-statement': 'malformed-signature',
};

/** Verifies the signature over the archive (sha256 `archiveHex`) as task `taskId`'s bundle, mapping refusals to codes. */
async function verifySignature(
  signature: unknown,
  trustRoot: TrustRoot,
  taskId: string,
  archiveHex: string,
): Promise<VerifiedStatement> {
  try {
    return await verifyStatementBundle(signature, trustRoot, {
      subjects: [{ name: taskBundleSubjectNames(taskId).bundle, sha256: archiveHex }],
      predicateType: TASK_BUNDLE_PREDICATE,
    });
  } catch (error) {
    if (!(error instanceof SigningError)) throw error;
    const code = SIGNATURE_REFUSALS[error.code] ?? 'signature-rejected';
    throw new PullError(
      code,
      `the signature of task ${taskId}'s bundle sha256:${archiveHex} is refused (${error.code}): ${error.message}`,
      { cause: error },
    );
  }
}

function rethrowBundle(error: unknown, taskId: string): never {
  if (!(error instanceof BundleError)) throw error;
  if (error.code === 'digest-mismatch')
    throw new PullError(
      'digest-mismatch',
      `the verified bundle of ${taskId} changed on disk before it was unpacked: ${error.message}`,
      { cause: error },
    );
  throw new PullError(
    'invalid-bundle',
    `the signed bundle of ${taskId} cannot be unpacked (${error.code}): ${error.message}`,
    { cause: error },
  );
}

/** Renames the staged task folder into place and makes the rename durable. */
async function publish(staging: string, destination: string): Promise<void> {
  await ensureAbsent(destination);
  await rename(staging, destination).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOTEMPTY' || error.code === 'EEXIST')
      throw new PullError(
        'destination-exists',
        `${destination} appeared while the task was written: remove it, or write the task into another folder with -o`,
        { cause: error },
      );
    throw error;
  });
  await syncFolder(dirname(destination));
}

/** Removes the folders `mkdir -p` made for the output, deepest first, each only while empty. */
async function removeEmptyFolders(deepest: string, firstCreated: string): Promise<void> {
  for (let dir = deepest; dir.length >= firstCreated.length; dir = dirname(dir)) {
    const removed = await rmdir(dir).then(
      () => true,
      () => false,
    );
    if (!removed || dir === firstCreated) return;
  }
}
