// Owns the one error type of the freeze core: an input or a setup that keeps a freeze from being
// attempted at all. A fix that was tried and found wanting is a rejected outcome, not an error.
import { AbpError } from '@abp/protocol/errors';

export type FreezeErrorCode =
  | 'invalid-input'
  | 'invalid-options'
  | 'not-a-repository'
  | 'missing-commit'
  | 'empty-fix'
  | 'unreadable-patch'
  | 'unsupported-runner'
  | 'sandbox-unavailable'
  /** The task was sourced before every committed model cutoff ended: it is contamination-free for no model (spec §4.4). */
  | 'no-verified-cutoff'
  /** The golden trace given is absent, or not a regular file. */
  | 'golden-trace-unreadable'
  /** The golden trace is larger than the trace receipt `abp run` publishes may be. */
  | 'golden-trace-too-large'
  /** The golden trace is not abp-trace/v1 line by line, or is another task's. */
  | 'invalid-golden-trace'
  /** The golden trace holds what the published redaction list hides: a secret would be published with it. */
  | 'golden-trace-unredacted'
  /** A freeze hand-off in the run store is not one, or does not match the bundle it names: it is built again. */
  | 'handoff-unreadable';

export class FreezeError extends AbpError<FreezeErrorCode> {}
