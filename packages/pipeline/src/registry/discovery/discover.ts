// A rotation's discovery in one call: the top repositories by stars (search.ts), then their criteria inputs in
// batches (fetch.ts), with the API cost of both. A caller that persists between batches uses the two parts directly.
import type { GithubClient } from '../../github/client.js';
import type { CandidateFacts } from '../criteria/facts.js';
import type { CriteriaDocument } from '../criteria/schema.js';
import { fetchBatch, planBatches } from './fetch.js';
import type { DiscoveryCost } from './graphql.js';
import { addCost } from './graphql.js';
import type { SearchOptions, StarBand } from './search.js';
import { searchCandidates } from './search.js';

export interface DiscoveryOptions extends SearchOptions {
  /** The criteria whose inputs are read (folders, files, bug labels). */
  criteria: CriteriaDocument;
  /** Repositories per query; default CANDIDATE_BATCH_SIZE. */
  batchSize?: number;
}

export interface Discovery {
  /** By stars descending, then nameWithOwner, as search ranked them. */
  candidates: CandidateFacts[];
  /** Found by search, gone by the time their batch was read. */
  missing: string[];
  bands: StarBand[];
  splits: number;
  /** Search and batches together. */
  cost: DiscoveryCost;
}

export async function discoverCandidates(octokit: GithubClient, options: DiscoveryOptions): Promise<Discovery> {
  const search = await searchCandidates(octokit, options);
  const cost: DiscoveryCost = { ...search.cost };
  const candidates: CandidateFacts[] = [];
  const missing: string[] = [];
  for (const names of planBatches(
    search.hits.map((hit) => hit.nameWithOwner),
    options.batchSize,
  )) {
    const batch = await fetchBatch(octokit, names, options.criteria);
    candidates.push(...batch.candidates);
    missing.push(...batch.missing);
    addCost(cost, batch.cost);
  }
  return { candidates, missing, bands: search.bands, splits: search.splits, cost };
}
