// The code of the StatsError a call throws, so tests assert codes rather than messages.
import { StatsError } from '../../src/stats/errors.js';

export function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof StatsError ? error.code : undefined;
  }
  return undefined;
}
