// Reads GitHub's repository search syntax (`q`, `sort`, `order`) into the world's RepoSearch.
// Only the qualifiers the pipeline's discovery uses are understood; anything else is refused with a
// 422 naming it, because answering it with unfiltered results would hide a broken query.
import type { RepoSearch } from '../world/model.js';
import { docs, invalidField, missingField, unsupportedQuery } from './errors.js';

interface StarRange {
  min?: number;
  max?: number;
}

function count(raw: string): number | null {
  return /^\d+$/.test(raw) ? Number(raw) : null;
}

/** `stars:` takes `n`, `>n`, `>=n`, `<n`, `<=n`, `a..b`, `a..*` and `*..b`, as GitHub's syntax does. */
function readStars(value: string): StarRange | null {
  const range = /^(\d+|\*)\.\.(\d+|\*)$/.exec(value);
  if (range) {
    const [, low = '*', high = '*'] = range;
    const out: StarRange = {};
    if (low !== '*') out.min = Number(low);
    if (high !== '*') out.max = Number(high);
    return out;
  }
  const compare = /^(>=|<=|>|<)?(\d+)$/.exec(value);
  if (!compare) return null;
  const n = count(compare[2] ?? '');
  if (n === null) return null;
  switch (compare[1] ?? '=') {
    case '>=':
      return { min: n };
    case '>':
      return { min: n + 1 };
    case '<=':
      return { max: n };
    case '<':
      return { max: n - 1 };
    case '=':
      return { min: n, max: n };
    default:
      return null;
  }
}

function intersect(a: StarRange, b: StarRange): StarRange {
  const out: StarRange = {};
  const min = Math.max(a.min ?? 0, b.min ?? 0);
  if (a.min !== undefined || b.min !== undefined) out.min = min;
  const maxes = [a.max, b.max].filter((m): m is number => m !== undefined);
  if (maxes.length > 0) out.max = Math.min(...maxes);
  return out;
}

/** Splits on whitespace but keeps `"quoted values"` whole (`language:"Jupyter Notebook"`). */
function terms(q: string): string[] {
  return [...q.matchAll(/(?:[^\s"]+|"[^"]*")+/g)].map((m) => m[0].replaceAll('"', ''));
}

export function readRepoSearch(query: URLSearchParams): RepoSearch {
  const q = query.get('q');
  if (q === null || q.trim() === '') throw missingField('Search', 'q', docs.searchRepos);
  let stars: StarRange = {};
  let language: string | undefined;
  // GitHub's defaults: archived repositories are found, forks are not.
  let includeArchived = true;
  let includeForks = false;
  for (const term of terms(q)) {
    const colon = term.indexOf(':');
    if (colon <= 0) throw unsupportedQuery('q', `free-text search terms ("${term}"); use qualifiers`, docs.searchRepos);
    const key = term.slice(0, colon).toLowerCase();
    const value = term.slice(colon + 1);
    switch (key) {
      case 'stars': {
        const range = readStars(value);
        if (!range) throw invalidField('Search', 'q', docs.searchRepos);
        stars = intersect(stars, range);
        break;
      }
      case 'language':
        language = value;
        break;
      case 'archived':
        if (value === 'false') includeArchived = false;
        else if (value === 'true') throw unsupportedQuery('q', '"archived:true" (only archived repositories)', docs.searchRepos);
        else throw invalidField('Search', 'q', docs.searchRepos);
        break;
      case 'fork':
        if (value === 'true') includeForks = true;
        else if (value === 'false') includeForks = false;
        else if (value === 'only') throw unsupportedQuery('q', '"fork:only"', docs.searchRepos);
        else throw invalidField('Search', 'q', docs.searchRepos);
        break;
      case 'is':
        // Every simulated repository is public.
        if (value !== 'public') throw unsupportedQuery('q', `"is:${value}"`, docs.searchRepos);
        break;
      default:
        throw unsupportedQuery('q', `the "${key}:" qualifier`, docs.searchRepos);
    }
  }

  const sortParam = query.get('sort');
  // Without `sort` GitHub ranks by best match; the world has no relevance score, so stars stand in.
  const sort = sortParam === null || sortParam === 'stars' ? 'stars' : sortParam === 'updated' ? 'updated' : null;
  if (sort === null) {
    if (['forks', 'help-wanted-issues'].includes(sortParam ?? '')) throw unsupportedQuery('sort', `sort=${sortParam}`, docs.searchRepos);
    throw invalidField('Search', 'sort', docs.searchRepos);
  }
  const order = query.get('order') ?? 'desc';
  if (order !== 'asc' && order !== 'desc') throw invalidField('Search', 'order', docs.searchRepos);

  const search: RepoSearch = { sort, direction: order, includeArchived, includeForks };
  if (stars.min !== undefined) search.minStars = stars.min;
  if (stars.max !== undefined) search.maxStars = stars.max;
  if (language !== undefined) search.language = language;
  return search;
}
