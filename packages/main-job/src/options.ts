// What `abp start` can be told, and what it does when told nothing: the embedded default, documented in
// docs/main-job.md. Every default here is a published number, so two runs on two machines mean the same thing.

/** The draw's published seed when none is given. Printed by every run; `--seed` overrides it. */
export const DEFAULT_DRAW_SEED = 20_261_101;

/**
 * Tasks to draw: the small world's eligible backlog is exactly its 12 open bugs with known fixes, four of them in
 * repositories whose tests need packages from the registries (its questions, feature request and flaky-test chore are
 * not eligible), so the default draws every one of them.
 */
export const DEFAULT_DRAW_COUNT = 12;

/** The small live world's seed (`abp sim up --world small --seed`). */
export const DEFAULT_WORLD_SEED = 1;

/** Trials per task and engine in the grading run: enough for the paired statistics to mean something, few enough to be quick. */
export const DEFAULT_TRIALS = 2;

/** How long the simulator's maintainers wait before merging a green pull request. */
export const DEFAULT_REVIEW_DELAY_MS = 1_000;

export interface MainJobOptions {
  seed: number;
  count: number;
  worldSeed: number;
  trials: number;
  reviewDelayMs: number;
  /** Longest wait for CI and the maintainers, and for the freezes, each. */
  mergeTimeoutMs: number;
  freezeTimeoutMs: number;
}

export const DEFAULT_MAIN_JOB: MainJobOptions = {
  seed: DEFAULT_DRAW_SEED,
  count: DEFAULT_DRAW_COUNT,
  worldSeed: DEFAULT_WORLD_SEED,
  trials: DEFAULT_TRIALS,
  reviewDelayMs: DEFAULT_REVIEW_DELAY_MS,
  mergeTimeoutMs: 10 * 60_000,
  freezeTimeoutMs: 15 * 60_000,
};
