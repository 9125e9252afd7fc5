// Activities of the registry rotation: search once, fetch each batch once, publish once. Each reads what an earlier
// attempt stored before calling GitHub, so a retry or a worker crash costs at most the one batch that was in flight.
import type { Database } from '../db/connection.js';
import type { GithubClient } from '../github/client.js';
import type { Criteria } from '../registry/criteria/schema.js';
import { evaluateAll } from '../registry/criteria/evaluate.js';
import { loadCriteria } from '../registry/criteria/load.js';
import { DiscoveryError } from '../registry/discovery/errors.js';
import { CANDIDATE_BATCH_SIZE, fetchBatch, planBatches } from '../registry/discovery/fetch.js';
import { searchCandidates } from '../registry/discovery/search.js';
import { publishRegistry } from '../registry/publication.js';
import type { Attestor } from '../signing/attestor.js';
import { createRegistryVersionStatement, signedAtOf } from '@abp/protocol/signing/statement';
import { buildRegistry, entryRunner, type EvaluatedCandidate } from '../registry/rotation/build-registry.js';
import {
  readBatch,
  readBatches,
  readOptOuts,
  readPreviousVersion,
  readRegistryVersion,
  readRotation,
  rotationCost,
  RotationError,
  saveBatch,
  saveRegistryVersion,
  saveRotation,
  type StoredRotation,
} from '../registry/rotation/store.js';
import { MAX_REGISTRY_ENTRIES, type AbpRegistry } from '@abp/protocol/schemas/abp-registry';
import {
  fetchRotationBatchInput,
  publishRegistryVersionInput,
  rotateRegistryInput,
  type DiscoveredRotation,
  type FetchedRotationBatch,
  type FetchRotationBatchInput,
  type PublishedRegistryVersion,
  type PublishRegistryVersionInput,
  type RotateRegistryInput,
} from '../contracts/rotation.js';
import { parsed, permanent } from './arguments.js';
import { heartbeating } from './heartbeat.js';

export interface RotationDependencies {
  db: Database;
  github: GithubClient;
  /** The criteria to judge by; defaults to the committed files (loadCriteria). */
  criteria?: () => Promise<Criteria>;
  /** Where published documents are written (registry/publication.ts); none are written without it. */
  publishDir?: string;
  /** Signs each published version and logs it; versions are published unsigned without it (no signing key yet). */
  attestor?: Attestor;
}

// Failures no retry can fix: bad arguments, a rotation stored with other parameters, a search GitHub cannot split.
const PERMANENT_DISCOVERY_CODES = new Set<DiscoveryError['code']>([
  'invalid-options',
  'band-over-cap',
  'unexpected-answer',
]);

/** Runs an activity body, turning permanent failures into non-retryable ones; anything else Temporal retries. */
async function classified<T>(body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof RotationError) throw permanent(error);
    if (error instanceof DiscoveryError && PERMANENT_DISCOVERY_CODES.has(error.code)) throw permanent(error);
    throw error;
  }
}

async function requireRotation(db: Database, version: string): Promise<StoredRotation> {
  const rotation = await readRotation(db, version);
  if (rotation === null)
    throw new RotationError(
      'unknown-rotation',
      `no rotation of ${version} is stored; run discoverRotationCandidates for it first`,
    );
  return rotation;
}

function requireCriteria(rotation: StoredRotation, criteria: Criteria): void {
  if (criteria.version !== rotation.criteriaVersion) {
    throw new RotationError(
      'rotation-mismatch',
      `the rotation of ${rotation.version} was discovered under ${rotation.criteriaVersion} but the criteria now are ${criteria.version}; rotate a new version`,
    );
  }
}

function evaluatedCandidates(
  rotation: StoredRotation,
  facts: Parameters<typeof evaluateAll>[0],
  criteria: Criteria,
): EvaluatedCandidate[] {
  const byName = new Map(facts.map((fact) => [fact.nameWithOwner, fact]));
  return evaluateAll(facts, criteria, new Date(rotation.sourcedAt)).map((evaluation) => {
    const fact = byName.get(evaluation.nameWithOwner);
    return {
      repo: evaluation.nameWithOwner,
      stars: fact?.stargazerCount ?? 0,
      license: fact?.licenseSpdxId ?? null,
      // Only an empty repository has no default branch, and it has no test suite either, so it is never listed.
      defaultBranch: fact?.defaultBranch ?? '',
      eligible: evaluation.eligible,
      failures: evaluation.verdicts.flatMap((verdict) =>
        verdict.pass ? [] : [{ criterion: verdict.criterion, reason: verdict.reason, detail: verdict.detail }],
      ),
      runner: evaluation.runner === null ? null : entryRunner(evaluation.runner, fact?.primaryLanguage ?? null),
    };
  });
}

function summary(
  document: AbpRegistry,
  cost: PublishedRegistryVersion['cost'],
  fromStore: boolean,
): PublishedRegistryVersion {
  return {
    version: document.version,
    digest: document.digest,
    entries: document.entries.length,
    added: document.diff.added.length,
    removed: document.diff.removed.length,
    kept: document.diff.kept.length,
    cost,
    fromStore,
  };
}

