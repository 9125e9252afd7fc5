// GitHub's REST error bodies (400, 403, 404, 406, 422) and the one error class the REST layer
// throws while it reads a request; the handler turns it into the response GitHub would send.
import { AbpError } from '@abp/protocol/errors';

export type RestRequestErrorCode =
  | 'not-found'
  | 'validation-failed'
  | 'search-window'
  | 'unsupported-query'
  | 'bad-json'
  | 'invalid-request'
  | 'not-accessible'
  | 'no-commit'
  | 'diff-too-large';

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
  createPull: 'https://docs.github.com/rest/pulls/pulls#create-a-pull-request',
  listPullFiles: 'https://docs.github.com/rest/pulls/pulls#list-pull-requests-files',
  checkRunsForRef: 'https://docs.github.com/rest/checks/runs#list-check-runs-for-a-git-reference',
  getTree: 'https://docs.github.com/rest/git/trees#get-a-tree',
  combinedStatus: 'https://docs.github.com/rest/commits/statuses#get-the-combined-status-for-a-specific-reference',
  // GitHub still links the legacy v3 page from the 1,000-result error.
  searchWindow: 'https://docs.github.com/v3/search/',
  primaryLimit: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api',
  secondaryLimit:
    'https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits',
} as const;

export interface ValidationErrorItem {
  resource: string;
  /** Absent from `custom` errors, which say what is wrong in `message`. */
  field?: string;
  code: 'missing' | 'missing_field' | 'invalid' | 'already_exists' | 'unprocessable' | 'custom' | 'too_large';
  message?: string;
}

export interface RestErrorBody {
  message: string;
  documentation_url: string;
  status: string;
  errors?: ValidationErrorItem[];
}

function failed(errors: ValidationErrorItem[], documentationUrl: string): RestRequestError {
  return new RestRequestError('validation-failed', 422, {
    message: 'Validation Failed',
    errors,
    documentation_url: documentationUrl,
    status: '422',
  });
}

export class RestRequestError extends AbpError<RestRequestErrorCode> {
  constructor(
    code: RestRequestErrorCode,
    readonly status: number,
    readonly body: RestErrorBody,
  ) {
    super(code, body.message);
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
  return failed([{ resource, field, code: 'invalid' }], documentationUrl);
}

export function missingField(resource: string, field: string, documentationUrl: string): RestRequestError {
  return failed([{ resource, field, code: 'missing' }], documentationUrl);
}

/** A required attribute left empty (`code: missing_field`, as for a pull request without a title). */
export function missingAttribute(resource: string, field: string, documentationUrl: string): RestRequestError {
  return failed([{ resource, field, code: 'missing_field' }], documentationUrl);
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

/** A check GitHub makes beyond the parameters' schema (`{"code":"custom","message":"No commits between …"}`). */
export function customValidation(resource: string, message: string, documentationUrl: string): RestRequestError {
  return failed([{ resource, code: 'custom', message }], documentationUrl);
}

/** A body that is not JSON: GitHub answers 400 "Problems parsing JSON". */
export function problemsParsingJson(documentationUrl: string): RestRequestError {
  return new RestRequestError('bad-json', 400, {
    message: 'Problems parsing JSON',
    documentation_url: documentationUrl,
    status: '400',
  });
}

/** A body that fails the operation's JSON schema: GitHub's "Invalid request." with the reason on the next lines. */
export function invalidRequest(reason: string, documentationUrl: string): RestRequestError {
  return new RestRequestError('invalid-request', 422, {
    message: `Invalid request.\n\n${reason}`,
    documentation_url: documentationUrl,
    status: '422',
  });
}

/** A write the token may not make here: GitHub's answer to a token without write access to the repository. */
export function notAccessible(documentationUrl: string): RestRequestError {
  return new RestRequestError('not-accessible', 403, {
    message: 'Resource not accessible by integration',
    documentation_url: documentationUrl,
    status: '403',
  });
}

/** A commit ref that names nothing in the repository. */
export function noCommitFor(ref: string, documentationUrl: string): RestRequestError {
  return new RestRequestError('no-commit', 422, {
    message: `No commit found for SHA: ${ref}`,
    documentation_url: documentationUrl,
    status: '422',
  });
}

/** GitHub serves a pull request's diff only up to 300 files and 20,000 lines, and answers 406 beyond. */
export function diffTooLarge(limit: 'files' | 'lines', maximum: number): RestRequestError {
  return new RestRequestError('diff-too-large', 406, {
    message: `Sorry, the diff exceeded the maximum number of ${limit} (${maximum}). Consider using 'List pull requests files' API or locally cloning the repository instead.`,
    errors: [{ resource: 'PullRequest', field: 'diff', code: 'too_large' }],
    documentation_url: docs.listPullFiles,
    status: '406',
  });
}
