// Every decision of a task's life (spec §4.2–4.4) as pure functions over data: given what the task holds, what just
// happened and the pull request as GitHub shows it now, which transitions to record and what to do next. The task
// workflow (task.ts) only reads GitHub, records, waits and freezes as these say, so each branch is tested by a table
// of cases (test/workflows/task-decisions.test.ts) instead of end to end, and a change to one shows up in the
// committed histories' replay. Free of I/O and of anything but types, so the workflow bundle can hold it.
import type { PullInspection } from '../activities/tracking.js';
import type {
  FixSubmission,
  IssueChanged,
  PullRequestChanged,
  TaskPolicy,
  TaskState,
  TaskTransition,
  Withdrawal,
} from '../contracts/task-workflow.js';

/** What a task holds between events, besides its identity. */
export interface TaskMemory {
  state: TaskState;
  prUrl: string | null;
  failedAttempts: number;
  /** The head commit of the pull request as the task last saw it (a force-push moves it). */
  headOid: string | null;
  /** When the task last had no fix in flight: the abandonment clock runs from here. */
  waitingSince: string;
}

/** A signal the task received (queued in its inbox), or the deadline for a fix passing. */
export type TaskEvent =
  | { kind: 'fixSubmitted'; submission: FixSubmission }
  | { kind: 'pullRequestChanged'; change: PullRequestChanged }
  | { kind: 'issueChanged'; change: IssueChanged }
  | { kind: 'withdraw'; withdrawal: Withdrawal }
  | { kind: 'noFixInTime' };

/** Following the task's pull request: read it again, and move as it says. `why` names what prompted the read. */
export interface FollowStep {
  kind: 'follow';
  prUrl: string;
  why: string;
}

export type TaskStep = TaskEvent | FollowStep;

/** One transition to record, in order; `set` carries the columns the new state needs. */
export interface Transition {
  to: TaskState;
  cause: string;
  detail: Record<string, string>;
  set?: TaskTransition['set'];
}

export interface Decision {
  transitions: Transition[];
  /** What the task holds besides its state and pull request, changed by this decision. */
  remember: Partial<Pick<TaskMemory, 'headOid' | 'failedAttempts' | 'waitingSince'>>;
  /** After the transitions: follow the pull request (read it again), or hand the merged fix to the freeze. */
  then: FollowStep | { kind: 'freeze'; prUrl: string; mergeCommit: string; mergedAt: string } | null;
  /** Set when the step changed nothing, with why, for the log. */
  ignored?: string;
}

/** Where a task can no longer move. */
export function isTerminal(state: TaskState): boolean {
  return state === 'withdrawn' || state === 'rejected' || state === 'practice';
}

/** Whether the task is still waiting for, or following, a fix. */
export function isLive(state: TaskState): boolean {
  return state === 'drawn' || state === 'solving' || state === 'tracking';
}

/** Whether the task waits for a fix (and the abandonment deadline runs). */
export function awaitsFix(state: TaskState): boolean {
  return state === 'drawn' || state === 'solving';
}

/** The pull request to read before deciding `step`, or null when the decision needs none. Signals only say "look again". */
export function pullToRead(memory: TaskMemory, step: TaskStep): string | null {
  switch (step.kind) {
    case 'fixSubmitted':
      return awaitsFix(memory.state) ? step.submission.prUrl : null;
    case 'pullRequestChanged':
      return (memory.state === 'tracking' || memory.state === 'solving') && step.change.prUrl === memory.prUrl
        ? step.change.prUrl
        : null;
    case 'issueChanged':
      return step.change.action === 'closed' && isLive(memory.state) ? memory.prUrl : null;
    case 'follow':
      return step.prUrl;
    case 'withdraw':
    case 'noFixInTime':
      return null;
  }
}

const decided = (
  transitions: Transition[],
  remember: Decision['remember'] = {},
  then: Decision['then'] = null,
): Decision => ({ transitions, remember, then });
const ignore = (why: string): Decision => ({ transitions: [], remember: {}, then: null, ignored: why });
const move = (
  to: TaskState,
  cause: string,
  detail: Record<string, string>,
  set?: TaskTransition['set'],
): Transition => ({ to, cause, detail, ...(set === undefined ? {} : { set }) });
const follow = (prUrl: string, why: string): FollowStep => ({ kind: 'follow', prUrl, why });

/**
 * The decision for `step`. `pull` is the pull request pullToRead named, read just now (null when it named none);
 * `now` is the workflow's clock.
 */
