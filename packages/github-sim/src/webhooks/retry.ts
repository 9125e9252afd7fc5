// When to try a failed delivery again: a bounded number of attempts with exponential backoff and a
// seeded jitter, so two runs of a scenario wait the same delays. GitHub itself never retries (a
// failed delivery waits for a manual redelivery); `attempts: 1` reproduces that.
import { hash4, unit } from '../world/random.js';
import { streams } from './delivery-id.js';

export interface RetryPolicy {
  /** Tries in all, the first included (1 = no retry). */
  attempts: number;
  /** Wait before the second try. */
  initialDelayMs: number;
  /** Each further wait is this many times the previous one. */
  factor: number;
  maxDelayMs: number;
  /** Fraction (0..1) of each wait that is randomized: a wait lies in [base·(1 − jitter), base]. */
  jitter: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  attempts: 4,
  initialDelayMs: 1_000,
  factor: 2,
  maxDelayMs: 30_000,
  jitter: 0.2,
};

/**
 * The wait after failed try number `attempt` (1-based) of the `sequence`-th delivery, or null when
 * that was the last try. `round` tells a redelivery's tries apart from the original ones.
 */
export function retryDelay(
  policy: RetryPolicy,
  seed: number,
  sequence: number,
  round: number,
  attempt: number,
): number | null {
  if (attempt >= policy.attempts) return null;
  const base = Math.min(policy.maxDelayMs, policy.initialDelayMs * policy.factor ** (attempt - 1));
  const draw = unit(hash4(seed, streams.jitter, sequence, round * 1_000 + attempt));
  return Math.round(base * (1 - policy.jitter * draw));
}

export function validateRetryPolicy(policy: RetryPolicy): string | null {
  if (!Number.isInteger(policy.attempts) || policy.attempts < 1)
    return `retry.attempts must be an integer ≥ 1, got ${policy.attempts}`;
  if (!(policy.initialDelayMs >= 0) || !(policy.maxDelayMs >= 0)) return 'retry delays must be ≥ 0 ms';
  if (!(policy.factor >= 1)) return `retry.factor must be ≥ 1, got ${policy.factor}`;
  if (!(policy.jitter >= 0 && policy.jitter <= 1)) return `retry.jitter must lie in 0..1, got ${policy.jitter}`;
  return null;
}
