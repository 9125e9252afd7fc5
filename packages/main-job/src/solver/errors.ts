// The one error type of solver/: what stops the reference solver from handing a task its fix.
import { AbpError } from '@abp/protocol/errors';

export type SolverErrorCode =
  /** git could not list or fetch the fork's branch (the fork exists: a network or server fault). */
  | 'git-failed'
  /** The task did not take the fix it was handed within the wait (its workflow is not running, or is stuck). */
  | 'hand-off-failed';

export class SolverError extends AbpError<SolverErrorCode> {}
