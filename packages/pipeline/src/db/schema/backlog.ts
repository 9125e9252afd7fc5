// Backlog domain: content-addressed snapshots of the registry's open issues, each issue
// with its eligibility verdict; a draw selects from exactly one snapshot (spec §4.1).
import { relations, sql } from 'drizzle-orm';
import {
  check,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  unique,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { drawPicks, draws } from './draws.js';
import { registryVersions } from './registry.js';
import { createdAt, instant, matches, REPO_PATTERN, SHA256_DIGEST_PATTERN } from './shared.js';

/** Whether an open issue may be drawn (reproducible, in scope for a code change, not a question). */
export const issueEligibility = pgEnum('issue_eligibility', ['eligible', 'ineligible']);

export const backlogSnapshots = pgTable(
  'backlog_snapshots',
  {
    id: text('id').primaryKey(),
    registryVersion: text('registry_version')
      .notNull()
      .references(() => registryVersions.id, { onDelete: 'no action' }),
    /** Digest of the canonical snapshot document (its issues and verdicts). */
    digest: text('digest').notNull(),
    takenAt: instant('taken_at').notNull(),
    repoCount: integer('repo_count').notNull(),
    issueCount: integer('issue_count').notNull(),
    eligibleIssueCount: integer('eligible_issue_count').notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    // Serves: finding a snapshot by the digest a draw document cites.
    uniqueIndex('backlog_snapshots_digest_key').on(table.digest),
    // Serves: the latest snapshot of a registry version (order by taken_at desc limit 1).
    index('backlog_snapshots_registry_version_taken_at_idx').on(table.registryVersion, table.takenAt),
    // Target of draws' composite foreign key: a draw's snapshot belongs to the draw's registry version.
    unique('backlog_snapshots_id_registry_version_key').on(table.id, table.registryVersion),
    check('backlog_snapshots_digest_format', matches(table.digest, SHA256_DIGEST_PATTERN)),
    check(
      'backlog_snapshots_counts_consistent',
      sql`${table.repoCount} >= 0 and ${table.issueCount} >= 0 and ${table.eligibleIssueCount} between 0 and ${table.issueCount}`,
    ),
  ],
);

export const backlogIssues = pgTable(
  'backlog_issues',
  {
    snapshotId: text('snapshot_id')
      .notNull()
      .references(() => backlogSnapshots.id, { onDelete: 'cascade' }),
    /** GitHub `owner/name`. */
    repo: text('repo').notNull(),
    issueNumber: integer('issue_number').notNull(),
    title: text('title').notNull(),
    url: text('url').notNull(),
    labels: jsonb('labels').$type<string[]>().notNull().default([]),
    /** When the issue was opened on GitHub (not when this row was written). */
    issueCreatedAt: instant('issue_created_at').notNull(),
    eligibility: issueEligibility('eligibility').notNull(),
    /** Why the issue is (in)eligible; required when ineligible. */
    eligibilityReason: text('eligibility_reason'),
  },
  (table) => [
    // Serves: the issues of repo R in snapshot S (the draw's second step) by primary-key prefix.
    primaryKey({ name: 'backlog_issues_pkey', columns: [table.snapshotId, table.repo, table.issueNumber] }),
    check('backlog_issues_repo_format', matches(table.repo, REPO_PATTERN)),
    check('backlog_issues_issue_number_positive', sql`${table.issueNumber} > 0`),
    check('backlog_issues_labels_is_array', sql`jsonb_typeof(${table.labels}) = 'array'`),
    check(
      'backlog_issues_ineligible_has_reason',
      sql`${table.eligibility} <> 'ineligible' or ${table.eligibilityReason} is not null`,
    ),
  ],
);

export const backlogSnapshotsRelations = relations(backlogSnapshots, ({ one, many }) => ({
  registry: one(registryVersions, { fields: [backlogSnapshots.registryVersion], references: [registryVersions.id] }),
  issues: many(backlogIssues),
  draws: many(draws),
}));

export const backlogIssuesRelations = relations(backlogIssues, ({ one, many }) => ({
  snapshot: one(backlogSnapshots, { fields: [backlogIssues.snapshotId], references: [backlogSnapshots.id] }),
  picks: many(drawPicks),
}));
