// Signs a record's statement once, keeps that first signature as a file named by the record, and logs it: every
// signed statement abp makes goes through here (the freeze keeps bundle signatures in the bundle store and only logs).
// One attestor per process holds the transparency log open, so concurrent activities append one after another.
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { SerializedBundle } from '@sigstore/bundle';
import { writeFileOnce } from '@abp/protocol/files/durable-files';
import type { CheckpointSigningKey, LogEntryKind } from '@abp/protocol/transparency/formats';
import { TransparencyError } from '@abp/protocol/transparency/errors';
import { openLog, type TransparencyLog } from '@abp/protocol/transparency/log';
import type { Signer } from './signer.js';
import type { Statement } from '@abp/protocol/signing/statement';

export interface AttestorOptions {
  signer: Signer;
  /** signingPaths(home).statements */
  statementsDir: string;
  /**
   * The transparency log every signature is appended to, with a new checkpoint signed by `key()`; nothing is logged
   * without it. The key is asked for at each checkpoint, so a key rotated meanwhile (`abp keys rotate`) signs the next.
   */
  log?: { dir: string; origin: string; key: () => Promise<CheckpointSigningKey> };
}

export interface Attested {
  kind: LogEntryKind;
  /** The statement's first subject's name, which names the record: `abp-registry/2026Q4`, `draw/<id>`, … */
  subject: string;
  /** Where the signed statement (a Sigstore bundle) is kept. */
  path: string;
  /** The Sigstore bundle's text as stored: the log entry's digest covers these bytes. */
  signature: string;
  /** sha256 of `signature`, as logged. */
  digest: string;
  /** Its index in the transparency log; null when the attestor keeps no log. */
  logIndex: number | null;
  /** False when the record was signed before and that signature is returned. */
  created: boolean;
}

export interface Attestor {
  readonly signer: Signer;
  /** Where signed statements are kept (statementPath). */
  readonly statementsDir: string;
  /** Signs `statement` unless a signature for (kind, first subject) is kept already, then logs it (idempotent). */
  attest(kind: LogEntryKind, statement: Statement): Promise<Attested>;
  /** Logs a signature kept elsewhere (a bundle's, in the bundle store) under `subject`; returns its log index. */
  logSignature(kind: LogEntryKind, subject: string, signature: string): Promise<number | null>;
}

/** Where the signed statement of (kind, subject) is kept: `<dir>/<kind>/<url-encoded subject>.sigstore.json`. */
export function statementPath(statementsDir: string, kind: LogEntryKind, subject: string): string {
  return join(statementsDir, kind, `${encodeURIComponent(subject)}.sigstore.json`);
}

/** The kept signed statement of (kind, subject) as text, or null when none is. */
export async function readStatementFile(
  statementsDir: string,
  kind: LogEntryKind,
  subject: string,
): Promise<string | null> {
  return readFile(statementPath(statementsDir, kind, subject), 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
}

export function signatureDigest(signature: string): string {
  return `sha256:${createHash('sha256').update(signature, 'utf8').digest('hex')}`;
}

/** Writes `text` to `path` unless a file is there already; returns what the path holds afterwards. */
async function writeOnce(path: string, text: string): Promise<{ text: string; created: boolean }> {
  await mkdir(dirname(path), { recursive: true });
  // A signature once kept is never replaced: a second signer of the same record loses the race and reads the first.
  const written = await writeFileOnce(path, text);
  return written.created ? { text, created: true } : { text: written.existing.toString('utf8'), created: false };
}

export function createAttestor(options: AttestorOptions): Attestor {
  let opened: Promise<TransparencyLog> | null = null;
  const logOf = (log: NonNullable<AttestorOptions['log']>): Promise<TransparencyLog> => {
    opened ??= openLog(log.dir, log.origin);
    return opened;
  };

  const logSignature = async (kind: LogEntryKind, subject: string, signature: string): Promise<number | null> => {
    const { log } = options;
    if (log === undefined) return null;
    const entry = { kind, subject, digest: signatureDigest(signature) };
    const key = log.key;
    const appendAndCheckpoint = async (log: TransparencyLog) => {
      const appended = await log.append(entry);
      await log.checkpoint(await key());
      return appended.index;
    };
    try {
      return await appendAndCheckpoint(await logOf(log));
    } catch (error) {
      // Another writer (a second worker process on the same data directory) appended since this one opened the log:
      // read it again and retry once. Appends are idempotent, so nothing is logged twice.
      if (!(error instanceof TransparencyError && error.code === 'concurrent-append')) throw error;
      opened = null;
      return appendAndCheckpoint(await logOf(log));
    }
  };

  return {
    signer: options.signer,
    statementsDir: options.statementsDir,
    logSignature,
    async attest(kind, statement) {
      const subject = statement.subject[0]?.name;
      if (subject === undefined) throw new Error('a statement names at least one subject');
      const path = statementPath(options.statementsDir, kind, subject);
      let kept = await readStatementFile(options.statementsDir, kind, subject);
      let created = false;
      if (kept === null) {
        const bundle: SerializedBundle = await options.signer.sign(statement);
        ({ text: kept, created } = await writeOnce(path, `${JSON.stringify(bundle, null, 2)}\n`));
      }
      const logIndex = await logSignature(kind, subject, kept);
      return { kind, subject, path, signature: kept, digest: signatureDigest(kept), logIndex, created };
    },
  };
}
