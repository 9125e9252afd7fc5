// Reads and cross-checks everything `abp run` needs before any process starts: the abp-run/v1 config, the adapters file
// and the task folders. Every problem names the file, the field and the fix; nothing runs until all of it is valid.
import { dirname, join, resolve } from 'node:path';
import {
  adaptersSchema,
  MAX_PROCESS_SECONDS,
  type AbpAdapters,
  type Adapter,
} from '@abp/protocol/schemas/abp-adapters';
import { runConfigSchema, type AbpRunConfig } from '@abp/protocol/schemas/abp-run';
import { findPlaceholderProblems } from '../execution/placeholders.js';
import { loadTaskDirectory, type TaskDirectory } from './task-directory.js';
import { traceTranslators } from '../traces/index.js';
import { BoundedReadError, readBoundedFile } from '@abp/protocol/files/bounded-read';
import { MAX_DOCUMENT_BYTES } from '../input-limits.js';
import { GraderConfigError } from './errors.js';
import { formatIssues } from '@abp/protocol/schemas/issues';

export interface RunInputPaths {
  config: string;
  /** Default: abp-adapters.json beside the config. */
  adapters?: string | undefined;
  /** Default: tasks/ beside the config. */
  tasks?: string | undefined;
}

export interface RunInputs {
  paths: { config: string; adapters: string; tasks: string };
  config: AbpRunConfig;
  adapters: AbpAdapters;
  /** One adapter per engine of the config, in the config's order. */
  adapterOf: ReadonlyMap<string, Adapter>;
  /** In the config's task order. */
  tasks: TaskDirectory[];
  /** Comparison metadata that differs between adapters or is missing (harness spec: fair comparisons). */
  comparisonWarnings: string[];
  /** False when an engine's declared model differs from the run's or is not declared at all. */
  matchedModels: boolean;
}

async function readJson(path: string, what: string): Promise<unknown> {
  const text = (
    await readBoundedFile(path, { maxBytes: MAX_DOCUMENT_BYTES, what: `the ${what}` }).catch((error: unknown) => {
      // Absent stays the configuration's own missing-file; a special or oversized file keeps its bounded-read code.
      if (error instanceof BoundedReadError && error.code === 'unreadable')
        throw new GraderConfigError('missing-file', error.message, { cause: error });
      throw error;
    })
  ).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new GraderConfigError('invalid-json', `${path}: the ${what} is not valid JSON (${(error as Error).message})`);
  }
}

function comparisonWarnings(
  config: AbpRunConfig,
  adapterOf: ReadonlyMap<string, Adapter>,
): { warnings: string[]; matchedModels: boolean } {
  const warnings: string[] = [];
  let matchedModels = true;
  for (const engine of config.engines) {
    const declared = adapterOf.get(engine.name)?.metadata.model;
    const expected = engine.model ?? config.model;
    if (expected !== config.model) {
      matchedModels = false;
      warnings.push(`engine "${engine.name}" is configured to run ${expected}, not the run's model ${config.model}`);
    } else if (declared === undefined) {
      matchedModels = false;
      warnings.push(
        `engine "${engine.name}" does not declare metadata.model, so the run cannot confirm it used ${config.model}`,
      );
    } else if (declared !== config.model) {
      matchedModels = false;
      warnings.push(
        `engine "${engine.name}" runs ${declared}, not the run's model ${config.model}${declared === expected ? '' : ` (its config entry says ${expected})`}`,
      );
    }
  }
  for (const field of ['provider', 'toolPolicy', 'sampling', 'deployment'] as const) {
    const values = config.engines.map((engine) => JSON.stringify(adapterOf.get(engine.name)?.metadata[field] ?? null));
    if (values.includes('null'))
      warnings.push(
        `metadata.${field} is missing for ${config.engines
          .filter((_, index) => values[index] === 'null')
          .map((engine) => `"${engine.name}"`)
          .join(', ')}`,
      );
    else if (new Set(values).size > 1)
      warnings.push(
        `metadata.${field} differs between engines: ${config.engines.map((engine, index) => `${engine.name}=${values[index] ?? ''}`).join(', ')}`,
      );
  }
  return { warnings, matchedModels };
}

