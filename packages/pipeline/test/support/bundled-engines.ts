// A run of the reference engine against the no-op engine on task folders, configured as a user would for `abp run`:
// the reference engine applies each task's golden patch (so it must resolve), the no-op engine changes nothing.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { engineProgram } from '@abp/grader/engines';
import { runMatrix, type RunOutcome } from '@abp/grader/run';

export async function gradeBundledEngines(input: {
  /** A folder of the test's own for the configuration files and the results. */
  dir: string;
  tasksDir: string;
  taskIds: string[];
  /** The environment store the tasks' images are read from. */
  environments: string;
}): Promise<RunOutcome> {
  const metadata = {
    model: 'abp/demo-model',
    provider: 'abp',
    sampling: { temperature: 0 },
    toolPolicy: 'default',
    deployment: 'local',
  };
  const engines = ['reference', 'noop'] as const;
  await writeFile(
    join(input.dir, 'adapters.json'),
    JSON.stringify({
      schema: 'abp-adapters/v1',
      // The reference engine reads the golden patch from the task folders, which the sandbox would hide.
      executionPolicy: 'trusted-local',
      adapters: engines.map((engine) => ({
        engine,
        command: [process.execPath, engineProgram(engine), '--input', '{inputFile}', '--tasks', input.tasksDir],
        env: { allow: [], set: {} },
        timeoutSeconds: 300,
        metadata,
        capabilities: ['edit-files', 'run-commands'],
        preflight: { prompt: 'Reply with exactly: ABP-PREFLIGHT-OK', sentinel: 'ABP-PREFLIGHT-OK', timeoutSeconds: 60 },
        trace: { kind: 'native' },
      })),
    }),
  );
  await writeFile(
    join(input.dir, 'run.json'),
    JSON.stringify({
      schema: 'abp-run/v1',
      engines: engines.map((name) => ({ name, version: '1.0.0' })),
      model: 'abp/demo-model',
      budgetUsd: 5,
      timeoutSeconds: 300,
      trials: 1,
      ordering: 'abba',
      seed: 7,
      tasks: input.taskIds,
    }),
  );
  return runMatrix({
    config: join(input.dir, 'run.json'),
    adapters: join(input.dir, 'adapters.json'),
    tasks: input.tasksDir,
    output: join(input.dir, 'results'),
    environments: input.environments,
    hostEnv: process.env,
  });
}
