// The oracle run: the bundled reference engine (it applies each task's golden patch) against the no-op engine (it
// changes nothing), written as the abp-run/v1 config and adapters file a user would write for `abp run`. The main job
// grades with it, and the freeze proves each task with it before signing: the golden patch must resolve, the empty
// one must not, through the grader's own trials.
import { jsonText, writeFileAtomic } from '../run/files.js';
import { engineProgram, engineProgramPaths } from './programs.js';

/** The oracle and the floor every engine must beat. */
export const ORACLE_ENGINES = ['reference', 'noop'] as const;

/** The model both bundled engines declare: they call none, and say so (their traces carry made-up token counts). */
export const ORACLE_MODEL = 'abp/demo-model';

/**
 * An adapter entry for an engine program abp ships (the bundled and the conformance engines): trusted-local, on the
 * model they declare, with the preflight and native trace every one of them speaks.
 */
export function localAdapter(input: {
  engine: string;
  command: string[];
  program?: string[];
  allow?: string[];
  timeoutSeconds: number;
}) {
  return {
    engine: input.engine,
    command: input.command,
    ...(input.program === undefined ? {} : { program: input.program }),
    env: { allow: input.allow ?? [], set: {} },
    timeoutSeconds: input.timeoutSeconds,
    metadata: {
      model: ORACLE_MODEL,
      provider: 'abp',
      sampling: { temperature: 0 },
      toolPolicy: 'default',
      deployment: 'local',
    },
    capabilities: ['edit-files', 'run-commands'],
    preflight: { prompt: 'Reply with exactly: ABP-PREFLIGHT-OK', sentinel: 'ABP-PREFLIGHT-OK', timeoutSeconds: 60 },
    trace: { kind: 'native' },
  };
}

export async function writeOracleRun(input: {
  config: string;
  adapters: string;
  tasksDir: string;
  tasks: readonly string[];
  trials: number;
  seed: number;
  /** Each trial's bound, engine and verification alike. Default 300. */
  timeoutSeconds?: number;
}): Promise<void> {
  const timeoutSeconds = input.timeoutSeconds ?? 300;
  await writeFileAtomic(
    input.adapters,
    jsonText({
      schema: 'abp-adapters/v1',
      // The bundled engines are abp's own code, and the reference engine reads each task's golden patch from the task
      // folders, which a sandbox would hide from it.
      executionPolicy: 'trusted-local',
      adapters: ORACLE_ENGINES.map((engine) =>
        localAdapter({
          engine,
          command: [process.execPath, engineProgram(engine), '--input', '{inputFile}', '--tasks', input.tasksDir],
          // In a task's environment the engine sees only these of the host: its node, its code and the golden patches.
          program: [...engineProgramPaths(), input.tasksDir],
          timeoutSeconds,
        }),
      ),
    }),
  );
  await writeFileAtomic(
    input.config,
    jsonText({
      schema: 'abp-run/v1',
      engines: ORACLE_ENGINES.map((engine) => ({ name: engine, version: '1.0.0' })),
      model: ORACLE_MODEL,
      budgetUsd: 5,
      timeoutSeconds,
      trials: input.trials,
      ordering: 'abba',
      seed: input.seed,
      tasks: [...input.tasks].sort(),
    }),
  );
}
