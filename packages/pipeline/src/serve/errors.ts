// The one error type of serve/: the configuration of `abp serve`, its listening socket and its signals to Temporal.
import { AbpError } from '@abp/protocol/errors';

export type ServeErrorCode =
  /** A setting is missing or malformed (a usage error: exit 2). */
  | 'invalid-setting'
  | 'port-in-use'
  /** Temporal did not answer when `abp serve` started. */
  | 'unreachable'
  /** Temporal refused or did not answer a signal (not "no such task": that is an answer). */
  | 'signal-failed';

export class ServeError extends AbpError<ServeErrorCode> {}
