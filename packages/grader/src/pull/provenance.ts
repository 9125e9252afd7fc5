// Owns provenance.json: what a task folder says about the signed bundle it was unpacked from. `abp pull` writes it
// (provenanceOf, writeTaskProvenance) into the folder holding task.json once the bundle's digest and signed statement
// verified against the consumer's pinned trust root; the report reads it to link each task to that bundle and
// statement. Grading never reads it: the task digest covers what is graded. No clock in it, so pulling the same bundle twice from the same log writes the same bytes
// (the log fields name the checkpoint the pull proved against, which moves on as the registry logs more).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { VerifiedStatement } from '../trust/verify.js';
import { locateIssues, plainWordsParseOptions } from '@abp/protocol/schemas/issues';
import { formatJsonPath } from '@abp/protocol/schemas/json-text';
import { isOrigin } from '@abp/protocol/transparency/formats';
import {
  describeValue,
  documentId,
  nonBlankText,
  nonNegativeInt,
  positiveInt,
  sha256Digest,
  utcTimestamp,
} from '@abp/protocol/schemas/primitives';
import { writeFileDurably } from '@abp/protocol/files/durable-files';
import { AbpError } from '@abp/protocol/errors';

/** A provenance.json, or a serve URL to link to, that cannot be read or does not fit the task it sits beside. */
export type ProvenanceErrorCode = 'invalid-provenance' | 'provenance-mismatch' | 'invalid-serve-url';

export class ProvenanceError extends AbpError<ProvenanceErrorCode> {}

export const PROVENANCE_FILE = 'provenance.json';
export const TASK_PROVENANCE_SCHEMA_ID = 'abp-task-provenance/v1';

const httpUrl = z.url({
  protocol: /^https?$/,
  error: (issue) => `must be an http(s) URL, got ${describeValue(issue.input)}`,
});
const keyId = z.string().regex(/^[0-9a-f]{64}$/, {
  error: (issue) => `must be a key id (64 lowercase hex digits), got ${describeValue(issue.input)}`,
});

export const taskProvenanceSchema = z
  .strictObject({
    schema: z.literal(TASK_PROVENANCE_SCHEMA_ID),
    taskId: documentId,
    bundleDigest: sha256Digest.describe('The archive that was verified and unpacked.'),
    heldOutDigest: sha256Digest.describe("Its held-out part, the signed statement's second subject."),
    bundleUrl: httpUrl
      .nullable()
      .describe(
        'Where the archive was fetched: `<serve>/v1/bundles/<bundleDigest>`; null for a bundle from a local store.',
      ),
    statementUrl: httpUrl
      .nullable()
      .describe(
        'The signed task-bundle statement (a Sigstore bundle): `<serve>/v1/bundles/<bundleDigest>/signature`; null when not fetched.',
      ),
    signer: z.discriminatedUnion('kind', [
      z.strictObject({ kind: z.literal('keyed'), keyId }),
      z.strictObject({ kind: z.literal('keyless'), identity: nonBlankText, issuer: httpUrl }),
    ]),
    signedAt: utcTimestamp.describe("The signing time verification checked the signer's window against."),
    trustRootVersion: positiveInt.describe('The version of the pinned trust root the statement verified against.'),
    log: z
      .strictObject({
        origin: z.string().refine(isOrigin, {
          error: (issue) => `must be a log origin, "abp-log/<name>", got ${describeValue(issue.input)}`,
        }),
        index: nonNegativeInt.describe("The index of the signature's entry in the registry's transparency log."),
        checkpointSize: positiveInt.describe('The size of the signed checkpoint the entry was proved included in.'),
        rootHash: z
          .base64()
          .length(44, { error: 'must be a base64 SHA-256 hash' })
          .describe("That checkpoint's root hash (base64)."),
      })
      .optional()
      .describe(
        "Where the bundle's signature is in the registry's transparency log, as `abp pull` proved it; absent in provenance written before pulls checked the log.",
      ),
  })
  .describe('Where a task folder came from: the signed bundle it was unpacked from, as `abp pull` verified it.');

export type TaskProvenance = z.infer<typeof taskProvenanceSchema>;

export interface VerifiedBundle {
  taskId: string;
  bundleDigest: string;
  heldOutDigest: string;
  /** What verifyStatementBundle returned for the bundle's statement. */
  verified: Pick<VerifiedStatement, 'signer' | 'signedAt'>;
  trustRootVersion: number;
  /** The base of the `abp serve` it was pulled from (`--from`); null for a bundle taken from a local store. */
  serveUrl: string | null;
  /** Where the signature was proved logged; absent when the log was not checked. */
  log?: NonNullable<TaskProvenance['log']>;
}

/** The provenance of a bundle that verified: what `abp pull` writes beside task.json after unpacking it. */
export function provenanceOf(bundle: VerifiedBundle): TaskProvenance {
  const base = bundle.serveUrl === null ? null : parseServeUrl(bundle.serveUrl);
  const draft = {
    schema: TASK_PROVENANCE_SCHEMA_ID,
    taskId: bundle.taskId,
    bundleDigest: bundle.bundleDigest,
    heldOutDigest: bundle.heldOutDigest,
    bundleUrl: null,
    statementUrl: null,
    signer: bundle.verified.signer,
    signedAt: bundle.verified.signedAt,
    trustRootVersion: bundle.trustRootVersion,
  } satisfies TaskProvenance;
  const linked = base === null ? draft : { ...draft, ...urlsOf(draft, base) };
  const provenance = bundle.log === undefined ? linked : { ...linked, log: bundle.log };
  const parsed = taskProvenanceSchema.safeParse(provenance, plainWordsParseOptions);
  if (!parsed.success)
    throw new ProvenanceError(
      'invalid-provenance',
      `the provenance of task ${describeValue(bundle.taskId)} is invalid: ${issuesText(parsed.error.issues)}`,
    );
  return parsed.data;
}

