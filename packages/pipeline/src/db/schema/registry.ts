// Registry domain: the quarterly versions of the curated repository registry, the
// evaluated candidates of each version, and maintainers' opt-outs (spec §4.1, §4.5).
import { relations, sql } from 'drizzle-orm';
import {
  bigint,
  check,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  type AnyPgColumn,
} from 'drizzle-orm/pg-core';
import type { JsonObject } from '../json.js';
import { backlogSnapshots } from './backlog.js';
import { draws } from './draws.js';
import { createdAt, instant, matches, REPO_PATTERN, SHA256_DIGEST_PATTERN } from './shared.js';

/** Whether a candidate repository made it into a registry version. */
export const registryVerdict = pgEnum('registry_verdict', ['included', 'excluded']);

export const registryVersions = pgTable(
  'registry_versions',
  {
    /** `abp-registry/<YYYYQn>`, e.g. `abp-registry/2026Q4`. */
    id: text('id').primaryKey(),
    /** `<YYYYQn>`, e.g. `2026Q4`. */
    quarter: text('quarter').notNull(),
    criteriaVersion: text('criteria_version').notNull(),
    sourcedAt: instant('sourced_at').notNull(),
    /** Digest of the published registry document. */
    digest: text('digest').notNull(),
    previousVersion: text('previous_version').references((): AnyPgColumn => registryVersions.id, {
      onDelete: 'no action',
    }),
    /** The published (signed) registry document, verbatim. */
    document: jsonb('document').$type<JsonObject>().notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    // Serves: an auditor looking a registry version up by the digest of the document they hold.
    uniqueIndex('registry_versions_digest_key').on(table.digest),
    check('registry_versions_id_is_quarter', sql`${table.id} = 'abp-registry/' || ${table.quarter}`),
    check('registry_versions_quarter_format', matches(table.quarter, '^[0-9]{4}Q[1-4]$')),
    check('registry_versions_digest_format', matches(table.digest, SHA256_DIGEST_PATTERN)),
    check('registry_versions_previous_is_other', sql`${table.previousVersion} <> ${table.id}`),
  ],
);

export const registryEntries = pgTable(
  'registry_entries',
  {
    registryVersion: text('registry_version')
      .notNull()
      .references(() => registryVersions.id, { onDelete: 'cascade' }),
    /** GitHub `owner/name`. */
    repo: text('repo').notNull(),
    stars: integer('stars').notNull(),
    /** SPDX identifier of the repository's license; null when GitHub detects none. */
    licenseSpdx: text('license_spdx'),
    defaultBranch: text('default_branch').notNull(),
    /** How to install and run the repository's tests; required for included entries. */
    runnerRecipe: jsonb('runner_recipe').$type<JsonObject>(),
    verdict: registryVerdict('verdict').notNull(),
    /** Why the criteria included or excluded the repository, one reason a line. */
    reasons: jsonb('reasons').$type<string[]>().notNull().default([]),
  },
  (table) => [
    // Serves: the entries of one version (rotation diff, draw repo pick) by primary-key prefix.
    primaryKey({ name: 'registry_entries_pkey', columns: [table.registryVersion, table.repo] }),
    // Serves: the history of one repository across versions (opt-out sweeps, "since when listed").
    index('registry_entries_repo_idx').on(table.repo),
    check('registry_entries_repo_format', matches(table.repo, REPO_PATTERN)),
    check('registry_entries_stars_non_negative', sql`${table.stars} >= 0`),
    check(
      'registry_entries_included_is_runnable',
      sql`${table.verdict} <> 'included' or (${table.licenseSpdx} is not null and ${table.runnerRecipe} is not null)`,
    ),
    check('registry_entries_reasons_is_array', sql`jsonb_typeof(${table.reasons}) = 'array'`),
  ],
);

/** A maintainer's request that a repository never be drawn (spec §4.5). */
export const optOuts = pgTable(
  'opt_outs',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    /** GitHub `owner/name`; unique ignoring case, as GitHub names are. */
    repo: text('repo').notNull(),
    reason: text('reason').notNull(),
    /** Who asked: a GitHub login or an email address. */
    requestedBy: text('requested_by').notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    // Serves: "is repo R opted out?" during rotation, and keeps one opt-out per repository.
    uniqueIndex('opt_outs_repo_key').on(sql`lower(${table.repo})`),
    check('opt_outs_repo_format', matches(table.repo, REPO_PATTERN)),
  ],
);

export const registryVersionsRelations = relations(registryVersions, ({ one, many }) => ({
  previous: one(registryVersions, {
    fields: [registryVersions.previousVersion],
    references: [registryVersions.id],
    relationName: 'registry_version_previous',
  }),
  entries: many(registryEntries),
  backlogSnapshots: many(backlogSnapshots),
  draws: many(draws),
}));

export const registryEntriesRelations = relations(registryEntries, ({ one }) => ({
  version: one(registryVersions, { fields: [registryEntries.registryVersion], references: [registryVersions.id] }),
}));
