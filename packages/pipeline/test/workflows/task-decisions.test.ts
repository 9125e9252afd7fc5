// The task lifecycle's decisions, case by case: every branch of task-decisions.ts, with the pull request as GitHub
// would show it. The workflow only carries these out, so these cases are the lifecycle's rules.
import { describe, expect, it } from 'vitest';
import type { PullInspection } from '../../src/activities/tracking.js';
import type { PullStatus } from '../../src/github/pulls.js';
import { DEFAULT_TASK_POLICY } from '../../src/contracts/task-names.js';
import type { TaskPolicy } from '../../src/contracts/task-workflow.js';
import {
  afterFreeze,
  agedOut,
  decide,
  isTerminal,
  pullToRead,
  type Decision,
  type TaskMemory,
  type TaskStep,
} from '../../src/workflows/task-decisions.js';

const PR = 'https://github.com/acme/widgets/pull/7';
const OTHER_PR = 'https://github.com/acme/widgets/pull/8';
const NOW = '2026-07-02T14:11:09.000Z';
const policy: TaskPolicy = { ...DEFAULT_TASK_POLICY, maxFailedAttempts: 3, abandonAfterDays: 30, scoredDays: 180 };

const memory = (overrides: Partial<TaskMemory> = {}): TaskMemory => ({
  state: 'tracking',
  prUrl: PR,
  failedAttempts: 0,
  headOid: 'a'.repeat(40),
  waitingSince: '2026-07-01T00:00:00.000Z',
  ...overrides,
});

function pull(overrides: Partial<PullStatus> = {}, verdict: PullInspection['verdict'] = null): PullInspection {
  const status: PullStatus = {
    nodeId: 'PR_node7',
    url: PR,
    repo: 'acme/widgets',
    number: 7,
    state: 'OPEN',
    merged: false,
    mergedAt: null,
    mergedBy: null,
    baseRefName: 'main',
    defaultBranch: 'main',
    repoArchived: false,
    headOid: 'a'.repeat(40),
    mergeCommitOid: null,
    checks: null,
    closesIssues: [12],
    updatedAt: '2026-07-02T14:00:00Z',
    ...overrides,
  };
  return { status, verdict };
}
const merged = (verdict: PullInspection['verdict']) =>
  pull(
    {
      state: 'MERGED',
      merged: true,
      mergedAt: '2026-07-02T13:00:00Z',
      mergedBy: 'maintainer',
      mergeCommitOid: 'c'.repeat(40),
    },
    verdict,
  );

const submitted: TaskStep = { kind: 'fixSubmitted', submission: { prUrl: PR } };
const followed = (why = 'synchronize'): TaskStep => ({ kind: 'follow', prUrl: PR, why });
const changed = (prUrl = PR): TaskStep => ({
  kind: 'pullRequestChanged',
  change: { prUrl, action: 'closed', deliveryId: 'd-1' },
});
const issueClosed: TaskStep = { kind: 'issueChanged', change: { action: 'closed', by: 'someone', deliveryId: null } };

/** The decision as the workflow acts on it: the states and causes it records, what it remembers and what comes next. */
const outline = (decision: Decision) => ({
  moves: decision.transitions.map((t) => `${t.cause}→${t.to}`),
  remember: decision.remember,
  then: decision.then?.kind ?? null,
  ignored: decision.ignored !== undefined,
});

