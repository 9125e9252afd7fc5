// The publisher's side of a freeze (the `abp-main` queue, on the machine that holds the signing key, the bundle store
// and the transparency log): stage the golden trace attached to the task for the freeze worker, then take the built
// task back from the run store, store it, sign it, log it, and record the bundle, its signature and the task's base
// commit and bundle digest in one transaction. One writer per store and log, however many freeze workers build.
// Idempotent: the stores are content-addressed, a kept signature is kept, logging finds its entry, and rows that exist
// are left as they are.
import { ApplicationFailure } from '@temporalio/activity';
import { eq } from 'drizzle-orm';
import { BundleError } from '@abp/protocol/bundle/errors';
import type { EnvironmentStore } from '@abp/grader/environments';
import type { Database } from '../db/connection.js';
import { bundles, signatures, tasks } from '../db/schema/index.js';
import type { JsonObject } from '../db/json.js';
import { BundleStore } from '../freeze/bundle/store.js';
import { GoldenTraceStore } from '../freeze/golden-trace-store.js';
import { readGoldenTrace } from '../freeze/golden-trace.js';
import { takeOver } from '../freeze/handoff.js';
import { FreezeError, publishTask, type BuiltTask, type PublishedTask } from '../freeze/index.js';
import { diskFullAt, faultOfError } from '../freeze/machine-faults.js';
import type { Attestor } from '../signing/attestor.js';
import type { RunStore } from '../run-store/store.js';
import { FREEZE_HANDOFF_LOST } from '../workflows/shared.js';
import { permanent } from './arguments.js';
import type { BuildOutcome } from './freeze.js';
import { freezeStalls, refusesGoldenTrace } from './freeze-stalls.js';
import { heartbeating } from './heartbeat.js';

export interface PublishDependencies {
  db: Database;
  /** The content-addressed bundle store (signing/home.ts signingPaths(home).bundles). */
  bundleDir: string;
  /** The golden trace store (signingPaths(home).goldenTraces): traces attached to tasks (`abp task attach-trace`). */
  goldenTraceDir: string;
  /**
   * Signs each bundle's statement and logs it in the transparency log; null on a main worker without the operator's
   * key (`abp init`), where a freeze to publish stalls, noted on the task, until a worker with the key takes it.
   */
  attestor: Attestor | null;
  /** Where built tasks come from, and staged golden traces go to. */
  runStore: RunStore;
  /** The environment store `abp serve` serves images from: a task's environment is brought here before it is signed. */
  environments: EnvironmentStore;
  /** The data directory, where a failure is checked for a full disk. */
  dataDir: string;
}

/**
 * What the task workflow's history keeps of a freeze: the verdict and the digests, not the test lists; for a frozen task
 * also when it was sourced and the model cutoffs it was verified against (spec §4.4), as its manifest says.
 */
export type FreezeSummary =
  | {
      status: 'frozen';
      taskId: string;
      digest: string;
      heldOutDigest: string;
      failToPass: number;
      passToPass: number;
      flaky: number;
      sourcedAt: string;
      cutoffsVerified: string[];
      /** The golden trace signed with the bundle; null when none was attached. */
      goldenTraceDigest: string | null;
    }
  | { status: 'rejected'; taskId: string; reason: string; detail: string };

type Built = Extract<BuildOutcome, { status: 'built' }>;

/** What the freeze workflow gives the publisher: the build, and the golden trace it staged for it (by digest). */
export interface PublishRequest {
  built: Built;
  goldenTrace: string | null;
}

/** The key a stored signature names (its hint), not the signer's current key: a rotation may have come in between. */
function signingKeyOf(bundle: JsonObject): string | null {
  const material = bundle.verificationMaterial as { publicKey?: { hint?: unknown } } | undefined;
  return typeof material?.publicKey?.hint === 'string' ? material.publicKey.hint : null;
}

function frozenSummary(task: PublishedTask): Extract<FreezeSummary, { status: 'frozen' }> {
  const { source, cutoffsVerified } = task.manifest;
  // The freeze writes github-issue manifests only; a fixture source carries no sourcedAt to record.
  if (source.kind !== 'github-issue')
    throw ApplicationFailure.create({
      type: 'FreezeManifest',
      message: `${task.digest}: the manifest's source is ${source.kind}, not github-issue; freeze again`,
      nonRetryable: true,
    });
  return {
    status: 'frozen',
    taskId: task.taskId,
    digest: task.digest,
    heldOutDigest: task.heldOutDigest,
    failToPass: task.failToPass.length,
    passToPass: task.passToPass.length,
    flaky: task.flaky.length,
    sourcedAt: source.sourcedAt,
    cutoffsVerified,
    goldenTraceDigest: task.goldenTrace?.digest ?? null,
  };
}

