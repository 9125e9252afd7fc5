// Owns what "complete" means for a run: every (task, engine, trial) of the run's matrix has a readable trial record.
// A gate or a baseline over part of a matrix would compare different samples and look like a change.
import { ResultsError } from './errors.js';
import type { RunContents, UnreadableTrial } from './read-results.js';

export interface TrialSlot {
  task: string;
  engine: string;
  trial: number;
}

/** The slots of the matrix (tasks × engines × trials, or one engine's row of it) that have no trial record yet. */
export function missingTrials(results: RunContents, engine?: string): TrialSlot[] {
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
export function describeMissingTrials(results: RunContents, missing: readonly TrialSlot[]): string {
  const engines = new Set(missing.map((slot) => slot.engine));
  const total = results.tasks.length * results.run.trials * engines.size;
  const first = missing
    .slice(0, 3)
    .map((slot) => `${slot.task} × ${slot.engine} × trial ${slot.trial}`)
    .join(', ');
  return `${missing.length} of ${total} trials of ${[...engines].join(', ')} have no readable record in trials/ (${first}${missing.length > 3 ? ', …' : ''})`;
}

/**
 * The sealed trial files of the engine (or of any engine) this grader could not read. One whose record names no
 * engine may be anyone's, so it counts for every engine.
 */
export function unreadableTrials(results: RunContents, engine?: string): UnreadableTrial[] {
  return results.unreadable.filter((trial) => engine === undefined || trial.engine === null || trial.engine === engine);
}

/** Names the unreadable trial files and why, the first few. */
export function describeUnreadableTrials(unreadable: readonly UnreadableTrial[]): string {
  const first = unreadable.slice(0, 3).map((trial) => `${trial.file} (${trial.problem})`);
  return `${unreadable.length} sealed trial ${unreadable.length === 1 ? 'file' : 'files'} cannot be read by this grader: ${first.join('; ')}${unreadable.length > 3 ? '; …' : ''}`;
}

/** Throws 'incomplete-run' unless the engine's row of the matrix (or the whole matrix) is recorded and readable. */
export function assertCompleteRun(results: RunContents, engine?: string): void {
  const missing = missingTrials(results, engine);
  const unreadable = unreadableTrials(results, engine);
  if (missing.length === 0 && unreadable.length === 0) return;
  const parts = [
    missing.length > 0 ? describeMissingTrials(results, missing) : '',
    unreadable.length > 0 ? describeUnreadableTrials(unreadable) : '',
  ];
  throw new ResultsError(
    'incomplete-run',
    `${results.dir}: the run is incomplete: ${parts.filter(Boolean).join('; ')}; let \`abp run\` finish, or rerun it`,
  );
}
