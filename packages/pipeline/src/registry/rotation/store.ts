// Persistence of a registry rotation: the searched candidate names and each batch's facts with their API cost (so a
// resumed rotation pays for nothing twice), the published version with its entries, and the inputs a version is
// built against (the previous version, the opt-outs). Every write is idempotent: a second write of a key keeps the first.
import { and, asc, desc, eq, lt } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '../../db/connection.js';
import type { JsonObject } from '../../db/json.js';
import {
  optOuts,
  registryEntries,
  registryRotationBatches,
  registryRotations,
  registryVersions,
} from '../../db/schema/index.js';
import { registrySchema, type AbpRegistry } from '@abp/protocol/schemas/abp-registry';
import type { ApiCost } from '../../contracts/rotation.js';
import { candidateFactsSchema, type CandidateFacts } from '../criteria/facts.js';
import { AbpError } from '@abp/protocol/errors';

export type RotationErrorCode =
  /** A rotation of this version is stored with other parameters (top, batch size, size, sourcedAt or criteria). */
  | 'rotation-mismatch'
  /** No rotation of this version is stored: discovery has not run. */
  | 'unknown-rotation'
  /** A batch index beyond the rotation's batches. */
  | 'batch-out-of-range'
  /** Publishing found batches not yet fetched. */
  | 'batches-missing'
  /** Stored rows no longer match the schema they were written with. */
  | 'stored-data-invalid';

export class RotationError extends AbpError<RotationErrorCode> {}

export interface StoredRotation {
  version: string;
  top: number;
  batchSize: number;
  size: number;
  criteriaVersion: string;
  sourcedAt: string;
  /** Ranked by search: stars descending, then name. */
  candidates: string[];
  searchCost: ApiCost;
}

export interface StoredBatch {
  version: string;
  index: number;
  facts: CandidateFacts[];
  missing: string[];
  cost: ApiCost;
}

function rotationOf(row: typeof registryRotations.$inferSelect): StoredRotation {
  return {
    version: row.version,
    top: row.top,
    batchSize: row.batchSize,
    size: row.size,
    criteriaVersion: row.criteriaVersion,
    sourcedAt: row.sourcedAt,
    candidates: row.candidates,
    searchCost: { requests: row.searchRequests, points: row.searchPoints },
  };
}

const storedFacts = z.array(candidateFactsSchema);

function batchOf(row: typeof registryRotationBatches.$inferSelect): StoredBatch {
  const facts = storedFacts.safeParse(row.facts);
  if (!facts.success) {
    throw new RotationError(
      'stored-data-invalid',
      `batch ${row.batchIndex} of ${row.version} holds facts the current schema refuses (${facts.error.issues[0]?.message ?? ''}); delete the batch row so the rotation fetches it again`,
    );
  }
  return {
    version: row.version,
    index: row.batchIndex,
    facts: facts.data,
    missing: row.missing,
    cost: { requests: row.requests, points: row.points },
  };
}

export async function readRotation(db: Database, version: string): Promise<StoredRotation | null> {
  const [row] = await db.select().from(registryRotations).where(eq(registryRotations.version, version));
  return row === undefined ? null : rotationOf(row);
}

/** Stores the rotation unless one of its version is stored already; returns the stored one either way. */
export async function saveRotation(db: Database, rotation: StoredRotation): Promise<StoredRotation> {
  const { searchCost, ...columns } = rotation;
  await db
    .insert(registryRotations)
    .values({ ...columns, searchRequests: searchCost.requests, searchPoints: searchCost.points })
    .onConflictDoNothing({ target: registryRotations.version });
  const stored = await readRotation(db, rotation.version);
  if (stored === null)
    throw new RotationError(
      'unknown-rotation',
      `the rotation of ${rotation.version} vanished right after it was stored`,
    );
  return stored;
}

export async function readBatch(db: Database, version: string, index: number): Promise<StoredBatch | null> {
  const [row] = await db
    .select()
    .from(registryRotationBatches)
    .where(and(eq(registryRotationBatches.version, version), eq(registryRotationBatches.batchIndex, index)));
  return row === undefined ? null : batchOf(row);
}

