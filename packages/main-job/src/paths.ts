// Where the main job keeps what it makes, under the data directory: one folder per run (pulled tasks, the grader's
// inputs and results, the summary), and the baseline the gate compares every run of the same draw with.
import { join } from 'node:path';

export interface MainJobPaths {
  root: string;
  /** The abp-baseline/v1 files later runs of a draw are gated against, one per draw id (see pipeline/gate.ts). */
  baselines: string;
  run: string;
  /**
   * `abp pull`'s output: per task id, `task/` (what an agent sees) and `held-out/` apart (distribution/pull.ts); the
   * grading run's `--tasks` folder as it is.
   */
  pulled: string;
  config: string;
  adapters: string;
  results: string;
  summary: string;
}

/** A run's folder name: its start time in UTC, so runs sort by time and a run never reuses another's folder. */
export function runStamp(at: Date): string {
  return at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z');
}

export function mainJobPaths(home: string, stamp: string): MainJobPaths {
  const root = join(home, 'main-job');
  const run = join(root, 'runs', stamp);
  return {
    root,
    baselines: join(root, 'baselines'),
    run,
    pulled: join(run, 'pulled'),
    config: join(run, 'abp-run.json'),
    adapters: join(run, 'abp-adapters.json'),
    results: join(run, 'results'),
    summary: join(run, 'summary.json'),
  };
}
