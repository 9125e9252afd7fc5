// The registry's published curation vocabulary (spec §4.1): the criteria every candidate is judged on, in order, and
// the reason code a failed criterion records. Codes are checked in the order listed per criterion; the first applies.

export const REGISTRY_CRITERIA = [
  'osiLicense',
  'notArchivedForkMirror',
  'mergedPullWithin30Days',
  'runnableTestSuite',
  'issueHygiene',
] as const;
export type RegistryCriterion = (typeof REGISTRY_CRITERIA)[number];

export const FAILURE_REASONS = {
  osiLicense: ['no-license', 'license-not-recognized', 'license-not-osi-approved'],
  notArchivedForkMirror: ['archived', 'fork', 'mirror'],
  mergedPullWithin30Days: ['never-merged', 'no-merge-in-window'],
  runnableTestSuite: ['unsupported-ecosystem', 'no-test-suite', 'unsupported-runner'],
  issueHygiene: ['no-open-issues', 'labeled-share-below-threshold', 'no-bug-label-in-use'],
} as const satisfies Record<RegistryCriterion, readonly string[]>;
export type FailureReason<C extends RegistryCriterion = RegistryCriterion> = (typeof FAILURE_REASONS)[C][number];

/** A criterion's outcome for one candidate; `detail` says what was seen, in words. */
export type CriterionVerdict<C extends RegistryCriterion = RegistryCriterion> =
  { criterion: C; pass: true } | { criterion: C; pass: false; reason: FailureReason<C>; detail: string };
