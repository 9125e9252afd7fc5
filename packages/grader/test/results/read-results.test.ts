// Reading a run's results folder from real files: the run-latest link, the seal (every file against the digest its
// journal recorded), schema checks per file, cross-file checks, and which trials of the matrix are missing.
import { appendFile, mkdir, mkdtemp, readFile, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assertCompleteRun, missingTrials, readRunResults, ResultsError, runIdOf } from '../../src/results/index.js';
import type { SealFinding } from '../../src/run/seal.js';
import { sha256Of } from '../../src/run/seal.js';
import {
  makeRun,
  makeTrial,
  makeVerdict,
  matrix,
  rewriteSealed,
  taskDigest,
  writeResultsFolder,
} from '../support/results.js';

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

/** The findings of the results-tampered refusal a read ends in. */
async function findingsOf(promise: Promise<unknown>): Promise<readonly SealFinding[]> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ResultsError);
  expect((error as ResultsError).code).toBe('results-tampered');
  return (error as ResultsError).findings;
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

  it('reads a run in progress: no verdict yet, the missing trials named, a trial in flight left out', async () => {
    const parent = await scratch();
    const run = makeRun({ id: undefined });
    const folder = await writeResultsFolder(parent, { run, trials: [makeTrial({ task: 'task-a' })], finished: false });
    // Written just before its journal line, as abp run writes a trial file: not recorded yet, so not read yet.
    await writeFile(join(folder, 'trials', 'task-b.oxagen.0.json'), JSON.stringify(makeTrial({ task: 'task-b' })));
    const results = await readRunResults(folder);
    expect(results.verdict).toBeNull();
    expect(results.journal.sealed).toBe(false);
    expect(results.trials.map((trial) => trial.trialId)).toEqual(['task-a.oxagen.0']);
    expect(runIdOf(results)).toBe('run-current'); // from the folder name when run.json has no id
    expect(missingTrials(results)).toEqual([{ task: 'task-b', engine: 'oxagen', trial: 0 }]);
    expect(() => assertCompleteRun(results)).toThrow(expect.objectContaining({ code: 'incomplete-run' }));
  });

  it('says when a folder is not a run folder or does not exist', async () => {
    const parent = await scratch();
    expect(await codeOf(readRunResults(parent))).toBe('not-a-run-folder');
    expect(await codeOf(readRunResults(join(parent, 'nope')))).toBe('not-a-run-folder');
  });

  it('gives the digest of the journal it checked, and refuses a journal that no longer has the digest given', async () => {
    const parent = await scratch();
    const run = makeRun();
    const folder = await writeResultsFolder(parent, { run, trials: matrix(run) });
    const results = await readRunResults(folder);
    expect(results.journal).toEqual({
      digest: sha256Of(await readFile(join(folder, 'progress.jsonl'))),
      sealed: true,
    });
    expect((await readRunResults(folder, { journalDigest: results.journal.digest })).trials).toHaveLength(2);
    // A forger who rewrites the journal along with the folder is caught only by a digest kept elsewhere.
    await rewriteSealed(folder, 'trials/task-a.oxagen.0.json', JSON.stringify(makeTrial({ task: 'task-a' })));
    expect(await readRunResults(folder)).toMatchObject({ trials: { length: 2 } });
    expect(await findingsOf(readRunResults(folder, { journalDigest: results.journal.digest }))).toEqual([
      {
        file: 'progress.jsonl',
        change: 'changed',
        recorded: results.journal.digest,
        found: sha256Of(await readFile(join(folder, 'progress.jsonl'))),
      },
    ]);
  });

  it('refuses every change to a sealed folder with results-tampered, naming the file and what differs', async () => {
    const forged = JSON.stringify(makeTrial({ task: 'task-b', outcome: 'resolved' }));
    const cases: Array<[string, (folder: string) => Promise<unknown>, Array<Partial<SealFinding>>]> = [
      [
        'a trial file rewritten to resolved',
        (folder) => writeFile(join(folder, 'trials', 'task-a.oxagen.0.json'), forged),
        [{ file: 'trials/task-a.oxagen.0.json', change: 'changed' }],
      ],
      [
        'a diff receipt edited',
        (folder) => appendFile(join(folder, 'diffs', 'task-a.oxagen.0.patch'), '+ one more line\n'),
        [{ file: 'diffs/task-a.oxagen.0.patch', change: 'changed' }],
      ],
      [
        'a transcript removed',
        (folder) => unlink(join(folder, 'transcripts', 'task-b.oxagen.0.stdout.txt')),
        [{ file: 'transcripts/task-b.oxagen.0.stdout.txt', change: 'missing', found: null }],
      ],
      [
        'a trial file removed',
        (folder) => unlink(join(folder, 'trials', 'task-b.oxagen.0.json')),
        [{ file: 'trials/task-b.oxagen.0.json', change: 'missing' }],
      ],
      [
        'a trial file added',
        (folder) => writeFile(join(folder, 'trials', 'task-z.oxagen.0.json'), forged),
        [{ file: 'trials/task-z.oxagen.0.json', change: 'unrecorded', recorded: null, found: sha256Of(forged) }],
      ],
      [
        'the verdict rewritten',
        (folder) => writeFile(join(folder, 'verdict.json'), JSON.stringify(makeVerdict(makeRun()))),
        [{ file: 'verdict.json', change: 'changed' }],
      ],
      [
        'the report rewritten',
        (folder) => writeFile(join(folder, 'report.html'), '<p>4/4 resolved</p>'),
        [{ file: 'report.html', change: 'changed' }],
      ],
      [
        'run.json and tasks.json rewritten',
        async (folder) => {
          await writeFile(join(folder, 'run.json'), JSON.stringify(makeRun({ model: 'openai/gpt-5.2' })));
          await writeFile(join(folder, 'tasks.json'), '[]');
        },
        [
          { file: 'run.json', change: 'changed' },
          { file: 'tasks.json', change: 'changed' },
        ],
      ],
      [
        'a receipt replaced by a link to another file',
        async (folder) => {
          await unlink(join(folder, 'diffs', 'task-a.oxagen.0.patch'));
          await symlink('../diffs/task-b.oxagen.0.patch', join(folder, 'diffs', 'task-a.oxagen.0.patch'));
        },
        [{ file: 'diffs/task-a.oxagen.0.patch', change: 'missing' }],
      ],
      [
        'the journal removed',
        (folder) => unlink(join(folder, 'progress.jsonl')),
        [{ file: 'progress.jsonl', change: 'missing' }],
      ],
      [
        'the journal cut after its trials',
        async (folder) => {
          const lines = (await readFile(join(folder, 'progress.jsonl'), 'utf8')).trimEnd().split('\n');
          await writeFile(join(folder, 'progress.jsonl'), `${lines.slice(0, -1).join('\n')}\n`);
        },
        // Without its seal, a verdict and a report are files the journal never recorded.
        [
          { file: 'verdict.json', change: 'unrecorded' },
          { file: 'report.html', change: 'unrecorded' },
        ],
      ],
      [
        'the journal edited into something else',
        (folder) => appendFile(join(folder, 'progress.jsonl'), '{"kind":"note"}\n'),
        [{ file: 'progress.jsonl', change: 'malformed' }],
      ],
    ];
    for (const [label, damage, expected] of cases) {
      const parent = await scratch();
      const run = makeRun();
      const folder = await writeResultsFolder(parent, { run, trials: matrix(run, () => ({ outcome: 'unresolved' })) });
      await damage(folder);
      const findings = await findingsOf(readRunResults(folder));
      expect(findings, label).toHaveLength(expected.length);
      expected.forEach((finding, index) => expect(findings[index], label).toMatchObject(finding));
    }
  });

  it('refuses a run in progress whose verdict the journal never sealed', async () => {
    const parent = await scratch();
    const run = makeRun();
    const folder = await writeResultsFolder(parent, { run, trials: matrix(run), finished: false });
    await writeFile(join(folder, 'verdict.json'), JSON.stringify(makeVerdict(run)));
    expect(await findingsOf(readRunResults(folder))).toEqual([
      expect.objectContaining({ file: 'verdict.json', change: 'unrecorded' }),
    ]);
  });

  it('sets aside a sealed trial file it cannot read, names its field, and reads the others', async () => {
    const parent = await scratch();
    const run = makeRun({
      engines: [
        { name: 'oxagen', version: '1.4.2' },
        { name: 'hermes', version: '0.1.0' },
      ],
    });
    const folder = await writeResultsFolder(parent, { run, trials: matrix(run) });
    const file = 'trials/task-a.oxagen.0.json';
    const trial = JSON.parse(await readFile(join(folder, file), 'utf8')) as Record<string, unknown>;
    // As a grader of another schema would have written and sealed it.
    await rewriteSealed(folder, file, JSON.stringify({ ...trial, outcome: 'won' }));
    const results = await readRunResults(folder);
    expect(results.unreadable).toEqual([
      { file, trialId: 'task-a.oxagen.0', engine: 'oxagen', problem: expect.stringContaining('outcome') as string },
    ]);
    expect(results.trials.map((entry) => entry.trialId)).toEqual([
      'task-b.oxagen.0',
      'task-a.hermes.0',
      'task-b.hermes.0',
    ]);
    // Its slot counts as missing: a baseline of its engine refuses by name, one of the other engine does not.
    expect(() => assertCompleteRun(results, 'oxagen')).toThrow(expect.objectContaining({ code: 'incomplete-run' }));
    expect(() => assertCompleteRun(results, 'hermes')).not.toThrow();
  });

  it('sets aside sealed trial records that contradict run.json or tasks.json', async () => {
    const cases: Array<[string, string, Record<string, unknown>, string]> = [
      ['cut-short JSON', 'task-a.oxagen.0', {}, 'JSON'],
      ['an engine the run does not have', 'task-a.oxagen.0', { engine: 'ghost' }, 'engine'],
      ['a task outside tasks.json', 'task-a.oxagen.0', { task: 'task-z' }, 'task'],
      ['another version of a task', 'task-a.oxagen.0', { taskDigest: taskDigest('task-a', 2) }, 'taskDigest'],
      ['a trial index past run.trials', 'task-a.oxagen.0', { trial: 5 }, 'trial'],
      ['a record of another trial', 'task-a.oxagen.0', { trialId: 'task-b.oxagen.0' }, 'trialId'],
      [
        'a second record of one slot',
        'task-b.oxagen.0',
        { task: 'task-a', taskDigest: taskDigest('task-a') },
        'repeats',
      ],
    ];
    for (const [label, trialId, change, field] of cases) {
      const parent = await scratch();
      const run = makeRun();
      const folder = await writeResultsFolder(parent, { run, trials: matrix(run) });
      const file = `trials/${trialId}.json`;
      const trial = JSON.parse(await readFile(join(folder, file), 'utf8')) as Record<string, unknown>;
      await rewriteSealed(
        folder,
        file,
        label === 'cut-short JSON' ? '{"schema": "abp-trial/v1",' : JSON.stringify({ ...trial, ...change }),
      );
      const results = await readRunResults(folder);
      expect(
        results.unreadable.map((entry) => entry.file),
        label,
      ).toEqual([file]);
      expect(results.unreadable[0]?.problem, label).toContain(field);
      expect(results.trials, label).toHaveLength(1);
    }
  });

  it('rejects sealed run files that contradict each other: invalid-file', async () => {
    const cases: Array<[string, string, string]> = [
      ['a task set unlike run.json', 'tasks.json', JSON.stringify([{ id: 'task-a', digest: taskDigest('task-a') }])],
      ['a verdict of another run', 'verdict.json', JSON.stringify(makeVerdict(makeRun({ id: 'run-other' })))],
      ['an invalid run.json', 'run.json', JSON.stringify({ ...makeRun(), trials: 0 })],
    ];
    for (const [label, file, text] of cases) {
      const parent = await scratch();
      const run = makeRun();
      const folder = await writeResultsFolder(parent, { run, trials: matrix(run) });
      await rewriteSealed(folder, file, text);
      expect(await codeOf(readRunResults(folder)), label).toBe('invalid-file');
    }
  });
});
