// `abp run` as a function, and the receipts it writes. This file only re-exports.

export { RunError, type RunErrorCode } from './errors.js';
export { runMatrix, type RunEvent, type RunOptions, type RunOutcome } from './run-matrix.js';
export { jsonText, removeTree, writeFileAtomic } from './files.js';
