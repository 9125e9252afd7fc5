// Owns the published record of a task frozen by hand (`abp freeze`): one file per task under
// `<ABP_HOME>/published/tasks/<task id>.json`, written whole (temp file, rename) once its bundle is stored and signed.
// `abp serve` lists and serves these beside the tasks the pipeline tracks in its database, reading the files only: no
// worker, no workflow. A task the pipeline froze has no record here; its state lives in the database, where it ages.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { formatIssues } from '@abp/protocol/schemas/issues';
import {
  compareCodeUnits,
  conforms,
  documentId,
  modelCutoff,
  positiveInt,
  pullRequestUrl,
  registryVersion,
  repoFullName,
  seed,
  sha256Digest,
  utcTimestamp,
} from '@abp/protocol/schemas/primitives';
import { documentText, PublicationError, publicationPaths, writePublished } from '../registry/publication.js';
import type { PublishedTask } from './task.js';

export const PUBLISHED_TASK_SCHEMA_ID = 'abp-published-task/1';

export const publishedTaskSchema = z
  .strictObject({
    schema: z.literal(PUBLISHED_TASK_SCHEMA_ID),
    taskId: documentId,
    repo: repoFullName,
    issue: positiveInt,
    registryVersion,
    drawSeed: seed,
    sourcedAt: utcTimestamp,
    cutoffsVerified: z.array(modelCutoff).min(1),
    bundleDigest: sha256Digest,
    heldOutDigest: sha256Digest,
    /** The golden trace kept beside the bundle (its signed statement names the same digest); absent when none was. */
    goldenTraceDigest: sha256Digest.optional(),
    mergedPr: pullRequestUrl,
    /** When this bundle was first published under the task's id; listings order by it. */
    publishedAt: utcTimestamp,
  })
  .describe('A task frozen by `abp freeze`, as `abp serve` distributes it: its bundle and provenance.');

export type PublishedTaskRecord = z.infer<typeof publishedTaskSchema>;

/** `<root>/tasks/<task id>.json`, where root is the publication root (`<ABP_HOME>/published`). */
export function publishedTaskPath(root: string, taskId: string): string {
  return join(publicationPaths(root).tasksDir, `${taskId}.json`);
}

/**
 * Records a frozen task as published. Publishing the same bundle and golden trace again leaves the record as it is;
 * another golden trace for the same bundle replaces it with the bundle's first publishedAt; a new bundle for the same
 * task id replaces it, as the latest freeze by hand.
 */
export async function publishFrozenTask(
  root: string,
  frozen: PublishedTask,
  now: () => Date = () => new Date(),
): Promise<{ record: PublishedTaskRecord; path: string; created: boolean }> {
  const path = publishedTaskPath(root, frozen.taskId);
  const existing = await readPublishedTask(root, frozen.taskId).catch((error: unknown) => {
    // A damaged record is replaced by the one this freeze makes: the bundle and its signature are the truth.
    if (error instanceof PublicationError && error.code === 'invalid-document') return null;
    throw error;
  });
  const sameBundle = existing?.bundleDigest === frozen.digest;
  if (sameBundle && existing?.goldenTraceDigest === frozen.goldenTrace?.digest)
    return { record: existing, path, created: false };
  const { source, cutoffsVerified, golden } = frozen.manifest;
  if (source.kind !== 'github-issue' || golden === undefined)
    throw new PublicationError(
      'invalid-document',
      `${frozen.digest}: only a github-issue task with its merged fix is published by hand; freeze it again`,
    );
  const parsed = publishedTaskSchema.safeParse({
    schema: PUBLISHED_TASK_SCHEMA_ID,
    taskId: frozen.taskId,
    repo: source.repo,
    issue: source.issue,
    registryVersion: source.registryVersion,
    drawSeed: source.drawSeed,
    sourcedAt: source.sourcedAt,
    cutoffsVerified,
    bundleDigest: frozen.digest,
    heldOutDigest: frozen.heldOutDigest,
    ...(frozen.goldenTrace === null ? {} : { goldenTraceDigest: frozen.goldenTrace.digest }),
    mergedPr: golden.mergedPr,
    publishedAt: sameBundle && existing !== null ? existing.publishedAt : `${now().toISOString().slice(0, 19)}Z`,
  });
  if (!parsed.success)
    throw new PublicationError(
      'invalid-document',
      `the published record of ${frozen.taskId} is not valid:\n${formatIssues(parsed.error.issues)}`,
    );
  await writePublished(path, documentText(parsed.data));
  return { record: parsed.data, path, created: true };
}

/** The published record of `taskId`, or null when it has none; a record that does not parse is an error naming it. */
export async function readPublishedTask(root: string, taskId: string): Promise<PublishedTaskRecord | null> {
  if (!conforms(documentId, taskId)) return null;
  const path = publishedTaskPath(root, taskId);
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return null;
    throw error;
  });
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new PublicationError(
      'invalid-document',
      `${path}: not JSON (${(error as Error).message}); freeze the task again`,
    );
  }
  const parsed = publishedTaskSchema.safeParse(value);
  if (!parsed.success)
    throw new PublicationError(
      'invalid-document',
      `${path} is not an ${PUBLISHED_TASK_SCHEMA_ID} record:\n${formatIssues(parsed.error.issues)}\nfreeze the task again`,
    );
  if (parsed.data.taskId !== taskId)
    throw new PublicationError(
      'invalid-document',
      `${path} records task ${parsed.data.taskId}, not ${taskId}; freeze the task again`,
    );
  return parsed.data;
}

/** Every published record, in task id order. Temporary files (dot files) of a write in progress are not records. */
export async function listPublishedTasks(root: string): Promise<PublishedTaskRecord[]> {
  const names = await readdir(publicationPaths(root).tasksDir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return [] as string[];
    throw error;
  });
  const ids = names
    .filter((name) => name.endsWith('.json'))
    .map((name) => name.slice(0, -'.json'.length))
    .filter((id) => conforms(documentId, id))
    .sort(compareCodeUnits);
  const records = await Promise.all(ids.map((id) => readPublishedTask(root, id)));
  return records.filter((record) => record !== null);
}
