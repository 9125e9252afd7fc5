// Arguments and results of the registry rotation workflow and its activities. Results carry counts and costs only:
// the candidate facts stay in the database, so the workflow history stays small however large the rotation.
import { z } from 'zod';
import { MAX_REGISTRY_ENTRIES } from './abp-registry.js';
import { nonNegativeInt, registryVersion, sha256Digest, utcTimestamp } from './primitives.js';

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
