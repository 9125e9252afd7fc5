// Owns the one error type of the execution layer: a command configured or asked for wrongly (the harness's fault: it
// stops the run and is never scored against an engine), and a trusted program (git, a formatter, the toolchain) that
// could not be started or did not succeed.
import { AbpError } from '@abp/protocol/errors';

export type ExecutionErrorCode =
  | 'unknown-placeholder'
  | 'invalid-variable-name'
  | 'reserved-variable'
  | 'invalid-command'
  | 'sandbox-unavailable'
  | 'sandbox-path-missing'
  | 'conflicting-sandbox-paths'
  | 'egress-with-network'
  // trusted programs (run-program.ts)
  | 'program-not-started'
  | 'program-timed-out'
  | 'program-output-too-large'
  | 'program-failed'
  // git (git.ts), whatever the way it failed
  | 'git-failed';

export class ExecutionError extends AbpError<ExecutionErrorCode> {}