export function decide(
  memory: TaskMemory,
  step: TaskStep,
  pull: PullInspection | null,
  policy: TaskPolicy,
  now: string,
): Decision {
  switch (step.kind) {
    case 'fixSubmitted': {
      if (!awaitsFix(memory.state) || pull === null) return ignore(`a fix submitted while ${memory.state}`);
      const { status } = pull;
      const tracked = move(
        'tracking',
        'fix-submitted',
        { prUrl: step.submission.prUrl },
        { prUrl: step.submission.prUrl, prNodeId: status.nodeId, prSeenUpdatedAt: status.updatedAt },
      );
      // A fix merged (or closed) before it was submitted is followed at once.
      const then = status.merged || status.state === 'CLOSED' ? follow(step.submission.prUrl, 'submission') : null;
      return decided([tracked], { headOid: status.headOid }, then);
    }
    case 'pullRequestChanged':
      if (pull === null)
        return ignore(
          `a change of ${step.change.prUrl} while ${memory.state}${memory.prUrl === null ? '' : ` following ${memory.prUrl}`}`,
        );
      return decideFollow(memory, follow(step.change.prUrl, step.change.action), pull, policy, now);
    case 'follow':
      if (pull === null) return ignore(`no pull request read for ${step.prUrl}`);
      return decideFollow(memory, step, pull, policy, now);
    case 'issueChanged':
      if (step.change.action !== 'closed' || !isLive(memory.state))
        return ignore(`issue ${step.change.action} while ${memory.state}`);
      // Closed by the merge of our own fix: the pull request says so, and the merge path decides.
      if (memory.prUrl !== null && pull?.status.merged === true)
        return decided([], {}, follow(memory.prUrl, 'issue-closed'));
      return decided([move('withdrawn', 'issue-closed-by-others', { by: step.change.by ?? 'unknown' })]);
    case 'withdraw':
      if (!isLive(memory.state)) return ignore(`a withdrawal while ${memory.state}`);
      return decided([move('withdrawn', step.withdrawal.cause, { detail: step.withdrawal.detail })]);
    case 'noFixInTime':
      if (!awaitsFix(memory.state)) return ignore(`the fix deadline while ${memory.state}`);
      return decided([move('withdrawn', 'abandoned-no-fix', { days: String(policy.abandonAfterDays) })]);
  }
}

/** What the pull request, read again, says for the task. */
function decideFollow(
  memory: TaskMemory,
  step: FollowStep,
  pull: PullInspection,
  policy: TaskPolicy,
  now: string,
): Decision {
  const { status, verdict } = pull;
  const { prUrl } = step;
  if (status.merged) {
    if (verdict?.accepted) {
      const mergeCommit = status.mergeCommitOid ?? '';
      const mergedAt = status.mergedAt ?? '';
      return decided(
        [move('freezing', 'pr-merged', { prUrl, mergeCommit }, { mergeCommit, mergedAt })],
        {},
        { kind: 'freeze', prUrl, mergeCommit, mergedAt },
      );
    }
    const refusal = verdict?.accepted === false ? verdict : null;
    return decided([
      move('withdrawn', 'merge-not-accepted', {
        prUrl,
        reason: refusal?.reason ?? 'unknown',
        detail: refusal?.detail ?? '',
      }),
    ]);
  }
  if (status.repoArchived) return decided([move('withdrawn', 'repository-archived', { repo: status.repo })]);
  if (status.state === 'CLOSED' && memory.state === 'tracking') {
    const failedAttempts = memory.failedAttempts + 1;
    const transition =
      failedAttempts >= policy.maxFailedAttempts
        ? move('withdrawn', 'abandoned-failed-fixes', { prUrl, attempts: String(failedAttempts) })
        : move('solving', 'pr-closed-unmerged', { prUrl, attempts: String(failedAttempts) });
    return decided([transition], { failedAttempts, waitingSince: now });
  }
  if (status.state === 'OPEN' && memory.state === 'solving' && prUrl === memory.prUrl) {
    return decided([move('tracking', 'pr-reopened', { prUrl }, { prSeenUpdatedAt: status.updatedAt })], {
      headOid: status.headOid,
    });
  }
  if (
    status.state === 'OPEN' &&
    memory.state === 'tracking' &&
    memory.headOid !== null &&
    status.headOid !== memory.headOid
  ) {
    return decided([move('tracking', 'pr-head-moved', { prUrl, head: status.headOid, via: step.why })], {
      headOid: status.headOid,
    });
  }
  return ignore(`${prUrl} is ${status.state.toLowerCase()} and the task is ${memory.state}: nothing to do`);
}

export type FreezeResult =
  { status: 'frozen'; digest: string; failToPass: number } | { status: 'rejected'; reason: string; detail: string };

/** Where the freeze's result takes the task: scored until mergedAt + scoredDays (spec §4.4), or rejected with why. */
export function afterFreeze(result: FreezeResult, mergedAt: string, policy: TaskPolicy): Transition {
  if (result.status === 'rejected')
    return move('rejected', `freeze-${result.reason}`, { detail: result.detail.slice(0, 500) });
  const scoredUntil = new Date(Date.parse(mergedAt) + policy.scoredDays * 86_400_000).toISOString();
  return move('scored', 'frozen', { bundle: result.digest, failToPass: String(result.failToPass) }, { scoredUntil });
}

/** The move to practice once the fix has been public for the scored window, naming the signed statement of it. */
export function agedOut(
  scoredUntil: string,
  agedAt: string,
  signed: { digest: string; logIndex: number | null },
): Transition {
  return move('practice', 'aged-out', {
    scoredUntil,
    agedAt,
    statement: signed.digest,
    ...(signed.logIndex === null ? {} : { logIndex: String(signed.logIndex) }),
  });
}
