// `abp gate` and `abp baseline` as data: making a baseline, reading and writing its file, and the gate's decision.
// This file only re-exports.

export { GateError, type GateErrorCode } from './errors.js';
export { createBaseline, validateBaseline, type BaselineOptions } from './baseline.js';
export { baselineText, readBaselineFile, writeBaselineFile } from './baseline-file.js';
export {
  evaluateGate,
  refuseTamperedRun,
  type GateCheck,
  type GateCheckId,
  type GateInput,
  type GateReport,
  type RefusalCode,
} from './evaluate.js';
