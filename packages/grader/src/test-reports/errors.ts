// Owns the one error type the test report parsers throw, so the grader can record why a
// report could not be read (and treat the run as unverified) without parsing messages.
import { AbpError } from '@abp/protocol/errors';

/** `unfinished-run`: the report itself says the run stopped early (a TAP bail-out, a plan never reached). */
export type TestReportErrorCode = 'unknown-format' | 'malformed-report' | 'unfinished-run';

export class TestReportError extends AbpError<TestReportErrorCode> {}
