// Turns one rotation's evaluated candidates into the next abp-registry/v1 document: the top repositories by stars among
// those that pass every criterion and have not opted out, sorted, content-addressed, with the diff to the previous
// version and a reason for every repository that left. Pure: the same inputs give the same bytes.
import { entryLanguage } from '../suites/suite.js';
import {
  registrySchema,
  MAX_REGISTRY_ENTRIES,
  REGISTRY_SCHEMA_ID,
  type AbpRegistry,
  type RegistryEntry,
} from '@abp/protocol/schemas/abp-registry';
import { compareCodeUnits } from '@abp/protocol/schemas/primitives';
import { registryDigest } from '@abp/protocol/schemas/registry-digest';
import { installSteps, type RunnerRecipe } from '../criteria/schema.js';

type RemovalReason = AbpRegistry['diff']['removed'][number]['reason'];

/** A detected runner recipe as a registry entry lists it; the language is the repository's, else its ecosystem's. */
export function entryRunner(recipe: RunnerRecipe, primaryLanguage: string | null): RegistryEntry['runner'] {
  return {
    language: entryLanguage(recipe.ecosystem, primaryLanguage),
    install: installSteps(recipe),
    test: [recipe.test],
    reportFormat: recipe.report,
  };
}

/** One candidate as the rotation evaluated it: its facts, whether it passed, and the first failed criterion if not. */
export interface EvaluatedCandidate {
  repo: string;
  stars: number;
  license: string | null;
  defaultBranch: string;
  eligible: boolean;
  /** The failed criteria in criteria order, each with its reason code; empty when eligible. */
  failures: Array<{ criterion: string; reason: string; detail?: string }>;
  runner: RegistryEntry['runner'] | null;
}

export interface RegistryInputs {
  version: string;
  criteriaVersion: string;
  sourcedAt: string;
  candidates: readonly EvaluatedCandidate[];
  previous: AbpRegistry | null;
  /** Repositories that asked to be left out, any case. */
  optOuts: ReadonlySet<string>;
  size?: number;
}

// Why a listed repository left, from the first criterion it now fails.
function removalReason(failure: EvaluatedCandidate['failures'][number]): RemovalReason {
  switch (failure.criterion) {
    case 'osiLicense':
      return 'not-osi-licensed';
    case 'notArchivedForkMirror':
      return failure.reason === 'archived' ? 'archived' : 'unavailable';
    case 'mergedPullWithin30Days':
      return 'inactive';
    case 'runnableTestSuite':
      return 'no-runnable-tests';
    default:
      return 'issue-hygiene';
  }
}

const byStarsThenName = (a: EvaluatedCandidate, b: EvaluatedCandidate) =>
  b.stars - a.stars || compareCodeUnits(a.repo, b.repo);

export function buildRegistry(inputs: RegistryInputs): AbpRegistry {
  const optedOut = new Set([...inputs.optOuts].map((repo) => repo.toLowerCase()));
  const size = inputs.size ?? MAX_REGISTRY_ENTRIES;
  const chosen = inputs.candidates
    .filter(
      (candidate) =>
        candidate.eligible &&
        candidate.runner !== null &&
        candidate.license !== null &&
        !optedOut.has(candidate.repo.toLowerCase()),
    )
    .sort(byStarsThenName)
    .slice(0, size);
  const previousEntries = new Map((inputs.previous?.entries ?? []).map((entry) => [entry.repo.toLowerCase(), entry]));
  const entries: RegistryEntry[] = chosen
    .map((candidate) => ({
      repo: candidate.repo,
      stars: candidate.stars,
      license: candidate.license ?? '',
      defaultBranch: candidate.defaultBranch,
      runner: candidate.runner as RegistryEntry['runner'],
      addedIn: previousEntries.get(candidate.repo.toLowerCase())?.addedIn ?? inputs.version,
    }))
    .sort((a, b) => compareCodeUnits(a.repo, b.repo));

  const listed = new Set(entries.map((entry) => entry.repo.toLowerCase()));
  const candidateOf = new Map(inputs.candidates.map((candidate) => [candidate.repo.toLowerCase(), candidate]));
  const removed = [...previousEntries.values()]
    .filter((entry) => !listed.has(entry.repo.toLowerCase()))
    .map((entry) => {
      const key = entry.repo.toLowerCase();
      const candidate = candidateOf.get(key);
      if (optedOut.has(key)) return { repo: entry.repo, reason: 'opted-out' as const };
      if (!candidate)
        return { repo: entry.repo, reason: 'out-of-top-500' as const, detail: 'not among the discovered candidates' };
      const [failure] = candidate.failures;
      if (failure)
        return {
          repo: entry.repo,
          reason: removalReason(failure),
          detail: failure.detail ?? `${failure.criterion}: ${failure.reason}`,
        };
      return {
        repo: entry.repo,
        reason: 'out-of-top-500' as const,
        detail: `${candidate.stars} stars is below the ${size} listed`,
      };
    })
    .sort((a, b) => compareCodeUnits(a.repo, b.repo));

  const withoutDigest = {
    schema: REGISTRY_SCHEMA_ID,
    version: inputs.version,
    criteriaVersion: inputs.criteriaVersion,
    sourcedAt: inputs.sourcedAt,
    entries,
    previous: inputs.previous?.version ?? null,
    diff: {
      added: entries.filter((entry) => !previousEntries.has(entry.repo.toLowerCase())).map((entry) => entry.repo),
      removed,
      kept: entries.filter((entry) => previousEntries.has(entry.repo.toLowerCase())).map((entry) => entry.repo),
    },
  };
  // The document validates itself: a rotation never publishes what `abp validate` would refuse.
  return registrySchema.parse({ ...withoutDigest, digest: registryDigest(withoutDigest) });
}
