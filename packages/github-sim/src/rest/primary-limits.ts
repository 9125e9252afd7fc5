// Primary rate limits as the REST layer applies them: which bucket a caller spends from (a token
// spends from the context's RateLimits; an anonymous caller from a 60-an-hour bucket, as GitHub
// allows unauthenticated REST), and GitHub's over-limit answer.
import { RateLimits } from '../http/rate-limits.js';
import type { RateLimitPolicy, RateResource } from '../http/rate-limits.js';
import type { SimContext } from '../http/exchange.js';
import { hashString } from '../world/random.js';
import { docs } from './errors.js';

/** GitHub's limits without a token: 60 REST calls an hour, 10 searches a minute, no GraphQL. */
export const unauthenticatedRateLimits: Record<RateResource, RateLimitPolicy> = {
  core: { limit: 60, windowSeconds: 3_600 },
  search: { limit: 10, windowSeconds: 60 },
  graphql: { limit: 0, windowSeconds: 3_600 },
};

export interface RateBucket {
  limits: RateLimits;
  key: string;
  authenticated: boolean;
}

// One anonymous bucket set per server, found through the server's RateLimits so it lives as long.
const anonymousByServer = new WeakMap<RateLimits, RateLimits>();

export function rateBucket(ctx: SimContext, token: string | null): RateBucket {
  if (token !== null) return { limits: ctx.rateLimits, key: token, authenticated: true };
  let anonymous = anonymousByServer.get(ctx.rateLimits);
  if (!anonymous) {
    anonymous = new RateLimits(ctx.now, unauthenticatedRateLimits);
    anonymousByServer.set(ctx.rateLimits, anonymous);
  }
  return { limits: anonymous, key: 'anonymous', authenticated: false };
}

/** A stable stand-in for the user id GitHub names in the message (tokens map to no user here). */
function userIdOf(token: string): number {
  return (hashString(token) % 90_000_000) + 10_000_000;
}

export function primaryLimitBody(
  bucket: RateBucket,
  clientAddress: string,
): { message: string; documentation_url: string; status: string } {
  const message = bucket.authenticated
    ? `API rate limit exceeded for user ID ${userIdOf(bucket.key)}.`
    : `API rate limit exceeded for ${clientAddress}. (But here's the good news: Authenticated requests get a higher rate limit. Check out the documentation for more details.)`;
  return { message, documentation_url: docs.primaryLimit, status: '403' };
}
