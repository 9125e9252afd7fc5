// `abp export training`: the frozen tasks of a data directory as abp-training/v1 JSONL, one (issue, repository state,
// verified diff) triple per task, sorted by task id. Planned first (every stored bundle read and verified against the
// pinned trust root, each task's set decided), written second, atomically. Fails closed: a bundle or an aging statement
// that does not verify stops the export and is named; nothing is skipped in silence.
//
// Which tasks may be exported is the contamination question (spec §4.4): a task still in the scored set must not become
// training data. The export decides it from signed evidence, not from the database: a task is in the practice set when
// the registry's signed aging statement (aging-transition, signed when the task workflow's timer ran out at mergedAt +
// 180 days) names its bundle and verifies against the trust root. So the export needs no worker, runs the same on a
// copy of the data directory, and an operator cannot export a scored task by editing a row.
import { mkdir, readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { sha256Hex } from '@abp/protocol/bundle/digest';
import { BundleError } from '@abp/protocol/bundle/errors';
import { BundleStore } from '../freeze/bundle/store.js';
import { readBundleSubjects } from '@abp/grader/bundle';
import { readTar } from '@abp/protocol/bundle/tar';
import { GOLDEN_PATCH_ENTRY, HELD_OUT_ENTRY, ISSUE_ENTRY, TASK_ENTRY } from '@abp/protocol/bundle/layout';
import type { TrustRoot } from '@abp/protocol/schemas/abp-trust-root';
import { taskSchema } from '@abp/protocol/schemas/abp-task';
import { compareCodeUnits } from '@abp/protocol/schemas/primitives';
import { readStatementFile, statementPath } from '../signing/attestor.js';
import { SigningError } from '@abp/protocol/signing/errors';
import {
  AGING_TRANSITION_PREDICATE,
  TASK_BUNDLE_PREDICATE,
  taskBundleSubjectNames,
} from '@abp/protocol/signing/statement';
import { verifyStatementBundle } from '@abp/grader/trust';
import { writeFileDurably } from '@abp/protocol/files/durable-files';
import { ExportError } from './errors.js';
import { TRAINING_SCHEMA_ID, trainingLine, trainingRecordSchema, type TrainingRecord } from './training-record.js';

export interface TrainingExportInput {
  /** The content-addressed bundle store (signing/home.ts signingPaths(home).bundles). */
  bundleDir: string;
  /** The signed statements (signingPaths(home).statements), where each task's aging statement is kept. */
  statementsDir: string;
  /** The trust root every bundle and aging statement must verify against. */
  trustRoot: TrustRoot;
  /** Export tasks still in the scored set too (contaminates the benchmark: the caller warns). */
  includeScored: boolean;
}

export interface BundleRef {
  taskId: string;
  bundleDigest: string;
}

export interface TrainingExportPlan {
  /** One per exported task, sorted by task id. */
  records: TrainingRecord[];
  /** Tasks left out because no signed aging statement moved them to practice (empty with includeScored). */
  excludedScored: BundleRef[];
  /** Other bundles of an exported or excluded task (a task frozen again): verified, not exported. */
  superseded: BundleRef[];
}

/** A stored bundle that verified, with what the export takes from it. */
interface VerifiedBundle {
  digest: string;
  /** The bundle statement's signedAt: among a task's bundles, the latest signed is its current one. */
  signedAt: string;
  record: Omit<TrainingRecord, 'set'>;
}

const ARCHIVE_NAME = /^([0-9a-f]{64})\.tar$/;
const hexOf = (digest: string): string => digest.slice('sha256:'.length);

/** The digests of every archive in the store, in order. */
async function storedDigests(bundleDir: string): Promise<string[]> {
  const names = await readdir(join(bundleDir, 'sha256')).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT')
      throw new ExportError(
        'store-missing',
        `${bundleDir} holds no bundle store (no sha256/ folder): point ABP_HOME at the data directory the freeze wrote to`,
        { cause: error },
      );
    throw error;
  });
  return names
    .map((name) => ARCHIVE_NAME.exec(name)?.[1])
    .filter((hex): hex is string => hex !== undefined)
    .sort(compareCodeUnits)
    .map((hex) => `sha256:${hex}`);
}

function unverified(label: string, error: unknown): unknown {
  if (error instanceof SigningError)
    return new ExportError('bundle-unverified', `${label}: ${error.code}: ${error.message}`, { cause: error });
  if (error instanceof BundleError)
    return new ExportError('bundle-unverified', `${label}: ${error.code}: ${error.message}`, { cause: error });
  return error;
}

/** issue.md as the freeze writes it: "# <title>\n\n<body>\n". */
function parseIssueText(text: string): { title: string; body: string } | null {
  const match = /^# ([^\n]*)\n\n([\s\S]*)$/.exec(text);
  if (match === null) return null;
  return { title: match[1] ?? '', body: (match[2] ?? '').replace(/\n$/, '') };
}

