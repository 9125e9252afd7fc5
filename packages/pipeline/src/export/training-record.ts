// One line of `abp export training` (abp-training/v1, docs/training-export.md): a frozen task as an (issue, repository
// state, verified diff) triple with the digests that tie it to its signed bundle. Serialized with its keys in the
// documented order, so the same record is always the same bytes.
import { z } from 'zod';
import {
  documentId,
  gitSha,
  modelCutoff,
  positiveInt,
  pullRequestUrl,
  repoFullName,
  sha256Digest,
  utcTimestamp,
} from '@abp/protocol/schemas/primitives';

export const TRAINING_SCHEMA_ID = 'abp-training/v1';

export const trainingRecordSchema = z
  .strictObject({
    schema: z.literal(TRAINING_SCHEMA_ID),
    taskId: documentId,
    /** `practice` once a signed aging statement moved the task out of the scored set; `scored` only with --include-scored. */
    set: z.enum(['practice', 'scored']),
    repo: repoFullName,
    issue: z.strictObject({ number: positiveInt, title: z.string(), body: z.string() }),
    repository: z
      .strictObject({ url: z.url({ protocol: /^https?$/ }), baseCommit: gitSha })
      .describe('The repository and the pre-fix commit the task is frozen at: the state the diff applies to.'),
    diff: z
      .string()
      .min(1)
      .describe("The maintainer-merged fix's code part as a unified diff (the bundle's held-out golden.patch)."),
    bundleDigest: sha256Digest,
    heldOutDigest: sha256Digest,
    mergedPr: pullRequestUrl,
    sourcedAt: utcTimestamp,
    cutoffsVerified: z.array(modelCutoff),
  })
  .describe('A frozen task as training data: issue, repository state and verified diff, with its bundle digests.');

export type TrainingRecord = z.infer<typeof trainingRecordSchema>;

/** The record's JSON line (with its newline), keys in the documented order whatever order `record` has them in. */
export function trainingLine(record: TrainingRecord): string {
  const ordered: TrainingRecord = {
    schema: record.schema,
    taskId: record.taskId,
    set: record.set,
    repo: record.repo,
    issue: { number: record.issue.number, title: record.issue.title, body: record.issue.body },
    repository: { url: record.repository.url, baseCommit: record.repository.baseCommit },
    diff: record.diff,
    bundleDigest: record.bundleDigest,
    heldOutDigest: record.heldOutDigest,
    mergedPr: record.mergedPr,
    sourcedAt: record.sourcedAt,
    cutoffsVerified: [...record.cutoffsVerified],
  };
  return `${JSON.stringify(ordered)}\n`;
}