describe('which pull request a step reads first', () => {
  it.each<[string, TaskMemory, TaskStep, string | null]>([
    ['a fix submitted to a drawn task: the submitted one', memory({ state: 'drawn', prUrl: null }), submitted, PR],
    [
      'a fix submitted to a solving task: the submitted one',
      memory({ state: 'solving' }),
      { kind: 'fixSubmitted', submission: { prUrl: OTHER_PR } },
      OTHER_PR,
    ],
    ['a fix submitted while tracking: none (ignored)', memory(), submitted, null],
    ['a change of the followed pull request: it', memory(), changed(), PR],
    ['a change of another pull request: none', memory(), changed(OTHER_PR), null],
    ['a change while drawn: none', memory({ state: 'drawn', prUrl: null }), changed(), null],
    ['the issue closed with a fix in flight: the fix', memory(), issueClosed, PR],
    ['the issue closed before any fix: none', memory({ state: 'drawn', prUrl: null }), issueClosed, null],
    ['the issue closed while freezing: none', memory({ state: 'freezing' }), issueClosed, null],
    ['a follow: its pull request', memory(), followed(), PR],
    [
      'a withdrawal: none',
      memory(),
      { kind: 'withdraw', withdrawal: { cause: 'repository-opted-out', detail: 'asked' } },
      null,
    ],
    ['the fix deadline: none', memory({ state: 'drawn' }), { kind: 'noFixInTime' }, null],
  ])('%s', (_, task, step, expected) => {
    expect(pullToRead(task, step)).toBe(expected);
  });
});

