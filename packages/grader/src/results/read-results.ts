// Reads the folder `abp run` writes (results/<runId>, or the results/run-latest link to it). First every file against
// the digest its journal recorded as the run wrote it (results-tampered when one differs, is gone, or was never
// recorded), then every file against its schema and against the others, so the gate and the report only ever see
// what the run itself wrote. A trial file the run sealed but this grader cannot read is set aside, never fatal.
import { readFile, realpath, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { z } from 'zod';
import { runSchema, type AbpRun } from '@abp/protocol/schemas/abp-run';
import { trialSchema, type AbpTrial } from '@abp/protocol/schemas/abp-trial';
import { verdictSchema, type AbpVerdict } from '@abp/protocol/schemas/abp-verdict';
import { locateIssues, plainWordsParseOptions } from '@abp/protocol/schemas/issues';
import { formatJsonPath, parseJsonText } from '@abp/protocol/schemas/json-text';
import { compareCodeUnits, describeValue, documentId, sha256Digest } from '@abp/protocol/schemas/primitives';
import { RunError } from '../run/errors.js';
import { parseJournal, recordedFiles, SEALED_AT_END, trialFileOf, type JournalContents } from '../run/journal.js';
import {
  checkRunFile,
  describeFindings,
  readRunFile,
  sha256Of,
  unrecordedTrialFiles,
  type SealFinding,
} from '../run/seal.js';
import { ResultsError } from './errors.js';

export interface TaskEntry {
  id: string;
  digest: string;
}

/** A trial file the run wrote and sealed that fails this grader's checks, e.g. one written under another schema. */
export interface UnreadableTrial {
  /** The trial file, relative to the run folder. */
  file: string;
  trialId: string;
  /** The engine the journal's record names; null when it names none. */
  engine: string | null;
  /** What is wrong, by field. */
  problem: string;
}

/** What a run holds, however it was read: from its folder, or from the run's own memory as it finishes. */
export interface RunContents {
  /** The run folder itself, with symlinks resolved. */
  dir: string;
  run: AbpRun;
  /** Null until the run has finished and sealed verdict.json. */
  verdict: AbpVerdict | null;
  /** The task set, sorted by id. */
  tasks: TaskEntry[];
  /** Every trial recorded so far, in schedule order. */
  trials: AbpTrial[];
  /** Trials recorded and sealed that could not be read: left out of `trials`, so their slots count as missing. */
  unreadable: UnreadableTrial[];
}

export interface RunResults extends RunContents {
  /** The journal the folder was checked against: its sha256 (what `abp run` printed) and whether the run sealed it. */
  journal: { digest: string; sealed: boolean };
}

export interface ReadOptions {
  /** The journal digest `abp run` printed at its end, kept outside the folder: progress.jsonl must still have it. */
  journalDigest?: string | undefined;
}

/** The link `abp run` points at its newest run folder. */
const LATEST_RUN_LINK = 'run-latest';
const JOURNAL_FILE = 'progress.jsonl';

const taskListSchema = z.array(z.strictObject({ id: documentId, digest: sha256Digest }));

const REGENERATE = 'rerun `abp run` to write the folder again';
const DISTRUST =
  'something other than the run wrote it after the run recorded it, so none of the folder is evidence: run `abp run` again (a run that was interrupted is finished with --resume-progress)';

/**
 * Reads a run folder. `dir` may be the run folder, the results/run-latest link, or the results folder that holds
 * that link. Every file must match the journal's digests (results-tampered); a run still in progress has no seal, no
 * verdict.json, and may have trial files the journal does not record yet (the trials in flight), which are left out.
 */
export async function readRunResults(dir: string, options: ReadOptions = {}): Promise<RunResults> {
  const folder = await locateRunFolder(dir);
  const { journal, digest } = await readJournal(folder, options.journalDigest);
  const sealedBytes = await checkSeal(folder, journal);
  const textOf = async (file: string): Promise<string | null> =>
    sealedBytes.get(file)?.toString('utf8') ?? readOptional(join(folder, file));

  const runFile = join(folder, 'run.json');
  const run = parseDocument(runFile, (await textOf('run.json')) ?? '', runSchema);
  if (run.id !== undefined && run.id !== journal.header.runId)
    throw tampered(folder, [{ file: 'run.json', change: 'changed', recorded: journal.header.runId, found: run.id }]);

  const tasksFile = join(folder, 'tasks.json');
  const tasksText = await textOf('tasks.json');
  if (tasksText === null) {
    throw new ResultsError(
      'missing-file',
      `${tasksFile} is missing: \`abp run\` writes the task set (ids and digests) there before the first trial; ${REGENERATE}`,
    );
  }
  const tasks = checkTasks(tasksFile, parseDocument(tasksFile, tasksText, taskListSchema), run);

  const verdictFile = join(folder, 'verdict.json');
  const verdictText = journal.seal === null ? null : await textOf('verdict.json');
  const verdict = verdictText === null ? null : parseDocument(verdictFile, verdictText, verdictSchema);
  if (verdict && run.id !== undefined && verdict.run !== run.id) {
    throw new ResultsError(
      'invalid-file',
      `${verdictFile}: run: names ${describeValue(verdict.run)}, but run.json is run ${describeValue(run.id)}; the verdict belongs to another run, ${REGENERATE}`,
    );
  }

  const entries = journal.trials.map((line): TrialEntry => {
    const file = trialFileOf(line.trialId);
    const engine = typeof line.record.engine === 'string' ? line.record.engine : null;
    const json = parseJsonText(sealedBytes.get(file)?.toString('utf8') ?? '');
    return json.ok
      ? { file, trialId: line.trialId, engine, value: json.value }
      : { file, trialId: line.trialId, engine, problem: `is not valid JSON: ${json.error.message}` };
  });
  return {
    dir: folder,
    run,
    verdict,
    tasks,
    ...checkTrials(run, tasks, entries),
    journal: { digest, sealed: journal.seal !== null },
  };
}

function tampered(folder: string, findings: SealFinding[], advice = DISTRUST, cause?: unknown): ResultsError {
  return new ResultsError(
    'results-tampered',
    `${folder}: the results do not match the journal that sealed them: ${describeFindings(findings)}; ${advice}`,
    { findings, cause },
  );
}

async function readJournal(
  folder: string,
  expected: string | undefined,
): Promise<{ journal: JournalContents; digest: string }> {
  const bytes = await readRunFile(folder, JOURNAL_FILE);
  if (bytes === null)
    throw tampered(
      folder,
      [{ file: JOURNAL_FILE, change: 'missing', recorded: expected ?? null, found: null }],
      `\`abp run\` writes ${JOURNAL_FILE} before any other file and seals the folder with it; without it nothing here can be checked: run \`abp run\` again`,
    );
  const digest = sha256Of(bytes);
  // Checked before anything in the journal is believed: this digest is the one thing a forger of the folder cannot set.
  if (expected !== undefined && digest !== expected)
    throw tampered(folder, [{ file: JOURNAL_FILE, change: 'changed', recorded: expected, found: digest }]);
  try {
    return { journal: parseJournal(join(folder, JOURNAL_FILE), bytes.toString('utf8')), digest };
  } catch (error) {
    if (!(error instanceof RunError)) throw error;
    throw tampered(
      folder,
      [{ file: JOURNAL_FILE, change: 'malformed', recorded: null, found: digest }],
      `${error.message}; ${DISTRUST}`,
      error,
    );
  }
}

// The files a reader parses; the bytes of the others (receipts, reproduce.txt, report.html) are only digested.
const PARSED = new Set(['run.json', 'tasks.json', 'verdict.json']);
const CHECK_BATCH = 64;

/**
 * Checks every file the journal records against its digest, and that the folder holds no trial file or verdict the
 * journal does not: any difference is results-tampered, naming every file. Returns the bytes of the files it parses,
 * so what is parsed is exactly what was checked.
 */
async function checkSeal(folder: string, journal: JournalContents): Promise<Map<string, Buffer>> {
  const findings: SealFinding[] = [];
  const kept = new Map<string, Buffer>();
  const recorded = [...recordedFiles(journal)];
  for (let start = 0; start < recorded.length; start += CHECK_BATCH) {
    const batch = recorded.slice(start, start + CHECK_BATCH);
    const checked = await Promise.all(batch.map(([file, digest]) => checkRunFile(folder, file, digest)));
    checked.forEach(({ bytes, finding }, index) => {
      const file = batch[index]?.[0] ?? '';
      if (finding !== null) findings.push(finding);
      else if (bytes !== null && (PARSED.has(file) || file.startsWith('trials/'))) kept.set(file, bytes);
    });
  }

  // A run in progress writes each trial file just before its journal line, and a killed one may leave the trial it
  // was running: without a seal those files are the trials in flight, left out. A sealed run has no trial in flight.
  if (journal.seal !== null) {
    findings.push(
      ...(await unrecordedTrialFiles(folder, new Set(journal.trials.map((line) => trialFileOf(line.trialId))))),
    );
  } else {
    for (const file of SEALED_AT_END) {
      const bytes = await readRunFile(folder, file);
      if (bytes !== null) findings.push({ file, change: 'unrecorded', recorded: null, found: sha256Of(bytes) });
    }
  }
  if (findings.length > 0) {
    const unsealedEnd = journal.seal === null && findings.every((finding) => finding.change === 'unrecorded');
    throw tampered(
      folder,
      findings,
      unsealedEnd
        ? `the journal has no seal line, so the run did not finish writing them: if it was interrupted after its last trial, finish it with \`abp run --config <its config> -o <its results folder> --resume-progress ${folder}\`; otherwise ${DISTRUST}`
        : DISTRUST,
    );
  }
  return kept;
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

/** A document checked against its schema: the value, or what is wrong with it by field (the first few problems). */
function checkDocument<S extends z.ZodType>(
  json: unknown,
  schema: S,
): { ok: true; value: z.output<S> } | { ok: false; problem: string } {
  const parsed = schema.safeParse(json, plainWordsParseOptions);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issues = locateIssues(parsed.error.issues);
  const listed = issues.slice(0, 3).map((issue) => `${formatJsonPath(issue.path)}: ${issue.message}`);
  const more = issues.length > listed.length ? ` (and ${issues.length - listed.length} more)` : '';
  return { ok: false, problem: `${listed.join('; ')}${more}` };
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
  const checked = checkDocument(json.value, schema);
  if (checked.ok) return checked.value;
  throw new ResultsError(
    'invalid-file',
    `${file}: ${checked.problem}; \`abp validate ${file}\` lists every problem, and ${REGENERATE}`,
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

/** A recorded trial to check: its file, its id and engine as the journal names them, and its JSON (or why there is none). */
export type TrialEntry = { file: string; trialId: string; engine: string | null } & (
  { value: unknown } | { problem: string }
);

/**
 * Checks recorded trials against the schema, run.json and tasks.json. One that fails is set aside as unreadable with
 * its problem, never fatal: the others are still read, and its slot of the matrix counts as missing, so a gate or a
 * baseline that needs it refuses by name. Trials come back in schedule order.
 */
export function checkTrials(
  run: AbpRun,
  tasks: readonly TaskEntry[],
  entries: readonly TrialEntry[],
): { trials: AbpTrial[]; unreadable: UnreadableTrial[] } {
  const digests = new Map(tasks.map((task) => [task.id, task.digest]));
  const slots = new Map<string, string>();
  const trials: AbpTrial[] = [];
  const unreadable: UnreadableTrial[] = [];
  for (const entry of entries) {
    const { file, trialId, engine } = entry;
    const checked = checkTrial(entry, run, digests);
    if (typeof checked === 'string') {
      unreadable.push({ file, trialId, engine, problem: checked });
      continue;
    }
    const slot = `${checked.task}\n${checked.engine}\n${checked.trial}`;
    const first = slots.get(slot);
    if (first !== undefined) {
      unreadable.push({
        file,
        trialId,
        engine,
        problem: `trial: repeats task ${checked.task}, engine ${checked.engine}, trial ${checked.trial} of ${first}; each trial is recorded once`,
      });
      continue;
    }
    slots.set(slot, file);
    trials.push(checked);
  }
  trials.sort((a, b) => a.order - b.order || compareCodeUnits(a.trialId, b.trialId));
  return { trials, unreadable };
}

/** One trial checked on its own: the record, or its problem by field. */
function checkTrial(entry: TrialEntry, run: AbpRun, digests: ReadonlyMap<string, string>): AbpTrial | string {
  if ('problem' in entry) return entry.problem;
  const checked = checkDocument(entry.value, trialSchema);
  if (!checked.ok) return checked.problem;
  const trial = checked.value;
  if (trial.trialId !== entry.trialId)
    return `trialId: is ${describeValue(trial.trialId)}, but the journal records it as ${entry.trialId}`;
  const engines = run.engines.map((engine) => engine.name);
  if (!engines.includes(trial.engine))
    return `engine: ${describeValue(trial.engine)} is not an engine of run.json (${engines.join(', ')})`;
  const digest = digests.get(trial.task);
  if (digest === undefined) return `task: ${describeValue(trial.task)} is not in tasks.json`;
  if (digest !== trial.taskDigest)
    return `taskDigest: is ${trial.taskDigest}, but tasks.json has ${digest} for ${trial.task}: the trial graded another version of the task`;
  if (trial.trial >= run.trials)
    return `trial: is ${trial.trial}, but run.json has trials: ${run.trials} (indices 0 to ${run.trials - 1})`;
  return trial;
}

/** The run's id: stamped in run.json, else the name of its folder (results/<runId>). */
export function runIdOf(results: Pick<RunContents, 'run' | 'dir'>): string {
  return results.run.id ?? basename(results.dir);
}