function jsonOf(text: string, label: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ExportError(
      'bundle-unverified',
      `${label} is not JSON (${(error as Error).message}); the signature was damaged: fetch it again from the registry`,
      { cause: error },
    );
  }
}

/**
 * Reads and verifies one stored bundle: its bytes against its name, its signed statement against the trust root (key,
 * window, signature, both subjects), then its manifest, issue and golden patch.
 */
async function readVerifiedBundle(store: BundleStore, digest: string, trustRoot: TrustRoot): Promise<VerifiedBundle> {
  const label = store.path(digest);
  let archive: Buffer;
  try {
    archive = await store.get(digest);
  } catch (error) {
    throw unverified(label, error);
  }
  const signature = await store.getSignature(digest);
  if (signature === null) {
    throw new ExportError(
      'bundle-unsigned',
      `${label} has no signature (${store.signaturePath(digest)}): the freeze signs every bundle it stores; freeze the task again, or remove an archive that was never published`,
    );
  }
  let heldOutHex: string;
  try {
    heldOutHex = (await readBundleSubjects(archive)).heldOut;
  } catch (error) {
    throw unverified(label, error);
  }
  const signed = jsonOf(signature, store.signaturePath(digest));
  let taskId: string;
  let signedAt: string;
  try {
    const verified = await verifyStatementBundle(signed, trustRoot, {
      subjects: [{ sha256: hexOf(digest) }],
      predicateType: TASK_BUNDLE_PREDICATE,
    });
    taskId = String((verified.statement.predicate as { taskId?: unknown }).taskId);
    signedAt = verified.signedAt;
    // Found by its digest, the statement names the task; it must name this archive and its held-out part under that
    // task's own subject names, or it vouches for other artifacts.
    const names = taskBundleSubjectNames(taskId);
    await verifyStatementBundle(signed, trustRoot, {
      subjects: [
        { name: names.bundle, sha256: hexOf(digest) },
        { name: names.heldOut, sha256: heldOutHex },
      ],
    });
  } catch (error) {
    throw unverified(label, error);
  }

  const invalid = (problem: string, cause?: unknown) =>
    new ExportError(
      'bundle-invalid',
      `${label} (task ${taskId}): ${problem}`,
      cause === undefined ? undefined : { cause },
    );
  let entries: Map<string, Buffer>;
  let heldOut: Map<string, Buffer>;
  try {
    entries = new Map(readTar(archive, label).map((entry) => [entry.path, entry.content]));
    heldOut = new Map(
      readTar(entries.get(HELD_OUT_ENTRY) ?? Buffer.alloc(0), `${label}: ${HELD_OUT_ENTRY}`).map((entry) => [
        entry.path,
        entry.content,
      ]),
    );
  } catch (error) {
    throw invalid(`cannot be read (${(error as Error).message})`, error);
  }
  let manifestJson: unknown;
  try {
    manifestJson = JSON.parse((entries.get(TASK_ENTRY) ?? Buffer.alloc(0)).toString('utf8'));
  } catch (error) {
    throw invalid(`${TASK_ENTRY} is not JSON`, error);
  }
  const parsed = taskSchema.safeParse(manifestJson);
  if (!parsed.success)
    throw invalid(
      `${TASK_ENTRY} is not a valid abp-task/v1 manifest: ${parsed.error.issues[0]?.path.join('.') ?? ''}: ${parsed.error.issues[0]?.message ?? ''}`,
    );
  const manifest = parsed.data;
  if (manifest.id !== taskId)
    throw invalid(`${TASK_ENTRY} is task ${manifest.id}, but the signed statement is about task ${taskId}`);
  if (manifest.source.kind !== 'github-issue' || manifest.golden === undefined)
    throw invalid('is not a github-issue task with a merged fix; only those are training triples');
  const issue = parseIssueText((entries.get(ISSUE_ENTRY) ?? Buffer.alloc(0)).toString('utf8'));
  if (issue === null)
    throw invalid(`${ISSUE_ENTRY} does not start with "# <title>" and a blank line, as the freeze writes it`);
  const diff = heldOut.get(GOLDEN_PATCH_ENTRY);
  if (diff === undefined) throw invalid(`${HELD_OUT_ENTRY} lacks ${GOLDEN_PATCH_ENTRY}`);
  const { source, golden } = manifest;
  return {
    digest,
    signedAt,
    record: {
      schema: TRAINING_SCHEMA_ID,
      taskId,
      repo: source.repo,
      issue: { number: source.issue, ...issue },
      // Where the fix was merged is where the repository lives (github.com, or the host that served the freeze).
      repository: { url: golden.mergedPr.replace(/\/pull\/\d+$/, ''), baseCommit: source.baseCommit },
      diff: diff.toString('utf8'),
      bundleDigest: digest,
      heldOutDigest: `sha256:${heldOutHex}`,
      mergedPr: golden.mergedPr,
      sourcedAt: source.sourcedAt,
      cutoffsVerified: manifest.cutoffsVerified,
    },
  };
}

