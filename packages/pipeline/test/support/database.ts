// Databases and rows for db tests. Every db suite runs on both backends (`describe.each(backends)`),
// each with a fresh database migrated in beforeAll: PGlite in a temp data dir, and a real
// PostgreSQL server (test/support/postgres-server.ts). Rows come from factories that take
// `$inferInsert` overrides; parents a row cannot exist without are required in the overrides.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { sql } from 'drizzle-orm';
import {
  migrate,
  openDatabase,
  selectRows,
  type Database,
  type DatabaseHandle,
  type DatabaseKind,
} from '../../src/db/connection.js';
import { sqlStateOf } from '../../src/db/errors.js';
import {
  backlogIssues,
  backlogSnapshots,
  drawPicks,
  draws,
  registryVersions,
  tasks,
  type bundles,
  type optOuts,
  type registryEntries,
  type signatures,
  type taskEvents,
} from '../../src/db/schema/index.js';
import { startPostgresServer } from './postgres-server.js';

export const backends = ['pglite', 'postgres'] as const satisfies readonly DatabaseKind[];

export interface TestDatabase {
  readonly kind: DatabaseKind;
  readonly handle: DatabaseHandle;
  readonly db: Database;
  /** Closes the connection and removes the data (temp dir, or the server and its files). */
  dispose(): Promise<void>;
}

/** A fresh, migrated database of `kind`. PGlite ignores DATABASE_URL so it really is PGlite. */
export async function createTestDatabase(kind: DatabaseKind): Promise<TestDatabase> {
  switch (kind) {
    case 'pglite': {
      const dataDir = await mkdtemp(join(tmpdir(), 'abp-pglite-'));
      const handle = await openDatabase({ dataDir, env: {} }).catch(async (error: unknown) => {
        await rm(dataDir, { recursive: true, force: true });
        throw error;
      });
      return prepared(kind, handle, () => rm(dataDir, { recursive: true, force: true }));
    }
    case 'postgres': {
      const server = await startPostgresServer();
      const handle = await openDatabase({ url: server.url }).catch(async (error: unknown) => {
        await server.stop();
        throw error;
      });
      return prepared(kind, handle, () => server.stop());
    }
  }
}

async function prepared(
  kind: DatabaseKind,
  handle: DatabaseHandle,
  removeData: () => Promise<void>,
): Promise<TestDatabase> {
  const dispose = async () => {
    await handle.close();
    await removeData();
  };
  try {
    await migrate(handle);
  } catch (error) {
    await dispose();
    throw error;
  }
  return { kind, handle, db: handle.db, dispose };
}

/**
 * Registers beforeAll/afterAll around the enclosing describe: a fresh migrated database of
 * `kind` for its tests. Read `.db` / `.handle` inside tests and hooks, not at collection time.
 */
export function useTestDatabase(kind: DatabaseKind): { readonly db: Database; readonly handle: DatabaseHandle } {
  let current: TestDatabase | undefined;
  beforeAll(async () => {
    current = await createTestDatabase(kind);
  });
  afterAll(async () => {
    await current?.dispose();
    current = undefined;
  });
  const ready = (): TestDatabase => {
    if (current === undefined)
      throw new Error(`The ${kind} test database is not open yet: use it inside a test or hook.`);
    return current;
  };
  return {
    get db() {
      return ready().db;
    },
    get handle() {
      return ready().handle;
    },
  };
}

/**
 * The SQLSTATE a query fails with (e.g. SqlState.uniqueViolation). A query that succeeds is a
 * test failure; one that fails without a SQLSTATE returns its message, so the assertion shows it.
 */
export async function failureSqlState(query: PromiseLike<unknown>): Promise<string> {
  try {
    await query;
  } catch (error) {
    return sqlStateOf(error) ?? `no SQLSTATE in: ${String(error)}`;
  }
  throw new Error('Expected the query to fail, but it succeeded.');
}

/** The only row of an insert … returning(). */
export function single<T>(rows: readonly T[]): T {
  const [row, ...rest] = rows;
  if (row === undefined || rest.length > 0) throw new Error(`Expected exactly one row, got ${rows.length}.`);
  return row;
}

