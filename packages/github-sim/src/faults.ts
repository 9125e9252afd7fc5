// Seeded fault injection: the failures a client of api.github.com meets on a bad day, on purpose
// and reproducibly. The n-th request of a run gets the same fault for the same seed, so a test
// that found a retry bug can replay it exactly.
import { hash3, unit } from './world/random.js';
import type { Page, RepoSearch, SimRepo, WorldReader } from './world/model.js';

export interface FaultPlan {
  seed: number;
  /** Chance that a request starts a burst of 5xx answers (GitHub's 502/503 "unicorn" pages). */
  serverErrorRate: number;
  /** How many consecutive requests a 5xx burst covers. */
  serverErrorBurst: number;
  /** Chance that an answer is held back past a typical client timeout. */
  slowRate: number;
  slowMs: number;
  /** Chance that a request starts a burst of secondary-limit refusals (403 with retry-after). */
  secondaryLimitRate: number;
  secondaryLimitBurst: number;
  retryAfterSeconds: number;
  /** Chance, per search page served, that the ranking shifts by one (new results arriving), as GitHub search does. */
  shiftingSearchRate: number;
}

export const noFaults: FaultPlan = {
  seed: 0,
  serverErrorRate: 0,
  serverErrorBurst: 1,
  slowRate: 0,
  slowMs: 0,
  secondaryLimitRate: 0,
  secondaryLimitBurst: 1,
  retryAfterSeconds: 60,
  shiftingSearchRate: 0,
};

export type Fault =
  | { kind: 'none' }
  | { kind: 'server-error'; status: 502 | 503 }
  | { kind: 'slow'; delayMs: number }
  | { kind: 'secondary-limit'; retryAfterSeconds: number };

// Independent streams per fault kind: raising one rate does not move the others' schedule.
const streams = { serverError: 1, serverErrorStatus: 2, slow: 3, secondary: 4, shift: 5 } as const;

/** Decides, request by request, which fault (if any) a request meets. */
export class FaultInjector {
  private sequence = 0;
  private serverErrorsLeft = 0;
  private secondaryLeft = 0;

  constructor(readonly plan: FaultPlan) {}

  next(): Fault {
    const n = this.sequence++;
    const roll = (stream: number) => unit(hash3(this.plan.seed, stream, n));
    if (this.serverErrorsLeft === 0 && roll(streams.serverError) < this.plan.serverErrorRate)
      this.serverErrorsLeft = this.plan.serverErrorBurst;
    if (this.serverErrorsLeft > 0) {
      this.serverErrorsLeft -= 1;
      return { kind: 'server-error', status: roll(streams.serverErrorStatus) < 0.5 ? 502 : 503 };
    }
    if (this.secondaryLeft === 0 && roll(streams.secondary) < this.plan.secondaryLimitRate)
      this.secondaryLeft = this.plan.secondaryLimitBurst;
    if (this.secondaryLeft > 0) {
      this.secondaryLeft -= 1;
      return { kind: 'secondary-limit', retryAfterSeconds: this.plan.retryAfterSeconds };
    }
    if (roll(streams.slow) < this.plan.slowRate) return { kind: 'slow', delayMs: this.plan.slowMs };
    return { kind: 'none' };
  }
}

/**
 * A world whose search ranking drifts while a client pages through it: now and then one new
 * result arrives at the top, so the next page repeats the last item of the previous one. Clients
 * must merge pages by identity (`nameWithOwner`), not trust offsets.
 */
export function withShiftingSearch(world: WorldReader, plan: FaultPlan): WorldReader {
  let served = 0;
  let shift = 0;
  const searchRepos = (query: RepoSearch, offset: number, limit: number): Page<SimRepo> => {
    if (offset > 0 && unit(hash3(plan.seed, streams.shift, served)) < plan.shiftingSearchRate) shift += 1;
    served += 1;
    return world.searchRepos(query, Math.max(0, offset - shift), limit);
  };
  return new Proxy(world, {
    get(target, property, receiver) {
      if (property === 'searchRepos') return searchRepos;
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
