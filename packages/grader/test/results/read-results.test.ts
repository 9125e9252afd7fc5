// Reading a run's results folder from real files: the run-latest link, schema checks per file, cross-file checks,
// and which trials of the matrix are missing.
import { mkdir, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assertCompleteRun, missingTrials, readRunResults, ResultsError, runIdOf } from '../../src/results/index.js';
import { makeRun, makeTrial, makeVerdict, matrix, taskDigest, writeResultsFolder } from '../support/results.js';

const root = await mkdtemp(join(tmpdir(), 'abp-results-'));
afterAll(() => rm(root, { recursive: true, force: true }));

let folders = 0;
async function scratch(): Promise<string> {
  const parent = join(root, `case-${(folders += 1)}`);
  await mkdir(parent);
  return parent;
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return error instanceof ResultsError ? error.code : `not a ResultsError: ${String(error)}`;
  }
  return undefined;
}

describe('readRunResults', () => {
  it('reads a finished run through the run-latest link and its parent folder, trials in schedule order', async () => {
    const parent = await scratch();
    const run = makeRun({ trials: 2 });
    // Written in reverse so the order must come from the records, not from the file names.
    const trials = matrix(run).map((trial, index, all) => ({ ...trial, order: all.length - 1 - index }));
    const folder = await writeResultsFolder(parent, { run, trials, verdict: makeVerdict(run) });

    for (const given of [folder, join(parent, 'run-latest'), parent]) {
      const results = await readRunResults(given);
      expect(results.dir).toBe(folder);
      expect(results.run.id).toBe('run-current');
      expect(results.verdict?.run).toBe('run-current');
      expect(results.tasks).toEqual([
        { id: 'task-a', digest: taskDigest('task-a') },
        { id: 'task-b', digest: taskDigest('task-b') },
      ]);
      expect(results.trials.map((trial) => trial.order)).toEqual([0, 1, 2, 3]);
      expect(results.trials.map((trial) => trial.trialId)).toEqual([
        'task-b.oxagen.1',
        'task-b.oxagen.0',
        'task-a.oxagen.1',
        'task-a.oxagen.0',
      ]);
    }
  });

  it('reads a run in progress: no verdict yet, and the missing trials are named', async () => {
    const parent = await scratch();
    const run = makeRun({ id: undefined });
    const folder = await writeResultsFolder(parent, { run, trials: [makeTrial({ task: 'task-a' })] });
    const results = await readRunResults(folder);
    expect(results.verdict).toBeNull();
    expect(runIdOf(results)).toBe('run-current'); // from the folder name when run.json has no id
    expect(missingTrials(results)).toEqual([{ task: 'task-b', engine: 'oxagen', trial: 0 }]);
    expect(() => assertCompleteRun(results)).toThrow(expect.objectContaining({ code: 'incomplete-run' }));
  });

  it('says when a folder is not a run folder or does not exist', async () => {
    const parent = await scratch();
    expect(await codeOf(readRunResults(parent))).toBe('not-a-run-folder');
    expect(await codeOf(readRunResults(join(parent, 'nope')))).toBe('not-a-run-folder');
  });

  it('needs tasks.json', async () => {
    const parent = await scratch();
    const run = makeRun();
    const folder = await writeResultsFolder(parent, { run, trials: matrix(run) });
    await unlink(join(folder, 'tasks.json'));
    expect(await codeOf(readRunResults(folder))).toBe('missing-file');
  });

  it('names the file and the field of a trial that breaks its schema', async () => {
    const parent = await scratch();
    const run = makeRun();
    const folder = await writeResultsFolder(parent, { run, trials: matrix(run) });
    const file = join(folder, 'trials', 'task-a.oxagen.0.json');
    const trial = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    await writeFile(file, JSON.stringify({ ...trial, outcome: 'won' }));
    const error = await readRunResults(folder).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResultsError);
    expect((error as ResultsError).code).toBe('invalid-file');
    expect((error as ResultsError).message).toContain(file);
    expect((error as ResultsError).message).toContain('outcome');
  });

  it('rejects broken JSON, and records that contradict run.json or tasks.json', async () => {
    const cases: Array<[string, (folder: string) => Promise<void>]> = [
      [
        'cut-short JSON',
        (folder) => writeFile(join(folder, 'trials', 'task-a.oxagen.0.json'), '{"schema": "abp-trial/v1",'),
      ],
      [
        'a file named after another trial',
        (folder) => writeFile(join(folder, 'trials', 'other.json'), JSON.stringify(makeTrial({ task: 'task-a' }))),
      ],
      [
        'an engine the run does not have',
        (folder) =>
          writeFile(
            join(folder, 'trials', 'task-a.ghost.0.json'),
            JSON.stringify(makeTrial({ task: 'task-a', engine: 'ghost' })),
          ),
      ],
      [
        'a task outside tasks.json',
        (folder) =>
          writeFile(join(folder, 'trials', 'task-z.oxagen.0.json'), JSON.stringify(makeTrial({ task: 'task-z' }))),
      ],
      [
        'another version of a task',
        (folder) =>
          writeFile(
            join(folder, 'trials', 'task-a.oxagen.0.json'),
            JSON.stringify(makeTrial({ task: 'task-a', taskDigest: taskDigest('task-a', 2) })),
          ),
      ],
      [
        'a trial index past run.trials',
        (folder) =>
          writeFile(
            join(folder, 'trials', 'task-a.oxagen.5.json'),
            JSON.stringify(makeTrial({ task: 'task-a', trial: 5 })),
          ),
      ],
      [
        'a task set unlike run.json',
        (folder) =>
          writeFile(join(folder, 'tasks.json'), JSON.stringify([{ id: 'task-a', digest: taskDigest('task-a') }])),
      ],
      [
        'a verdict of another run',
        (folder) => writeFile(join(folder, 'verdict.json'), JSON.stringify(makeVerdict(makeRun({ id: 'run-other' })))),
      ],
      [
        'an invalid run.json',
        (folder) => writeFile(join(folder, 'run.json'), JSON.stringify({ ...makeRun(), trials: 0 })),
      ],
    ];
    for (const [label, damage] of cases) {
      const parent = await scratch();
      const run = makeRun();
      const folder = await writeResultsFolder(parent, { run, trials: matrix(run) });
      await damage(folder);
      expect(await codeOf(readRunResults(folder)), label).toBe('invalid-file');
    }
  });

  it('rejects two records of one trial', async () => {
    const parent = await scratch();
    const run = makeRun();
    const folder = await writeResultsFolder(parent, { run, trials: matrix(run) });
    // Same slot (task-a, oxagen, 0) under a second trial id.
    const twin = { ...makeTrial({ task: 'task-a' }), trialId: 'task-a-again' };
    await writeFile(join(folder, 'trials', 'task-a-again.json'), JSON.stringify(twin));
    expect(await codeOf(readRunResults(folder))).toBe('invalid-file');
  });
});
