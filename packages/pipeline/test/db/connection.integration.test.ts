// openDatabase picks PGlite or PostgreSQL and fails with a DatabaseError code; migrate applies
// db/migrations once and is a no-op after that, on both backends.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq, getTableName, is, sql } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, migrationsFolder, openDatabase, selectRows, type Database } from '../../src/db/connection.js';
import { DatabaseError, type DatabaseErrorCode } from '../../src/db/errors.js';
import * as schema from '../../src/db/schema/index.js';
import { appliedMigrations, backends, optOutRow, useTestDatabase } from '../support/database.js';
import { startPostgresServer, type PostgresServer } from '../support/postgres-server.js';

const schemaTables = Object.values(schema)
  .filter((value) => is(value, PgTable))
  .map((table) => getTableName(table))
  .sort();

async function journalLength(): Promise<number> {
  const journal = JSON.parse(await readFile(join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as {
    entries: unknown[];
  };
  return journal.entries.length;
}

async function publicTables(db: Database): Promise<string[]> {
  const rows = await selectRows<{ name: string }>(
    db,
    sql`select table_name as name from information_schema.tables where table_schema = 'public' order by table_name`,
  );
  return rows.map((row) => row.name);
}

async function openFailure(options: Parameters<typeof openDatabase>[0]): Promise<DatabaseErrorCode> {
  try {
    const handle = await openDatabase(options);
    await handle.close();
  } catch (error) {
    if (error instanceof DatabaseError) return error.code;
    throw error;
  }
  throw new Error('Expected openDatabase to fail.');
}

describe('openDatabase', () => {
  let home: string;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'abp-home-'));
  });
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('rejects a url that is not a URL with invalid-url', async () => {
    expect(await openFailure({ url: 'localhost:5432/abp' })).toBe('invalid-url');
    expect(await openFailure({ url: '' })).toBe('invalid-url');
  });

  it('rejects a DATABASE_URL of another scheme with invalid-url', async () => {
    expect(await openFailure({ env: { DATABASE_URL: 'mysql://root:secret@127.0.0.1:3306/abp' } })).toBe('invalid-url');
  });

  it('fails with connect-failed when no server listens at the URL', async () => {
    expect(await openFailure({ url: 'postgres://abp:secret@127.0.0.1:1/abp' })).toBe('connect-failed');
  });

  it('fails with connect-failed when the PGlite directory cannot be created', async () => {
    const file = join(home, 'not-a-directory');
    await writeFile(file, '');
    expect(await openFailure({ dataDir: file, env: {} })).toBe('connect-failed');
  });

  it('uses PGlite in <ABP_HOME>/pglite when DATABASE_URL is unset, and keeps its data across reopen', async () => {
    const first = await openDatabase({ env: { ABP_HOME: home } });
    expect(first.kind).toBe('pglite');
    expect(first.location).toBe(join(home, 'pglite'));
    expect(existsSync(join(home, 'pglite', 'PG_VERSION'))).toBe(true);
    await migrate(first);
    const optOut = optOutRow({ repo: 'persist/me' });
    await first.db.insert(schema.optOuts).values(optOut);
    await first.close();
    await first.close(); // closing twice is harmless

    const second = await openDatabase({ dataDir: home, env: {} });
    try {
      await migrate(second);
      expect(await appliedMigrations(second.db)).toBe(await journalLength());
      const rows = await second.db.select().from(schema.optOuts).where(eq(schema.optOuts.repo, 'persist/me'));
      expect(rows).toMatchObject([{ repo: 'persist/me', reason: optOut.reason, requestedBy: optOut.requestedBy }]);
    } finally {
      await second.close();
    }
  });
});

describe.each(backends)('migrations on %s', (kind) => {
  const database = useTestDatabase(kind);

  it('creates every table of the schema', async () => {
    expect(database.handle.kind).toBe(kind);
    expect(await publicTables(database.db)).toEqual(schemaTables);
  });

  it('records each migration once, and migrating again changes nothing', async () => {
    const migrations = await journalLength();
    expect(await appliedMigrations(database.db)).toBe(migrations);
    await migrate(database.handle);
    await migrate(database.handle);
    expect(await appliedMigrations(database.db)).toBe(migrations);
    expect(await publicTables(database.db)).toEqual(schemaTables);
  });

  it('installs the append-only trigger of the custom migration', async () => {
    const triggers = await selectRows<{ name: string }>(
      database.db,
      sql`select tgname as name from pg_trigger where tgrelid = 'task_events'::regclass and not tgisinternal`,
    );
    expect(triggers.map((trigger) => trigger.name)).toEqual(['task_events_append_only']);
  });
});

describe('PostgreSQL through DATABASE_URL', () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgresServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('connects to DATABASE_URL, and concurrent migrations of a fresh database apply each migration once', async () => {
    const handles = await Promise.all([
      openDatabase({ env: { DATABASE_URL: server.url } }),
      openDatabase({ url: server.url }),
    ]);
    try {
      expect(handles.map((handle) => handle.kind)).toEqual(['postgres', 'postgres']);
      await Promise.all(handles.map((handle) => migrate(handle)));
      expect(await appliedMigrations(handles[0].db)).toBe(await journalLength());
      expect(await publicTables(handles[1].db)).toEqual(schemaTables);
    } finally {
      await Promise.all(handles.map((handle) => handle.close()));
    }
  });

  it('fails with migrate-failed when the database is in the way of a migration', async () => {
    const scratch = await startPostgresServer();
    const handle = await openDatabase({ url: scratch.url });
    try {
      await handle.db.execute(sql`create table tasks (id int)`);
      const failure = await migrate(handle).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(DatabaseError);
      expect(failure).toMatchObject({ code: 'migrate-failed' });
      // The migrator runs in one transaction: nothing was half-applied.
      expect(await publicTables(handle.db)).toEqual(['tasks']);
    } finally {
      await handle.close();
      await scratch.stop();
    }
  });
});