describe('what each step decides', () => {
  it.each<[string, TaskMemory, TaskStep, PullInspection | null, ReturnType<typeof outline>]>([
    [
      'a fix submitted to a drawn task is tracked',
      memory({ state: 'drawn', prUrl: null, headOid: null }),
      submitted,
      pull({ headOid: 'b'.repeat(40) }),
      { moves: ['fix-submitted→tracking'], remember: { headOid: 'b'.repeat(40) }, then: null, ignored: false },
    ],
    [
      'a fix merged before it was submitted is tracked, then followed',
      memory({ state: 'drawn', prUrl: null }),
      submitted,
      merged({ accepted: true }),
      { moves: ['fix-submitted→tracking'], remember: { headOid: 'a'.repeat(40) }, then: 'follow', ignored: false },
    ],
    [
      'a fix closed before it was submitted is tracked, then followed',
      memory({ state: 'solving' }),
      submitted,
      pull({ state: 'CLOSED' }),
      { moves: ['fix-submitted→tracking'], remember: { headOid: 'a'.repeat(40) }, then: 'follow', ignored: false },
    ],
    [
      'a second fix while tracking changes nothing',
      memory(),
      submitted,
      null,
      { moves: [], remember: {}, then: null, ignored: true },
    ],
    [
      'an accepted merge hands over to the freeze',
      memory(),
      followed(),
      merged({ accepted: true }),
      { moves: ['pr-merged→freezing'], remember: {}, then: 'freeze', ignored: false },
    ],
    [
      'a merge that does not count withdraws the task',
      memory(),
      followed(),
      merged({ accepted: false, reason: 'checks-not-green', detail: 'acme/widgets#7 has red checks' }),
      { moves: ['merge-not-accepted→withdrawn'], remember: {}, then: null, ignored: false },
    ],
    [
      'a merge not judged withdraws the task as unknown',
      memory(),
      followed(),
      merged(null),
      { moves: ['merge-not-accepted→withdrawn'], remember: {}, then: null, ignored: false },
    ],
    [
      'an archived repository withdraws the task',
      memory(),
      followed(),
      pull({ repoArchived: true }),
      { moves: ['repository-archived→withdrawn'], remember: {}, then: null, ignored: false },
    ],
    [
      'a fix closed unmerged sends the task back to solving',
      memory(),
      followed(),
      pull({ state: 'CLOSED' }),
      {
        moves: ['pr-closed-unmerged→solving'],
        remember: { failedAttempts: 1, waitingSince: NOW },
        then: null,
        ignored: false,
      },
    ],
    [
      'the last allowed fix closed unmerged abandons the task',
      memory({ failedAttempts: 2 }),
      followed(),
      pull({ state: 'CLOSED' }),
      {
        moves: ['abandoned-failed-fixes→withdrawn'],
        remember: { failedAttempts: 3, waitingSince: NOW },
        then: null,
        ignored: false,
      },
    ],
    [
      'a fix closed again while solving changes nothing',
      memory({ state: 'solving' }),
      followed(),
      pull({ state: 'CLOSED' }),
      { moves: [], remember: {}, then: null, ignored: true },
    ],
    [
      'the closed fix reopened tracks it again',
      memory({ state: 'solving' }),
      followed(),
      pull({ headOid: 'd'.repeat(40) }),
      { moves: ['pr-reopened→tracking'], remember: { headOid: 'd'.repeat(40) }, then: null, ignored: false },
    ],
    [
      'another pull request reopened while solving changes nothing',
      memory({ state: 'solving', prUrl: OTHER_PR }),
      followed(),
      pull(),
      { moves: [], remember: {}, then: null, ignored: true },
    ],
    [
      'a force-push moves the head',
      memory(),
      followed(),
      pull({ headOid: 'e'.repeat(40) }),
      { moves: ['pr-head-moved→tracking'], remember: { headOid: 'e'.repeat(40) }, then: null, ignored: false },
    ],
    [
      'an open pull request with the same head changes nothing',
      memory(),
      followed(),
      pull(),
      { moves: [], remember: {}, then: null, ignored: true },
    ],
    [
      'a head never seen is not a move',
      memory({ headOid: null }),
      followed(),
      pull({ headOid: 'e'.repeat(40) }),
      { moves: [], remember: {}, then: null, ignored: true },
    ],
    [
      'a change of the followed pull request is followed',
      memory(),
      changed(),
      pull({ state: 'CLOSED' }),
      {
        moves: ['pr-closed-unmerged→solving'],
        remember: { failedAttempts: 1, waitingSince: NOW },
        then: null,
        ignored: false,
      },
    ],
    [
      'a change of another pull request changes nothing',
      memory(),
      changed(OTHER_PR),
      null,
      { moves: [], remember: {}, then: null, ignored: true },
    ],
    [
      'the issue closed by others withdraws the task',
      memory({ state: 'drawn', prUrl: null }),
      issueClosed,
      null,
      { moves: ['issue-closed-by-others→withdrawn'], remember: {}, then: null, ignored: false },
    ],
    [
      'the issue closed by the merge of the fix follows the fix',
      memory(),
      issueClosed,
      merged({ accepted: true }),
      { moves: [], remember: {}, then: 'follow', ignored: false },
    ],
    [
      'the issue closed while the fix is still open withdraws the task',
      memory(),
      issueClosed,
      pull(),
      { moves: ['issue-closed-by-others→withdrawn'], remember: {}, then: null, ignored: false },
    ],
    [
      'the issue reopened changes nothing',
      memory(),
      { kind: 'issueChanged', change: { action: 'reopened', by: null, deliveryId: null } },
      null,
      { moves: [], remember: {}, then: null, ignored: true },
    ],
    [
      'the issue closed while freezing changes nothing',
      memory({ state: 'freezing' }),
      issueClosed,
      null,
      { moves: [], remember: {}, then: null, ignored: true },
    ],
    [
      'an opt-out withdraws a live task',
      memory({ state: 'solving' }),
      { kind: 'withdraw', withdrawal: { cause: 'repository-opted-out', detail: 'asked' } },
      null,
      { moves: ['repository-opted-out→withdrawn'], remember: {}, then: null, ignored: false },
    ],
    [
      'an opt-out leaves a scored task',
      memory({ state: 'scored' }),
      { kind: 'withdraw', withdrawal: { cause: 'repository-opted-out', detail: 'asked' } },
      null,
      { moves: [], remember: {}, then: null, ignored: true },
    ],
    [
      'no fix in time abandons a waiting task',
      memory({ state: 'drawn', prUrl: null }),
      { kind: 'noFixInTime' },
      null,
      { moves: ['abandoned-no-fix→withdrawn'], remember: {}, then: null, ignored: false },
    ],
    [
      'the fix deadline does not abandon a tracked fix',
      memory(),
      { kind: 'noFixInTime' },
      null,
      { moves: [], remember: {}, then: null, ignored: true },
    ],
  ])('%s', (_, task, step, inspected, expected) => {
    expect(outline(decide(task, step, inspected, policy, NOW))).toEqual(expected);
  });

  it('records what each transition needs: the pull request on submission, the merge on hand-over, the reason on refusal', () => {
    const tracked = decide(memory({ state: 'drawn', prUrl: null }), submitted, pull(), policy, NOW);
    expect(tracked.transitions[0]).toEqual({
      to: 'tracking',
      cause: 'fix-submitted',
      detail: { prUrl: PR },
      set: { prUrl: PR, prNodeId: 'PR_node7', prSeenUpdatedAt: '2026-07-02T14:00:00Z' },
    });
    const handedOver = decide(memory(), followed(), merged({ accepted: true }), policy, NOW);
    expect(handedOver.transitions[0]).toEqual({
      to: 'freezing',
      cause: 'pr-merged',
      detail: { prUrl: PR, mergeCommit: 'c'.repeat(40) },
      set: { mergeCommit: 'c'.repeat(40), mergedAt: '2026-07-02T13:00:00Z' },
    });
    expect(handedOver.then).toEqual({
      kind: 'freeze',
      prUrl: PR,
      mergeCommit: 'c'.repeat(40),
      mergedAt: '2026-07-02T13:00:00Z',
    });
    const refused = decide(
      memory(),
      followed(),
      merged({ accepted: false, reason: 'merger-without-write-access', detail: 'kenji-dev cannot write' }),
      policy,
      NOW,
    );
    expect(refused.transitions[0]?.detail).toEqual({
      prUrl: PR,
      reason: 'merger-without-write-access',
      detail: 'kenji-dev cannot write',
    });
    const moved = decide(memory(), followed('synchronize'), pull({ headOid: 'e'.repeat(40) }), policy, NOW);
    expect(moved.transitions[0]?.detail).toEqual({ prUrl: PR, head: 'e'.repeat(40), via: 'synchronize' });
    expect(
      decide(memory({ state: 'drawn' }), { kind: 'noFixInTime' }, null, policy, NOW).transitions[0]?.detail,
    ).toEqual({ days: '30' });
  });
});

