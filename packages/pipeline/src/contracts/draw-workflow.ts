// Arguments and results of the draw workflow, its activities and the task workflows it starts. Results carry digests,
// counts and the picks' keys only: snapshots and records live in the publication folder and the database.
import { z } from 'zod';
import { apiCost } from './rotation.js';
import {
  nonNegativeInt,
  registryVersion,
  repoFullName,
  sha256Digest,
  utcTimestamp,
} from '@abp/protocol/schemas/primitives';

/** Seeds are published integers; seedrandom reads them as text, and JSON carries them exactly up to 2^53. */
const seed = z.int().min(0).max(Number.MAX_SAFE_INTEGER);

export const drawTasksInput = z.strictObject({
  seed,
  count: z.int().min(1).max(10_000),
  /** The registry version to draw from; null: the latest published. */
  registryVersion: registryVersion.nullable(),
});
export type DrawTasksInput = z.infer<typeof drawTasksInput>;

export const snapshotBacklogInput = z.strictObject({
  registryVersion: registryVersion.nullable(),
  takenAt: utcTimestamp,
});
export type SnapshotBacklogInput = z.infer<typeof snapshotBacklogInput>;

export const takenSnapshot = z.strictObject({
  registryVersion,
  digest: sha256Digest,
  /** Where the canonical snapshot file was published. */
  path: z.string(),
  repos: nonNegativeInt,
  issues: nonNegativeInt,
  eligible: nonNegativeInt,
  /** How many issues each eligibility rule left out (absent from snapshots taken before it was recorded). */
  excluded: z.record(z.string(), nonNegativeInt).optional(),
  mode: z.enum(['full', 'incremental']),
  cost: apiCost,
});
export type TakenSnapshot = z.infer<typeof takenSnapshot>;

export const recordDrawInput = z.strictObject({
  seed,
  count: drawTasksInput.shape.count,
  snapshotDigest: sha256Digest,
  drawnAt: utcTimestamp,
});
export type RecordDrawInput = z.infer<typeof recordDrawInput>;

export const drawnTask = z.strictObject({
  taskId: z.string().min(1),
  drawId: z.string().min(1),
  repo: repoFullName,
  issue: z.int().positive(),
});
export type DrawnTask = z.infer<typeof drawnTask>;

export const recordedDraw = z.strictObject({
  drawId: z.string().min(1),
  digest: sha256Digest,
  /** The published record, and the opt-out list in force, which `abp audit draw` needs besides the snapshot. */
  recordPath: z.string(),
  optOutsPath: z.string(),
  /** The published backlog snapshot the draw was made from. */
  snapshotPath: z.string(),
  /** The signed draw-record statement (signing/attestor.ts); null on a worker without a signing key. */
  statementPath: z.string().nullable(),
  /** False when this draw was recorded before: the first record (and its drawnAt) stands. */
  created: z.boolean(),
  picks: z.array(drawnTask),
});
export type RecordedDraw = z.infer<typeof recordedDraw>;

export const findDrawInput = drawTasksInput;
export type FindDrawInput = z.infer<typeof findDrawInput>;

export const drawTasksResult = z.strictObject({
  /** Null when the draw (same registry version, seed and count) was made before: no snapshot is taken again. */
  snapshot: takenSnapshot.nullable(),
  draw: recordedDraw,
  /** Task workflows this run started, and picks whose task workflow existed already. */
  tasksStarted: nonNegativeInt,
  tasksExisting: nonNegativeInt,
});
export type DrawTasksResult = z.infer<typeof drawTasksResult>;