/**
 * Writes `<taskDir>/provenance.json` whole or not at all (temp file, fsync, rename, folder fsync). Same provenance,
 * same bytes: the fields in schema order, two-space indent, one final newline.
 */
export async function writeTaskProvenance(taskDir: string, provenance: TaskProvenance): Promise<string> {
  const parsed = taskProvenanceSchema.safeParse(provenance, plainWordsParseOptions);
  if (!parsed.success)
    throw new ProvenanceError(
      'invalid-provenance',
      `the provenance to write into ${taskDir} is invalid: ${issuesText(parsed.error.issues)}; make it with provenanceOf`,
    );
  const checked = parsed.data;
  const path = join(taskDir, PROVENANCE_FILE);
  await writeFileDurably(path, `${JSON.stringify(checked, null, 2)}\n`, { mode: 0o644 });
  return path;
}

function issuesText(issues: readonly z.core.$ZodIssue[]): string {
  return locateIssues(issues)
    .slice(0, 3)
    .map((issue) => `${formatJsonPath(issue.path)}: ${issue.message}`)
    .join('; ');
}

/** The task's provenance.json, checked; null when the folder has none (a task made by hand, or unpacked without pull). */
export async function readTaskProvenance(taskDir: string, taskId: string): Promise<TaskProvenance | null> {
  const path = join(taskDir, PROVENANCE_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const fix = `\`abp pull ${taskId}\` writes it: pull the task again, or remove the file to grade the task without its provenance`;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ProvenanceError(
      'invalid-provenance',
      `${path}: is not valid JSON (${(error as Error).message}); ${fix}`,
      { cause: error },
    );
  }
  const parsed = taskProvenanceSchema.safeParse(value, plainWordsParseOptions);
  if (!parsed.success) {
    throw new ProvenanceError('invalid-provenance', `${path}: ${issuesText(parsed.error.issues)}; ${fix}`);
  }
  if (parsed.data.taskId !== taskId) {
    throw new ProvenanceError(
      'provenance-mismatch',
      `${path}: taskId is ${describeValue(parsed.data.taskId)}, but the folder holds task ${describeValue(taskId)}: the file belongs to another task; ${fix}`,
    );
  }
  return parsed.data;
}

/**
 * The provenance of each task that has one, by task id. `abp run` reads it with the task folders, before the first
 * trial, so a damaged file stops the run at its start rather than at its report.
 */
export async function readTasksProvenance(
  tasks: ReadonlyArray<{ id: string; dir: string }>,
): Promise<Map<string, TaskProvenance>> {
  const read = await Promise.all(
    tasks.map(async (task) => [task.id, await readTaskProvenance(task.dir, task.id)] as const),
  );
  return new Map(read.filter((entry): entry is readonly [string, TaskProvenance] => entry[1] !== null));
}

/**
 * The base of `abp serve`'s read-only API to link to instead of the URLs recorded at pull time: an http(s) URL, kept
 * without a trailing slash. Paths below it follow serve/api.ts (docs/api.md).
 */
export function parseServeUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch (error) {
    throw new ProvenanceError(
      'invalid-serve-url',
      `the serve URL ${describeValue(raw)} is not a URL: give the base of \`abp serve\`, e.g. http://127.0.0.1:8080`,
      { cause: error },
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ProvenanceError(
      'invalid-serve-url',
      `the serve URL ${describeValue(raw)} is not http(s): give the base of \`abp serve\`, e.g. http://127.0.0.1:8080`,
    );
  }
  if (url.search !== '' || url.hash !== '')
    throw new ProvenanceError(
      'invalid-serve-url',
      `the serve URL ${describeValue(raw)} has a query or fragment: give only the base, e.g. http://127.0.0.1:8080`,
    );
  return url.href.replace(/\/+$/, '');
}

/**
 * The API's addresses of a bundle and its signed statement under a serve base URL (serve/api.ts `urls`). The statement
 * is linked by the bundle's digest, not by task id: that route needs no worker to answer, and names this exact archive.
 */
function urlsOf(
  task: Pick<TaskProvenance, 'bundleDigest'>,
  serveUrl: string,
): { bundleUrl: string; statementUrl: string } {
  return {
    bundleUrl: `${serveUrl}/v1/bundles/${task.bundleDigest}`,
    statementUrl: `${serveUrl}/v1/bundles/${task.bundleDigest}/signature`,
  };
}

/** Where the report links a task's bundle and statement: the serve URL given, else what provenance.json recorded. */
export function provenanceLinks(
  provenance: TaskProvenance,
  serveUrl: string | null,
): { bundle: string | null; statement: string | null } {
  if (serveUrl === null) return { bundle: provenance.bundleUrl, statement: provenance.statementUrl };
  const urls = urlsOf(provenance, serveUrl);
  return { bundle: urls.bundleUrl, statement: urls.statementUrl };
}
