// Owns the one error type of grader/gate: a baseline that cannot be made or read. A run that cannot be compared
// is not an error but a refusal inside the GateReport, so CI sees it as data and exit code 3.
import { AbpError } from '@abp/protocol/errors';

export type GateErrorCode =
  'engine-not-in-run' | 'models-not-matched' | 'no-scored-trials' | 'missing-baseline' | 'invalid-baseline';

export class GateError extends AbpError<GateErrorCode> {}
