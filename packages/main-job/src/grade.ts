// The grade stage: `abp run` (grader/run/run-matrix.ts, in this process) grades the bundled reference engine (it applies
// each task's verified fix) against the no-op engine (it changes nothing) on the pulled tasks: ABBA-ordered trials,
// held-out verification, the verdict with its intervals and tests, and the HTML report.
import { jsonText, writeFileAtomic } from '@abp/grader/run';
import { runMatrix, type RunOutcome } from '@abp/grader/run';
import { engineProgram, engineProgramPaths } from '@abp/grader/engines';
import type { StageReport } from './stage.js';

/** The engines of the main job's run: the oracle and the floor every engine must beat. */
export const GRADED_ENGINES = ['reference', 'noop'] as const;

/** The model both bundled engines declare: they call none, and say so (their traces carry made-up token counts). */
export const MAIN_JOB_MODEL = 'abp/demo-model';

/** Writes the run configuration and the adapters file for `tasks`, as a user would write them for `abp run`. */
export async function writeRunInputs(input: {
  config: string;
  adapters: string;
  tasksDir: string;
  tasks: readonly string[];
  trials: number;
  seed: number;
}): Promise<void> {
  await writeFileAtomic(
    input.adapters,
    jsonText({
      schema: 'abp-adapters/v1',
      // The bundled engines are abp's own code, and the reference engine reads each task's golden patch from the task
      // folders, which a sandbox would hide from it.
      executionPolicy: 'trusted-local',
      adapters: GRADED_ENGINES.map((engine) => ({
        engine,
        command: [process.execPath, engineProgram(engine), '--input', '{inputFile}', '--tasks', input.tasksDir],
        // In a task's environment the engine sees only these of the host: its node, its code and the golden patches.
        program: [...engineProgramPaths(), input.tasksDir],
        env: { allow: [], set: {} },
        timeoutSeconds: 300,
        metadata: {
          model: MAIN_JOB_MODEL,
          provider: 'abp',
          sampling: { temperature: 0 },
          toolPolicy: 'default',
          deployment: 'local',
        },
        capabilities: ['edit-files', 'run-commands'],
        preflight: { prompt: 'Reply with exactly: ABP-PREFLIGHT-OK', sentinel: 'ABP-PREFLIGHT-OK', timeoutSeconds: 60 },
        trace: { kind: 'native' },
      })),
    }),
  );
  await writeFileAtomic(
    input.config,
    jsonText({
      schema: 'abp-run/v1',
      engines: GRADED_ENGINES.map((engine) => ({ name: engine, version: '1.0.0' })),
      model: MAIN_JOB_MODEL,
      budgetUsd: 5,
      timeoutSeconds: 300,
      trials: input.trials,
      ordering: 'abba',
      // The draw's seed orders the trials too: one published number reproduces the whole job.
      seed: input.seed,
      tasks: [...input.tasks].sort(),
    }),
  );
}

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
