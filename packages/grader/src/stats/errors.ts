// Owns the one error type every statistics function throws, so callers (the verdict
// builder, `abp gate`) branch on a stable `code` instead of parsing messages.
import { AbpError } from '@abp/protocol/errors';

export type StatsErrorCode =
  | 'invalid-count'
  | 'no-trials'
  | 'invalid-confidence'
  | 'invalid-probability'
  | 'length-mismatch'
  | 'empty-sample'
  | 'non-finite-value'
  | 'zero-baseline-median'
  | 'zero-baseline-median-in-resample'
  | 'invalid-resamples'
  | 'invalid-seed';

export class StatsError extends AbpError<StatsErrorCode> {}

/** A confidence level must be a probability strictly between 0 and 1 (0.95, not 95). */
export function assertConfidence(confidence: number): void {
  if (!(Number.isFinite(confidence) && confidence > 0 && confidence < 1)) {
    throw new StatsError('invalid-confidence', `confidence must be in (0, 1), e.g. 0.95; got ${String(confidence)}`);
  }
}

export function assertCount(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new StatsError('invalid-count', `${name} must be a non-negative integer; got ${String(value)}`);
  }
}
