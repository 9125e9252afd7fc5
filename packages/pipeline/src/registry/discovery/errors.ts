// The one error type of the discovery folder: options it cannot honour, a search GitHub cannot split under its
// result cap, and GraphQL answers it cannot use. Each message names the input and how to proceed.
import { AbpError } from '@abp/protocol/errors';

export type DiscoveryErrorCode =
  /** `top`, `minStars`, a batch size or a repository name is out of range or malformed. */
  | 'invalid-options'
  /** More repositories share one star count than one search can return: no star band can hold them. */
  | 'band-over-cap'
  /** GitHub refused a query or failed it after the client's retries. */
  | 'github-query-failed'
  /** GitHub answered with data of a shape the query did not ask for. */
  | 'unexpected-answer';

export class DiscoveryError extends AbpError<DiscoveryErrorCode> {}
