// What abp signs: in-toto Statement v1 with one predicate type of ours per kind of signed record, and the canonical
// byte form a statement is signed in. docs/signing.md documents the predicates and their subject conventions.
import { z } from 'zod';
import { canonicalJson } from '../schemas/canonical-json.js';
import { plainWordsParseOptions } from '../schemas/issues.js';
import {
  describeValue,
  documentId,
  duplicateIndices,
  gitSha,
  nonNegativeInt,
  positiveInt,
  pullRequestUrl,
  registryVersion,
  repoFullName,
  seed,
  sha256Digest,
  utcTimestamp,
} from '../schemas/primitives.js';
import { describeIssues } from '../schemas/issues.js';
import { SigningError } from './errors.js';

export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
/** The DSSE payloadType of an in-toto statement. */
export const STATEMENT_PAYLOAD_TYPE = 'application/vnd.in-toto+json';

/**
 * A frozen task. Subjects: `task/<task id>/bundle` (the archive), `task/<task id>/held-out` (its held-out part) and, when
 * the freeze kept one, `task/<task id>/golden-trace` (the solving engine's abp-trace/v1 file, published beside the bundle).
 */
export const TASK_BUNDLE_PREDICATE = 'https://abp.dev/predicates/task-bundle/v1';
/** A published registry version. Subject: `abp-registry/<YYYYQn>`, digest the document's own `digest`. */
export const REGISTRY_VERSION_PREDICATE = 'https://abp.dev/predicates/registry-version/v1';
/** A seeded draw. Subject: `draw/<draw id>`, digest the abp-draw/v1 record's own `digest`. */
export const DRAW_RECORD_PREDICATE = 'https://abp.dev/predicates/draw-record/v1';
/** A task leaving the scored set 180 days after its fix merged. Subject: the task's `task/<task id>/bundle`. */
export const AGING_TRANSITION_PREDICATE = 'https://abp.dev/predicates/aging-transition/v1';
/** A version of the trust root. Subject: `abp-trust-root/v<N>`, digest the sha256 of the document's canonical JSON. */
export const TRUST_ROOT_PREDICATE = 'https://abp.dev/predicates/trust-root/v1';

// in-toto writes digests as bare lowercase hex keyed by algorithm; ABP documents write "sha256:<hex>".
const sha256Hex = z
  .string()
  .regex(/^[0-9a-f]{64}$/, { error: (issue) => `must be 64 lowercase hex digits, got ${describeValue(issue.input)}` });

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
      ctx.addIssue({
        code: 'custom',
        path: ['subject', index, 'name'],
        message: `repeats subject[${first}]'s name; each subject is looked up by its name`,
      });
    }
  });

export type Statement = z.infer<typeof statementSchema>;
export type Subject = Statement['subject'][number];

export const taskBundlePredicateSchema = z.strictObject({
  taskId: documentId,
  bundleDigest: sha256Digest.describe('The archive, the first subject.'),
  heldOutDigest: sha256Digest.describe('The held-out verification part, the second subject.'),
  goldenTraceDigest: sha256Digest
    .optional()
    .describe(
      "The golden trace's bytes, the third subject: absent when the freeze kept none. The bundle names the trace by path only, so its digest is signed here.",
    ),
  signedAt: utcTimestamp,
  freeze: z
    .strictObject({
      repo: repoFullName,
      baseCommit: gitSha,
      mergedPr: pullRequestUrl,
      failToPass: positiveInt,
      passToPass: nonNegativeInt,
      flaky: nonNegativeInt.describe('Tests quarantined because their outcome changed between runs of one state.'),
      builder: z.string().regex(/^\S+\/\S+$/, {
        error: (issue) =>
          `must name the tool and version that built the bundle, e.g. "abp/0.1.0", got ${describeValue(issue.input)}`,
      }),
    })
    .describe('What an auditor needs to rebuild the bundle and compare digests, and the counts to compare first.'),
});

export type TaskBundlePredicate = z.infer<typeof taskBundlePredicateSchema>;

export function taskBundleSubjectNames(taskId: string): { bundle: string; heldOut: string; goldenTrace: string } {
  return {
    bundle: `task/${taskId}/bundle`,
    heldOut: `task/${taskId}/held-out`,
    goldenTrace: `task/${taskId}/golden-trace`,
  };
}

/**
 * The task-bundle predicate inside a Sigstore bundle's DSSE envelope, read without verifying the signature: for hints
 * (what `abp serve` lists) and for the signer's own store, never for trust. Null when it holds no valid one.
 */
