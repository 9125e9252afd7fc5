// The append-only progress journal of a run (progress.jsonl), and the root of its seal. Line 1 is a header bound to the
// run's fingerprint; then a manifest line with the sha256 of run.json, tasks.json and reproduce.txt as written; one
// line per finished trial with its record and the sha256 of its trial file and of every receipt it names; and, once
// verdict.json and report.html are written, a seal line with theirs. Each line is written whole and fsynced after the
// files it digests, so a SIGKILL loses at most the trial in flight; a torn last line is cut off on resume, and a
// duplicate trial, a changed fingerprint or a file that no longer matches its digest is refused.
import { open, readFile, truncate } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { trialSchema, type AbpTrial } from '@abp/protocol/schemas/abp-trial';
import { documentId, nonNegativeInt, relativePath, sha256Digest } from '@abp/protocol/schemas/primitives';
import { RunError } from './errors.js';
import { checkRunFiles, describeFindings, sha256Of, unrecordedTrialFiles, type SealFinding } from './seal.js';

// v2: every line after the header digests the files it covers. A v1 journal sealed nothing, so nothing in its folder
// can be checked; the fingerprint covers the grader's source, so no v1 journal is ever resumed by this grader either.
export const JOURNAL_KIND = 'abp-progress/v2';
const UNSEALED_KIND = 'abp-progress/v1';

/** Files of the run folder (paths relative to it) and the sha256 of their bytes as the run wrote them. */
export type FileDigests = Readonly<Record<string, string>>;

export interface JournalHeader {
  runId: string;
  fingerprint: string;
  /** The number of trials in the run's schedule. */
  trials: number;
}

const fileDigestsSchema = z.record(relativePath, sha256Digest);
const headerSchema = z.strictObject({
  kind: z.literal(JOURNAL_KIND),
  runId: documentId,
  fingerprint: sha256Digest,
  trials: nonNegativeInt,
});
// A trial line's record is checked loosely here: a reader needs its id and digests; resume checks the whole record
// against the schema, and a reader checks the trial file, whose bytes the digest pins.
const lineSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('manifest'), files: fileDigestsSchema }),
  z.strictObject({
    kind: z.literal('trial'),
    trial: z.looseObject({ trialId: documentId }),
    files: fileDigestsSchema,
  }),
  z.strictObject({ kind: z.literal('seal'), files: fileDigestsSchema }),
]);

/** The files that must be sealed by the seal line: what the gate and the report read, and what a person opens. */
export const SEALED_AT_END = ['verdict.json', 'report.html'] as const;
/** The files the manifest line digests, written before the first trial. */
export const SEALED_AT_START = ['run.json', 'tasks.json', 'reproduce.txt'] as const;

export function trialFileOf(trialId: string): string {
  return `trials/${trialId}.json`;
}

/** The receipts a trial record names (paths relative to the run folder), from a record that may predate the schema. */
export function receiptsOf(trial: unknown): string[] {
  const receipts = (trial as { receipts?: unknown } | null)?.receipts;
  if (receipts === null || typeof receipts !== 'object') return [];
  return Object.values(receipts).filter((path): path is string => typeof path === 'string');
}

export interface JournalTrialLine {
  trialId: string;
  /** The record as the journal holds it; checked against abp-trial/v1 only on resume. */
  record: Record<string, unknown>;
  files: FileDigests;
  line: number;
}

/** A journal read whole: what the run recorded, in order. */
export interface JournalContents {
  header: JournalHeader;
  /** Digests of run.json, tasks.json and reproduce.txt; null until the run wrote them (it was killed before). */
  manifest: FileDigests | null;
  trials: JournalTrialLine[];
  /** Digests of verdict.json and report.html; null until the run finished. */
  seal: FileDigests | null;
  /** Bytes after the last newline: a line the run was killed (or is still busy) writing. Never after a seal. */
  tornBytes: number;
}

/** Every file the journal records, with its digest; a later line never re-records a file, so order does not matter. */
export function recordedFiles(journal: JournalContents): Map<string, string> {
  const files = new Map<string, string>();
  const add = (digests: FileDigests | null) => {
    for (const [file, digest] of Object.entries(digests ?? {})) files.set(file, digest);
  };
  add(journal.manifest);
  for (const trial of journal.trials) add(trial.files);
  add(journal.seal);
  return files;
}

// Also what a write the run itself got wrong is refused with, rather than leaving a journal no reader accepts.
function invalid(path: string, message: string): RunError {
  return new RunError('journal-invalid', `${path}: ${message}`);
}

