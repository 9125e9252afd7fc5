// The one Octokit abp uses, built once: REST + GraphQL with pagination, throttling that obeys
// GitHub's retry-after, and retries of transient failures. Stages receive an instance; none
// constructs its own. GITHUB_API_URL points it at the simulator or a GitHub Enterprise server.
import type { OctokitOptions } from '@octokit/core';
import { Octokit } from '@octokit/rest';
import { paginateGraphQL, type paginateGraphQLInterface } from '@octokit/plugin-paginate-graphql';
import { retry } from '@octokit/plugin-retry';
import { throttling, type ThrottlingOptions } from '@octokit/plugin-throttling';
import { AbpError } from '@abp/protocol/errors';

/** REST with its methods and pagination, and GraphQL with cursor pagination; throttling and retries add no methods. */
export type GithubClient = Octokit & paginateGraphQLInterface;

/** The class, named so that its declaration does not depend on the plugins' internal type files. */
export const AbpOctokit: new (
  options: OctokitOptions & {
    throttle?: ThrottlingOptions;
    retry?: { enabled?: boolean; retryAfterBaseValue?: number; retries?: number; doNotRetry?: number[] };
  },
) => GithubClient = Octokit.plugin(throttling, retry, paginateGraphQL);

export class GithubConfigError extends AbpError<'missing-token'> {}

export interface GithubClientOptions {
  /** Defaults to GITHUB_API_URL, then https://api.github.com. */
  baseUrl?: string;
  /** Defaults to GITHUB_TOKEN. */
  token?: string;
  /** Retries of a rate-limited request before giving up (each waits GitHub's retry-after). */
  maxRateLimitRetries?: number;
  /**
   * Base of the backoff between retries of a failed (5xx) request: waits of 1×, 4×, 9×, 16×, 25× this. Default 1 s.
   * Five retries: a rotation sends thousands of requests, and one that fails four times in a row must not lose it.
   */
  retryAfterBaseMs?: number;
  /** Called when a limit is hit, for the caller's budget accounting and logs. */
  onLimit?: (event: {
    kind: 'primary' | 'secondary';
    retryAfterSeconds: number;
    method: string;
    url: string;
    retrying: boolean;
  }) => void;
  userAgent?: string;
}

const SERVER_ERROR_RETRIES = 5;

export function createGithubClient(
  options: GithubClientOptions = {},
  env: Readonly<Record<string, string | undefined>> = process.env,
): GithubClient {
  const token = options.token ?? env.GITHUB_TOKEN;
  if (!token) {
    throw new GithubConfigError(
      'missing-token',
      'GITHUB_TOKEN is not set: export GITHUB_TOKEN=<a token> (for the local simulator, the token `abp sim up` prints, with GITHUB_API_URL=<its API URL>)',
    );
  }
  const maxRetries = options.maxRateLimitRetries ?? 3;
  const handler =
    (kind: 'primary' | 'secondary') =>
    (retryAfter: number, request: { method: string; url: string }, _octokit: unknown, retryCount: number) => {
      const retrying = retryCount < maxRetries;
      options.onLimit?.({ kind, retryAfterSeconds: retryAfter, method: request.method, url: request.url, retrying });
      // Returning true asks the plugin to wait retry-after seconds and send the request again.
      return retrying;
    };
  // GitHub asks clients to space GraphQL calls and writes (a second apart): its secondary limits punish bursts.
  // ABP_GITHUB_PACING=off turns the throttle off (no spacing, and no waiting out a limit): for the local simulator only.
  const pacing = env.ABP_GITHUB_PACING?.trim().toLowerCase() !== 'off';
  return new AbpOctokit({
    auth: token,
    baseUrl: (options.baseUrl ?? env.GITHUB_API_URL ?? 'https://api.github.com').replace(/\/$/, ''),
    userAgent: options.userAgent ?? 'abp',
    throttle: pacing
      ? { onRateLimit: handler('primary'), onSecondaryRateLimit: handler('secondary') }
      : { enabled: false },
    retry: {
      retryAfterBaseValue: options.retryAfterBaseMs ?? 1_000,
      retries: SERVER_ERROR_RETRIES,
      // The plugin's own list, and 409: an empty repository's tree answers it, and waiting never fills the repository.
      doNotRetry: [400, 401, 403, 404, 409, 410, 422, 451],
    },
  });
}
