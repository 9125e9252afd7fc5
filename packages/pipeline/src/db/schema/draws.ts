// Draw domain: seeded selections of tasks from one backlog snapshot, recorded with the seed,
// algorithm and input digests so an auditor can re-derive every pick (spec §4.1).
import { relations, sql } from 'drizzle-orm';
import {
  bigint,
  check,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  unique,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { backlogIssues, backlogSnapshots } from './backlog.js';
import { registryVersions } from './registry.js';
import { createdAt, instant, matches, REPO_PATTERN, SHA256_DIGEST_PATTERN } from './shared.js';
import { tasks } from './tasks.js';

export const draws = pgTable(
  'draws',
  {
    id: text('id').primaryKey(),
    /** Enforced through draws_backlog_snapshot_fk: the snapshot's registry version, which must exist. */
    registryVersion: text('registry_version').notNull(),
    /** The published seed; int8 because seeds are chosen from the full 63-bit range. */
    seed: bigint('seed', { mode: 'bigint' }).notNull(),
    /** Identifier of the documented selection algorithm, e.g. `abp-draw/v1`. */
    algorithm: text('algorithm').notNull(),
    backlogSnapshotId: text('backlog_snapshot_id').notNull(),
    /** Digest of every input the selection read, by name (registry, snapshot, opt-outs…). */
    inputDigests: jsonb('input_digests').$type<Record<string, string>>().notNull(),
    requestedCount: integer('requested_count').notNull(),
    drawnAt: instant('drawn_at').notNull(),
    /** Digest of the published draw document. */
    documentDigest: text('document_digest').notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    // The snapshot must belong to the draw's registry version; deleting the snapshot is refused: a draw is audit evidence.
    foreignKey({
      name: 'draws_backlog_snapshot_fk',
      columns: [table.backlogSnapshotId, table.registryVersion],
      foreignColumns: [backlogSnapshots.id, backlogSnapshots.registryVersion],
    }).onDelete('no action'),
    // Serves: an auditor looking a draw up by the digest of the document they hold.
    uniqueIndex('draws_document_digest_key').on(table.documentDigest),
    // Serves: the draws of a registry version in order (order by drawn_at).
    index('draws_registry_version_drawn_at_idx').on(table.registryVersion, table.drawnAt),
    // Target of draw_picks' composite foreign key: a pick's issue comes from its draw's snapshot.
    unique('draws_id_backlog_snapshot_key').on(table.id, table.backlogSnapshotId),
    check('draws_seed_non_negative', sql`${table.seed} >= 0`),
    check('draws_requested_count_positive', sql`${table.requestedCount} > 0`),
    check('draws_document_digest_format', matches(table.documentDigest, SHA256_DIGEST_PATTERN)),
    check('draws_input_digests_is_object', sql`jsonb_typeof(${table.inputDigests}) = 'object'`),
  ],
);

export const drawPicks = pgTable(
  'draw_picks',
  {
    drawId: text('draw_id').notNull(),
    /** 0-based order in which the algorithm made the pick. */
    position: integer('position').notNull(),
    /** Repeats the draw's snapshot so the foreign keys can tie the issue to that snapshot. */
    backlogSnapshotId: text('backlog_snapshot_id').notNull(),
    /** GitHub `owner/name`. */
    repo: text('repo').notNull(),
    issueNumber: integer('issue_number').notNull(),
  },
  (table) => [
    // Serves: the picks of a draw in order, by primary-key prefix.
    primaryKey({ name: 'draw_picks_pkey', columns: [table.drawId, table.position] }),
    // One pick per issue per draw; also the target of tasks' foreign key to their pick.
    unique('draw_picks_draw_issue_key').on(table.drawId, table.repo, table.issueNumber),
    // Serves: "was issue N of repo R drawn before?" when excluding already-drawn issues.
    index('draw_picks_repo_issue_idx').on(table.repo, table.issueNumber),
    foreignKey({
      name: 'draw_picks_draw_fk',
      columns: [table.drawId, table.backlogSnapshotId],
      foreignColumns: [draws.id, draws.backlogSnapshotId],
    }).onDelete('cascade'),
    foreignKey({
      name: 'draw_picks_backlog_issue_fk',
      columns: [table.backlogSnapshotId, table.repo, table.issueNumber],
      foreignColumns: [backlogIssues.snapshotId, backlogIssues.repo, backlogIssues.issueNumber],
    }).onDelete('no action'),
    check('draw_picks_position_non_negative', sql`${table.position} >= 0`),
    check('draw_picks_repo_format', matches(table.repo, REPO_PATTERN)),
  ],
);

export const drawsRelations = relations(draws, ({ one, many }) => ({
  registry: one(registryVersions, { fields: [draws.registryVersion], references: [registryVersions.id] }),
  snapshot: one(backlogSnapshots, { fields: [draws.backlogSnapshotId], references: [backlogSnapshots.id] }),
  picks: many(drawPicks),
  tasks: many(tasks),
}));

export const drawPicksRelations = relations(drawPicks, ({ one }) => ({
  draw: one(draws, { fields: [drawPicks.drawId], references: [draws.id] }),
  issue: one(backlogIssues, {
    fields: [drawPicks.backlogSnapshotId, drawPicks.repo, drawPicks.issueNumber],
    references: [backlogIssues.snapshotId, backlogIssues.repo, backlogIssues.issueNumber],
  }),
  task: one(tasks),
}));
