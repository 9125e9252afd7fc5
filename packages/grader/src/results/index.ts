// A run's results folder: reading it, checking it is complete, and the spelling of its numbers. This file only re-exports.

export { ResultsError, type ResultsErrorCode } from './errors.js';
export {
  checkTrials,
  readRunResults,
  runIdOf,
  type ReadOptions,
  type RunContents,
  type RunResults,
  type TaskEntry,
  type TrialEntry,
  type UnreadableTrial,
} from './read-results.js';
export {
  assertCompleteRun,
  describeMissingTrials,
  describeUnreadableTrials,
  missingTrials,
  unreadableTrials,
  type TrialSlot,
} from './matrix.js';
export { formatChange, formatInterval, formatMetric, formatPercent, formatPValue, metricLabels } from './format.js';
