// Judges candidates by the criteria: one verdict per criterion, in REGISTRY_CRITERIA order, with the reason and what
// was seen for each failure, and the runner recipe found by the freeze's own suite detection (registry/suites/), so a
// repository enters only with a suite the freeze can install, run and read. Pure: facts, criteria and the clock in,
// verdicts out.
import spdxLicenses from 'spdx-license-list';
import { detectSuite } from '../suites/detect-suite.js';
import type { SuiteCandidate } from '../suites/suite.js';
import type { CandidateFacts } from './facts.js';
import type { Criteria, RunnerRecipe } from './schema.js';
import type { CriterionVerdict, FailureReason, RegistryCriterion } from '@abp/protocol/registry/vocabulary';
import { REGISTRY_CRITERIA } from '@abp/protocol/registry/vocabulary';

export interface Evaluation {
  /** Passes every criterion. */
  eligible: boolean;
  /** One per criterion, in REGISTRY_CRITERIA order. */
  verdicts: CriterionVerdict[];
  /** The recipe detected (or overridden) from the repository's files, whether or not the candidate is eligible. */
  runner: RunnerRecipe | null;
}

export interface CandidateEvaluation extends Evaluation {
  nameWithOwner: string;
}

const DAY_MS = 86_400_000;

/** GitHub's timestamp form: second precision, "Z". */
function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function fail<C extends RegistryCriterion>(
  criterion: C,
  reason: FailureReason<C>,
  detail: string,
): CriterionVerdict<C> {
  return { criterion, pass: false, reason, detail };
}

function pass<C extends RegistryCriterion>(criterion: C): CriterionVerdict<C> {
  return { criterion, pass: true };
}

function osiLicense(facts: CandidateFacts): CriterionVerdict {
  const criterion = 'osiLicense';
  const license = facts.licenseSpdxId;
  if (license === null) return fail(criterion, 'no-license', 'no license detected');
  if (license === 'NOASSERTION') return fail(criterion, 'license-not-recognized', 'licenseInfo.spdxId is NOASSERTION');
  // Object.hasOwn: an id such as "constructor" must not reach the prototype.
  const listed = Object.hasOwn(spdxLicenses, license) ? spdxLicenses[license] : undefined;
  if (listed === undefined)
    return fail(criterion, 'license-not-recognized', `${license} is not in the SPDX license list`);
  return listed.osiApproved
    ? pass(criterion)
    : fail(criterion, 'license-not-osi-approved', `${license} is not OSI-approved`);
}

function notArchivedForkMirror(facts: CandidateFacts): CriterionVerdict {
  const criterion = 'notArchivedForkMirror';
  if (facts.isArchived) return fail(criterion, 'archived', 'repository is archived');
  if (facts.isFork) return fail(criterion, 'fork', 'repository is a fork');
  if (facts.isMirror) return fail(criterion, 'mirror', 'repository is a mirror');
  return pass(criterion);
}

function mergedPullWithinWindow(facts: CandidateFacts, criteria: Criteria, now: Date): CriterionVerdict {
  const criterion = 'mergedPullWithin30Days';
  if (facts.lastMergedPullAt === null) return fail(criterion, 'never-merged', 'no pull request was ever merged');
  const windowStart = now.getTime() - criteria.thresholds.mergedPullWindowDays * DAY_MS;
  if (Date.parse(facts.lastMergedPullAt) < windowStart) {
    return fail(
      criterion,
      'no-merge-in-window',
      `last merge ${facts.lastMergedPullAt} is before ${isoSeconds(windowStart)}`,
    );
  }
  return pass(criterion);
}

/** Why a candidate without a recipe fails: no ecosystem found, no suite in it, or a suite the freeze cannot run. */
function unrunnableTestSuite(facts: CandidateFacts, suite: SuiteCandidate | null): CriterionVerdict {
  const criterion = 'runnableTestSuite';
  const listed = facts.treeTruncated ? ' (in the part of its tree GitHub listed)' : '';
  if (suite === null)
    return fail(
      criterion,
      'unsupported-ecosystem',
      `no manifest of a supported ecosystem${listed} (${facts.primaryLanguage ?? 'a repository without code'})`,
    );
  if (suite.runners.length === 0 || suite.testFiles === 0)
    return fail(criterion, 'no-test-suite', `no test suite found for ${suite.ecosystem}${listed}`);
  return fail(
    criterion,
    'unsupported-runner',
    `${suite.ecosystem} suite run by ${suite.runners.join(' and ')} (${suite.packageManager}): ${suite.unsupported ?? 'no recipe'}`,
  );
}

/** The files as suite detection reads them. */
function suiteOf(facts: CandidateFacts): SuiteCandidate | null {
  return detectSuite({
    paths: facts.paths,
    text: (path) => (Object.hasOwn(facts.texts, path) ? facts.texts[path] : undefined),
  });
}

function issueHygiene(facts: CandidateFacts, criteria: Criteria): CriterionVerdict {
  const criterion = 'issueHygiene';
  const { minLabeledOpenIssueShare, minBugLabeledOpenIssues } = criteria.thresholds;
  if (facts.openIssues === 0) return fail(criterion, 'no-open-issues', 'no open issues');
  const share = facts.labeledOpenIssues / facts.openIssues;
  if (share < minLabeledOpenIssueShare) {
    return fail(
      criterion,
      'labeled-share-below-threshold',
      `${facts.labeledOpenIssues} of ${facts.openIssues} open issues labeled (${(share * 100).toFixed(1)}% < ${minLabeledOpenIssueShare * 100}%)`,
    );
  }
  if (facts.bugLabeledOpenIssues < minBugLabeledOpenIssues)
    return fail(
      criterion,
      'no-bug-label-in-use',
      `fewer than ${minBugLabeledOpenIssues} open issue(s) carry a bug label`,
    );
  return pass(criterion);
}

export function evaluateCandidate(facts: CandidateFacts, criteria: Criteria, now: Date): Evaluation {
  const key = facts.nameWithOwner.toLowerCase();
  const override = criteria.overrides.find((candidate) => candidate.repo.toLowerCase() === key);
  // An override is the operator's word on the runner; detection is not consulted.
  const suite = override === undefined ? suiteOf(facts) : null;
  const runner = override?.runner ?? suite?.recipe ?? null;
  const verdicts = REGISTRY_CRITERIA.map((criterion): CriterionVerdict => {
    switch (criterion) {
      case 'osiLicense':
        return osiLicense(facts);
      case 'notArchivedForkMirror':
        return notArchivedForkMirror(facts);
      case 'mergedPullWithin30Days':
        return mergedPullWithinWindow(facts, criteria, now);
      case 'runnableTestSuite':
        return runner !== null ? pass(criterion) : unrunnableTestSuite(facts, suite);
      case 'issueHygiene':
        return issueHygiene(facts, criteria);
    }
  });
  return { eligible: verdicts.every((verdict) => verdict.pass), verdicts, runner };
}

/** Every candidate's evaluation, in the order given. */
export function evaluateAll(
  candidates: readonly CandidateFacts[],
  criteria: Criteria,
  now: Date,
): CandidateEvaluation[] {
  return candidates.map((facts) => ({
    nameWithOwner: facts.nameWithOwner,
    ...evaluateCandidate(facts, criteria, now),
  }));
}
