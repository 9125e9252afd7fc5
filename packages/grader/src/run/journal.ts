// The append-only progress journal of a run (progress.jsonl): a header bound to the run's fingerprint, then one line per
// finished trial. Each line is written whole and fsynced before the next trial is counted, so a SIGKILL loses at most the
// trial in flight; a torn last line is cut off on resume, and a duplicate trial or a changed fingerprint is refused.
import { open, readFile, truncate } from 'node:fs/promises';
import { trialSchema, type AbpTrial } from '@abp/protocol/schemas/abp-trial';
import { RunError } from './errors.js';

export const JOURNAL_KIND = 'abp-progress/v1';

interface Header {
  kind: typeof JOURNAL_KIND;
  runId: string;
  fingerprint: string;
  trials: number;
}

export interface Journal {
  readonly path: string;
  /** Trials already recorded, by trial id. */
  readonly done: ReadonlyMap<string, AbpTrial>;
  append(trial: AbpTrial): Promise<void>;
  close(): Promise<void>;
}

async function appendLine(path: string, value: unknown): Promise<void> {
  const handle = await open(path, 'a');
  try {
    await handle.write(`${JSON.stringify(value)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function journalOver(path: string, done: Map<string, AbpTrial>): Journal {
  // Appends are chained so concurrent trials never interleave their lines.
  let tail: Promise<void> = Promise.resolve();
  return {
    path,
    done,
    append(trial) {
      if (done.has(trial.trialId))
        return Promise.reject(
          new RunError(
            'duplicate-trial',
            `${path}: trial ${trial.trialId} is already recorded; a trial is never run twice`,
          ),
        );
      done.set(trial.trialId, trial);
      tail = tail.then(() => appendLine(path, { kind: 'trial', trial }));
      return tail;
    },
    close: () => tail,
  };
}

/** Starts a journal; the file must not exist (a run never overwrites another's progress). */
export async function createJournal(path: string, header: Omit<Header, 'kind'>): Promise<Journal> {
  const handle = await open(path, 'wx').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EEXIST')
      throw new RunError(
        'journal-exists',
        `${path} already exists: resume it with --resume-progress ${path}, or write to another -o folder`,
      );
    throw error;
  });
  try {
    await handle.write(`${JSON.stringify({ kind: JOURNAL_KIND, ...header })}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  return journalOver(path, new Map());
}

/** Reopens a journal to continue its matrix; refuses another run's journal, a changed input, or duplicate records. */
export async function resumeJournal(path: string, expected: Omit<Header, 'kind'>): Promise<Journal> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new RunError(
      'journal-missing',
      `${path}: cannot read the progress journal to resume (${error.code ?? error.message})`,
    );
  });
  const lines = text.split('\n');
  // Everything after the last newline is a line the previous run was killed while writing; it is cut off below,
  // once the header shows this is a journal of these inputs (never truncate a file that is not ours).
  const torn = lines.pop() ?? '';
  const [first, ...rest] = lines;
  let header: Partial<Header>;
  try {
    header = JSON.parse(first ?? '') as Partial<Header>;
  } catch {
    throw new RunError(
      'journal-invalid',
      `${path}: line 1 is not a journal header; this is not an abp progress journal`,
    );
  }
  if (header.kind !== JOURNAL_KIND)
    throw new RunError('journal-invalid', `${path}: line 1 is not an ${JOURNAL_KIND} header`);
  if (header.fingerprint !== expected.fingerprint) {
    throw new RunError(
      'fingerprint-mismatch',
      `${path} belongs to inputs with fingerprint ${header.fingerprint ?? 'none'}, but the config, adapters, tasks, grader source or options now give ${expected.fingerprint}; start a new run in another -o folder instead of resuming`,
    );
  }
  if (torn !== '') await truncate(path, Buffer.byteLength(text) - Buffer.byteLength(torn));
  const done = new Map<string, AbpTrial>();
  rest.forEach((line, index) => {
    const lineNumber = index + 2;
    let entry: { kind?: string; trial?: unknown };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      throw new RunError(
        'journal-invalid',
        `${path}: line ${lineNumber} is not JSON; the journal was edited or corrupted`,
      );
    }
    if (entry.kind !== 'trial') return;
    const parsed = trialSchema.safeParse(entry.trial);
    if (!parsed.success)
      throw new RunError('journal-invalid', `${path}: line ${lineNumber} is not a valid abp-trial/v1 record`);
    if (done.has(parsed.data.trialId))
      throw new RunError(
        'duplicate-trial',
        `${path}: line ${lineNumber} records trial ${parsed.data.trialId} a second time; the journal cannot be resumed`,
      );
    done.set(parsed.data.trialId, parsed.data);
  });
  return journalOver(path, done);
}
