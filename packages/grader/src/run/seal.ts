// Owns the digests that seal a results folder: how a file the run wrote is named in the journal (sha256 of its bytes),
// how a folder is checked against those digests, and how what differs is said. The journal (journal.ts) is the root:
// these checks prove a file is what the journal recorded, never that the journal itself is the run's own.
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** The digest the journal records for a file's bytes: "sha256:" and 64 hex digits, as every abp digest is spelt. */
export function sha256Of(content: string | Uint8Array): string {
  return `sha256:${createHash('sha256').update(content).digest('hex')}`;
}

/** How a file of a results folder differs from what its journal recorded. */
export type SealChange =
  /** The file is there, but its bytes (or, for run.json, the run it names) are not what the journal recorded. */
  | 'changed'
  /** The journal records the file, and it is gone (or is no longer a plain file). */
  | 'missing'
  /** The file is there, and the journal does not record it: a trial file or a verdict the run never sealed. */
  | 'unrecorded'
  /** The journal itself cannot be read as a sealed journal, or is not the one the reader was told to expect. */
  | 'malformed';

export interface SealFinding {
  /** The file, relative to the run folder (progress.jsonl for the journal itself). */
  file: string;
  change: SealChange;
  /** What the journal records: a digest, or for run.json the run id; null when it records nothing. */
  recorded: string | null;
  /** What the folder holds now, in the same terms; null when there is nothing to read. */
  found: string | null;
}

/**
 * A file of the run folder as it is now: its bytes, or null when it is absent or not a plain file. A symbolic link is
 * never followed: `abp run` writes none, and following one would check a file outside the folder.
 */
export async function readRunFile(folder: string, file: string): Promise<Buffer | null> {
  let handle;
  try {
    handle = await open(join(folder, file), constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ELOOP' || code === 'ENOTDIR') return null;
    throw error;
  }
  try {
    if (!(await handle.stat()).isFile()) return null;
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** Compares one file with its recorded digest; the bytes come back so a reader parses exactly what it checked. */
export async function checkRunFile(
  folder: string,
  file: string,
  recorded: string,
): Promise<{ bytes: Buffer | null; finding: SealFinding | null }> {
  const bytes = await readRunFile(folder, file);
  if (bytes === null) return { bytes, finding: { file, change: 'missing', recorded, found: null } };
  const found = sha256Of(bytes);
  return { bytes, finding: found === recorded ? null : { file, change: 'changed', recorded, found } };
}

// Enough files at once to keep the disk busy, few enough to stay far below the open-file limit.
const CHECK_BATCH = 64;

/** Checks every recorded file of a folder; the findings come back in the order the files were given. */
export async function checkRunFiles(
  folder: string,
  recorded: Iterable<readonly [file: string, digest: string]>,
): Promise<SealFinding[]> {
  const entries = [...recorded];
  const findings: SealFinding[] = [];
  for (let start = 0; start < entries.length; start += CHECK_BATCH) {
    const checked = await Promise.all(
      entries.slice(start, start + CHECK_BATCH).map(([file, digest]) => checkRunFile(folder, file, digest)),
    );
    for (const { finding } of checked) if (finding !== null) findings.push(finding);
  }
  return findings;
}

/**
 * The files of trials/ that the journal does not record, each with the digest of what it holds. Only a sealed run is
 * asked: before the seal, such a file is the trial in flight (written just before its journal line).
 */
export async function unrecordedTrialFiles(folder: string, recorded: ReadonlySet<string>): Promise<SealFinding[]> {
  let names: string[];
  try {
    names = (await readdir(join(folder, 'trials'))).filter((name) => name.endsWith('.json'));
  } catch (error) {
    // The folder appears with the first trial; before that the run simply has none.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const findings: SealFinding[] = [];
  for (const name of names.sort()) {
    const file = `trials/${name}`;
    if (recorded.has(file)) continue;
    const bytes = await readRunFile(folder, file);
    findings.push({ file, change: 'unrecorded', recorded: null, found: bytes === null ? null : sha256Of(bytes) });
  }
  return findings;
}

const changeWords: Record<SealChange, string> = {
  changed: 'changed since the journal recorded it',
  missing: 'recorded by the journal and gone',
  unrecorded: 'not recorded by the journal',
  malformed: 'not a sealed journal',
};

/** One line per finding (the first few, then a count), for a message that names each file and what differs. */
export function describeFindings(findings: readonly SealFinding[], shown = 5): string {
  const lines = findings.slice(0, shown).map((finding) => {
    const figures =
      finding.recorded === null && finding.found === null
        ? ''
        : ` (journal: ${finding.recorded ?? 'nothing'}; folder: ${finding.found ?? 'nothing'})`;
    return `${finding.file}: ${changeWords[finding.change]}${figures}`;
  });
  if (findings.length > shown) lines.push(`and ${findings.length - shown} more`);
  return lines.join('; ');
}
