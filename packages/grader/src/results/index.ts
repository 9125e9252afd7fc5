// A run's results folder: reading it, checking it is complete, and the spelling of its numbers. This file only re-exports.

export { ResultsError, type ResultsErrorCode } from './errors.js';
export { readRunResults, runIdOf, type RunResults, type TaskEntry } from './read-results.js';
export { assertCompleteRun, describeMissingTrials, missingTrials, type TrialSlot } from './matrix.js';
export { formatChange, formatInterval, formatMetric, formatPercent, formatPValue, metricLabels } from './format.js';
