// Owns turning repeated runs of the suite before and after the fix into FAIL_TO_PASS, PASS_TO_PASS,
// the quarantined flaky tests and the regressions, and whether the freeze must be rejected. Pure:
// the same runs give the same answer, every list sorted by id.

import type { TestStatus } from '@abp/grader/test-reports';
import { compareCodeUnits } from '@abp/protocol/schemas/primitives';
import { FreezeError } from './errors.js';

/** What one run said about a test; 'missing' when its report does not name it. */
export type TestOutcome = TestStatus | 'missing';

/** One run's statuses by test id. */
export type RunResults = ReadonlyMap<string, TestStatus>;

/** A test whose outcome differed between runs of one state: quarantined, listed, never graded. */
export interface FlakyTest {
  id: string;
  outcomes: { before: TestOutcome[]; after: TestOutcome[] };
}

export type ClassificationRejection = 'regression' | 'tests-already-pass' | 'no-fail-to-pass';

export interface Classification {
  /** Not passing in every before-run (fail, error, skip or missing), passing in every after-run. */
  failToPass: string[];
  /** Passing in every run of both states. */
  passToPass: string[];
  flaky: FlakyTest[];
  /**
   * Named by some runs of a state and not by others (a test parametrized with the time or a random value gets a new id
   * every run): never graded, and only counted where the task is published, so the same inputs freeze to the same bytes.
   */
  volatile: string[];
  /** Passing in every before-run, not passing in any after-run (missing included: a crash must not hide it). */
  regressions: string[];
  rejection: { reason: ClassificationRejection; detail: string } | null;
}

// Enough names for a person to start from; the full sets are in the outcome.
const LISTED_IN_DETAIL = 10;

export function classifyRuns(before: readonly RunResults[], after: readonly RunResults[]): Classification {
  if (before.length === 0 || after.length === 0) {
    throw new FreezeError(
      'invalid-options',
      `classifyRuns needs at least one run of each state; got ${before.length} before and ${after.length} after`,
    );
  }
  const ids = new Set<string>();
  for (const run of [...before, ...after]) for (const id of run.keys()) ids.add(id);
  const outcomesOf = (runs: readonly RunResults[], id: string): TestOutcome[] =>
    runs.map((run) => run.get(id) ?? 'missing');

  const result: Classification = {
    failToPass: [],
    passToPass: [],
    flaky: [],
    volatile: [],
    regressions: [],
    rejection: null,
  };
  const failingBefore: string[] = [];
  for (const id of [...ids].sort(compareCodeUnits)) {
    const outcomes = { before: outcomesOf(before, id), after: outcomesOf(after, id) };
    if (isVolatile(outcomes)) {
      result.volatile.push(id);
      continue;
    }
    const was = passing(outcomes.before);
    const is = passing(outcomes.after);
    if (was === 'mixed' || is === 'mixed') result.flaky.push({ id, outcomes });
    else if (was === 'never' && is === 'always') result.failToPass.push(id);
    else if (was === 'always' && is === 'always') result.passToPass.push(id);
    else if (was === 'always') result.regressions.push(id);
    if (was === 'never') failingBefore.push(id);
  }
  result.rejection = rejection(result, failingBefore, before.length);
  return result;
}

/**
 * Named by some runs of a state and missing from others, and named by every run of neither state. A test every run of
 * one state names stays classified: one that passed before and crashed in some runs after is still a regression.
 */
function isVolatile(outcomes: { before: readonly TestOutcome[]; after: readonly TestOutcome[] }): boolean {
  const named = (runs: readonly TestOutcome[]) => runs.filter((outcome) => outcome !== 'missing').length;
  const partly = (runs: readonly TestOutcome[]) => named(runs) > 0 && named(runs) < runs.length;
  const wholly = (runs: readonly TestOutcome[]) => named(runs) === runs.length;
  return (partly(outcomes.before) || partly(outcomes.after)) && !wholly(outcomes.before) && !wholly(outcomes.after);
}

function passing(outcomes: readonly TestOutcome[]): 'always' | 'never' | 'mixed' {
  const passes = outcomes.filter((outcome) => outcome === 'pass').length;
  return passes === outcomes.length ? 'always' : passes === 0 ? 'never' : 'mixed';
}

function rejection(
  result: Classification,
  failingBefore: readonly string[],
  beforeRuns: number,
): Classification['rejection'] {
  if (result.regressions.length > 0) {
    return {
      reason: 'regression',
      detail: `${count(result.regressions, 'test')} pass in every run before the fix and fail after it: ${list(result.regressions)}`,
    };
  }
  if (result.failToPass.length > 0) return null;
  if (failingBefore.length === 0) {
    return {
      reason: 'tests-already-pass',
      detail: `no test fails in all ${beforeRuns} runs before the fix, so the fix's tests cannot tell it from no change`,
    };
  }
  return {
    reason: 'no-fail-to-pass',
    detail: `${count(failingBefore, 'test')} fail in every run before the fix, but none passes in every run after it: ${list(failingBefore)}`,
  };
}

function count(ids: readonly string[], noun: string): string {
  return `${ids.length} ${noun}${ids.length === 1 ? '' : 's'}`;
}

function list(ids: readonly string[]): string {
  const shown = ids.slice(0, LISTED_IN_DETAIL).join(', ');
  return ids.length > LISTED_IN_DETAIL ? `${shown} and ${ids.length - LISTED_IN_DETAIL} more` : shown;
}