export function unverifiedTaskBundlePredicate(sigstoreBundle: string): TaskBundlePredicate | null {
  try {
    const payload = (JSON.parse(sigstoreBundle) as { dsseEnvelope?: { payload?: unknown } }).dsseEnvelope?.payload;
    if (typeof payload !== 'string') return null;
    const statement = JSON.parse(Buffer.from(payload, 'base64').toString('utf8')) as { predicate?: unknown };
    const parsed = taskBundlePredicateSchema.safeParse(statement.predicate);
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export const registryVersionPredicateSchema = z.strictObject({
  version: registryVersion,
  digest: sha256Digest.describe("The registry document's own digest: the subject."),
  previous: registryVersion.nullable(),
  criteriaVersion: z.string().min(1),
  repositories: nonNegativeInt,
  signedAt: utcTimestamp,
});
export type RegistryVersionPredicate = z.infer<typeof registryVersionPredicateSchema>;

export const drawRecordPredicateSchema = z.strictObject({
  drawId: documentId,
  digest: sha256Digest.describe("The draw record's own digest: the subject."),
  registryVersion,
  seed,
  picks: nonNegativeInt,
  backlogSnapshot: sha256Digest.describe('The backlog snapshot the draw re-derives from (abp audit draw).'),
  signedAt: utcTimestamp,
});
export type DrawRecordPredicate = z.infer<typeof drawRecordPredicateSchema>;

export const agingTransitionPredicateSchema = z.strictObject({
  taskId: documentId,
  bundleDigest: sha256Digest.describe('The frozen bundle that leaves the scored set: the subject.'),
  from: z.literal('scored'),
  to: z.literal('practice'),
  mergedAt: utcTimestamp.describe('When the fix became public.'),
  scoredUntil: utcTimestamp.describe('mergedAt + 180 days (spec §4.4): when the task moved.'),
  signedAt: utcTimestamp,
});
export type AgingTransitionPredicate = z.infer<typeof agingTransitionPredicateSchema>;

export const trustRootPredicateSchema = z.strictObject({
  version: positiveInt,
  digest: sha256Digest.describe("sha256 of the trust root document's canonical JSON: the subject."),
  keyIds: z.array(z.string().regex(/^[0-9a-f]{64}$/)).describe('The keys the version lists, in its order.'),
  signedAt: utcTimestamp,
});
export type TrustRootPredicate = z.infer<typeof trustRootPredicateSchema>;

/** Each abp predicate type with its schema, so a verifier checks any statement's predicate by its type. */
export const PREDICATE_SCHEMAS: Readonly<Record<string, z.ZodType>> = {
  [TASK_BUNDLE_PREDICATE]: taskBundlePredicateSchema,
  [REGISTRY_VERSION_PREDICATE]: registryVersionPredicateSchema,
  [DRAW_RECORD_PREDICATE]: drawRecordPredicateSchema,
  [AGING_TRANSITION_PREDICATE]: agingTransitionPredicateSchema,
  [TRUST_ROOT_PREDICATE]: trustRootPredicateSchema,
};

const hexOf = (digest: string) => digest.slice('sha256:'.length);

function checked<T>(schema: z.ZodType<T>, predicate: T, kind: string): T {
  const parsed = schema.safeParse(predicate, plainWordsParseOptions);
  if (!parsed.success)
    throw new SigningError(
      'invalid-statement',
      `the ${kind} predicate is invalid: ${describeIssues(parsed.error.issues)}`,
    );
  return parsed.data;
}

function statementOf(predicateType: string, subject: Subject[], predicate: { signedAt: string }): Statement {
  return { _type: STATEMENT_TYPE, subject, predicateType, predicate };
}

/** The statement signed for a frozen task; its subjects come from the predicate's digests, so the two cannot disagree. */
export function createTaskBundleStatement(predicate: TaskBundlePredicate): Statement {
  const data = checked(taskBundlePredicateSchema, predicate, 'task-bundle');
  const names = taskBundleSubjectNames(data.taskId);
  return statementOf(
    TASK_BUNDLE_PREDICATE,
    [
      { name: names.bundle, digest: { sha256: hexOf(data.bundleDigest) } },
      { name: names.heldOut, digest: { sha256: hexOf(data.heldOutDigest) } },
      ...(data.goldenTraceDigest === undefined
        ? []
        : [{ name: names.goldenTrace, digest: { sha256: hexOf(data.goldenTraceDigest) } }]),
    ],
    data,
  );
}

export function createRegistryVersionStatement(predicate: RegistryVersionPredicate): Statement {
  const data = checked(registryVersionPredicateSchema, predicate, 'registry-version');
  return statementOf(
    REGISTRY_VERSION_PREDICATE,
    [{ name: data.version, digest: { sha256: hexOf(data.digest) } }],
    data,
  );
}

export function drawSubjectName(drawId: string): string {
  return `draw/${drawId}`;
}

export function createDrawRecordStatement(predicate: DrawRecordPredicate): Statement {
  const data = checked(drawRecordPredicateSchema, predicate, 'draw-record');
  return statementOf(
    DRAW_RECORD_PREDICATE,
    [{ name: drawSubjectName(data.drawId), digest: { sha256: hexOf(data.digest) } }],
    data,
  );
}

export function createAgingTransitionStatement(predicate: AgingTransitionPredicate): Statement {
  const data = checked(agingTransitionPredicateSchema, predicate, 'aging-transition');
  return statementOf(
    AGING_TRANSITION_PREDICATE,
    [{ name: taskBundleSubjectNames(data.taskId).bundle, digest: { sha256: hexOf(data.bundleDigest) } }],
    data,
  );
}

export function trustRootSubjectName(version: number): string {
  return `abp-trust-root/v${version}`;
}

export function createTrustRootStatement(predicate: TrustRootPredicate): Statement {
  const data = checked(trustRootPredicateSchema, predicate, 'trust-root');
  return statementOf(
    TRUST_ROOT_PREDICATE,
    [{ name: trustRootSubjectName(data.version), digest: { sha256: hexOf(data.digest) } }],
    data,
  );
}

/** A signedAt value: UTC to the second, the form every abp predicate writes. */
export function signedAtOf(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** The bytes a statement is signed as: RFC 8785 canonical JSON, so the same statement always gives the same payload. */
export function statementPayload(statement: Statement): Buffer {
  return Buffer.from(canonicalJson(statement), 'utf8');
}
