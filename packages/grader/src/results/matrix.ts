// Owns what "complete" means for a run: every (task, engine, trial) of the run's matrix has a trial record.
// A gate or a baseline over part of a matrix would compare different samples and look like a change.
import { ResultsError } from './errors.js';
import type { RunResults } from './read-results.js';

export interface TrialSlot {
  task: string;
  engine: string;
  trial: number;
}

/** The slots of the matrix (tasks × engines × trials, or one engine's row of it) that have no trial record yet. */
export function missingTrials(results: RunResults, engine?: string): TrialSlot[] {
  const recorded = new Set(results.trials.map((trial) => `${trial.task}\n${trial.engine}\n${trial.trial}`));
  const engines = results.run.engines
    .map((entry) => entry.name)
    .filter((name) => engine === undefined || name === engine);
  const missing: TrialSlot[] = [];
  for (const task of results.tasks) {
    for (const name of engines) {
      for (let trial = 0; trial < results.run.trials; trial += 1) {
        if (!recorded.has(`${task.id}\n${name}\n${trial}`)) missing.push({ task: task.id, engine: name, trial });
      }
    }
  }
  return missing;
}

/** Says which trials are missing, in words, naming the first few. */
export function describeMissingTrials(results: RunResults, missing: readonly TrialSlot[]): string {
  const engines = new Set(missing.map((slot) => slot.engine));
  const total = results.tasks.length * results.run.trials * engines.size;
  const first = missing
    .slice(0, 3)
    .map((slot) => `${slot.task} × ${slot.engine} × trial ${slot.trial}`)
    .join(', ');
  return `${missing.length} of ${total} trials of ${[...engines].join(', ')} have no record in trials/ (${first}${missing.length > 3 ? ', …' : ''})`;
}

/** Throws 'incomplete-run' unless the engine's row of the matrix (or the whole matrix) is recorded. */
export function assertCompleteRun(results: RunResults, engine?: string): void {
  const missing = missingTrials(results, engine);
  if (missing.length === 0) return;
  throw new ResultsError(
    'incomplete-run',
    `${results.dir}: the run is incomplete: ${describeMissingTrials(results, missing)}; let \`abp run\` finish, or rerun it`,
  );
}
