// The one error class of the webhook dispatcher: a string-literal code for callers and tests, the
// underlying failure as `cause`.
import { AbpError } from '@abp/protocol/errors';

export type WebhookErrorCode =
  /** The dispatcher's options cannot work (bad URL, drop rate outside 0..1, no attempts). */
  | 'invalid-config'
  /** A world event names a repository, pull request or issue the world does not hold. */
  | 'unknown-record'
  /** `redeliver` was given an id this dispatcher never handed out. */
  | 'unknown-delivery'
  /** The dispatcher was closed and takes no more work. */
  | 'closed'
  /** Appending to the JSONL delivery log failed. */
  | 'log-write';

export class WebhookError extends AbpError<WebhookErrorCode> {}