// ---- row factories ------------------------------------------------------------------------

export type RegistryVersionInsert = typeof registryVersions.$inferInsert;
export type RegistryEntryInsert = typeof registryEntries.$inferInsert;
export type OptOutInsert = typeof optOuts.$inferInsert;
export type BacklogSnapshotInsert = typeof backlogSnapshots.$inferInsert;
export type BacklogIssueInsert = typeof backlogIssues.$inferInsert;
export type DrawInsert = typeof draws.$inferInsert;
export type DrawPickInsert = typeof drawPicks.$inferInsert;
export type TaskInsert = typeof tasks.$inferInsert;
export type TaskEventInsert = typeof taskEvents.$inferInsert;
export type BundleInsert = typeof bundles.$inferInsert;
export type SignatureInsert = typeof signatures.$inferInsert;

/** Overrides of a row, with the columns naming its parents required. */
type Overrides<TInsert, TRequired extends keyof TInsert = never> = Partial<TInsert> & Pick<TInsert, TRequired>;

// Unique per process, so rows from one test never collide with another's in a shared database.
let serial = 0;
function next(): number {
  serial += 1;
  return serial;
}

/** A well-formed `sha256:` digest, distinct for each label. */
export function digestOf(label: string): string {
  return `sha256:${createHash('sha256').update(label).digest('hex')}`;
}

/** A well-formed 40-hex git commit id, distinct for each label. */
export function commitOf(label: string): string {
  return createHash('sha1').update(label).digest('hex');
}

export function registryVersionRow(overrides: Overrides<RegistryVersionInsert> = {}): RegistryVersionInsert {
  const n = next();
  const quarter = overrides.quarter ?? `${2000 + n}Q${1 + (n % 4)}`;
  return {
    id: `abp-registry/${quarter}`,
    quarter,
    criteriaVersion: 'abp-criteria/v1',
    sourcedAt: new Date('2026-10-01T00:00:00Z'),
    digest: digestOf(`registry-${n}`),
    document: { schema: 'abp-registry/v1', quarter, entries: [] },
    ...overrides,
  };
}

export function registryEntryRow(overrides: Overrides<RegistryEntryInsert, 'registryVersion'>): RegistryEntryInsert {
  const n = next();
  return {
    repo: `owner${n}/repo${n}`,
    stars: 1000 + n,
    licenseSpdx: 'MIT',
    defaultBranch: 'main',
    runnerRecipe: { image: 'node:22', setup: ['npm ci'], test: 'npm test' },
    verdict: 'included',
    reasons: ['osi-license', 'active', 'runnable-tests'],
    ...overrides,
  };
}

export function optOutRow(overrides: Overrides<OptOutInsert> = {}): OptOutInsert {
  const n = next();
  return { repo: `owner${n}/repo${n}`, reason: 'maintainers declined', requestedBy: `maintainer${n}`, ...overrides };
}

export function backlogSnapshotRow(
  overrides: Overrides<BacklogSnapshotInsert, 'registryVersion'>,
): BacklogSnapshotInsert {
  const n = next();
  return {
    id: `backlog-${n}`,
    digest: digestOf(`backlog-${n}`),
    takenAt: new Date('2026-10-02T00:00:00Z'),
    repoCount: 1,
    issueCount: 1,
    eligibleIssueCount: 1,
    ...overrides,
  };
}

export function backlogIssueRow(overrides: Overrides<BacklogIssueInsert, 'snapshotId'>): BacklogIssueInsert {
  const n = next();
  const repo = overrides.repo ?? `owner${n}/repo${n}`;
  const issueNumber = overrides.issueNumber ?? 100 + n;
  return {
    repo,
    issueNumber,
    title: `Crash when parsing input ${n}`,
    url: `https://github.com/${repo}/issues/${issueNumber}`,
    labels: ['bug'],
    issueCreatedAt: new Date('2026-09-15T12:00:00Z'),
    eligibility: 'eligible',
    ...overrides,
  };
}

