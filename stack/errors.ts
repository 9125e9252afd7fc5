// The one error type of stack/: configuration, background processes and the embedded dev stack.

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

export class StackError extends Error {
  override name = 'StackError';
  constructor(
    readonly code: StackErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
