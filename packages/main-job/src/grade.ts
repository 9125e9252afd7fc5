// The grade stage: `abp run` (grader/run/run-matrix.ts, in this process) grades the bundled reference engine (it applies
// each task's verified fix) against the no-op engine (it changes nothing) on the pulled tasks: ABBA-ordered trials,
// held-out verification, the verdict with its intervals and tests, and the HTML report.
import { runMatrix, type RunOutcome } from '@abp/grader/run';
import type { StageReport } from './stage.js';

export async function gradeEngines(
  input: { config: string; adapters: string; tasksDir: string; results: string },
  report: StageReport,
): Promise<{ value: RunOutcome; summary: string }> {
  const outcome = await runMatrix({
    config: input.config,
    adapters: input.adapters,
    tasks: input.tasksDir,
    output: input.results,
    onEvent: (event) => {
      switch (event.kind) {
        case 'started':
          report.note(`run ${event.runId}: ${event.total} trials → ${event.runDir}`);
          report.progress(event.done, event.total, 'trials');
          break;
        case 'preflight':
          if (!event.result.passed) report.note(`preflight ${event.engine}: FAILED (${event.result.detail})`);
          break;
        case 'trial':
          report.progress(
            event.done,
            event.total,
            'trials',
            `${event.trial.task} × ${event.trial.engine}: ${event.trial.outcome}`,
          );
          break;
      }
    },
  });
  const rates = outcome.verdict.perEngine.map((engine) => {
    const rate = engine.resolveRate;
    const shown =
      rate === null
        ? 'n/a'
        : `${(rate.point * 100).toFixed(0)}% [${(rate.wilson95[0] * 100).toFixed(0)}, ${(rate.wilson95[1] * 100).toFixed(0)}]`;
    return `${engine.engine} ${engine.resolvedTrials ?? 0}/${engine.scoredTrials} resolved, ${shown}`;
  });
  const pair = outcome.verdict.pairwise[0];
  const test = pair === undefined ? '' : `; McNemar exact p = ${pair.mcnemar.pExact.toPrecision(3)}`;
  for (const line of rates) report.note(line);
  return { value: outcome, summary: `${rates.join('; ')}${test}` };
}
