// Arguments and results of the registry rotation workflow and its activities. Results carry counts and costs only:
// the candidate facts stay in the database, so the workflow history stays small however large the rotation.
import { z } from 'zod';
import { MAX_REGISTRY_ENTRIES } from '@abp/protocol/schemas/abp-registry';
import {
  nonNegativeInt,
  registryVersion,
  repoFullName,
  sha256Digest,
  utcTimestamp,
} from '@abp/protocol/schemas/primitives';

/** GitHub's GraphQL page size bounds a batch (registry/discovery/fetch.ts). */
const MAX_BATCH_SIZE = 100;

export const rotateRegistryInput = z.strictObject({
  /** The version to publish, e.g. `abp-registry/2026Q4`; the rotation is keyed by it. */
  version: registryVersion,
  /** How many repositories, the most starred first, are discovered and judged. */
  top: z.int().min(1).max(100_000),
  /** When the facts are read; the criteria judge recency against it and the document records it. */
  sourcedAt: utcTimestamp,
  /** Repositories per GraphQL batch; default 100. */
  batchSize: z.int().min(1).max(MAX_BATCH_SIZE).optional(),
  /** Entries the version may hold at most; default 500. */
  size: z.int().min(1).max(MAX_REGISTRY_ENTRIES).optional(),
});
export type RotateRegistryInput = z.infer<typeof rotateRegistryInput>;

/** GraphQL calls sent and rate-limit points charged. */
export const apiCost = z.strictObject({ requests: nonNegativeInt, points: nonNegativeInt });
export type ApiCost = z.infer<typeof apiCost>;

export const discoveredRotation = z.strictObject({
  rotation: registryVersion,
  candidates: nonNegativeInt,
  batches: nonNegativeInt,
  /** What the search cost when it ran (zero is never reported for a stored search: its recorded cost is). */
  cost: apiCost,
  /** The search was read from the database, not sent again. */
  fromStore: z.boolean(),
});
export type DiscoveredRotation = z.infer<typeof discoveredRotation>;

export const fetchRotationBatchInput = z.strictObject({ rotation: registryVersion, index: nonNegativeInt });
export type FetchRotationBatchInput = z.infer<typeof fetchRotationBatchInput>;

export const fetchedRotationBatch = z.strictObject({
  rotation: registryVersion,
  index: nonNegativeInt,
  candidates: nonNegativeInt,
  missing: nonNegativeInt,
  /** What the batch cost when it was fetched. */
  cost: apiCost,
  fromStore: z.boolean(),
});
export type FetchedRotationBatch = z.infer<typeof fetchedRotationBatch>;

export const publishRegistryVersionInput = z.strictObject({ rotation: registryVersion });
export type PublishRegistryVersionInput = z.infer<typeof publishRegistryVersionInput>;

export const publishedRegistryVersion = z.strictObject({
  version: registryVersion,
  digest: sha256Digest,
  entries: nonNegativeInt,
  added: nonNegativeInt,
  removed: nonNegativeInt,
  kept: nonNegativeInt,
  /** The rotation's recorded cost: its search plus every batch. */
  cost: apiCost,
  /** The version was already stored; nothing was written. */
  fromStore: z.boolean(),
});
export type PublishedRegistryVersion = z.infer<typeof publishedRegistryVersion>;

export const rotationResult = publishedRegistryVersion.extend({
  candidates: nonNegativeInt,
  batches: nonNegativeInt,
  /** Batches this run read from the database instead of GitHub. */
  batchesFromStore: nonNegativeInt,
});
export type RotationResult = z.infer<typeof rotationResult>;

export { quarterVersion } from '@abp/protocol/schemas/quarter';

/** What the quarterly Schedule passes to every scheduled rotation; the version and `sourcedAt` come from the scheduled time. */
export const scheduledRotationInput = rotateRegistryInput.omit({ version: true, sourcedAt: true });
export type ScheduledRotationInput = z.infer<typeof scheduledRotationInput>;

/** The Schedule's id: one per namespace, so creating it again finds the one that exists. */
export const ROTATION_SCHEDULE_ID = 'abp-registry-quarterly-rotation';

/** A maintainer's request that a repository never be drawn again (spec §4.5): kept out of the next rotation and of every new draw. */
export const optOutInput = z.strictObject({
  repo: repoFullName,
  reason: z
    .string()
    .trim()
    .min(1, { error: 'say why the repository opts out, e.g. --reason "maintainers asked by email, 2026-11-30"' }),
  /** A GitHub login or an email address. */
  requestedBy: z.string().trim().min(1),
});
export type OptOutInput = z.infer<typeof optOutInput>;

export const optOutResult = z.strictObject({
  repo: repoFullName,
  /** False when the repository had opted out already; the first request's reason stands. */
  added: z.boolean(),
  /** Every opted-out repository after the change, sorted. */
  optOuts: z.array(repoFullName),
});
export type OptOutResult = z.infer<typeof optOutResult>;
