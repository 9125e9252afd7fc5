// The progress journal on real files: what each line records (the trial and the digests of its files), resume after
// a kill, and the refusals of a journal that is not this run's or whose folder changed since it was written.
import { appendFile, mkdir, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AbpTrial } from '@abp/protocol/schemas/abp-trial';
import {
  createJournal,
  journalDigest,
  parseJournal,
  receiptsOf,
  resumeJournal,
  trialFileOf,
  type Journal,
} from '../../src/run/journal.js';
import { RunError } from '../../src/run/errors.js';
import { sha256Of } from '../../src/run/seal.js';
import { makeTrial } from '../support/results.js';

const dirs: string[] = [];
const fresh = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'abp-journal-'));
  dirs.push(dir);
  return join(dir, 'progress.jsonl');
};
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

const header = { runId: 'run-1', fingerprint: `sha256:${'a'.repeat(64)}`, trials: 3 };
const codeOf = async (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: unknown) => (error instanceof RunError ? error.code : String(error)),
  );

/** Writes a file of the run folder beside the journal and returns its digest, as the run records it. */
async function put(journalPath: string, file: string, text: string): Promise<string> {
  const path = join(dirname(journalPath), file);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  return sha256Of(text);
}

async function recordManifest(path: string, journal: Journal) {
  await journal.recordManifest({
    'run.json': await put(path, 'run.json', '{"run": 1}\n'),
    'tasks.json': await put(path, 'tasks.json', '[]\n'),
    'reproduce.txt': await put(path, 'reproduce.txt', 'abp run\n'),
  });
}

/** Writes a trial's file and receipts, then journals it with their digests, as run-matrix does. */
async function recordTrial(path: string, journal: Journal, trial: AbpTrial) {
  const files: Record<string, string> = {};
  for (const receipt of receiptsOf(trial)) files[receipt] = await put(path, receipt, `${receipt}\n`);
  files[trialFileOf(trial.trialId)] = await put(path, trialFileOf(trial.trialId), JSON.stringify(trial));
  await journal.append(trial, files);
}

async function journalWith(path: string, trials: AbpTrial[], options: { sealed?: boolean } = {}) {
  const journal = await createJournal(path, header);
  await recordManifest(path, journal);
  for (const trial of trials) await recordTrial(path, journal, trial);
  const digest = options.sealed
    ? await journal.seal({
        'verdict.json': await put(path, 'verdict.json', '{"verdict": 1}\n'),
        'report.html': await put(path, 'report.html', '<!doctype html>\n'),
      })
    : null;
  await journal.close();
  return digest;
}

const linesOf = async (path: string) =>
  (await readFile(path, 'utf8'))
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as { kind: string; files?: Record<string, string> });

