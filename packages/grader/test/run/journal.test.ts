import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AbpTrial } from '@abp/protocol/schemas/abp-trial';
import { createJournal, resumeJournal } from '../../src/run/journal.js';
import { RunError } from '../../src/run/errors.js';
import { makeTrial } from '../support/results.js';

const dirs: string[] = [];
const fresh = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'abp-journal-'));
  dirs.push(dir);
  return join(dir, 'progress.jsonl');
};
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

const header = { runId: 'run-1', fingerprint: 'sha256:aa', trials: 3 };
const codeOf = async (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: unknown) => (error instanceof RunError ? error.code : String(error)),
  );

async function journalWith(path: string, trials: AbpTrial[]) {
  const journal = await createJournal(path, header);
  for (const trial of trials) await journal.append(trial);
  await journal.close();
}

describe('the progress journal', () => {
  it('records trials and gives them back on resume', async () => {
    const path = await fresh();
    await journalWith(path, [makeTrial({ task: 'x', engine: 'a' }), makeTrial({ task: 'x', engine: 'b', order: 1 })]);
    const resumed = await resumeJournal(path, header);
    expect([...resumed.done.keys()]).toEqual(['x.a.0', 'x.b.0']);
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
    await resumed.append(makeTrial({ task: 'x', engine: 'b' }));
    await resumed.close();
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines.every((line) => JSON.parse(line) !== null)).toBe(true);
  });

  it('rejects a journal that records a trial twice', async () => {
    const path = await fresh();
    await journalWith(path, [makeTrial({ task: 'x', engine: 'a' })]);
    const line = (await readFile(path, 'utf8')).split('\n')[1] ?? '';
    await appendFile(path, `${line}\n`);
    expect(await codeOf(resumeJournal(path, header))).toBe('duplicate-trial');
  });

  it('refuses to append a trial already recorded', async () => {
    const path = await fresh();
    const journal = await createJournal(path, header);
    await journal.append(makeTrial({ task: 'x', engine: 'a' }));
    expect(await codeOf(journal.append(makeTrial({ task: 'x', engine: 'a' })))).toBe('duplicate-trial');
  });

  it('refuses to resume under a changed fingerprint', async () => {
    const path = await fresh();
    await journalWith(path, []);
    expect(await codeOf(resumeJournal(path, { ...header, fingerprint: 'sha256:bb' }))).toBe('fingerprint-mismatch');
  });

  it('refuses a file that is not a journal', async () => {
    const path = await fresh();
    await appendFile(path, 'hello\n');
    expect(await codeOf(resumeJournal(path, header))).toBe('journal-invalid');
  });
});