/** The bundle the task's signed aging statement moved to practice, or null when none is kept. */
async function agedBundle(
  statementsDir: string,
  taskId: string,
  bundles: readonly VerifiedBundle[],
  trustRoot: TrustRoot,
): Promise<VerifiedBundle | null> {
  const subject = taskBundleSubjectNames(taskId).bundle;
  const text = await readStatementFile(statementsDir, 'aging-transition', subject);
  if (text === null) return null;
  const label = statementPath(statementsDir, 'aging-transition', subject);
  let signed: unknown;
  try {
    signed = JSON.parse(text);
  } catch (error) {
    throw new ExportError(
      'aging-unverified',
      `${label} is not JSON (${(error as Error).message}); the aging statement was damaged`,
      { cause: error },
    );
  }
  for (const bundle of bundles) {
    try {
      await verifyStatementBundle(signed, trustRoot, {
        subjects: [{ name: subject, sha256: hexOf(bundle.digest) }],
        predicateType: AGING_TRANSITION_PREDICATE,
      });
      return bundle;
    } catch (error) {
      // Signed correctly but about another bundle of the task: try the next one.
      if (error instanceof SigningError && error.code === 'digest-mismatch') continue;
      if (error instanceof SigningError)
        throw new ExportError('aging-unverified', `${label}: ${error.code}: ${error.message}`, { cause: error });
      throw error;
    }
  }
  throw new ExportError(
    'aging-unverified',
    `${label} moves a bundle of task ${taskId} to practice that the store does not hold (it holds ${bundles.map((bundle) => bundle.digest).join(', ')}): fetch that bundle into the store, or remove a statement that is not this registry's`,
  );
}

function recordOf(bundle: VerifiedBundle, set: TrainingRecord['set']): TrainingRecord {
  const record = { ...bundle.record, set };
  const checked = trainingRecordSchema.safeParse(record);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new ExportError(
      'bundle-invalid',
      `bundle ${bundle.digest} (task ${record.taskId}) makes no valid ${TRAINING_SCHEMA_ID} record: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`,
    );
  }
  return record;
}

/** Reads and verifies every stored bundle, decides each task's set, and returns what to write; writes nothing. */
export async function planTrainingExport(input: TrainingExportInput): Promise<TrainingExportPlan> {
  const store = new BundleStore(input.bundleDir);
  const byTask = new Map<string, VerifiedBundle[]>();
  // One at a time: an archive carries the repository's objects, so holding them all would cost the store's size.
  for (const digest of await storedDigests(input.bundleDir)) {
    const bundle = await readVerifiedBundle(store, digest, input.trustRoot);
    byTask.set(bundle.record.taskId, [...(byTask.get(bundle.record.taskId) ?? []), bundle]);
  }
  const plan: TrainingExportPlan = { records: [], excludedScored: [], superseded: [] };
  for (const taskId of [...byTask.keys()].sort(compareCodeUnits)) {
    // Latest signed first; the digest breaks a tie, so the choice depends on the store alone.
    const bundles = (byTask.get(taskId) ?? []).sort(
      (a, b) => compareCodeUnits(b.signedAt, a.signedAt) || compareCodeUnits(a.digest, b.digest),
    );
    const aged = await agedBundle(input.statementsDir, taskId, bundles, input.trustRoot);
    const chosen = aged ?? (bundles[0] as VerifiedBundle);
    if (aged !== null) plan.records.push(recordOf(aged, 'practice'));
    else if (input.includeScored) plan.records.push(recordOf(chosen, 'scored'));
    else plan.excludedScored.push({ taskId, bundleDigest: chosen.digest });
    for (const other of bundles) if (other !== chosen) plan.superseded.push({ taskId, bundleDigest: other.digest });
  }
  return plan;
}

/** The JSONL text of the records, in the order given. */
export function trainingJsonl(records: readonly TrainingRecord[]): string {
  return records.map(trainingLine).join('');
}

/** Writes the records to `path` through a flushed temporary file renamed over it: a reader sees the old file or the new. */
export async function writeTrainingExport(
  path: string,
  records: readonly TrainingRecord[],
): Promise<{ path: string; sha256: string; bytes: number }> {
  const text = Buffer.from(trainingJsonl(records), 'utf8');
  await mkdir(dirname(path), { recursive: true });
  await writeFileDurably(path, text, { mode: 0o644 });
  return { path, sha256: `sha256:${sha256Hex(text)}`, bytes: text.length };
}