describe('after the freeze and at the end of the scored window', () => {
  it('scores a frozen fix until mergedAt + the scored days, counted from the merge', () => {
    expect(
      afterFreeze(
        { status: 'frozen', digest: `sha256:${'f'.repeat(64)}`, failToPass: 2 },
        '2026-07-02T13:00:00.000Z',
        policy,
      ),
    ).toEqual({
      to: 'scored',
      cause: 'frozen',
      detail: { bundle: `sha256:${'f'.repeat(64)}`, failToPass: '2' },
      set: { scoredUntil: '2026-12-29T13:00:00.000Z' },
    });
  });

  it('rejects a fix the freeze refused, with its reason and at most 500 characters of detail', () => {
    const rejected = afterFreeze(
      { status: 'rejected', reason: 'no-fail-to-pass', detail: 'x'.repeat(900) },
      '2026-07-02T13:00:00.000Z',
      policy,
    );
    expect(rejected).toMatchObject({ to: 'rejected', cause: 'freeze-no-fail-to-pass' });
    expect(rejected.detail.detail).toHaveLength(500);
  });

  it('moves to practice naming the signed statement, and its log entry when there is one', () => {
    expect(
      agedOut('2026-12-29T13:00:00.000Z', '2026-12-29T13:00:01.000Z', { digest: 'sha256:aa', logIndex: 4 }).detail,
    ).toEqual({
      scoredUntil: '2026-12-29T13:00:00.000Z',
      agedAt: '2026-12-29T13:00:01.000Z',
      statement: 'sha256:aa',
      logIndex: '4',
    });
    expect(
      agedOut('2026-12-29T13:00:00.000Z', '2026-12-29T13:00:01.000Z', { digest: 'sha256:aa', logIndex: null }).detail,
    ).not.toHaveProperty('logIndex');
  });

  it('ends in withdrawn, rejected and practice only', () => {
    expect(
      ['drawn', 'solving', 'tracking', 'freezing', 'scored', 'practice', 'withdrawn', 'rejected'].filter((state) =>
        isTerminal(state as TaskMemory['state']),
      ),
    ).toEqual(['practice', 'withdrawn', 'rejected']);
  });
});
