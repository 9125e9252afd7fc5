// GitHub's secondary rate limits for REST, per token: concurrent requests in flight, points per
// minute (GET/HEAD/OPTIONS 1 point, other methods 5) and content creation (80 a minute, 500 an
// hour). The server brackets each request with `begin()`; the REST handler asks `admit()`.
import { FixedWindows, type Window } from '../http/windows.js';

export interface SecondaryLimitOptions {
  maxConcurrent: number;
  pointsPerMinute: number;
  contentPerMinute: number;
  contentPerHour: number;
  /** GitHub answers secondary limits with 403 or 429; the throttling plugin handles both. */
  status: 403 | 429;
  /** `retry-after` for the concurrency limit, which has no window to wait out. */
  concurrencyRetryAfterSeconds: number;
}

export const githubSecondaryLimits: SecondaryLimitOptions = {
  maxConcurrent: 100,
  pointsPerMinute: 900,
  contentPerMinute: 80,
  contentPerHour: 500,
  status: 403,
  concurrencyRetryAfterSeconds: 60,
};

export type SecondaryLimitReason = 'concurrency' | 'points' | 'content-creation';

export type SecondaryVerdict =
  { $case: 'allowed' } | { $case: 'limited'; reason: SecondaryLimitReason; retryAfterSeconds: number };

export interface SecondaryRequest {
  token: string | null;
  method: string;
  /** Whether the request creates content (an issue, comment, pull request…). */
  createsContent: boolean;
}

/** The one thing the server needs: count a request in flight until the returned `end` is called. */
export interface InFlightTracker {
  begin(token: string | null): () => void;
}

const anonymousKey = '\u0000anonymous';

export class SecondaryLimits implements InFlightTracker {
  readonly options: SecondaryLimitOptions;
  private readonly inFlightByToken = new Map<string, number>();
  private readonly windows: FixedWindows;

  constructor(
    private readonly now: () => number = Date.now,
    options: Partial<SecondaryLimitOptions> = {},
  ) {
    this.options = { ...githubSecondaryLimits, ...options };
    this.windows = new FixedWindows(now);
  }

  begin(token: string | null): () => void {
    const key = token ?? anonymousKey;
    this.inFlightByToken.set(key, (this.inFlightByToken.get(key) ?? 0) + 1);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const left = (this.inFlightByToken.get(key) ?? 1) - 1;
      if (left <= 0) this.inFlightByToken.delete(key);
      else this.inFlightByToken.set(key, left);
    };
  }

  inFlight(token: string | null): number {
    return this.inFlightByToken.get(token ?? anonymousKey) ?? 0;
  }

  /**
   * Counts the request against the per-minute budgets and answers whether it may proceed.
   * Points are counted per token across all REST endpoints: stricter than GitHub's per-endpoint
   * wording, so a client that stays under it here stays under it on GitHub.
   */
  admit(request: SecondaryRequest): SecondaryVerdict {
    const key = request.token ?? anonymousKey;
    if (this.inFlight(request.token) > this.options.maxConcurrent) {
      return { $case: 'limited', reason: 'concurrency', retryAfterSeconds: this.options.concurrencyRetryAfterSeconds };
    }
    const points = this.window(`points\u0000${key}`, 60);
    const cost = ['GET', 'HEAD', 'OPTIONS'].includes(request.method.toUpperCase()) ? 1 : 5;
    if (points.window.used + cost > this.options.pointsPerMinute) {
      return { $case: 'limited', reason: 'points', retryAfterSeconds: points.retryAfterSeconds };
    }
    if (request.createsContent) {
      const minute = this.window(`content-minute\u0000${key}`, 60);
      const hour = this.window(`content-hour\u0000${key}`, 3_600);
      if (minute.window.used + 1 > this.options.contentPerMinute) {
        return { $case: 'limited', reason: 'content-creation', retryAfterSeconds: minute.retryAfterSeconds };
      }
      if (hour.window.used + 1 > this.options.contentPerHour) {
        return { $case: 'limited', reason: 'content-creation', retryAfterSeconds: hour.retryAfterSeconds };
      }
      minute.window.used += 1;
      hour.window.used += 1;
    }
    points.window.used += cost;
    return { $case: 'allowed' };
  }

  private window(key: string, seconds: number): { window: Window; retryAfterSeconds: number } {
    const nowMs = this.now();
    const window = this.windows.current(key, seconds, nowMs);
    const retryAfterSeconds = Math.max(1, Math.ceil((window.startedAt + seconds * 1000 - nowMs) / 1000));
    return { window, retryAfterSeconds };
  }
}

/** Content-creating REST routes (POST that makes an issue, comment, pull request, review or release). */
export function createsContent(method: string, path: string): boolean {
  if (method.toUpperCase() !== 'POST') return false;
  return /^\/(?:repos\/[^/]+\/[^/]+|repositories\/\d+)\/(issues|pulls|releases|issues\/\d+\/comments|pulls\/\d+\/(comments|reviews))$/.test(
    path,
  );
}

export function secondaryLimitMessage(reason: SecondaryLimitReason, requestId: string): string {
  switch (reason) {
    case 'content-creation':
      return 'You have exceeded a secondary rate limit and have been temporarily blocked from content creation. Please retry your request again later.';
    case 'concurrency':
    case 'points':
      return `You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID ${requestId}.`;
  }
}