describe('the progress journal', () => {
  it('records each trial with the digests of its trial file and every receipt, and gives them back on resume', async () => {
    const path = await fresh();
    const trial = makeTrial({ task: 'x', engine: 'a' });
    await journalWith(path, [trial, makeTrial({ task: 'x', engine: 'b', order: 1 })]);
    const lines = await linesOf(path);
    expect(lines.map((line) => line.kind)).toEqual(['abp-progress/v2', 'manifest', 'trial', 'trial']);
    expect(lines[1]?.files).toEqual({
      'run.json': sha256Of('{"run": 1}\n'),
      'tasks.json': sha256Of('[]\n'),
      'reproduce.txt': sha256Of('abp run\n'),
    });
    expect(lines[2]?.files).toEqual({
      'trials/x.a.0.json': sha256Of(JSON.stringify(trial)),
      'transcripts/x.a.0.stdout.txt': sha256Of('transcripts/x.a.0.stdout.txt\n'),
      'transcripts/x.a.0.stderr.txt': sha256Of('transcripts/x.a.0.stderr.txt\n'),
      'diffs/x.a.0.patch': sha256Of('diffs/x.a.0.patch\n'),
      'transcripts/x.a.0.verification.txt': sha256Of('transcripts/x.a.0.verification.txt\n'),
    });
    const resumed = await resumeJournal(path, header);
    expect([...resumed.done.keys()]).toEqual(['x.a.0', 'x.b.0']);
    expect([resumed.hasManifest, resumed.sealed]).toEqual([true, false]);
  });

  it('refuses to start over an existing journal', async () => {
    const path = await fresh();
    await journalWith(path, []);
    expect(await codeOf(createJournal(path, header))).toBe('journal-exists');
  });

  it('cuts a torn last line and keeps appending after it', async () => {
    const path = await fresh();
    await journalWith(path, [makeTrial({ task: 'x', engine: 'a' })]);
    await appendFile(path, '{"kind":"trial","trial":{"schema":"abp-tri');
    const resumed = await resumeJournal(path, header);
    expect(resumed.done.size).toBe(1);
    await recordTrial(path, resumed, makeTrial({ task: 'x', engine: 'b' }));
    await resumed.close();
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines.every((line) => JSON.parse(line) !== null)).toBe(true);
  });

  it('rejects a journal that records a trial twice', async () => {
    const path = await fresh();
    await journalWith(path, [makeTrial({ task: 'x', engine: 'a' })]);
    const line = (await readFile(path, 'utf8')).split('\n')[2] ?? '';
    await appendFile(path, `${line}\n`);
    expect(await codeOf(resumeJournal(path, header))).toBe('duplicate-trial');
  });

  it('refuses to append a trial already recorded, or one without the digests of its files', async () => {
    const path = await fresh();
    const journal = await createJournal(path, header);
    expect(await codeOf(journal.append(makeTrial({ task: 'x', engine: 'a' }), {}))).toBe('journal-invalid');
    await recordManifest(path, journal);
    await recordTrial(path, journal, makeTrial({ task: 'x', engine: 'a' }));
    expect(await codeOf(recordTrial(path, journal, makeTrial({ task: 'x', engine: 'a' })))).toBe('duplicate-trial');
    const undigested = makeTrial({ task: 'y', engine: 'a' });
    expect(await codeOf(journal.append(undigested, { [trialFileOf(undigested.trialId)]: sha256Of('{}') }))).toBe(
      'journal-invalid',
    );
  });

  it('refuses to resume under a changed fingerprint', async () => {
    const path = await fresh();
    await journalWith(path, []);
    expect(await codeOf(resumeJournal(path, { ...header, fingerprint: `sha256:${'b'.repeat(64)}` }))).toBe(
      'fingerprint-mismatch',
    );
  });

  it('refuses a file that is not a journal, and a journal of the format that recorded no digests', async () => {
    const path = await fresh();
    await appendFile(path, 'hello\n');
    expect(await codeOf(resumeJournal(path, header))).toBe('journal-invalid');
    const old = await fresh();
    await appendFile(old, `${JSON.stringify({ ...header, kind: 'abp-progress/v1' })}\n`);
    expect(await codeOf(resumeJournal(old, header))).toBe('journal-invalid');
  });

  it('seals verdict.json and report.html last, returns the digest of the whole journal, and takes nothing after', async () => {
    const path = await fresh();
    const journal = await createJournal(path, header);
    await recordManifest(path, journal);
    await recordTrial(path, journal, makeTrial({ task: 'x', engine: 'a' }));
    const files = {
      'verdict.json': await put(path, 'verdict.json', '{}\n'),
      'report.html': await put(path, 'report.html', '<p>\n'),
    };
    const digest = await journal.seal(files);
    expect(digest).toBe(sha256Of(await readFile(path)));
    expect(digest).toBe(await journalDigest(path));
    expect((await linesOf(path)).at(-1)).toEqual({ kind: 'seal', files });
    expect(await codeOf(journal.append(makeTrial({ task: 'y', engine: 'a' }), {}))).toBe('journal-invalid');
    expect(await codeOf(journal.seal(files))).toBe('journal-invalid');

    const resumed = await resumeJournal(path, header);
    expect([resumed.sealed, resumed.done.size]).toEqual([true, 1]);
    // A sealed run has no trial in flight: a trial file its journal does not record was put there afterwards.
    await put(path, 'trials/y.a.0.json', JSON.stringify(makeTrial({ task: 'y', engine: 'a' })));
    expect(await codeOf(resumeJournal(path, header))).toBe('results-tampered');
    await appendFile(path, `${JSON.stringify({ kind: 'seal', files })}\n`);
    expect(await codeOf(resumeJournal(path, header))).toBe('journal-invalid');
  });

  it('reads its lines in order only: a trial before the manifest, or a seal without the verdict, is not a journal', () => {
    const head = `${JSON.stringify({ kind: 'abp-progress/v2', ...header })}\n`;
    const trial = makeTrial({ task: 'x', engine: 'a' });
    const files = Object.fromEntries(
      [trialFileOf(trial.trialId), ...receiptsOf(trial)].map((file) => [file, sha256Of(file)]),
    );
    const trialLine = `${JSON.stringify({ kind: 'trial', trial, files })}\n`;
    const manifest = `${JSON.stringify({ kind: 'manifest', files: { 'run.json': sha256Of('r') } })}\n`;
    const codeOfParse = (text: string) => {
      try {
        parseJournal('progress.jsonl', text);
        return 'parsed';
      } catch (error) {
        return error instanceof RunError ? error.code : String(error);
      }
    };
    expect(codeOfParse(head + manifest + trialLine)).toBe('parsed');
    expect(codeOfParse(head + trialLine)).toBe('journal-invalid');
    expect(codeOfParse(`${head}${manifest}${JSON.stringify({ kind: 'seal', files: {} })}\n`)).toBe('journal-invalid');
    // A trial line that leaves out a receipt its record names was not written by the run.
    const fewer = Object.fromEntries(Object.entries(files).filter(([file]) => file !== 'diffs/x.a.0.patch'));
    expect(codeOfParse(`${head}${manifest}${JSON.stringify({ kind: 'trial', trial, files: fewer })}\n`)).toBe(
      'journal-invalid',
    );
  });

  it('refuses to resume over a folder whose recorded files changed: results-tampered', async () => {
    const damages: Array<[string, (path: string) => Promise<void>]> = [
      ['a receipt edited', (path) => appendFile(join(dirname(path), 'diffs', 'x.a.0.patch'), '+forged\n')],
      ['a trial file removed', (path) => unlink(join(dirname(path), 'trials', 'x.a.0.json'))],
      ['run.json rewritten', (path) => writeFile(join(dirname(path), 'run.json'), '{"run": 2}\n')],
    ];
    for (const [label, damage] of damages) {
      const path = await fresh();
      await journalWith(path, [makeTrial({ task: 'x', engine: 'a' })]);
      await damage(path);
      expect(await codeOf(resumeJournal(path, header)), label).toBe('results-tampered');
    }
    const sealed = await fresh();
    await journalWith(sealed, [makeTrial({ task: 'x', engine: 'a' })], { sealed: true });
    await writeFile(join(dirname(sealed), 'verdict.json'), '{"verdict": "4/4 resolved"}\n');
    expect(await codeOf(resumeJournal(sealed, header))).toBe('results-tampered');
  });
});
