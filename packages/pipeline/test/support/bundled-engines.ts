// A run of the reference engine against the no-op engine on task folders, configured as a user would for `abp run`:
// the reference engine applies each task's golden patch (so it must resolve), the no-op engine changes nothing.
// Under the sandboxed policy the task folders are hidden from engines, so the reference engine reads copies of the
// golden patches from a folder of its own, as an operator grading with an oracle would set it up.
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Adapter, ExecutionPolicy } from '@abp/protocol/schemas/abp-adapters';
import { engineProgram, engineProgramPaths } from '@abp/grader/engines';
import { runMatrix, type RunOutcome } from '@abp/grader/run';

export const BUNDLED_METADATA = {
  model: 'abp/demo-model',
  provider: 'abp',
  sampling: { temperature: 0 },
  toolPolicy: 'default',
  deployment: 'local',
} as const;

/** The adapter fields every engine of these runs shares; `command` and `program` are each engine's own. */
export const ADAPTER_DEFAULTS = {
  env: { allow: [], set: {} },
  timeoutSeconds: 300,
  metadata: BUNDLED_METADATA,
  capabilities: ['edit-files', 'run-commands'],
  preflight: { prompt: 'Reply with exactly: ABP-PREFLIGHT-OK', sentinel: 'ABP-PREFLIGHT-OK', timeoutSeconds: 60 },
  trace: { kind: 'native' },
} as const;

export async function gradeBundledEngines(input: {
  /** A folder of the test's own for the configuration files and the results. */
  dir: string;
  tasksDir: string;
  taskIds: string[];
  /** The environment store the tasks' images are read from. */
  environments: string;
  /** Default trusted-local. */
  policy?: ExecutionPolicy;
  /** More engines of the same run, graded beside the two bundled ones. */
  extraAdapters?: ReadonlyArray<Partial<Adapter> & { engine: string; command: string[] }>;
}): Promise<RunOutcome> {
  const policy = input.policy ?? 'trusted-local';
  let goldenPatches = input.tasksDir;
  if (policy === 'sandboxed') {
    goldenPatches = join(input.dir, 'oracle');
    for (const id of input.taskIds) {
      await mkdir(join(goldenPatches, id, 'held-out'), { recursive: true });
      await copyFile(
        join(input.tasksDir, id, 'held-out', 'golden.patch'),
        join(goldenPatches, id, 'held-out', 'golden.patch'),
      );
    }
  }
  const bundled = (['reference', 'noop'] as const).map((engine) => ({
    ...ADAPTER_DEFAULTS,
    engine,
    command: [process.execPath, engineProgram(engine), '--input', '{inputFile}', '--tasks', goldenPatches],
    // In a task's environment the engine sees only these of the host: its node, its code and the golden patches.
    program: [...engineProgramPaths(), goldenPatches],
  }));
  const adapters = [...bundled, ...(input.extraAdapters ?? []).map((adapter) => ({ ...ADAPTER_DEFAULTS, ...adapter }))];
  await writeFile(
    join(input.dir, 'adapters.json'),
    JSON.stringify({ schema: 'abp-adapters/v1', executionPolicy: policy, adapters }),
  );
  await writeFile(
    join(input.dir, 'run.json'),
    JSON.stringify({
      schema: 'abp-run/v1',
      engines: adapters.map((adapter) => ({ name: adapter.engine, version: '1.0.0' })),
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
