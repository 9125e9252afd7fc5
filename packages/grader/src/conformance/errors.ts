// Owns the one error type of `abp conformance`: what stops the suite before it can demonstrate anything, so the CLI and
// scripts branch on a code instead of reading a wrong verdict into a host that could not run it.
import { AbpError } from '@abp/protocol/errors';

export type ConformanceErrorCode =
  /** The folder given for the suite, its results and its report already holds files. */
  | 'output-not-empty'
  /** `python3 -m pytest` does not run here: the pytest task's verification, and the attacks on it, cannot. */
  | 'pytest-missing'
  /** bubblewrap cannot run here: without namespaces the harness attacks succeed whatever the grader's build. */
  | 'sandbox-unavailable'
  /** `abp run` did not finish the suite: the results hold no verdict to check. */
  | 'run-failed'
  /** --real-engines names an engine abp has no adapter for. */
  | 'unknown-real-engine'
  /** --provider-url is not provider=url for a provider the real engines speak to. */
  | 'invalid-provider-url'
  /** A real engine of the leg is not installed where the leg looks (--engines-dir). */
  | 'engine-not-installed'
  /** A real engine's key variable is unset: the leg runs against the real providers with the user's own keys. */
  | 'engine-key-missing';

export class ConformanceError extends AbpError<ConformanceErrorCode> {}