export function createRotationActivities({
  db,
  github,
  criteria: readCriteria = () => loadCriteria(),
  publishDir,
  attestor,
}: RotationDependencies) {
  // Written and signed on every call, stored or not: a crash between the database commit and the file (or the
  // signature) leaves the next call to finish it; the attestor keeps the first signature.
  const publish = async (document: AbpRegistry) => {
    if (publishDir !== undefined) await publishRegistry(publishDir, document);
    await attestor?.attest(
      'registry-version',
      createRegistryVersionStatement({
        version: document.version,
        digest: document.digest,
        previous: document.previous,
        criteriaVersion: document.criteriaVersion,
        repositories: document.entries.length,
        signedAt: signedAtOf(new Date()),
      }),
    );
  };
  return {
    /** Searches the top repositories once per rotation; a rerun returns what the first run stored. */
    async discoverRotationCandidates(input: RotateRegistryInput): Promise<DiscoveredRotation> {
      const args = parsed(rotateRegistryInput, input, 'discoverRotationCandidates');
      return classified(async () => {
        const criteria = await readCriteria();
        const wanted = {
          top: args.top,
          batchSize: args.batchSize ?? CANDIDATE_BATCH_SIZE,
          size: args.size ?? MAX_REGISTRY_ENTRIES,
          sourcedAt: args.sourcedAt,
          criteriaVersion: criteria.version,
        };
        let rotation = await readRotation(db, args.version);
        const fromStore = rotation !== null;
        if (rotation === null) {
          const search = await searchCandidates(github, { top: args.top });
          rotation = await saveRotation(db, {
            version: args.version,
            ...wanted,
            candidates: search.hits.map((hit) => hit.nameWithOwner),
            searchCost: search.cost,
          });
        }
        for (const [key, value] of Object.entries(wanted)) {
          const stored = rotation[key as keyof typeof wanted];
          if (stored !== value) {
            throw new RotationError(
              'rotation-mismatch',
              `the rotation of ${args.version} is stored with ${key} ${JSON.stringify(stored)}, not ${JSON.stringify(value)}; rerun it with the stored parameters or rotate another version`,
            );
          }
        }
        return {
          rotation: rotation.version,
          candidates: rotation.candidates.length,
          batches: planBatches(rotation.candidates, rotation.batchSize).length,
          cost: rotation.searchCost,
          fromStore,
        };
      });
    },

    /** Reads one batch's criteria facts from GitHub and stores them, unless an earlier attempt stored them. */
    async fetchRotationBatch(input: FetchRotationBatchInput): Promise<FetchedRotationBatch> {
      const { rotation: version, index } = parsed(fetchRotationBatchInput, input, 'fetchRotationBatch');
      return classified(async () => {
        let batch = await readBatch(db, version, index);
        const fromStore = batch !== null;
        if (batch === null) {
          const rotation = await requireRotation(db, version);
          const names = planBatches(rotation.candidates, rotation.batchSize)[index];
          if (names === undefined)
            throw new RotationError(
              'batch-out-of-range',
              `${version} has ${Math.ceil(rotation.candidates.length / rotation.batchSize)} batches; there is no batch ${index}`,
            );
          const criteria = await readCriteria();
          requireCriteria(rotation, criteria);
          // Stored even if the worker is shutting down meanwhile: the calls are paid for, a retry should not repeat them.
          const fetched = await heartbeating(() => fetchBatch(github, names, criteria), { index, phase: 'fetching' });
          batch = await saveBatch(db, {
            version,
            index,
            facts: fetched.candidates,
            missing: fetched.missing,
            cost: fetched.cost,
          });
        }
        return {
          rotation: version,
          index,
          candidates: batch.facts.length,
          missing: batch.missing.length,
          cost: batch.cost,
          fromStore,
        };
      });
    },

    /** Judges every stored candidate and stores the version with its entries; a version stored already is returned as is. */
    async publishRegistryVersion(input: PublishRegistryVersionInput): Promise<PublishedRegistryVersion> {
      const { rotation: version } = parsed(publishRegistryVersionInput, input, 'publishRegistryVersion');
      return classified(async () => {
        const rotation = await requireRotation(db, version);
        const batches = await readBatches(db, version);
        const cost = rotationCost(rotation, batches);
        const stored = await readRegistryVersion(db, version);
        if (stored !== null) {
          await publish(stored);
          return summary(stored, cost, true);
        }
        const expected = planBatches(rotation.candidates, rotation.batchSize).length;
        if (batches.length !== expected) {
          throw new RotationError(
            'batches-missing',
            `${version} has ${batches.length} of its ${expected} batches stored; fetch the rest (fetchRotationBatch) before publishing`,
          );
        }
        const criteria = await readCriteria();
        requireCriteria(rotation, criteria);
        const document = buildRegistry({
          version,
          criteriaVersion: criteria.version,
          sourcedAt: rotation.sourcedAt,
          candidates: evaluatedCandidates(
            rotation,
            batches.flatMap((batch) => batch.facts),
            criteria,
          ),
          previous: await readPreviousVersion(db, version),
          optOuts: await readOptOuts(db),
          size: rotation.size,
        });
        const inserted = await saveRegistryVersion(db, document);
        // A concurrent attempt that won the insert stored its own document: report that one.
        const published = inserted ? document : await readRegistryVersion(db, version);
        if (published === null)
          throw new RotationError(
            'stored-data-invalid',
            `${version} was stored by another attempt but cannot be read back`,
          );
        await publish(published);
        return summary(published, cost, !inserted);
      });
    },
  };
}