/**
 * Reads a journal's text: the header, then at most one manifest, the trial lines and at most one seal, in that order.
 * Throws journal-invalid (or duplicate-trial) for anything else; a torn last line is reported, not refused.
 */
export function parseJournal(path: string, text: string): JournalContents {
  const lines = text.split('\n');
  const torn = lines.pop() ?? '';
  const [first, ...rest] = lines;
  let header: unknown;
  try {
    header = JSON.parse(first ?? '');
  } catch {
    throw invalid(path, 'line 1 is not a journal header; this is not an abp progress journal');
  }
  if ((header as { kind?: unknown } | null)?.kind === UNSEALED_KIND)
    throw invalid(
      path,
      `is an ${UNSEALED_KIND} journal, written by a grader that recorded no digests, so nothing in its folder can be checked; run \`abp run\` again with this grader`,
    );
  const parsedHeader = headerSchema.safeParse(header);
  if (!parsedHeader.success) throw invalid(path, `line 1 is not an ${JOURNAL_KIND} header`);
  const { runId, fingerprint, trials } = parsedHeader.data;

  const contents: JournalContents = {
    header: { runId, fingerprint, trials },
    manifest: null,
    trials: [],
    seal: null,
    tornBytes: Buffer.byteLength(torn),
  };
  const seen = new Set<string>();
  rest.forEach((text, index) => {
    const lineNumber = index + 2;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw invalid(path, `line ${lineNumber} is not JSON; the journal was edited or corrupted`);
    }
    const parsed = lineSchema.safeParse(value);
    if (!parsed.success)
      throw invalid(path, `line ${lineNumber} is not a manifest, trial or seal line of ${JOURNAL_KIND}`);
    const entry = parsed.data;
    if (contents.seal !== null) throw invalid(path, `line ${lineNumber} follows the seal, which ends a journal`);
    switch (entry.kind) {
      case 'manifest':
        if (lineNumber !== 2) throw invalid(path, `line ${lineNumber}: the manifest line comes right after the header`);
        contents.manifest = entry.files;
        return;
      case 'trial': {
        const { trialId } = entry.trial;
        if (contents.manifest === null)
          throw invalid(path, `line ${lineNumber} records a trial before the manifest line`);
        if (seen.has(trialId))
          throw new RunError(
            'duplicate-trial',
            `${path}: line ${lineNumber} records trial ${trialId} a second time; the journal cannot be resumed`,
          );
        seen.add(trialId);
        // The run digests the trial file and every receipt it names in one line; a line that does not is not the run's.
        const undigested = [trialFileOf(trialId), ...receiptsOf(entry.trial)].filter((file) => !(file in entry.files));
        if (undigested.length > 0)
          throw invalid(path, `line ${lineNumber}: trial ${trialId} has no digest of ${undigested.join(', ')}`);
        contents.trials.push({ trialId, record: entry.trial, files: entry.files, line: lineNumber });
        return;
      }
      case 'seal': {
        const unsealed = SEALED_AT_END.filter((file) => !(file in entry.files));
        if (unsealed.length > 0)
          throw invalid(path, `line ${lineNumber}: the seal has no digest of ${unsealed.join(', ')}`);
        contents.seal = entry.files;
        return;
      }
    }
  });
  if (contents.seal !== null && torn !== '') throw invalid(path, 'text follows the seal, which ends a journal');
  return contents;
}