export async function loadRunInputs(input: RunInputPaths): Promise<RunInputs> {
  const configPath = resolve(input.config);
  const adaptersPath = resolve(input.adapters ?? join(dirname(configPath), 'abp-adapters.json'));
  const tasksDir = resolve(input.tasks ?? join(dirname(configPath), 'tasks'));

  const configResult = runConfigSchema.safeParse(await readJson(configPath, 'run configuration'));
  if (!configResult.success)
    throw new GraderConfigError(
      'invalid-config',
      `${configPath} is not a valid abp-run/v1 configuration:\n${formatIssues(configResult.error.issues)}`,
    );
  const config = configResult.data;

  const adaptersResult = adaptersSchema.safeParse(await readJson(adaptersPath, 'adapters file'));
  if (!adaptersResult.success)
    throw new GraderConfigError(
      'invalid-adapters',
      `${adaptersPath} is not a valid abp-adapters/v1 file:\n${formatIssues(adaptersResult.error.issues)}`,
    );
  const adapters = adaptersResult.data;

  const byEngine = new Map(adapters.adapters.map((adapter) => [adapter.engine, adapter]));
  const adapterOf = new Map<string, Adapter>();
  config.engines.forEach((engine, index) => {
    const adapter = byEngine.get(engine.name);
    if (!adapter) {
      throw new GraderConfigError(
        'unknown-engine',
        `${configPath}: engines[${index}].name "${engine.name}" has no adapter in ${adaptersPath}; add {"engine": "${engine.name}", "command": [...]} there (known: ${[...byEngine.keys()].join(', ')})`,
      );
    }
    adapterOf.set(engine.name, adapter);
  });
  adapters.adapters.forEach((adapter, index) => {
    for (const [field, argv] of [
      ['command', adapter.command],
      ['preflight.command', adapter.preflight.command ?? []],
    ] as const) {
      const problems = findPlaceholderProblems(argv);
      if (problems.length > 0)
        throw new GraderConfigError(
          'invalid-placeholder',
          `${adaptersPath}: adapters[${index}].${field}: ${problems.join('; ')}`,
        );
    }
    if (adapter.trace.kind === 'sidecar' && !traceTranslators.has(adapter.trace.translator)) {
      throw new GraderConfigError(
        'unknown-translator',
        `${adaptersPath}: adapters[${index}].trace.translator "${adapter.trace.translator}" is not a known translator (known: ${[...traceTranslators.keys()].join(', ')})`,
      );
    }
  });

  const tasks = await Promise.all(
    config.tasks.map(async (id, index) => {
      const task = await loadTaskDirectory(join(tasksDir, id)).catch((error: unknown) => {
        if (error instanceof GraderConfigError && error.code === 'missing-file') {
          throw new GraderConfigError(
            'unknown-task',
            `${configPath}: tasks[${index}] "${id}" has no task folder ${join(tasksDir, id)} with a task.json; pass --tasks <dir> or fix the id`,
          );
        }
        throw error;
      });
      if (task.manifest.id !== id)
        throw new GraderConfigError(
          'invalid-task',
          `${join(tasksDir, id, 'task.json')}: id is "${task.manifest.id}" but the folder and ${configPath} tasks[${index}] say "${id}"`,
        );
      return task;
    }),
  );

  for (const [field, seconds] of [
    ['timeoutSeconds', config.timeoutSeconds],
    ...adapters.adapters.map(
      (adapter, index) => [`adapters[${index}].timeoutSeconds`, adapter.timeoutSeconds ?? 0] as const,
    ),
  ] as const) {
    if (seconds > MAX_PROCESS_SECONDS) {
      throw new GraderConfigError(
        'invalid-config',
        `${field.startsWith('adapters') ? adaptersPath : configPath}: ${field} is ${seconds}, but the grader stops every process after ${MAX_PROCESS_SECONDS} s (harness spec); lower it`,
      );
    }
  }
  const { warnings, matchedModels } = comparisonWarnings(config, adapterOf);
  if (config.matchedModels === true && !matchedModels) {
    throw new GraderConfigError(
      'mismatched-models',
      `${configPath}: matchedModels is true, but ${warnings[0] ?? 'the adapters disagree'}; remove matchedModels (abp stamps it) or fix the adapters' metadata.model`,
    );
  }
  return {
    paths: { config: configPath, adapters: adaptersPath, tasks: tasksDir },
    config,
    adapters,
    adapterOf,
    tasks,
    comparisonWarnings: warnings,
    matchedModels,
  };
}