export function createPublishActivities({
  db,
  bundleDir,
  goldenTraceDir,
  attestor,
  runStore,
  environments,
  dataDir,
}: PublishDependencies) {
  const store = new BundleStore(bundleDir);
  const goldenTraces = new GoldenTraceStore(goldenTraceDir);
  const stalled = freezeStalls(db);
  /** The key and log, or the reason this worker cannot publish. */
  const signing = (): Attestor => {
    if (attestor === null)
      throw new Error(
        `this main worker has no signing key, so it cannot publish a freeze: run \`abp init\` in its data directory (or give it the operator's key folder); another main worker with the key takes the freeze on a retry`,
      );
    return attestor;
  };

  /**
   * The built task `built` names, taken back from the run store. A hand-off that is gone, damaged (the store drops a
   * damaged entry as it finds it) or not a hand-off of this task cannot come right by waiting: FREEZE_HANDOFF_LOST has
   * the workflow stage and build again. So does a golden trace other than the one staged.
   */
  async function handedOver(built: Built, staged: string | null): Promise<BuiltTask> {
    const lost = (why: string, cause?: Error) =>
      ApplicationFailure.create({
        type: FREEZE_HANDOFF_LOST,
        message: `the hand-off ${built.handoff} of ${built.taskId} cannot be published (${why}); the task is built again`,
        nonRetryable: true,
        ...(cause === undefined ? {} : { cause }),
      });
    let task: BuiltTask;
    try {
      task = await takeOver(built.handoff, runStore, environments);
    } catch (error) {
      const handoffLost =
        (error instanceof BundleError && (error.code === 'not-found' || error.code === 'corrupt-store')) ||
        (error instanceof FreezeError && error.code === 'handoff-unreadable');
      if (!handoffLost) throw error;
      throw lost(`${error.message}; in the run store ${runStore.location}`, error);
    }
    // Checked before anything is stored or signed: a hand-off of another task, or with another trace than the one
    // staged for it, is never published under this task.
    if (task.taskId !== built.taskId) throw lost(`it is of task ${task.taskId}`);
    if ((task.goldenTrace?.digest ?? null) !== staged)
      throw lost(`it carries golden trace ${task.goldenTrace?.digest ?? 'none'}, but ${staged ?? 'none'} was staged`);
    return task;
  }

  /** The bundle, its signature and the task's base commit and bundle digest, in one transaction; existing rows kept. */
  async function record(published: PublishedTask, key: Attestor): Promise<void> {
    const signature = await store.getSignature(published.digest);
    if (signature === null)
      throw ApplicationFailure.create({
        type: 'FreezeStore',
        message: `${published.digest} was stored without its signature; freeze again`,
      });
    const size = (await store.get(published.digest)).length;
    const signed = JSON.parse(signature) as JsonObject;
    const frozen = frozenSummary(published);
    const { source } = published.manifest;
    await db.transaction(async (tx) => {
      await tx
        .insert(bundles)
        .values({
          digest: published.digest,
          taskId: published.taskId,
          mediaType: 'application/x-tar',
          sizeBytes: size,
          path: published.archivePath,
        })
        .onConflictDoNothing({ target: bundles.digest });
      await tx
        .insert(signatures)
        .values({
          bundleDigest: published.digest,
          signerKind: key.signer.kind,
          keyId: signingKeyOf(signed),
          sigstoreBundle: signed,
        })
        .onConflictDoNothing();
      await tx
        .update(tasks)
        .set({
          baseCommit: source.kind === 'github-issue' ? source.baseCommit : null,
          bundleDigest: published.digest,
          sourcedAt: new Date(frozen.sourcedAt),
          cutoffsVerified: frozen.cutoffsVerified,
        })
        .where(eq(tasks.id, published.taskId));
    });
  }

  return {
    /**
     * The golden trace attached to the task (`abp task attach-trace`), checked and put in the run store for the freeze
     * worker; null when none is attached. Read as the freeze starts: a trace attached later waits for the next freeze.
     */
    async stageGoldenTrace(taskId: string): Promise<string | null> {
      try {
        return await heartbeating(async () => {
          const attached = await goldenTraces.attached(taskId);
          if (attached === null) return null;
          // The attached trace is the one stored under its digest, or the freeze stalls (corrupt-store, not-found): a
          // file changed since it was attached is never signed under another digest.
          const bytes = await goldenTraces.get(attached);
          await readGoldenTrace(goldenTraces.path(attached), taskId);
          return runStore.put(bytes);
        });
      } catch (error) {
        if (refusesGoldenTrace(error)) throw await stalled(taskId, null, error);
        throw await stalled(taskId, faultOfError(error) ?? (await diskFullAt(dataDir)), error);
      }
    },

    /** Publishes a task a freeze worker built: stored, signed, logged and recorded; returns what the history keeps. */
    async publishFrozenTask({ built, goldenTrace }: PublishRequest): Promise<FreezeSummary> {
      try {
        const key = signing();
        const published = await heartbeating(async () =>
          publishTask(await handedOver(built, goldenTrace), { store, goldenTraces, signer: key.signer, log: key }),
        );
        await record(published, key);
        return frozenSummary(published);
      } catch (error) {
        if (error instanceof ApplicationFailure) throw error;
        if (error instanceof FreezeError) throw permanent(error);
        throw await stalled(built.taskId, faultOfError(error) ?? (await diskFullAt(dataDir)), error);
      }
    },
  };
}
