// Reads the folder `abp run` writes (results/<runId>, or the results/run-latest link to it): every file checked
// against its schema and against the others, so the gate and the report only ever see a consistent run.
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { z } from 'zod';
import { runSchema, type AbpRun } from '@abp/protocol/schemas/abp-run';
import { trialSchema, type AbpTrial } from '@abp/protocol/schemas/abp-trial';
import { verdictSchema, type AbpVerdict } from '@abp/protocol/schemas/abp-verdict';
import { locateIssues, plainWordsParseOptions } from '@abp/protocol/schemas/issues';
import { formatJsonPath, parseJsonText } from '@abp/protocol/schemas/json-text';
import { compareCodeUnits, describeValue, documentId, sha256Digest } from '@abp/protocol/schemas/primitives';
import { ResultsError } from './errors.js';

export interface TaskEntry {
  id: string;
  digest: string;
}

export interface RunResults {
  /** The run folder itself, with symlinks resolved. */
  dir: string;
  run: AbpRun;
  /** Null until the run has finished and written verdict.json. */
  verdict: AbpVerdict | null;
  /** The task set, sorted by id. */
  tasks: TaskEntry[];
  /** Every trial recorded so far, in schedule order. */
  trials: AbpTrial[];
}

/** The link `abp run` points at its newest run folder. */
const LATEST_RUN_LINK = 'run-latest';

const taskListSchema = z.array(z.strictObject({ id: documentId, digest: sha256Digest }));

const REGENERATE = 'rerun `abp run` to write the folder again';
// Enough files at once to keep the disk busy, few enough to stay far below the open-file limit.
const READ_BATCH = 64;

/**
 * Reads a run folder. `dir` may be the run folder, the results/run-latest link, or the results folder that holds
 * that link. Only verdict.json and trials/ may be absent (a run still in progress); anything else is a ResultsError.
 */
export async function readRunResults(dir: string): Promise<RunResults> {
  const folder = await locateRunFolder(dir);
  const runFile = join(folder, 'run.json');
  const run = parseDocument(runFile, (await readOptional(runFile)) ?? '', runSchema);

  const tasksFile = join(folder, 'tasks.json');
  const tasksText = await readOptional(tasksFile);
  if (tasksText === null) {
    throw new ResultsError(
      'missing-file',
      `${tasksFile} is missing: \`abp run\` writes the task set (ids and digests) there before the first trial; ${REGENERATE}`,
    );
  }
  const tasks = checkTasks(tasksFile, parseDocument(tasksFile, tasksText, taskListSchema), run);

  const verdictFile = join(folder, 'verdict.json');
  const verdictText = await readOptional(verdictFile);
  const verdict = verdictText === null ? null : parseDocument(verdictFile, verdictText, verdictSchema);
  if (verdict && run.id !== undefined && verdict.run !== run.id) {
    throw new ResultsError(
      'invalid-file',
      `${verdictFile}: run: names ${describeValue(verdict.run)}, but run.json is run ${describeValue(run.id)}; the verdict belongs to another run, ${REGENERATE}`,
    );
  }

  return { dir: folder, run, verdict, tasks, trials: await readTrials(folder, run, tasks) };
}

