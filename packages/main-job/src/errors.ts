// The one error type of pipeline/: a stage of the main job that could not finish, with the log that says why.
import type { StageName } from './events.js';
import { AbpError } from '@abp/protocol/errors';

export class PipelineError extends AbpError<'stage-failed'> {
  constructor(
    readonly stage: StageName,
    /** What went wrong, in a sentence that says what to do where it can. */
    readonly reason: string,
    /** The log to read (worker, simulator, serve), or null when the reason says it all. */
    readonly log: string | null,
    options?: { cause?: unknown },
  ) {
    super('stage-failed', `${stage} failed: ${reason}${log === null ? '' : ` (see ${log})`}`, options);
  }
}
