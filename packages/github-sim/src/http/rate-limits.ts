// GitHub's primary rate limits as buckets per token and resource: `core` (REST, 5,000 requests an
// hour), `search` (30 a minute), `graphql` (5,000 points an hour). The clock is injected so tests
// and fault scenarios can move time. The `x-ratelimit-*` headers both API layers send are here too.

import { FixedWindows, type Window } from './windows.js';

export type RateResource = 'core' | 'search' | 'graphql';

export interface RateLimitState {
  limit: number;
  remaining: number;
  used: number;
  /** Epoch seconds when the window resets, as GitHub's `x-ratelimit-reset`. */
  reset: number;
  resource: RateResource;
}

export interface RateLimitPolicy {
  limit: number;
  windowSeconds: number;
}

export const githubRateLimits: Record<RateResource, RateLimitPolicy> = {
  core: { limit: 5_000, windowSeconds: 3_600 },
  search: { limit: 30, windowSeconds: 60 },
  graphql: { limit: 5_000, windowSeconds: 3_600 },
};

export class RateLimits {
  private readonly windows: FixedWindows;

  constructor(
    now: () => number = Date.now,
    private readonly policies: Record<RateResource, RateLimitPolicy> = githubRateLimits,
  ) {
    this.windows = new FixedWindows(now);
  }

  /** The bucket as it stands, without spending from it. */
  peek(token: string, resource: RateResource): RateLimitState {
    return this.state(resource, this.window(token, resource));
  }

  /**
   * Spends `cost` (1 for a REST call, the query's cost for GraphQL) if the bucket holds it.
   * An over-limit call spends nothing and is answered with the unchanged state and `allowed: false`.
   */
  spend(token: string, resource: RateResource, cost: number): RateLimitState & { allowed: boolean } {
    const window = this.window(token, resource);
    const { limit } = this.policies[resource];
    if (window.used + cost > limit) return { ...this.state(resource, window), allowed: false };
    window.used += cost;
    return { ...this.state(resource, window), allowed: true };
  }

  private window(token: string, resource: RateResource): Window {
    return this.windows.current(`${resource}\u0000${token}`, this.policies[resource].windowSeconds);
  }

  private state(resource: RateResource, window: Window): RateLimitState {
    const { limit, windowSeconds } = this.policies[resource];
    return {
      limit,
      remaining: Math.max(0, limit - window.used),
      used: window.used,
      reset: Math.ceil((window.startedAt + windowSeconds * 1000) / 1000),
      resource,
    };
  }
}

/** The `x-ratelimit-*` headers GitHub puts on every REST and GraphQL answer. */
export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'x-ratelimit-limit': String(state.limit),
    'x-ratelimit-remaining': String(state.remaining),
    'x-ratelimit-used': String(state.used),
    'x-ratelimit-reset': String(state.reset),
    'x-ratelimit-resource': state.resource,
  };
}
