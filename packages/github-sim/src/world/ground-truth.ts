// The ground truth of a scale world: for every repository, whether it passes each registry
// criterion and, if not, the reason, read from the plan the generator built the data from (so the
// truth holds by construction; the world tests check the served data agrees). The registry's
// verdicts over the same world must equal this exactly. Issue-level truth is `SimIssue.kind`.

import type { FailureReason, RegistryCriterion, RunnerRecipe } from './criteria.js';
import {
  isOsiApproved,
  MERGED_PULL_WINDOW_DAYS,
  MIN_BUG_LABELED_OPEN_ISSUES,
  MIN_LABELED_OPEN_ISSUE_SHARE,
  REGISTRY_CRITERIA,
  REGISTRY_THRESHOLDS,
  recipeOf,
  UNRUNNABLE_SUITES,
} from './criteria.js';
import type { RepoPlan, ScaleWorld } from './scale.js';
import { isoSeconds } from './scale.js';

export type CriterionVerdict<C extends RegistryCriterion = RegistryCriterion> =
  { criterion: C; pass: true } | { criterion: C; pass: false; reason: FailureReason<C>; detail: string };

export interface RepoTruth {
  repoId: number;
  nameWithOwner: string;
  /** Passes every criterion. */
  eligible: boolean;
  /** One verdict per criterion, in REGISTRY_CRITERIA order. */
  verdicts: CriterionVerdict[];
  /** The runner recipe the repository's files must be detected as, or null. */
  runner: RunnerRecipe | null;
  facts: {
    licenseSpdxId: string | null;
    isArchived: boolean;
    isFork: boolean;
    isMirror: boolean;
    lastMergedPullAt: string | null;
    hasCi: boolean;
    openIssues: number;
    labeledOpenIssues: number;
    /** Whether at least MIN_BUG_LABELED_OPEN_ISSUES open issues carry a bug label. */
    bugLabelInUse: boolean;
  };
}

export interface WorldTruth {
  seed: number;
  generatedAt: string;
  thresholds: typeof REGISTRY_THRESHOLDS;
  repos: RepoTruth[];
  /** `owner/name` of every eligible repository, sorted. */
  eligible: string[];
  /** How many repositories fail each criterion. */
  failures: Record<RegistryCriterion, number>;
}

function fail<C extends RegistryCriterion>(
  criterion: C,
  reason: FailureReason<C>,
  detail: string,
): CriterionVerdict<C> {
  return { criterion, pass: false, reason, detail };
}

function verdict(plan: RepoPlan, criterion: RegistryCriterion, now: number): CriterionVerdict {
  switch (criterion) {
    case 'osiLicense': {
      const license = plan.licenseSpdxId;
      if (license === null) return fail(criterion, 'no-license', 'no license detected');
      if (license === 'NOASSERTION')
        return fail(criterion, 'license-not-recognized', 'licenseInfo.spdxId is NOASSERTION');
      return isOsiApproved(license)
        ? { criterion, pass: true }
        : fail(criterion, 'license-not-osi-approved', `${license} is not OSI-approved`);
    }
    case 'notArchivedForkMirror':
      if (plan.isArchived) return fail(criterion, 'archived', 'repository is archived');
      if (plan.isFork) return fail(criterion, 'fork', 'repository is a fork');
      if (plan.isMirror) return fail(criterion, 'mirror', 'repository is a mirror');
      return { criterion, pass: true };
    case 'mergedPullWithin30Days': {
      const windowStart = now - MERGED_PULL_WINDOW_DAYS * 86_400;
      if (plan.lastMergedAt === null) return fail(criterion, 'never-merged', 'no pull request was ever merged');
      if (plan.lastMergedAt < windowStart)
        return fail(
          criterion,
          'no-merge-in-window',
          `last merge ${isoSeconds(plan.lastMergedAt)} is before ${isoSeconds(windowStart)}`,
        );
      return { criterion, pass: true };
    }
    case 'runnableTestSuite': {
      // As suite detection answers for the files the world planted (criteria.ts lists them).
      if (plan.runner === 'gradle') return fail(criterion, 'unsupported-runner', UNRUNNABLE_SUITES.gradle);
      if (plan.runner !== null) return { criterion, pass: true };
      if (plan.ecosystem !== null) return fail(criterion, 'no-test-suite', `no test suite found for ${plan.ecosystem}`);
      if (plan.language === 'Ruby' || plan.language === 'PHP')
        return fail(criterion, 'unsupported-runner', UNRUNNABLE_SUITES[plan.language]);
      if (plan.language === 'C++') return fail(criterion, 'no-test-suite', 'no test suite found for cpp');
      return fail(
        criterion,
        'unsupported-ecosystem',
        `no manifest of a supported ecosystem (${plan.language ?? 'a repository without code'})`,
      );
    }
    case 'issueHygiene': {
      if (plan.openIssueCount === 0) return fail(criterion, 'no-open-issues', 'no open issues');
      const share = plan.labeledOpenIssueCount / plan.openIssueCount;
      if (share < MIN_LABELED_OPEN_ISSUE_SHARE)
        return fail(
          criterion,
          'labeled-share-below-threshold',
          `${plan.labeledOpenIssueCount} of ${plan.openIssueCount} open issues labeled (${(share * 100).toFixed(1)}% < ${MIN_LABELED_OPEN_ISSUE_SHARE * 100}%)`,
        );
      if (!plan.bugLabelInUse)
        return fail(
          criterion,
          'no-bug-label-in-use',
          `fewer than ${MIN_BUG_LABELED_OPEN_ISSUES} open issue(s) carry a bug label`,
        );
      return { criterion, pass: true };
    }
  }
}

export function repoTruth(world: ScaleWorld, repoId: number): RepoTruth | undefined {
  const plan = world.planOf(repoId);
  if (plan === undefined) return undefined;
  const verdicts = REGISTRY_CRITERIA.map((criterion) => verdict(plan, criterion, world.now));
  return {
    repoId,
    nameWithOwner: `${plan.owner}/${plan.name}`,
    eligible: verdicts.every((entry) => entry.pass),
    verdicts,
    runner: recipeOf(plan.runner),
    facts: {
      licenseSpdxId: plan.licenseSpdxId,
      isArchived: plan.isArchived,
      isFork: plan.isFork,
      isMirror: plan.isMirror,
      lastMergedPullAt: plan.lastMergedAt === null ? null : isoSeconds(plan.lastMergedAt),
      hasCi: plan.hasCi,
      openIssues: plan.openIssueCount,
      labeledOpenIssues: plan.labeledOpenIssueCount,
      bugLabelInUse: plan.bugLabelInUse,
    },
  };
}

export function groundTruth(world: ScaleWorld): WorldTruth {
  const repos: RepoTruth[] = [];
  const failures = Object.fromEntries(REGISTRY_CRITERIA.map((criterion) => [criterion, 0])) as Record<
    RegistryCriterion,
    number
  >;
  for (let index = 0; index < world.repoCount(); index++) {
    const repo = world.repoAt(index);
    const truth = repo === undefined ? undefined : repoTruth(world, repo.id);
    if (truth === undefined) continue;
    repos.push(truth);
    for (const entry of truth.verdicts) if (!entry.pass) failures[entry.criterion]++;
  }
  return {
    seed: world.seed,
    generatedAt: world.generatedAt,
    thresholds: REGISTRY_THRESHOLDS,
    repos,
    eligible: repos
      .filter((truth) => truth.eligible)
      .map((truth) => truth.nameWithOwner)
      .sort(),
    failures,
  };
}
