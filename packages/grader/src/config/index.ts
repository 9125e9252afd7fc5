// Everything `abp run` reads before a trial starts, checked: the run config, the adapters file and the task folders.
// This file only re-exports.

export { GraderConfigError, type GraderConfigErrorCode } from './errors.js';
export { loadRunInputs, type RunInputPaths, type RunInputs } from './load-run-inputs.js';
export { PULLED_VISIBLE_DIR, loadTaskDirectory, type TaskDirectory } from './task-directory.js';
