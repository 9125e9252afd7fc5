// `abp unpack`: a task bundle read from a file (an operator's store, a mirror, a copy handed over) made into the task
// folder `abp run` reads, `<outputDir>/<task id>/task` and `held-out`, exactly as `abp pull` makes it and only once the
// same checks hold (pull.ts verifyAndUnpack): the signature must vouch for these bytes as the task's bundle against the
// pinned trust root, with the same refusal codes. Given the registry's `abp serve` (`from`), the trust root is walked
// forward, the signature proved logged and consistent with the checkpoints kept before, and a missing environment and
// the signed golden trace fetched, as a pull does; without it the log is not consulted (as `abp verify`), the
// environment must be in the store, and no golden trace is fetched (the bundle file does not hold it).
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { conforms, documentId } from '@abp/protocol/schemas/primitives';
import { createRegistryClient, type FetchedSignature } from './client.js';
import { PullError } from './errors.js';
import { keepCheckpoints, keptCheckpointsFile, readKeptCheckpoints } from './kept-checkpoints.js';
import { proveBundleLogged } from './log-proof.js';
import {
  intoTaskFolder,
  loadPinnedTrustRoot,
  logProofOf,
  PULLED_HELD_OUT_DIR,
  PULLED_TASK_DIR,
  pullGoldenTrace,
  taskEnvironment,
  verifyAndUnpack,
  walkTrustRoot,
  type PulledLogProof,
  type PulledTask,
} from './pull.js';

export interface UnpackOptions {
  /** The bundle archive (`<sha256>.tar`). */
  archive: string;
  /** Its Sigstore bundle; default `<archive without .tar>.sigstore.json`, where the bundle store keeps it. */
  signature?: string;
  /** The consumer's pinned abp-trust-root/v1 document. */
  trustRootPath: string;
  /** The task lands in `<outputDir>/<task id>/`. */
  outputDir: string;
  /** The registry's `abp serve`: prove the signature logged there, as `abp pull` does. */
  from?: string;
  /** With `from`: where the log checkpoints seen of each registry are kept (pull.ts PullOptions). */
  checkpointsDir?: string;
  /** The environment store the task's environment must be in (or is fetched into, with `from`). */
  environments?: string;
}

export interface UnpackedTask extends Omit<PulledTask, 'state' | 'from' | 'log'> {
  archive: string;
  from: string | null;
  /** The log proof, as `abp pull` reports it; null when no registry was given to prove it against. */
  log: PulledLogProof | null;
}

/** The signature's bytes as read (their digest is what a registry's log records) and parsed. */
async function readSignature(path: string): Promise<FetchedSignature> {
  const bytes = await readFile(path).catch((error: NodeJS.ErrnoException) => {
    throw new PullError(
      'unsigned',
      `${path}: cannot read the bundle's signature (${error.code ?? error.message}): an unsigned bundle is never unpacked; pass its Sigstore bundle with --signature`,
    );
  });
  try {
    return { sha256: createHash('sha256').update(bytes).digest('hex'), value: JSON.parse(bytes.toString('utf8')) };
  } catch (error) {
    throw new PullError('malformed-signature', `${path} is not JSON: ${(error as Error).message}`);
  }
}

/**
 * The task id the statement names, read before it is verified only to know which subject to verify: verification then
 * requires the signature to vouch for these bytes under exactly that task's name.
 */
function claimedTaskId(signature: unknown, path: string): string {
  const payload = (signature as { dsseEnvelope?: { payload?: unknown } } | null)?.dsseEnvelope?.payload;
  let taskId: unknown;
  try {
    if (typeof payload === 'string')
      taskId = (JSON.parse(Buffer.from(payload, 'base64').toString('utf8')) as { predicate?: { taskId?: unknown } })
        .predicate?.taskId;
  } catch {
    taskId = undefined;
  }
  if (typeof taskId !== 'string' || !conforms(documentId, taskId))
    throw new PullError(
      'malformed-signature',
      `${path} holds no task-bundle statement naming a task: it is not the signature of a task bundle`,
    );
  return taskId;
}

export async function unpackTask(options: UnpackOptions): Promise<UnpackedTask> {
  const archivePath = resolve(options.archive);
  // The whole archive is read once: its digest is taken over these bytes, and these bytes are what is unpacked.
  const bytes = await readFile(archivePath).catch((error: NodeJS.ErrnoException) => {
    throw new PullError(
      'invalid-setting',
      `${options.archive}: cannot read the bundle (${error.code ?? error.message}); give a task bundle archive, e.g. $ABP_HOME/bundles/<sha256>.tar`,
    );
  });
  const archiveHex = createHash('sha256').update(bytes).digest('hex');
  const signaturePath = resolve(options.signature ?? `${archivePath.replace(/\.tar$/, '')}.sigstore.json`);
  const signature = await readSignature(signaturePath);
  const taskId = claimedTaskId(signature.value, signaturePath);

  const pinned = await loadPinnedTrustRoot(options.trustRootPath);
  const client = options.from === undefined ? null : createRegistryClient(options.from);
  const trustRoot = client === null ? pinned : await walkTrustRoot(pinned, client);
  const keptIn =
    client === null || options.checkpointsDir === undefined
      ? null
      : keptCheckpointsFile(resolve(options.checkpointsDir), client.baseUrl);
  const kept = keptIn === null ? [] : await readKeptCheckpoints(keptIn);

  const outputDir = resolve(options.outputDir);
  return intoTaskFolder({ outputDir, taskId, purpose: 'unpack' }, async (staging, destination) => {
    const { verified, logged, unpacked } = await verifyAndUnpack({
      taskId,
      archive: bytes,
      archiveHex,
      signature,
      trustRoot,
      staging,
      serveUrl: options.from ?? null,
      proveLogged: (signed) =>
        client === null
          ? Promise.resolve(null)
          : proveBundleLogged({
              client,
              trustRoot,
              taskId,
              signatureSha256: signature.sha256,
              keyId: signed.keyId,
              kept,
            }),
    });
    const goldenTrace = client === null ? null : await pullGoldenTrace(client, verified, unpacked.manifest, staging);
    const environment = await taskEnvironment(client, unpacked, staging, options.environments);
    if (keptIn !== null && logged !== null) await keepCheckpoints(keptIn, [logged.checkpoint]);
    return {
      taskId,
      archive: archivePath,
      from: options.from ?? null,
      digest: `sha256:${archiveHex}`,
      heldOutDigest: unpacked.heldOutDigest,
      taskDir: join(destination, PULLED_TASK_DIR),
      heldOutDir: join(destination, PULLED_HELD_OUT_DIR),
      signer: verified.signer,
      keyId: verified.keyId,
      signedAt: verified.signedAt,
      trustRoot: { pinnedVersion: pinned.version, version: trustRoot.version },
      environment,
      goldenTrace: goldenTrace === null ? null : { ...goldenTrace, path: join(destination, goldenTrace.path) },
      log: logged === null ? null : logProofOf(logged, keptIn),
    };
  });
}
