// Star-banded repository search: GitHub serves at most 1,000 results of any search, so the star range is split,
// recursively, into bands that each hold fewer than 1,000 repositories; each band is paged through in full, bands are
// read from the most starred down until `top` repositories are known, and results merge on nameWithOwner.
import { z } from 'zod';
import type { GithubClient } from '../../github/client.js';
import { compareCodeUnits } from '@abp/protocol/schemas/primitives';
import { DiscoveryError } from './errors.js';
import type { DiscoveryCost } from './graphql.js';
import { charge, queryFailed, readAnswer } from './graphql.js';

/** GitHub serves the first 1,000 results of a search, whatever `repositoryCount` says. */
export const SEARCH_RESULT_CAP = 1_000;
const PAGE_SIZE = 100;

export interface SearchOptions {
  /** How many repositories to return, the most starred first. */
  top: number;
  /** Repositories with fewer stars are not searched; default 0. */
  minStars?: number;
}

export interface SearchHit {
  nameWithOwner: string;
  stargazerCount: number;
}

/** A star range that was paged through: `minStars..maxStars`, or `>=minStars` when maxStars is null. */
export interface StarBand {
  minStars: number;
  maxStars: number | null;
  /** GitHub's count for the band when it was read. */
  repositoryCount: number;
  /**
   * Distinct repositories the band's pages returned. Fewer than repositoryCount means the ranking moved while the
   * band was paged (GitHub's search is live); the caller may search again.
   */
  found: number;
}

export interface SearchResult {
  /** At most `top`, by stars descending, then nameWithOwner in code-unit order. */
  hits: SearchHit[];
  /** Bands read in full, most starred first. */
  bands: StarBand[];
  /** Bands found to hold 1,000 or more, each answered with one page and split in two. */
  splits: number;
  cost: DiscoveryCost;
}

// `$cursor` is the variable the pagination plugin advances; `$q` because octokit reserves `query`.
const SEARCH_QUERY = `query RegistrySearch($q: String!, $cursor: String) {
  rateLimit { cost }
  search(type: REPOSITORY, query: $q, first: ${PAGE_SIZE}, after: $cursor) {
    repositoryCount
    pageInfo { hasNextPage endCursor }
    nodes { ... on Repository { nameWithOwner stargazerCount } }
  }
}`;

const searchAnswer = z.object({
  search: z.object({
    repositoryCount: z.int().nonnegative(),
    nodes: z.array(z.object({ nameWithOwner: z.string(), stargazerCount: z.int().nonnegative() }).nullable()),
  }),
});

/** GitHub's search syntax for a band; forks are included (the criteria reject them with a reason), archived ones are by default. */
export function bandQuery(band: Pick<StarBand, 'minStars' | 'maxStars'>): string {
  const stars = band.maxStars === null ? `>=${band.minStars}` : `${band.minStars}..${band.maxStars}`;
  return `stars:${stars} fork:true sort:stars-desc`;
}

function checkOptions(options: SearchOptions): number {
  const minStars = options.minStars ?? 0;
  if (!Number.isSafeInteger(options.top) || options.top < 1) {
    throw new DiscoveryError(
      'invalid-options',
      `top must be a positive integer, got ${options.top}; pass how many repositories to discover, e.g. 3000`,
    );
  }
  if (!Number.isSafeInteger(minStars) || minStars < 0) {
    throw new DiscoveryError('invalid-options', `minStars must be a non-negative integer, got ${minStars}`);
  }
  return minStars;
}

/** Where an over-cap band is cut: the geometric middle of its stars, since stars fall off as a power law. */
function splitPoint(minStars: number, maxStars: number): number {
  return Math.min(maxStars, Math.max(minStars + 1, Math.floor(Math.sqrt((minStars + 1) * (maxStars + 1)))));
}

type BandRange = Pick<StarBand, 'minStars' | 'maxStars'>;

/**
 * Pages through one band into `hits`, or, when GitHub counts 1,000 or more in it, stops after the first page and
 * returns the two halves to read instead.
 */
async function readBand(
  octokit: GithubClient,
  band: BandRange,
  hits: Map<string, SearchHit>,
  cost: DiscoveryCost,
): Promise<StarBand | [BandRange, BandRange]> {
  const q = bandQuery(band);
  const found = new Set<string>();
  let repositoryCount = 0;
  try {
    for await (const data of octokit.graphql.paginate.iterator<unknown>(SEARCH_QUERY, { q })) {
      charge(cost, data);
      const page = readAnswer(searchAnswer, data, `the search "${q}"`).search;
      repositoryCount = page.repositoryCount;
      if (repositoryCount >= SEARCH_RESULT_CAP) {
        // An open band's top is its first result: results come most starred first.
        const maxStars = band.maxStars ?? page.nodes.find((node) => node !== null)?.stargazerCount ?? band.minStars;
        if (maxStars <= band.minStars) {
          throw new DiscoveryError(
            'band-over-cap',
            `${repositoryCount} repositories match "${q}", all with ${band.minStars} stars, and one search returns at most ${SEARCH_RESULT_CAP}; raise minStars above ${band.minStars} or lower top`,
          );
        }
        const middle = splitPoint(band.minStars, maxStars);
        return [
          { minStars: band.minStars, maxStars: middle - 1 },
          { minStars: middle, maxStars: band.maxStars },
        ];
      }
      for (const node of page.nodes) {
        // A ranking that shifts between pages repeats results: identity is the name, not the position.
        if (node === null) continue;
        hits.set(node.nameWithOwner.toLowerCase(), node);
        found.add(node.nameWithOwner.toLowerCase());
      }
    }
  } catch (error) {
    throw queryFailed(error, `the search "${q}"`);
  }
  return { ...band, repositoryCount, found: found.size };
}

export async function searchCandidates(octokit: GithubClient, options: SearchOptions): Promise<SearchResult> {
  const minStars = checkOptions(options);
  const cost: DiscoveryCost = { requests: 0, points: 0 };
  const hits = new Map<string, SearchHit>();
  const bands: StarBand[] = [];
  let splits = 0;
  // Last in, first out: the upper half of a split is read before the lower one, so bands come most starred first.
  const pending: BandRange[] = [{ minStars, maxStars: null }];
  while (hits.size < options.top) {
    const band = pending.pop();
    if (band === undefined) break;
    const read = await readBand(octokit, band, hits, cost);
    if (Array.isArray(read)) {
      pending.push(...read);
      splits += 1;
    } else {
      bands.push(read);
    }
  }
  const sorted = [...hits.values()].sort(
    (a, b) => b.stargazerCount - a.stargazerCount || compareCodeUnits(a.nameWithOwner, b.nameWithOwner),
  );
  return { hits: sorted.slice(0, options.top), bands, splits, cost };
}
