// REST's repository search request: `q` read by the shared search parser, the `sort` and `order`
// parameters, and the parser's refusals as GitHub's 422 bodies.
import { parseRepoSearchQuery, SearchQueryError } from '../http/search-query.js';
import type { RepoSearchPlan } from '../http/search-query.js';
import type { RepoSearch } from '../world/model.js';
import { docs, invalidField, missingField, unsupportedQuery } from './errors.js';
import type { RestRequestError } from './errors.js';

function refusal(error: SearchQueryError): RestRequestError {
  switch (error.code) {
    case 'invalid-value':
      return invalidField('Search', 'q', docs.searchRepos);
    case 'unsupported-term':
    case 'unsupported-value':
    case 'conflicting-qualifiers':
      return unsupportedQuery('q', error.message, docs.searchRepos);
  }
}

function parse(q: string): RepoSearchPlan {
  try {
    return parseRepoSearchQuery(q);
  } catch (error) {
    if (error instanceof SearchQueryError) throw refusal(error);
    throw error;
  }
}

/**
 * The world's RepoSearch for `GET /search/repositories`. The `sort` and `order` parameters, when
 * given, override a `sort:` qualifier in `q`; without either GitHub ranks by best match, for which
 * stars stand in.
 */
export function readRepoSearch(query: URLSearchParams): RepoSearch {
  const q = query.get('q');
  if (q === null || q.trim() === '') throw missingField('Search', 'q', docs.searchRepos);
  const plan = parse(q);
  if (plan.residualTerms.length > 0) {
    // REST pages the world's search directly, so its total_count and Link headers stay exact.
    // GraphQL's search(query:) applies these filters over the listing instead.
    throw unsupportedQuery(
      'q',
      `The simulator's REST search does not support ${plan.residualTerms.join(' ')}; GraphQL search(query:) does.`,
      docs.searchRepos,
    );
  }
  const search = plan.search;

  const sortParam = query.get('sort');
  if (sortParam !== null) {
    if (sortParam === 'stars' || sortParam === 'updated') search.sort = sortParam;
    else if (['forks', 'help-wanted-issues'].includes(sortParam))
      throw unsupportedQuery('sort', `The simulator does not support sort=${sortParam}`, docs.searchRepos);
    else throw invalidField('Search', 'sort', docs.searchRepos);
  }
  const order = query.get('order');
  if (order !== null) {
    if (order !== 'asc' && order !== 'desc') throw invalidField('Search', 'order', docs.searchRepos);
    search.direction = order;
  }
  return search;
}
