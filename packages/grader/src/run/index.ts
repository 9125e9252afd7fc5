// `abp run` as a function, and the receipts it writes. This file only re-exports.

export { RunError, type RunErrorCode } from './errors.js';
export { runMatrix, type RunEvent, type RunOptions, type RunOutcome } from './run-matrix.js';
export { jsonText, removeTree, writeFileAtomic } from './files.js';
export { openApartRun, type ApartRun, type ApartRunOptions, type ApartTrial } from './trial-apart.js';
export type { RemoteTrials, TrialDispatch, TrialSink } from './remote-trials.js';
export type { PreflightResult } from './trial.js';
export { trialIdOf, type ScheduledTrial } from './schedule.js';
export { runFingerprint } from './fingerprint.js';