async function locateRunFolder(dir: string): Promise<string> {
  let folder: string;
  try {
    folder = await realpath(resolve(dir));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw new ResultsError(
      'not-a-run-folder',
      `${dir} does not exist (or is a dangling link): pass the folder \`abp run\` wrote, e.g. results/${LATEST_RUN_LINK}`,
      { cause: error },
    );
  }
  if (await isFile(join(folder, 'run.json'))) return folder;
  if (await isFile(join(folder, LATEST_RUN_LINK, 'run.json'))) return realpath(join(folder, LATEST_RUN_LINK));
  throw new ResultsError(
    'not-a-run-folder',
    `${dir} has no run.json, so it is not a run folder: pass results/<runId> or results/${LATEST_RUN_LINK} as written by \`abp run -o results\``,
  );
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

async function readOptional(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function parseDocument<S extends z.ZodType>(file: string, text: string, schema: S): z.output<S> {
  const json = parseJsonText(text);
  if (!json.ok) {
    const { message, line, column } = json.error;
    throw new ResultsError(
      'invalid-file',
      `${file}: is not valid JSON: ${message} (line ${line}, column ${column}); the write was cut short or the file was edited, ${REGENERATE}`,
    );
  }
  const parsed = schema.safeParse(json.value, plainWordsParseOptions);
  if (parsed.success) return parsed.data;
  const issues = locateIssues(parsed.error.issues);
  const listed = issues.slice(0, 3).map((issue) => `${formatJsonPath(issue.path)}: ${issue.message}`);
  const more = issues.length > listed.length ? ` (and ${issues.length - listed.length} more)` : '';
  throw new ResultsError(
    'invalid-file',
    `${file}: ${listed.join('; ')}${more}; \`abp validate ${file}\` lists every problem, and ${REGENERATE}`,
  );
}

function checkTasks(file: string, tasks: TaskEntry[], run: AbpRun): TaskEntry[] {
  const seen = new Set<string>();
  tasks.forEach((task, index) => {
    if (seen.has(task.id))
      throw new ResultsError(
        'invalid-file',
        `${file}: [${index}].id: repeats task ${describeValue(task.id)}; each task is listed once, ${REGENERATE}`,
      );
    seen.add(task.id);
  });
  const listed = new Set(run.tasks);
  const missing = run.tasks.filter((id) => !seen.has(id));
  const extra = [...seen].filter((id) => !listed.has(id));
  if (missing.length > 0 || extra.length > 0) {
    const parts = [
      missing.length > 0 ? `lacks ${missing.join(', ')}` : '',
      extra.length > 0 ? `has ${extra.join(', ')}, which run.json does not list` : '',
    ];
    throw new ResultsError(
      'invalid-file',
      `${file}: does not match the tasks of run.json: it ${parts.filter(Boolean).join(' and ')}; both come from one task set, ${REGENERATE}`,
    );
  }
  return [...tasks].sort((a, b) => compareCodeUnits(a.id, b.id));
}

async function readTrials(folder: string, run: AbpRun, tasks: TaskEntry[]): Promise<AbpTrial[]> {
  const trialsFolder = join(folder, 'trials');
  let names: string[];
  try {
    names = (await readdir(trialsFolder)).filter((name) => name.endsWith('.json')).sort(compareCodeUnits);
  } catch (error) {
    // The folder appears with the first trial; before that the run simply has none.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }

  const engines = new Set(run.engines.map((engine) => engine.name));
  const digests = new Map(tasks.map((task) => [task.id, task.digest]));
  const slots = new Map<string, string>();
  const trials: AbpTrial[] = [];
  for (let start = 0; start < names.length; start += READ_BATCH) {
    const batch = names.slice(start, start + READ_BATCH);
    const texts = await Promise.all(batch.map((name) => readFile(join(trialsFolder, name), 'utf8')));
    batch.forEach((name, index) => {
      const file = join(trialsFolder, name);
      const trial = parseDocument(file, texts[index] ?? '', trialSchema);
      const problem = (field: string, message: string) =>
        new ResultsError('invalid-file', `${file}: ${field}: ${message}; ${REGENERATE}`);
      if (`${trial.trialId}.json` !== name)
        throw problem(
          'trialId',
          `is ${describeValue(trial.trialId)}, but the file is named ${name}; abp run names each file after its trial`,
        );
      if (!engines.has(trial.engine))
        throw problem(
          'engine',
          `${describeValue(trial.engine)} is not an engine of run.json (${[...engines].join(', ')})`,
        );
      const digest = digests.get(trial.task);
      if (digest === undefined) throw problem('task', `${describeValue(trial.task)} is not in tasks.json`);
      if (digest !== trial.taskDigest)
        throw problem(
          'taskDigest',
          `is ${trial.taskDigest}, but tasks.json has ${digest} for ${trial.task}: the trial graded another version of the task`,
        );
      if (trial.trial >= run.trials)
        throw problem(
          'trial',
          `is ${trial.trial}, but run.json has trials: ${run.trials} (indices 0 to ${run.trials - 1})`,
        );
      const slot = `${trial.task}\n${trial.engine}\n${trial.trial}`;
      const first = slots.get(slot);
      if (first !== undefined)
        throw problem(
          'trial',
          `repeats task ${trial.task}, engine ${trial.engine}, trial ${trial.trial} of ${first}; each trial is recorded once`,
        );
      slots.set(slot, name);
      trials.push(trial);
    });
  }
  return trials.sort((a, b) => a.order - b.order || compareCodeUnits(a.trialId, b.trialId));
}

/** The run's id: stamped in run.json, else the name of its folder (results/<runId>). */
export function runIdOf(results: RunResults): string {
  return results.run.id ?? basename(results.dir);
}
