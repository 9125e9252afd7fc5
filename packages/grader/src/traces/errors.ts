// The one error type of the traces folder. Messages name translators, indices and fields, never event contents, which
// may hold what the redactor has not yet seen.
import { AbpError } from '@abp/protocol/errors';

export type TraceErrorCode = 'unknown-translator' | 'invalid-translator-context' | 'invalid-event';

export class TraceError extends AbpError<TraceErrorCode> {}
