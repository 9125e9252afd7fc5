// Activities that follow a task's pull request on GitHub: inspect one (for a signal or a submission), and poll every
// tracked one a hundred at a time and nudge the tasks whose pull request changed.
// Tasks decide; these only read GitHub and the database and send signals.
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/client';
import { and, eq, inArray, isNotNull } from 'drizzle-orm';
import type { Database } from '../db/connection.js';
import { tasks } from '../db/schema/index.js';
import type { GithubClient } from '../github/client.js';
import { hasWriteAccess, judgeMerge, readPullByUrl, readPullStatuses, type PullStatus } from '../github/pulls.js';
import { TASK_SIGNAL_NAMES, type PullRequestChanged } from '../contracts/task-workflow.js';

export interface TrackingDependencies {
  db: Database;
  github: GithubClient;
  /** Signals tasks (poller nudges, withdrawals). */
  temporal: Client;
}

export interface PullInspection {
  status: PullStatus;
  /** For a merged pull request: whether the merge counts (spec §4.2), and why not. */
  verdict: ReturnType<typeof judgeMerge> | null;
}

export interface PollRound {
  tracked: number;
  changed: number;
  /** Tasks whose workflow was gone when nudged (finished meanwhile). */
  unknown: number;
  cost: { requests: number; points: number };
}

/** GitHub's nodes(ids:) takes at most 100 ids. */
const NODES_PER_QUERY = 100;

export function createTrackingActivities({ db, github, temporal }: TrackingDependencies) {
  const nudge = async (taskId: string, payload: PullRequestChanged): Promise<boolean> => {
    try {
      await temporal.workflow.getHandle(taskId).signal(TASK_SIGNAL_NAMES.pullRequestChanged, payload);
      return true;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return false;
      throw error;
    }
  };

  return {
    /** Reads the pull request and, if merged, judges the merge: merged, on the default branch, by a writer, checks green. */
    async inspectPull({ prUrl }: { prUrl: string }): Promise<PullInspection> {
      const status = await readPullByUrl(github, prUrl);
      // What the task now knows the poller need not nudge it about.
      await db
        .update(tasks)
        .set({ prSeenUpdatedAt: status.updatedAt })
        .where(and(eq(tasks.prUrl, prUrl), isNotNull(tasks.prNodeId)));
      if (!status.merged) return { status, verdict: null };
      const writer = status.mergedBy !== null && (await hasWriteAccess(github, status.repo, status.mergedBy));
      return { status, verdict: judgeMerge(status, writer) };
    },

    /**
     * One polling round: every pull request of a task in tracking or solving, read with nodes(ids:) a hundred at a
     * time; a task whose pull request's updatedAt moved since the last round is nudged, then the new value stored.
     */
    async pollTrackedPulls(): Promise<PollRound> {
      const rows = await db
        .select({ id: tasks.id, prUrl: tasks.prUrl, nodeId: tasks.prNodeId, seen: tasks.prSeenUpdatedAt })
        .from(tasks)
        .where(and(inArray(tasks.state, ['tracking', 'solving']), isNotNull(tasks.prNodeId)));
      const round: PollRound = { tracked: rows.length, changed: 0, unknown: 0, cost: { requests: 0, points: 0 } };
      for (let start = 0; start < rows.length; start += NODES_PER_QUERY) {
        const batch = rows.slice(start, start + NODES_PER_QUERY);
        const read = await readPullStatuses(
          github,
          batch.map((row) => row.nodeId as string),
        );
        round.cost.requests += read.cost.requests;
        round.cost.points += read.cost.points;
        const byNode = new Map(read.statuses.map((status) => [status.nodeId, status]));
        for (const row of batch) {
          const status = byNode.get(row.nodeId as string);
          if (status === undefined || status.updatedAt === row.seen) continue;
          round.changed += 1;
          if (!(await nudge(row.id, { prUrl: row.prUrl ?? status.url, action: 'polled', deliveryId: null })))
            round.unknown += 1;
          await db.update(tasks).set({ prSeenUpdatedAt: status.updatedAt }).where(eq(tasks.id, row.id));
        }
      }
      return round;
    },
  };
}
