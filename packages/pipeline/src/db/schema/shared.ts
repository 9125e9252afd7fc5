// Column builders and check fragments shared by every domain file. Not a domain: it declares no table.
import { sql, type SQL } from 'drizzle-orm';
import { timestamp, type AnyPgColumn } from 'drizzle-orm/pg-core';

// Foreign keys that must refuse a delete use ON DELETE NO ACTION, not RESTRICT: both refuse it,
// but RESTRICT reports SQLSTATE 23001 from PostgreSQL 18 (so PGlite 0.5) and 23503 before, while
// NO ACTION reports 23503 (foreign_key_violation) on every version, so callers test one code.

/** `sha256:` followed by 64 lowercase hex digits, the one digest spelling used across ABP records. */
export const SHA256_DIGEST_PATTERN = '^sha256:[0-9a-f]{64}$';
/** GitHub `owner/name`. */
export const REPO_PATTERN = '^[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+$';
/** A full git object id: SHA-1 (40 hex) or SHA-256 (64 hex) repositories. */
export const COMMIT_PATTERN = '^[0-9a-f]{40}([0-9a-f]{24})?$';

/** A point in time; always timestamptz so values mean the same instant whatever the session time zone. */
export function instant(name: string) {
  return timestamp(name, { withTimezone: true, mode: 'date' });
}

/** `created_at` set by the database at insert. */
export function createdAt() {
  return instant('created_at').notNull().defaultNow();
}

/** SQL fragment for a check constraint: the column matches a POSIX regular expression. */
export function matches(column: AnyPgColumn, pattern: string): SQL {
  return sql`${column} ~ ${sql.raw(`'${pattern.replaceAll("'", "''")}'`)}`;
}

/** SQL fragment for a check constraint: every one of the columns is set. */
export function allSet(...columns: AnyPgColumn[]): SQL {
  return sql.join(
    columns.map((column) => sql`${column} is not null`),
    sql` and `,
  );
}
