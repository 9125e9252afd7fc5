// GitHub's repository search syntax ("stars:100..500 language:go archived:false sort:stars"), read
// once for both API layers: REST's `q` and GraphQL's `search(query:)`. A query becomes the world's
// RepoSearch plus the filters RepoSearch cannot express (fork:only, archived:true, mirror:), which a
// layer applies over the listing. What the simulator cannot answer is a coded SearchQueryError, never
// a silently wider result; each layer renders it in its own words (REST 422, GraphQL UNPROCESSABLE).
import type { RepoSearch, SimRepo } from '../world/model.js';
import { AbpError } from '@abp/protocol/errors';

/** GitHub serves only the first 1,000 results of any search, whatever the total count says. */
export const searchResultLimit = 1_000;

export type SearchQueryErrorCode =
  /** Free text (the world has no text index) or a qualifier the simulator does not read. */
  | 'unsupported-term'
  /** A value GitHub accepts that the world cannot answer (`is:private`: every simulated repository is public). */
  | 'unsupported-value'
  /** A value GitHub's syntax does not allow (`stars:lots`, `fork:maybe`). */
  | 'invalid-value'
  /** Qualifiers RepoSearch cannot combine (two different languages). */
  | 'conflicting-qualifiers';

export class SearchQueryError extends AbpError<SearchQueryErrorCode> {}

export interface RepoSearchPlan {
  search: RepoSearch;
  /** Filters over RepoSearch's results; empty when the world's search answers the query alone. */
  residual: ((repo: SimRepo) => boolean)[];
  /** The query terms the residual filters stand for, for a layer that has to name them. */
  residualTerms: string[];
}

/** Splits on spaces, keeping `qualifier:"quoted value"` together. */
function terms(query: string): string[] {
  return [...query.matchAll(/(?:[^\s"]+|"[^"]*")+/g)].map((match) => match[0]);
}

function unquote(value: string): string {
  return value.replace(/"/g, '');
}

/** `stars:` takes `n`, `>n`, `>=n`, `<n`, `<=n`, `a..b`, `a..*` and `*..b`, as GitHub's syntax does. */
function starBounds(value: string): { min?: number; max?: number } {
  const number = (text: string): number => {
    if (!/^\d+$/.test(text)) throw new SearchQueryError('invalid-value', `Invalid stars value: stars:${value}`);
    return Number(text);
  };
  const range = /^(\*|\d+)\.\.(\*|\d+)$/.exec(value);
  if (range) {
    const [, low = '*', high = '*'] = range;
    return { ...(low === '*' ? {} : { min: number(low) }), ...(high === '*' ? {} : { max: number(high) }) };
  }
  const comparison = /^(>=|<=|>|<)(\d+)$/.exec(value);
  if (comparison) {
    const [, operator, text = ''] = comparison;
    const bound = number(text);
    if (operator === '>=') return { min: bound };
    if (operator === '>') return { min: bound + 1 };
    if (operator === '<=') return { max: bound };
    return { max: bound - 1 };
  }
  const exact = number(value);
  return { min: exact, max: exact };
}

function booleanValue(qualifier: string, value: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new SearchQueryError('invalid-value', `Invalid value for ${qualifier}: "${value}" (expected true or false)`);
}

/**
 * GitHub's defaults where the query is silent: forks excluded, archived repositories included.
 * GitHub's default order is "best match"; with no text to match, the simulator sorts by stars.
 */
export function parseRepoSearchQuery(query: string): RepoSearchPlan {
  const search: RepoSearch = { includeArchived: true, includeForks: false, sort: 'stars', direction: 'desc' };
  const plan: RepoSearchPlan = { search, residual: [], residualTerms: [] };
  const filter = (term: string, keep: (repo: SimRepo) => boolean): void => {
    plan.residual.push(keep);
    plan.residualTerms.push(term);
  };
  let language: string | undefined;
  for (const term of terms(query)) {
    const separator = term.indexOf(':');
    if (separator <= 0) {
      throw new SearchQueryError(
        'unsupported-term',
        `The simulator's repository search has no text index; remove "${term}" or use qualifiers.`,
      );
    }
    const qualifier = term.slice(0, separator).toLowerCase();
    const value = unquote(term.slice(separator + 1));
    switch (qualifier) {
      case 'stars': {
        const { min, max } = starBounds(value);
        if (min !== undefined) search.minStars = Math.max(search.minStars ?? 0, min);
        if (max !== undefined) search.maxStars = Math.min(search.maxStars ?? Number.MAX_SAFE_INTEGER, max);
        break;
      }
      case 'language':
        // RepoSearch holds one language; dropping either would answer a different query.
        if (language !== undefined && language.toLowerCase() !== value.toLowerCase()) {
          throw new SearchQueryError('conflicting-qualifiers', 'The simulator searches one language at a time.');
        }
        language = value;
        search.language = value;
        break;
      case 'archived':
        if (booleanValue(qualifier, value)) filter(term, (repo) => repo.isArchived);
        else search.includeArchived = false;
        break;
      case 'fork':
        if (value === 'only') {
          search.includeForks = true;
          filter(term, (repo) => repo.isFork);
        } else {
          search.includeForks = booleanValue(qualifier, value);
        }
        break;
      case 'mirror': {
        const mirror = booleanValue(qualifier, value);
        filter(term, (repo) => (repo.mirrorUrl !== null) === mirror);
        break;
      }
      case 'is':
        // Every simulated repository is public.
        if (value !== 'public')
          throw new SearchQueryError('unsupported-value', `The simulator only has public repositories (is:${value}).`);
        break;
      case 'sort': {
        const match = /^(stars|updated)(?:-(asc|desc))?$/.exec(value);
        if (!match && /^(forks|help-wanted-issues)(?:-(asc|desc))?$/.test(value)) {
          throw new SearchQueryError(
            'unsupported-value',
            `The simulator does not sort by ${value}; use stars or updated.`,
          );
        }
        if (!match)
          throw new SearchQueryError(
            'invalid-value',
            `Unsupported sort: sort:${value} (use stars or updated, optionally -asc/-desc).`,
          );
        search.sort = match[1] === 'updated' ? 'updated' : 'stars';
        search.direction = match[2] === 'asc' ? 'asc' : 'desc';
        break;
      }
      default:
        throw new SearchQueryError(
          'unsupported-term',
          `The simulator does not support the search qualifier "${qualifier}:".`,
        );
    }
  }
  return plan;
}