export interface Journal {
  readonly path: string;
  /** Trials already recorded, by trial id. */
  readonly done: ReadonlyMap<string, AbpTrial>;
  /** Whether the manifest line (run.json, tasks.json, reproduce.txt) is written. */
  readonly hasManifest: boolean;
  /** Whether the seal line is written: the run finished, and nothing more may be appended. */
  readonly sealed: boolean;
  /** Digests run.json, tasks.json and reproduce.txt as the run wrote them, before the first trial. */
  recordManifest(files: FileDigests): Promise<void>;
  /** Records a finished trial with the digests of its trial file and every receipt it names, as written. */
  append(trial: AbpTrial, files: FileDigests): Promise<void>;
  /** Seals verdict.json and report.html; returns the journal's own digest, which nothing in the folder can hold. */
  seal(files: FileDigests): Promise<string>;
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

/** The sha256 of the journal file: what `abp run` prints at its end and `abp gate --journal-digest` compares. */
export async function journalDigest(path: string): Promise<string> {
  return sha256Of(await readFile(path));
}

function journalOver(
  path: string,
  done: Map<string, AbpTrial>,
  state: { hasManifest: boolean; sealed: boolean },
): Journal {
  // Appends are chained so concurrent trials never interleave their lines.
  let tail: Promise<void> = Promise.resolve();
  const write = (value: unknown) => {
    tail = tail.then(() => appendLine(path, value));
    return tail;
  };
  const refuseSealed = (what: string) =>
    new RunError('journal-invalid', `${path} is sealed: the run finished, and ${what} cannot be recorded after it`);
  return {
    path,
    done,
    get hasManifest() {
      return state.hasManifest;
    },
    get sealed() {
      return state.sealed;
    },
    recordManifest(files) {
      if (state.hasManifest || state.sealed || done.size > 0)
        return Promise.reject(invalid(path, 'the manifest is recorded once, before the first trial'));
      const missing = SEALED_AT_START.filter((file) => !(file in files));
      if (missing.length > 0) return Promise.reject(invalid(path, `the manifest lacks ${missing.join(', ')}`));
      state.hasManifest = true;
      return write({ kind: 'manifest', files });
    },
    append(trial, files) {
      if (state.sealed) return Promise.reject(refuseSealed(`trial ${trial.trialId}`));
      if (!state.hasManifest) return Promise.reject(invalid(path, 'a trial can only be recorded after the manifest'));
      if (done.has(trial.trialId))
        return Promise.reject(
          new RunError(
            'duplicate-trial',
            `${path}: trial ${trial.trialId} is already recorded; a trial is never run twice`,
          ),
        );
      const undigested = [trialFileOf(trial.trialId), ...receiptsOf(trial)].filter((file) => !(file in files));
      if (undigested.length > 0)
        return Promise.reject(invalid(path, `trial ${trial.trialId} lacks a digest of ${undigested.join(', ')}`));
      done.set(trial.trialId, trial);
      return write({ kind: 'trial', trial, files });
    },
    async seal(files) {
      if (state.sealed) throw refuseSealed('a second seal');
      const missing = SEALED_AT_END.filter((file) => !(file in files));
      if (missing.length > 0) throw invalid(path, `the seal lacks ${missing.join(', ')}`);
      state.sealed = true;
      await write({ kind: 'seal', files });
      return journalDigest(path);
    },
    close: () => tail,
  };
}

/** Starts a journal; the file must not exist (a run never overwrites another's progress). */
export async function createJournal(path: string, header: JournalHeader): Promise<Journal> {
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
  return journalOver(path, new Map(), { hasManifest: false, sealed: false });
}

/**
 * Reopens a journal to continue its matrix; refuses another run's journal, a changed input, duplicate records, and a
 * folder whose files no longer match the digests the journal recorded (results-tampered): a run is never continued
 * on top of receipts something else rewrote.
 */
export async function resumeJournal(path: string, expected: JournalHeader): Promise<Journal> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new RunError(
      'journal-missing',
      `${path}: cannot read the progress journal to resume (${error.code ?? error.message})`,
    );
  });
  const journal = parseJournal(path, text);
  if (journal.header.fingerprint !== expected.fingerprint)
    throw new RunError(
      'fingerprint-mismatch',
      `${path} belongs to inputs with fingerprint ${journal.header.fingerprint}, but the config, adapters, tasks, grader source or options now give ${expected.fingerprint}; start a new run in another -o folder instead of resuming`,
    );

  const done = new Map<string, AbpTrial>();
  for (const line of journal.trials) {
    const parsed = trialSchema.safeParse(line.record);
    if (!parsed.success)
      throw new RunError('journal-invalid', `${path}: line ${line.line} is not a valid abp-trial/v1 record`);
    done.set(line.trialId, parsed.data);
  }
  const recorded = recordedFiles(journal);
  const findings: SealFinding[] = await checkRunFiles(dirname(path), recorded);
  if (journal.seal !== null) findings.push(...(await unrecordedTrialFiles(dirname(path), new Set(recorded.keys()))));
  if (findings.length > 0)
    throw new RunError(
      'results-tampered',
      `${dirname(path)}: ${describeFindings(findings)}. The run cannot be continued on files it did not write: start it again in another -o folder`,
    );
  // Cut only now that the header and digests show this is our journal over our files (never truncate another's file).
  if (journal.tornBytes > 0) await truncate(path, Buffer.byteLength(text) - journal.tornBytes);
  return journalOver(path, done, { hasManifest: journal.manifest !== null, sealed: journal.seal !== null });
}
