// Running one stage of the main job: its start and end events, its wall time, and a failure turned into a PipelineError
// that names the stage and the log to read.
import { PipelineError } from './errors.js';
import { stageTitles, type ProgressSink, type StageName } from './events.js';
import { StackComponentExited } from './stack-stage.js';

/** What a stage's body may say while it runs. */
export interface StageReport {
  note(message: string): void;
  progress(done: number, total: number | null, unit: string, label?: string | null): void;
}

export interface StageResult<T> {
  value: T;
  ms: number;
}

/**
 * Runs `body` as `stage`: it returns its value and the one-line summary of what it did. Any error ends the stage with a
 * `stage-failed` event and is rethrown as a PipelineError; `log` is the default log to point at (a PipelineError thrown
 * by the body keeps its own). With `guard`, a stack component that exits ends the stage at once, naming its log.
 */
export async function runStage<T>(
  sink: ProgressSink,
  stage: StageName,
  log: string | null,
  body: (report: StageReport) => Promise<{ value: T; summary: string }>,
  guard?: Promise<never>,
): Promise<StageResult<T>> {
  const started = performance.now();
  sink({ event: 'stage-started', stage, title: stageTitles[stage], at: new Date().toISOString() });
  const report: StageReport = {
    note: (message) => sink({ event: 'note', stage, message }),
    progress: (done, total, unit, label = null) => sink({ event: 'stage-progress', stage, done, total, unit, label }),
  };
  try {
    const running = body(report);
    const { value, summary } = guard === undefined ? await running : await Promise.race([running, guard]);
    const ms = Math.round(performance.now() - started);
    sink({ event: 'stage-done', stage, ms, summary });
    return { value, ms };
  } catch (error) {
    const ms = Math.round(performance.now() - started);
    const failure =
      error instanceof PipelineError
        ? error
        : error instanceof StackComponentExited
          ? new PipelineError(stage, error.message, error.log, { cause: error })
          : new PipelineError(stage, error instanceof Error ? error.message : String(error), log, { cause: error });
    sink({ event: 'stage-failed', stage: failure.stage, ms, reason: failure.reason, log: failure.log });
    throw failure;
  }
}
