// Rotation domain: what one quarterly registry rotation has already paid the GitHub API for — the ranked candidate
// names its search found and each batch of criteria facts — so a resumed rotation reads them instead of fetching again.
import { relations, sql } from 'drizzle-orm';
import { check, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import type { JsonObject } from '../json.js';
import { createdAt, matches } from './shared.js';

const REGISTRY_VERSION_PATTERN = '^abp-registry/[0-9]{4}Q[1-4]$';

/** One rotation per registry version; the version row itself appears only when the rotation publishes. */
export const registryRotations = pgTable(
  'registry_rotations',
  {
    /** The registry version the rotation builds, e.g. `abp-registry/2026Q4`. */
    version: text('version').primaryKey(),
    top: integer('top').notNull(),
    batchSize: integer('batch_size').notNull(),
    /** How many entries the published version may hold at most. */
    size: integer('size').notNull(),
    criteriaVersion: text('criteria_version').notNull(),
    /** Kept as given (RFC 3339 UTC text), since it is copied verbatim into the published document. */
    sourcedAt: text('sourced_at').notNull(),
    /** `owner/name` of every candidate, as search ranked them (stars descending, then name). */
    candidates: jsonb('candidates').$type<string[]>().notNull(),
    searchRequests: integer('search_requests').notNull(),
    searchPoints: integer('search_points').notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    check('registry_rotations_version_format', matches(table.version, REGISTRY_VERSION_PATTERN)),
    check('registry_rotations_sizes_positive', sql`${table.top} > 0 and ${table.batchSize} > 0 and ${table.size} > 0`),
    check('registry_rotations_cost_non_negative', sql`${table.searchRequests} >= 0 and ${table.searchPoints} >= 0`),
    check('registry_rotations_candidates_is_array', sql`jsonb_typeof(${table.candidates}) = 'array'`),
  ],
);

export const registryRotationBatches = pgTable(
  'registry_rotation_batches',
  {
    version: text('version')
      .notNull()
      .references(() => registryRotations.version, { onDelete: 'cascade' }),
    /** Position of the batch in the rotation's candidate list, from 0. */
    batchIndex: integer('batch_index').notNull(),
    /** The batch's candidate facts (registry/criteria/facts.ts), in candidate order. */
    facts: jsonb('facts').$type<JsonObject[]>().notNull(),
    /** Names GitHub no longer resolved when the batch was read. */
    missing: jsonb('missing').$type<string[]>().notNull(),
    requests: integer('requests').notNull(),
    points: integer('points').notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    // Serves: "is batch i of rotation r stored?" and reading a rotation's batches in order, by primary-key prefix.
    primaryKey({ name: 'registry_rotation_batches_pkey', columns: [table.version, table.batchIndex] }),
    check('registry_rotation_batches_index_non_negative', sql`${table.batchIndex} >= 0`),
    check('registry_rotation_batches_cost_non_negative', sql`${table.requests} >= 0 and ${table.points} >= 0`),
  ],
);

export const registryRotationsRelations = relations(registryRotations, ({ many }) => ({
  batches: many(registryRotationBatches),
}));

export const registryRotationBatchesRelations = relations(registryRotationBatches, ({ one }) => ({
  rotation: one(registryRotations, {
    fields: [registryRotationBatches.version],
    references: [registryRotations.version],
  }),
}));