/** Stores a fetched batch in one statement unless an earlier attempt stored it; returns the stored one. */
export async function saveBatch(db: Database, batch: StoredBatch): Promise<StoredBatch> {
  await db
    .insert(registryRotationBatches)
    .values({
      version: batch.version,
      batchIndex: batch.index,
      facts: batch.facts,
      missing: batch.missing,
      requests: batch.cost.requests,
      points: batch.cost.points,
    })
    .onConflictDoNothing({ target: [registryRotationBatches.version, registryRotationBatches.batchIndex] });
  const stored = await readBatch(db, batch.version, batch.index);
  if (stored === null)
    throw new RotationError(
      'unknown-rotation',
      `batch ${batch.index} of ${batch.version} vanished right after it was stored`,
    );
  return stored;
}

/** The rotation's stored batches, in index order. */
export async function readBatches(db: Database, version: string): Promise<StoredBatch[]> {
  const rows = await db
    .select()
    .from(registryRotationBatches)
    .where(eq(registryRotationBatches.version, version))
    .orderBy(asc(registryRotationBatches.batchIndex));
  return rows.map(batchOf);
}

/** The search's cost plus every stored batch's. */
export function rotationCost(rotation: StoredRotation, batches: readonly StoredBatch[]): ApiCost {
  return batches.reduce(
    (total, batch) => ({ requests: total.requests + batch.cost.requests, points: total.points + batch.cost.points }),
    rotation.searchCost,
  );
}

function documentOf(row: typeof registryVersions.$inferSelect): AbpRegistry {
  const document = registrySchema.safeParse(row.document);
  if (!document.success) {
    throw new RotationError(
      'stored-data-invalid',
      `the stored document of ${row.id} is not a valid abp-registry/v1 document (${document.error.issues[0]?.message ?? ''})`,
    );
  }
  return document.data;
}

export async function readRegistryVersion(db: Database, version: string): Promise<AbpRegistry | null> {
  const [row] = await db.select().from(registryVersions).where(eq(registryVersions.id, version));
  return row === undefined ? null : documentOf(row);
}

/** The latest version before `version` (quarters `YYYYQn` order as text), or null for the first. */
export async function readPreviousVersion(db: Database, version: string): Promise<AbpRegistry | null> {
  const [row] = await db
    .select()
    .from(registryVersions)
    .where(lt(registryVersions.id, version))
    .orderBy(desc(registryVersions.id))
    .limit(1);
  return row === undefined ? null : documentOf(row);
}

export async function readOptOuts(db: Database): Promise<Set<string>> {
  const rows = await db.select({ repo: optOuts.repo }).from(optOuts);
  return new Set(rows.map((row) => row.repo));
}

/**
 * Stores the version and its entries in one transaction. Returns false, writing nothing, when the version is stored
 * already (a retried or concurrent publish).
 */
export async function saveRegistryVersion(db: Database, document: AbpRegistry): Promise<boolean> {
  return db.transaction(async (tx) => {
    const inserted = await tx
      .insert(registryVersions)
      .values({
        id: document.version,
        quarter: document.version.replace(/^abp-registry\//, ''),
        criteriaVersion: document.criteriaVersion,
        sourcedAt: new Date(document.sourcedAt),
        digest: document.digest,
        previousVersion: document.previous,
        document: document as unknown as JsonObject,
      })
      .onConflictDoNothing({ target: registryVersions.id })
      .returning({ id: registryVersions.id });
    if (inserted.length === 0) return false;
    if (document.entries.length > 0) {
      await tx.insert(registryEntries).values(
        document.entries.map((entry) => ({
          registryVersion: document.version,
          repo: entry.repo,
          stars: entry.stars,
          licenseSpdx: entry.license,
          defaultBranch: entry.defaultBranch,
          runnerRecipe: entry.runner,
          verdict: 'included' as const,
          reasons: [],
        })),
      );
    }
    return true;
  });
}
