// Task domain: one row per drawn issue carrying its current state, and the append-only log
// of every state transition (spec §4.2–4.4). The log is append-only in the database itself:
// migration 0001 installs triggers that reject UPDATE, DELETE and TRUNCATE on task_events.
import { relations, sql } from 'drizzle-orm';
import {
  check,
  foreignKey,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  unique,
} from 'drizzle-orm/pg-core';
import { taskStates } from '../../contracts/task-workflow.js';
import type { JsonObject } from '../json.js';
import { bundles } from './bundles.js';
import { drawPicks, draws } from './draws.js';
import { allSet, COMMIT_PATTERN, createdAt, instant, matches, REPO_PATTERN, SHA256_DIGEST_PATTERN } from './shared.js';

export { taskStates, type TaskState } from '../../contracts/task-workflow.js';
export const taskState = pgEnum('task_state', taskStates);

export const tasks = pgTable(
  'tasks',
  {
    /** The task id of the manifest, e.g. `gh-vercel-next.js-81234`. */
    id: text('id').primaryKey(),
    /** With repo and issueNumber: the draw pick this task came from. */
    drawId: text('draw_id').notNull(),
    /** GitHub `owner/name`. */
    repo: text('repo').notNull(),
    issueNumber: integer('issue_number').notNull(),
    state: taskState('state').notNull().default('drawn'),
    /** The upstream pull request carrying the fix, once submitted. */
    prUrl: text('pr_url'),
    /** Its GraphQL node id: the poller reads pull requests a hundred at a time with `nodes(ids:)`. */
    prNodeId: text('pr_node_id'),
    /** The pull request's `updatedAt` the poller last saw; a different one means something happened to it. */
    prSeenUpdatedAt: text('pr_seen_updated_at'),
    /** The pre-fix commit the task is frozen at. */
    baseCommit: text('base_commit'),
    mergeCommit: text('merge_commit'),
    mergedAt: instant('merged_at'),
    /** mergedAt + 180 days: after this the task moves to the practice set. */
    scoredUntil: instant('scored_until'),
    /** The published verification bundle; it must be one built for this task. */
    bundleDigest: text('bundle_digest'),
    /** When the issue was drawn (spec §4.4): the manifest's source.sourcedAt, recorded with the bundle. */
    sourcedAt: instant('sourced_at'),
    /**
     * The "<model>:<YYYY-MM>" training cutoffs the task was verified against (the manifest's cutoffsVerified, from the
     * committed registry/model-cutoffs.json as it stood at the freeze), recorded with the bundle.
     */
    cutoffsVerified: jsonb('cutoffs_verified').$type<string[]>(),
    createdAt: createdAt(),
    updatedAt: instant('updated_at')
      .notNull()
      .defaultNow()
      .$onUpdate(() => new Date()),
  },
  (table) => [
    // Deleting the pick is refused: it is audit evidence of why this task exists.
    foreignKey({
      name: 'tasks_draw_pick_fk',
      columns: [table.drawId, table.repo, table.issueNumber],
      foreignColumns: [drawPicks.drawId, drawPicks.repo, drawPicks.issueNumber],
    }).onDelete('no action'),
    // A task's bundle must be a bundle of this task (bundles_digest_task_key); deleting it is refused.
    foreignKey({
      name: 'tasks_bundle_fk',
      columns: [table.bundleDigest, table.id],
      foreignColumns: [bundles.digest, bundles.taskId],
    }).onDelete('no action'),
    // One task per pick. Serves: the tasks of a draw, by prefix.
    unique('tasks_draw_pick_key').on(table.drawId, table.repo, table.issueNumber),
    // Serves: the aging sweep (state = 'scored' and scored_until <= now) and listing tasks by state.
    index('tasks_state_scored_until_idx').on(table.state, table.scoredUntil),
    // Serves: mapping a pull_request webhook (by PR URL) to its task.
    index('tasks_pr_url_idx').on(table.prUrl),
    // Serves: the poller's round over the pull requests of tasks in tracking or solving.
    index('tasks_state_pr_node_idx').on(table.state, table.prNodeId),
    check('tasks_id_not_empty', sql`${table.id} <> ''`),
    check('tasks_repo_format', matches(table.repo, REPO_PATTERN)),
    check('tasks_issue_number_positive', sql`${table.issueNumber} > 0`),
    check('tasks_base_commit_format', matches(table.baseCommit, COMMIT_PATTERN)),
    check('tasks_merge_commit_format', matches(table.mergeCommit, COMMIT_PATTERN)),
    check('tasks_bundle_digest_format', matches(table.bundleDigest, SHA256_DIGEST_PATTERN)),
    check('tasks_scored_after_merge', sql`${table.scoredUntil} > ${table.mergedAt}`),
    check('tasks_cutoffs_verified_is_array', sql`jsonb_typeof(${table.cutoffsVerified}) = 'array'`),
    // Each state carries what it needs: tracking a PR, freezing a merge, scored/practice a bundle.
    check('tasks_tracking_has_pr', sql`${table.state} <> 'tracking' or ${table.prUrl} is not null`),
    check(
      'tasks_freezing_has_merge',
      sql`${table.state} <> 'freezing' or (${allSet(table.prUrl, table.mergeCommit, table.mergedAt)})`,
    ),
    check(
      'tasks_frozen_has_bundle',
      sql`${table.state} not in ('scored', 'practice') or (${allSet(
        table.bundleDigest,
        table.baseCommit,
        table.mergeCommit,
        table.mergedAt,
        table.scoredUntil,
      )})`,
    ),
  ],
);

/** Append-only: rows are never updated or deleted (enforced by triggers in migration 0001). */
export const taskEvents = pgTable(
  'task_events',
  {
    // Refused, not cascaded: deleting a task would delete its history, which the log forbids.
    taskId: text('task_id')
      .notNull()
      .references(() => tasks.id, { onDelete: 'no action' }),
    /** 1-based, per task, in the order the transitions happened. */
    seq: integer('seq').notNull(),
    at: instant('at').notNull().defaultNow(),
    /** Null for the event that created the task. */
    fromState: taskState('from_state'),
    toState: taskState('to_state').notNull(),
    /** What caused the transition, e.g. `fix-submitted`, `pr-merged`, `aged-out`. */
    cause: text('cause').notNull(),
    detail: jsonb('detail').$type<JsonObject>().notNull().default({}),
  },
  (table) => [
    // Serves: the history of a task in order; (task, seq) is unique.
    primaryKey({ name: 'task_events_pkey', columns: [table.taskId, table.seq] }),
    check('task_events_seq_positive', sql`${table.seq} >= 1`),
    check('task_events_detail_is_object', sql`jsonb_typeof(${table.detail}) = 'object'`),
  ],
);

export const tasksRelations = relations(tasks, ({ one, many }) => ({
  draw: one(draws, { fields: [tasks.drawId], references: [draws.id] }),
  pick: one(drawPicks, {
    fields: [tasks.drawId, tasks.repo, tasks.issueNumber],
    references: [drawPicks.drawId, drawPicks.repo, drawPicks.issueNumber],
  }),
  events: many(taskEvents),
  bundles: many(bundles, { relationName: 'task_bundles' }),
  publishedBundle: one(bundles, {
    fields: [tasks.bundleDigest],
    references: [bundles.digest],
    relationName: 'task_published_bundle',
  }),
}));

export const taskEventsRelations = relations(taskEvents, ({ one }) => ({
  task: one(tasks, { fields: [taskEvents.taskId], references: [tasks.id] }),
}));
