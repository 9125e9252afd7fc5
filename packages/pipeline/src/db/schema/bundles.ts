// Bundle domain: content-addressed verification bundles of frozen tasks, and the signatures
// over them, keyed (local ECDSA key) or keyless (Sigstore: Fulcio certificate + Rekor entry).
import { relations, sql } from 'drizzle-orm';
import { bigint, check, index, jsonb, pgEnum, pgTable, text, unique, type AnyPgColumn } from 'drizzle-orm/pg-core';
import type { JsonObject } from '../json.js';
import { createdAt, matches, SHA256_DIGEST_PATTERN } from './shared.js';
import { tasks } from './tasks.js';

export const signerKind = pgEnum('signer_kind', ['keyed', 'keyless']);

export const bundles = pgTable(
  'bundles',
  {
    /** `sha256:<hex>` of the bundle's bytes: the bundle's identity. */
    digest: text('digest').primaryKey(),
    // Deleting a task with bundles is refused: a published bundle outlives it. (Annotated: tasks and
    // bundles reference each other, which TypeScript cannot infer without one explicit type.)
    taskId: text('task_id')
      .notNull()
      .references((): AnyPgColumn => tasks.id, { onDelete: 'no action' }),
    mediaType: text('media_type').notNull(),
    sizeBytes: bigint('size_bytes', { mode: 'number' }).notNull(),
    /** Location under the data directory (or the HTTP root of `abp serve`). */
    path: text('path').notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    // Serves: the bundles built for a task.
    index('bundles_task_id_idx').on(table.taskId),
    // Target of tasks_bundle_fk, so a task can only publish one of its own bundles.
    unique('bundles_digest_task_key').on(table.digest, table.taskId),
    check('bundles_digest_format', matches(table.digest, SHA256_DIGEST_PATTERN)),
    check('bundles_size_non_negative', sql`${table.sizeBytes} >= 0`),
  ],
);

export const signatures = pgTable(
  'signatures',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    bundleDigest: text('bundle_digest')
      .notNull()
      .references(() => bundles.digest, { onDelete: 'cascade' }),
    signerKind: signerKind('signer_kind').notNull(),
    /** Keyed: the key id listed in the trust root. Null for keyless. */
    keyId: text('key_id'),
    /** Keyless: the certificate's subject (e.g. the CI workflow identity). Null for keyed. */
    certificateIdentity: text('certificate_identity'),
    /** The Sigstore bundle (DSSE envelope + verification material), verbatim. */
    sigstoreBundle: jsonb('sigstore_bundle').$type<JsonObject>().notNull(),
    /** Rekor transparency-log index; keyless signatures always have one. */
    logIndex: bigint('log_index', { mode: 'number' }),
    createdAt: createdAt(),
  },
  (table) => [
    // Serves: the signatures of a bundle (prefix); keeps re-signing by the same signer idempotent.
    unique('signatures_bundle_signer_key')
      .on(table.bundleDigest, table.signerKind, table.keyId, table.certificateIdentity)
      .nullsNotDistinct(),
    check(
      'signatures_signer_matches_kind',
      sql`(${table.signerKind} = 'keyed' and ${table.keyId} is not null and ${table.certificateIdentity} is null)
        or (${table.signerKind} = 'keyless' and ${table.certificateIdentity} is not null and ${table.keyId} is null and ${table.logIndex} is not null)`,
    ),
    check('signatures_log_index_non_negative', sql`${table.logIndex} >= 0`),
  ],
);

export const bundlesRelations = relations(bundles, ({ one, many }) => ({
  task: one(tasks, { fields: [bundles.taskId], references: [tasks.id], relationName: 'task_bundles' }),
  signatures: many(signatures),
}));

export const signaturesRelations = relations(signatures, ({ one }) => ({
  bundle: one(bundles, { fields: [signatures.bundleDigest], references: [bundles.digest] }),
}));
