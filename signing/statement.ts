// What abp signs: in-toto Statement v1 with one predicate type of ours per kind of signed record, and the canonical
// byte form a statement is signed in. docs/signing.md documents the predicates and their subject conventions.
import { z } from 'zod';
import { canonicalJson } from '../schemas/canonical-json.js';
import { plainWordsParseOptions } from '../schemas/issues.js';
import { describeValue, documentId, duplicateIndices, gitSha, nonNegativeInt, positiveInt, pullRequestUrl, repoFullName, sha256Digest, utcTimestamp } from '../schemas/primitives.js';
import { describeIssues, SigningError } from './errors.js';

export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
/** The DSSE payloadType of an in-toto statement. */
export const STATEMENT_PAYLOAD_TYPE = 'application/vnd.in-toto+json';

/** A frozen task. Subjects: `task/<task id>/bundle` (the archive) and `task/<task id>/held-out` (its held-out part). */
export const TASK_BUNDLE_PREDICATE = 'https://abp.dev/predicates/task-bundle/v1';
/** A published registry version (issue 8). Subject: `abp-registry/<YYYYQn>`, digest the document's own `digest`. */
export const REGISTRY_VERSION_PREDICATE = 'https://abp.dev/predicates/registry-version/v1';
/** A seeded draw (issue 8). Subject: `draw/<draw id>`, digest the abp-draw/v1 record's own `digest`. */
export const DRAW_RECORD_PREDICATE = 'https://abp.dev/predicates/draw-record/v1';
/** A task leaving the scored set 180 days after its fix merged (issue 8). Subject: the task's `task/<task id>/bundle`. */
export const AGING_TRANSITION_PREDICATE = 'https://abp.dev/predicates/aging-transition/v1';

// in-toto writes digests as bare lowercase hex keyed by algorithm; ABP documents write "sha256:<hex>".
const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, { error: (issue) => `must be 64 lowercase hex digits, got ${describeValue(issue.input)}` });

const subjectSchema = z.object({
  name: z.string().min(1),
  digest: z.object({ sha256: sha256Hex }).catchall(z.string()),
});

/**
 * An in-toto Statement v1 as abp signs and accepts it. Every abp predicate carries `signedAt`: a keyed signature has no
 * other signed time, and verification checks the key's validity window against it.
 */
export const statementSchema = z
  .object({
    _type: z.literal(STATEMENT_TYPE),
    subject: z.array(subjectSchema).min(1),
    predicateType: z.string().min(1),
    predicate: z.looseObject({ signedAt: utcTimestamp }),
  })
  .superRefine((statement, ctx) => {
    for (const { index, first } of duplicateIndices(statement.subject, (subject) => subject.name)) {
      ctx.addIssue({ code: 'custom', path: ['subject', index, 'name'], message: `repeats subject[${first}]'s name; each subject is looked up by its name` });
    }
  });

export type Statement = z.infer<typeof statementSchema>;
export type Subject = Statement['subject'][number];

export const taskBundlePredicateSchema = z.strictObject({
  taskId: documentId,
  bundleDigest: sha256Digest.describe('The archive, the first subject.'),
  heldOutDigest: sha256Digest.describe('The held-out verification part, the second subject.'),
  signedAt: utcTimestamp,
  freeze: z
    .strictObject({
      repo: repoFullName,
      baseCommit: gitSha,
      mergedPr: pullRequestUrl,
      failToPass: positiveInt,
      passToPass: nonNegativeInt,
      flaky: nonNegativeInt.describe('Tests quarantined because their outcome changed between runs of one state.'),
      builder: z.string().regex(/^\S+\/\S+$/, { error: (issue) => `must name the tool and version that built the bundle, e.g. "abp/0.1.0", got ${describeValue(issue.input)}` }),
    })
    .describe('What an auditor needs to rebuild the bundle and compare digests, and the counts to compare first.'),
});

export type TaskBundlePredicate = z.infer<typeof taskBundlePredicateSchema>;

export function taskBundleSubjectNames(taskId: string): { bundle: string; heldOut: string } {
  return { bundle: `task/${taskId}/bundle`, heldOut: `task/${taskId}/held-out` };
}

/** The statement signed for a frozen task; its subjects come from the predicate's digests, so the two cannot disagree. */
export function createTaskBundleStatement(predicate: TaskBundlePredicate): Statement {
  const parsed = taskBundlePredicateSchema.safeParse(predicate, plainWordsParseOptions);
  if (!parsed.success) throw new SigningError('invalid-statement', `the task-bundle predicate is invalid: ${describeIssues(parsed.error.issues)}`);
  const names = taskBundleSubjectNames(parsed.data.taskId);
  return {
    _type: STATEMENT_TYPE,
    subject: [
      { name: names.bundle, digest: { sha256: parsed.data.bundleDigest.slice('sha256:'.length) } },
      { name: names.heldOut, digest: { sha256: parsed.data.heldOutDigest.slice('sha256:'.length) } },
    ],
    predicateType: TASK_BUNDLE_PREDICATE,
    predicate: parsed.data,
  };
}

/** The bytes a statement is signed as: RFC 8785 canonical JSON, so the same statement always gives the same payload. */
export function statementPayload(statement: Statement): Buffer {
  return Buffer.from(canonicalJson(statement), 'utf8');
}
