// GitHub's primary rate limits as buckets per token and resource: `core` (REST, 5,000 requests an
// hour), `search` (30 a minute), `graphql` (5,000 points an hour). The clock is injected so tests
// and fault scenarios can move time.

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

interface Window {
  startedAt: number;
  used: number;
}

export class RateLimits {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly policies: Record<RateResource, RateLimitPolicy> = githubRateLimits,
  ) {}

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
    const key = `${resource}\u0000${token}`;
    const nowMs = this.now();
    const { windowSeconds } = this.policies[resource];
    let window = this.windows.get(key);
    if (!window || nowMs >= window.startedAt + windowSeconds * 1000) {
      window = { startedAt: nowMs, used: 0 };
      this.windows.set(key, window);
    }
    return window;
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
