// The freeze as an activity: freeze the merged fix, publish the signed bundle to the store, then record the bundle, its
// signature and the task's base commit and bundle digest in one transaction. Idempotent: a freeze published for the
// same inputs is returned from its record, and rows that exist are left as they are.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { eq } from 'drizzle-orm';
import type { Database } from '../db/connection.js';
import { bundles, signatures, tasks } from '../db/schema/index.js';
import type { JsonObject } from '../db/json.js';
import { BundleStore } from '../freeze/bundle/index.js';
import { FreezeError, freezeInputOf, freezeTask, parseFreezeInput, type TaskFreezeInput, type TaskFreezeOutcome } from '../freeze/index.js';
import type { Signer } from '../signing/signer.js';
import { permanent } from './arguments.js';

export interface FreezeDependencies {
  db: Database;
  /** The content-addressed bundle store (signing/home.ts signingPaths(home).bundles). */
  bundleDir: string;
  signer: Signer;
  /** Where checkouts and toolchain caches go; kept between freezes (Go's build cache). */
  workDir: string;
}

const HEARTBEAT_EVERY_MS = 5_000;

export function createFreezeActivities({ db, bundleDir, signer, workDir }: FreezeDependencies) {
  const store = new BundleStore(bundleDir);
  return {
    async freezeMergedFix(input: TaskFreezeInput): Promise<TaskFreezeOutcome> {
      try {
        parseFreezeInput(freezeInputOf(input));
      } catch (error) {
        if (error instanceof FreezeError) throw permanent(error);
        throw error;
      }
      const context = Context.current();
      const timer = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
      let outcome: TaskFreezeOutcome;
      try {
        outcome = await freezeTask(input, { workDir, store, signer });
      } catch (error) {
        if (error instanceof FreezeError) throw permanent(error);
        throw error;
      } finally {
        clearInterval(timer);
      }
      if (outcome.status === 'rejected') return outcome;
      const signature = await store.getSignature(outcome.digest);
      if (signature === null) throw ApplicationFailure.create({ type: 'FreezeStore', message: `${outcome.digest} was stored without its signature; freeze again` });
      const size = (await store.get(outcome.digest)).length;
      await db.transaction(async (tx) => {
        await tx
          .insert(bundles)
          .values({ digest: outcome.digest, taskId: outcome.taskId, mediaType: 'application/x-tar', sizeBytes: size, path: outcome.archivePath })
          .onConflictDoNothing({ target: bundles.digest });
        await tx
          .insert(signatures)
          .values({ bundleDigest: outcome.digest, signerKind: signer.kind, keyId: signer.keyId, sigstoreBundle: JSON.parse(signature) as JsonObject })
          .onConflictDoNothing();
        await tx.update(tasks).set({ baseCommit: input.baseCommit, bundleDigest: outcome.digest }).where(eq(tasks.id, outcome.taskId));
      });
      return outcome;
    },
  };
}
