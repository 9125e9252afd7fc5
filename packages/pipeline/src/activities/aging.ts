// Aging (spec §4.4): the signed record of a task leaving the scored set when its fix has been public for 180 days. The
// task workflow's durable timer decides when; this activity signs the transition from what the database holds, keeps
// the signature and logs it, before the workflow records the move. Idempotent: the attestor keeps the first signature
// of a task's transition, so a retry returns it (and its log entry) instead of signing again.
import { ApplicationFailure } from '@temporalio/activity';
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '../db/connection.js';
import { tasks } from '../db/schema/index.js';
import type { Attestor } from '../signing/attestor.js';
import { SigningError } from '@abp/protocol/signing/errors';
import { createAgingTransitionStatement, signedAtOf } from '@abp/protocol/signing/statement';
import { parsed, permanent } from './arguments.js';

export interface AgingDependencies {
  db: Database;
  /** Signs the aging statement and appends it to the transparency log (signing/operator.ts loadOperatorAttestor). */
  attestor: Attestor;
  /** The clock signedAt is read from; the wall clock by default. */
  now?: () => Date;
}

export const agingTransitionInput = z.strictObject({ taskId: z.string().min(1) });
export type AgingTransitionInput = z.infer<typeof agingTransitionInput>;

/** What the task's `aged-out` event names: the kept signature, its digest and its place in the transparency log. */
export interface SignedAgingTransition {
  statementPath: string;
  /** sha256 of the kept Sigstore bundle's bytes, as logged. */
  digest: string;
  /** Null only for an attestor that keeps no log. */
  logIndex: number | null;
  /** False when the transition was signed before (a retry): that first signature is returned. */
  created: boolean;
}

export function createAgingActivities({ db, attestor, now = () => new Date() }: AgingDependencies) {
  return {
    /** Signs (once) and logs the `aging-transition` statement of a scored task, from its bundle, merge and scored window. */
    async signAgingTransition(input: AgingTransitionInput): Promise<SignedAgingTransition> {
      const { taskId } = parsed(agingTransitionInput, input, 'signAgingTransition');
      const [task] = await db
        .select({ bundleDigest: tasks.bundleDigest, mergedAt: tasks.mergedAt, scoredUntil: tasks.scoredUntil })
        .from(tasks)
        .where(eq(tasks.id, taskId));
      if (task === undefined)
        throw ApplicationFailure.create({
          type: 'UnknownTask',
          message: `task ${taskId} is not stored; it is created when drawn`,
          nonRetryable: true,
        });
      const { bundleDigest, mergedAt, scoredUntil } = task;
      if (bundleDigest === null || mergedAt === null || scoredUntil === null) {
        throw ApplicationFailure.create({
          type: 'TaskNotFrozen',
          message: `task ${taskId} has no ${bundleDigest === null ? 'bundle' : mergedAt === null ? 'mergedAt' : 'scoredUntil'}: only a frozen (scored) task ages out`,
          nonRetryable: true,
        });
      }
      try {
        const statement = createAgingTransitionStatement({
          taskId,
          bundleDigest,
          from: 'scored',
          to: 'practice',
          mergedAt: mergedAt.toISOString(),
          scoredUntil: scoredUntil.toISOString(),
          signedAt: signedAtOf(now()),
        });
        const attested = await attestor.attest('aging-transition', statement);
        return {
          statementPath: attested.path,
          digest: attested.digest,
          logIndex: attested.logIndex,
          created: attested.created,
        };
      } catch (error) {
        // A statement that cannot be made (an invalid task id for a subject) fails the same way on every retry.
        if (error instanceof SigningError && error.code === 'invalid-statement') throw permanent(error);
        throw error;
      }
    },
  };
}
