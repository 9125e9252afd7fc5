// Backlog snapshots and draws in the database: each stored in one transaction, keyed by what identifies it (the
// snapshot by its digest, the draw by its content-derived id), so a retried activity writes nothing twice.
import { desc, eq } from 'drizzle-orm';
import type { Database } from '../db/connection.js';
import { backlogIssues, backlogSnapshots, drawPicks, draws } from '../db/schema/index.js';
import type { AbpDraw } from '@abp/protocol/schemas/abp-draw';
import type { EligibilityResult } from '@abp/protocol/backlog/eligibility';
import type { BacklogSnapshot } from '@abp/protocol/backlog/types';

/** Rows per insert statement: well under Postgres' 65,535 bind parameters at eight columns a row. */
const CHUNK = 2_000;

export interface StoredSnapshot {
  id: string;
  digest: string;
  registryVersion: string;
  takenAt: string;
}

/** The snapshot's id: its digest's hex, prefixed, so a snapshot taken twice with the same content is one row. */
export function snapshotId(digest: string): string {
  return `backlog-${digest.slice('sha256:'.length)}`;
}

/** Stores the snapshot's issues with their eligibility verdicts; a snapshot stored already is left as it is. */
export async function saveSnapshot(
  db: Database,
  snapshot: BacklogSnapshot,
  digest: string,
  eligibility: EligibilityResult,
): Promise<StoredSnapshot> {
  const id = snapshotId(digest);
  const rejected = new Map(eligibility.rejected.map((entry) => [`${entry.repo}#${entry.number}`, entry.reason]));
  const issueCount = snapshot.repos.reduce((sum, repo) => sum + repo.issues.length, 0);
  await db.transaction(async (tx) => {
    const inserted = await tx
      .insert(backlogSnapshots)
      .values({
        id,
        registryVersion: snapshot.registryVersion,
        digest,
        takenAt: new Date(snapshot.takenAt),
        repoCount: snapshot.repos.length,
        issueCount,
        eligibleIssueCount: issueCount - rejected.size,
      })
      .onConflictDoNothing({ target: backlogSnapshots.id })
      .returning({ id: backlogSnapshots.id });
    if (inserted.length === 0) return;
    const rows = snapshot.repos.flatMap(({ repo, issues }) =>
      issues.map((issue) => {
        const reason = rejected.get(`${repo}#${issue.number}`) ?? null;
        return {
          snapshotId: id,
          repo,
          issueNumber: issue.number,
          title: issue.title,
          url: `https://github.com/${repo}/issues/${issue.number}`,
          labels: issue.labels,
          issueCreatedAt: new Date(issue.createdAt),
          eligibility: reason === null ? ('eligible' as const) : ('ineligible' as const),
          eligibilityReason: reason,
        };
      }),
    );
    for (let start = 0; start < rows.length; start += CHUNK)
      await tx.insert(backlogIssues).values(rows.slice(start, start + CHUNK));
  });
  return { id, digest, registryVersion: snapshot.registryVersion, takenAt: snapshot.takenAt };
}

/** The newest snapshot of a registry version, the base of an incremental refresh; null when there is none. */
export async function latestSnapshot(db: Database, registryVersion: string): Promise<StoredSnapshot | null> {
  const [row] = await db
    .select()
    .from(backlogSnapshots)
    .where(eq(backlogSnapshots.registryVersion, registryVersion))
    .orderBy(desc(backlogSnapshots.takenAt), desc(backlogSnapshots.createdAt))
    .limit(1);
  return row === undefined
    ? null
    : {
        id: row.id,
        digest: row.digest,
        registryVersion: row.registryVersion,
        takenAt: `${row.takenAt.toISOString().slice(0, 19)}Z`,
      };
}

/** Stores the draw and its picks; false (nothing written) when a draw with this id is stored already. */
export async function saveDraw(db: Database, record: AbpDraw): Promise<boolean> {
  const snapshot = snapshotId(record.backlogSnapshot.digest);
  return db.transaction(async (tx) => {
    const inserted = await tx
      .insert(draws)
      .values({
        id: record.id,
        registryVersion: record.registryVersion,
        seed: BigInt(record.seed),
        algorithm: record.algorithm,
        backlogSnapshotId: snapshot,
        inputDigests: record.inputDigests,
        requestedCount: record.requested,
        drawnAt: new Date(record.drawnAt),
        documentDigest: record.digest,
      })
      .onConflictDoNothing({ target: draws.id })
      .returning({ id: draws.id });
    if (inserted.length === 0) return false;
    if (record.picks.length > 0) {
      await tx.insert(drawPicks).values(
        record.picks.map((pick) => ({
          drawId: record.id,
          position: pick.order - 1,
          backlogSnapshotId: snapshot,
          repo: pick.repo,
          issueNumber: pick.issue,
        })),
      );
    }
    return true;
  });
}