export function drawRow(overrides: Overrides<DrawInsert, 'registryVersion' | 'backlogSnapshotId'>): DrawInsert {
  const n = next();
  return {
    id: `draw-${n}`,
    seed: 424242n,
    algorithm: 'abp-draw/v1',
    inputDigests: { registry: digestOf(`registry-input-${n}`), backlog: digestOf(`backlog-input-${n}`) },
    requestedCount: 1,
    drawnAt: new Date('2026-10-03T00:00:00Z'),
    documentDigest: digestOf(`draw-${n}`),
    ...overrides,
  };
}

export function drawPickRow(
  overrides: Overrides<DrawPickInsert, 'drawId' | 'backlogSnapshotId' | 'repo' | 'issueNumber'>,
): DrawPickInsert {
  return { position: 0, ...overrides };
}

export function taskRow(overrides: Overrides<TaskInsert, 'drawId' | 'repo' | 'issueNumber'>): TaskInsert {
  return { id: `gh-${overrides.repo.replace('/', '-')}-${overrides.issueNumber}`, ...overrides };
}

export function taskEventRow(overrides: Overrides<TaskEventInsert, 'taskId'>): TaskEventInsert {
  return { seq: 1, fromState: null, toState: 'drawn', cause: 'drawn', detail: {}, ...overrides };
}

export function bundleRow(overrides: Overrides<BundleInsert, 'taskId'>): BundleInsert {
  const digest = overrides.digest ?? digestOf(`bundle-${next()}`);
  return {
    digest,
    mediaType: 'application/vnd.abp.bundle.v1+tar',
    sizeBytes: 4096,
    path: `bundles/${digest.replace(':', '/')}.tar`,
    ...overrides,
  };
}

export function signatureRow(overrides: Overrides<SignatureInsert, 'bundleDigest'>): SignatureInsert {
  return {
    signerKind: 'keyed',
    keyId: 'abp-local-p256',
    sigstoreBundle: { mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json', dsseEnvelope: {} },
    ...overrides,
  };
}

export interface DrawnTask {
  readonly registryVersion: typeof registryVersions.$inferSelect;
  readonly snapshot: typeof backlogSnapshots.$inferSelect;
  readonly issue: typeof backlogIssues.$inferSelect;
  readonly draw: typeof draws.$inferSelect;
  readonly pick: typeof drawPicks.$inferSelect;
  readonly task: typeof tasks.$inferSelect;
}

/** Inserts the whole chain a task needs (registry → snapshot → issue → draw → pick → task). */
export async function insertDrawnTask(
  db: Database,
  overrides: { draw?: Partial<DrawInsert>; task?: Partial<TaskInsert> } = {},
): Promise<DrawnTask> {
  const registryVersion = single(await db.insert(registryVersions).values(registryVersionRow()).returning());
  const snapshot = single(
    await db
      .insert(backlogSnapshots)
      .values(backlogSnapshotRow({ registryVersion: registryVersion.id }))
      .returning(),
  );
  const issue = single(
    await db
      .insert(backlogIssues)
      .values(backlogIssueRow({ snapshotId: snapshot.id }))
      .returning(),
  );
  const draw = single(
    await db
      .insert(draws)
      .values(drawRow({ registryVersion: registryVersion.id, backlogSnapshotId: snapshot.id, ...overrides.draw }))
      .returning(),
  );
  const pickKey = { drawId: draw.id, repo: issue.repo, issueNumber: issue.issueNumber };
  const pick = single(
    await db
      .insert(drawPicks)
      .values(drawPickRow({ ...pickKey, backlogSnapshotId: snapshot.id }))
      .returning(),
  );
  const task = single(
    await db
      .insert(tasks)
      .values(taskRow({ ...pickKey, ...overrides.task }))
      .returning(),
  );
  return { registryVersion, snapshot, issue, draw, pick, task };
}

/** How many migrations drizzle has recorded as applied. */
export async function appliedMigrations(db: Database): Promise<number> {
  const [row] = await selectRows<{ count: number }>(
    db,
    sql`select count(*)::int as count from drizzle.__drizzle_migrations`,
  );
  return row?.count ?? 0;
}
