// Owns the one error type of grader/results: a results folder that cannot be read as an `abp run` output,
// named by file and field so the reader knows what to fix or rerun.
import { AbpError } from '@abp/protocol/errors';

export type ResultsErrorCode = 'not-a-run-folder' | 'missing-file' | 'invalid-file' | 'incomplete-run';

export class ResultsError extends AbpError<ResultsErrorCode> {}
