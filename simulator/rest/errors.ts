// GitHub's REST error bodies (404, 422) and the one error class the REST layer throws while it
// reads a request; the handler turns it into the response GitHub would send.

export type RestRequestErrorCode = 'not-found' | 'validation-failed' | 'search-window' | 'unsupported-query';

export const docs = {
  rest: 'https://docs.github.com/rest',
  rateLimit: 'https://docs.github.com/rest/rate-limit/rate-limit#get-rate-limit-status-for-the-authenticated-user',
  searchRepos: 'https://docs.github.com/rest/search/search#search-repositories',
  getRepo: 'https://docs.github.com/rest/repos/repos#get-a-repository',
  listIssues: 'https://docs.github.com/rest/issues/issues#list-repository-issues',
  getIssue: 'https://docs.github.com/rest/issues/issues#get-an-issue',
  listComments: 'https://docs.github.com/rest/issues/comments#list-issue-comments',
  listPulls: 'https://docs.github.com/rest/pulls/pulls#list-pull-requests',
  getPull: 'https://docs.github.com/rest/pulls/pulls#get-a-pull-request',
  // GitHub still links the legacy v3 page from the 1,000-result error.
  searchWindow: 'https://docs.github.com/v3/search/',
  primaryLimit: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api',
  secondaryLimit:
    'https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits',
} as const;

export interface ValidationErrorItem {
  resource: string;
  field: string;
  code: 'missing' | 'missing_field' | 'invalid' | 'already_exists' | 'unprocessable' | 'custom';
  message?: string;
}

export interface RestErrorBody {
  message: string;
  documentation_url: string;
  status: string;
  errors?: ValidationErrorItem[];
}

export class RestRequestError extends Error {
  constructor(
    readonly code: RestRequestErrorCode,
    readonly status: number,
    readonly body: RestErrorBody,
  ) {
    super(body.message);
    this.name = 'RestRequestError';
  }
}

export function notFoundBody(documentationUrl: string): RestErrorBody {
  return { message: 'Not Found', documentation_url: documentationUrl, status: '404' };
}

export function notFound(documentationUrl: string): RestRequestError {
  return new RestRequestError('not-found', 404, notFoundBody(documentationUrl));
}

/** A parameter GitHub would reject: 422 "Validation Failed" with the offending field. */
export function invalidField(resource: string, field: string, documentationUrl: string): RestRequestError {
  return new RestRequestError('validation-failed', 422, {
    message: 'Validation Failed',
    errors: [{ resource, field, code: 'invalid' }],
    documentation_url: documentationUrl,
    status: '422',
  });
}

export function missingField(resource: string, field: string, documentationUrl: string): RestRequestError {
  return new RestRequestError('validation-failed', 422, {
    message: 'Validation Failed',
    errors: [{ resource, field, code: 'missing' }],
    documentation_url: documentationUrl,
    status: '422',
  });
}

/**
 * A query GitHub accepts but the world's store cannot answer (free-text search terms, `fork:only`).
 * Answered 422 rather than with silently wrong results, so a stage that needs it fails loudly here.
 */
export function unsupportedQuery(field: string, message: string, documentationUrl: string): RestRequestError {
  return new RestRequestError('unsupported-query', 422, {
    message: 'Validation Failed',
    errors: [{ resource: 'Search', field, code: 'custom', message }],
    documentation_url: documentationUrl,
    status: '422',
  });
}
