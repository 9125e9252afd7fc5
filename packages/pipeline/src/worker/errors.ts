// The one error type of stack/: configuration, background processes and the embedded dev stack.
import { AbpError } from '@abp/protocol/errors';

export type StackErrorCode =
  /** A setting in the environment is malformed (a usage error: exit 2). */
  | 'invalid-setting'
  /** A server binary is missing or cannot be executed. */
  | 'missing-binary'
  | 'port-in-use'
  /** Another `abp dev up|down` holds the stack lock. */
  | 'locked'
  | 'start-failed'
  | 'stop-failed'
  | 'unreachable';

export class StackError extends AbpError<StackErrorCode> {}
