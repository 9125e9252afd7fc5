// What the criteria judge a candidate repository on: the facts discovery reads from GitHub, as a zod schema so a
// caller can persist them between batches and read them back checked. Nothing here is derived; evaluate.ts judges.
import { z } from 'zod';
import { repoFullName, utcTimestamp } from '@abp/protocol/schemas/primitives';

const count = z.int().nonnegative();

export const candidateFactsSchema = z.strictObject({
  nameWithOwner: repoFullName,
  stargazerCount: count,
  /** Null for an empty repository. */
  defaultBranch: z.string().min(1).nullable(),
  primaryLanguage: z.string().min(1).nullable(),
  /** `licenseInfo.spdxId`: null when GitHub detects no license, "NOASSERTION" when it detects one it cannot name. */
  licenseSpdxId: z.string().min(1).nullable(),
  isArchived: z.boolean(),
  isFork: z.boolean(),
  isMirror: z.boolean(),
  mergedPullCount: count,
  /** The latest `mergedAt` of any merged pull request; null when none was ever merged. */
  lastMergedPullAt: utcTimestamp.nullable(),
  /** Every file's path at the head of the default branch (GitHub's recursive tree listing), sorted. */
  paths: z.array(z.string().min(1)),
  /** Text of each file suite detection reads (its manifests, `isReadManifest`) that GitHub served, by path. */
  texts: z.record(z.string(), z.string()),
  /** GitHub cut the listing short (past 100,000 entries): detection judged the part listed. */
  treeTruncated: z.boolean(),
  openIssues: count,
  /** Open issues carrying at least one label. */
  labeledOpenIssues: count,
  /** The repository's labels that match a bug-label pattern. */
  bugLabels: z.array(z.string()),
  /** Open issues carrying at least one of `bugLabels`. */
  bugLabeledOpenIssues: count,
});
export type CandidateFacts = z.infer<typeof candidateFactsSchema>;
