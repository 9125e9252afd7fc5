// One task's life (spec §4.2–4.4) as one workflow whose id is the task id:
//   drawn ─fix submitted─▶ tracking ─valid merge─▶ freezing ─FAIL_TO_PASS─▶ scored ─180 days─▶ practice
//            ▲                 │ closed unmerged        └─ none ─▶ rejected
//            └── solving ◀─────┘ (reopened or a new fix: back to tracking)
// plus withdrawn: the issue closed by others, the repository opted out or archived, a merge that does not count, too
// many failed fixes, or no fix in time. What each event means is decided in task-decisions.ts, a pure function; this
// workflow reads the pull request it names, records the transitions it returns (each written to the task's event log,
// with its cause, before the workflow's own state moves), waits, and runs the freeze as a child. Signals queue in an
// inbox and are handled one at a time; they only say "look again". Aging is a durable timer to mergedAt + 180 days;
// the move to practice is signed and logged first, and its event names the signature.
//
// Tasks live for months: a change here that makes a running task take another path than its history recorded breaks
// it at deploy time. test/workflows/histories.test.ts replays the committed histories of every scenario; a deliberate
// change branches on patched() so that histories recorded before it replay the old path.
import {
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  executeChild,
  log,
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { createAgingActivities } from '../activities/aging.js';
import type { createTaskActivities } from '../activities/tasks.js';
import type { createTrackingActivities } from '../activities/tracking.js';
import { DEFAULT_TASK_POLICY, TASK_SIGNAL_NAMES } from '../contracts/task-names.js';
import type {
  FixSubmission,
  IssueChanged,
  PullRequestChanged,
  TaskLifecycleInput,
  TaskPolicy,
  TaskStatus,
  Withdrawal,
} from '../contracts/task-workflow.js';
import { freezeMergedTask } from './freeze.js';
import {
  afterFreeze,
  agedOut,
  awaitsFix,
  decide,
  isTerminal,
  pullToRead,
  type TaskEvent,
  type TaskMemory,
  type TaskStep,
  type Transition,
} from './task-decisions.js';

// Short timeouts on short activities: an activity lost with a killed worker is retried when its timeout runs out.
const retry = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' };
const { recordTaskDrawn, recordTaskTransition } = proxyActivities<ReturnType<typeof createTaskActivities>>({
  startToCloseTimeout: '10 seconds',
  retry,
});
const { inspectPull } = proxyActivities<ReturnType<typeof createTrackingActivities>>({
  startToCloseTimeout: '30 seconds',
  retry,
});
// Sign, fsync, append to the log and checkpoint: seconds at most. Retried without end: a worker without the signing key
// does not register it, and the task waits for one that does.
const { signAgingTransition } = proxyActivities<ReturnType<typeof createAgingActivities>>({
  startToCloseTimeout: '1 minute',
  retry,
});

export const taskSignals = {
  /** A fix was opened upstream for the task's issue: by the bundled solver, another engine or a person. */
  fixSubmitted: defineSignal<[FixSubmission]>(TASK_SIGNAL_NAMES.fixSubmitted),
  /** Something happened to a pull request (webhook or poller). */
  pullRequestChanged: defineSignal<[PullRequestChanged]>(TASK_SIGNAL_NAMES.pullRequestChanged),
  issueChanged: defineSignal<[IssueChanged]>(TASK_SIGNAL_NAMES.issueChanged),
  withdraw: defineSignal<[Withdrawal]>(TASK_SIGNAL_NAMES.withdraw),
} as const;

export const taskQueries = {
  status: defineQuery<TaskStatus>('taskStatus'),
} as const;

/** What a task carries over continueAsNew besides its identity. */
interface Carried {
  status: TaskStatus;
  headOid: string | null;
  /** When the task last had no fix in flight: the abandonment clock runs from here. */
  waitingSince: string;
  scoredUntil: string | null;
}

/** `historyLimit`: history events before the workflow restarts itself (default HISTORY_LIMIT; tests lower it). */
export type TaskWorkflowInput = TaskLifecycleInput & { policy?: TaskPolicy; carried?: Carried; historyLimit?: number };

/** History events before the workflow restarts itself; far below Temporal's limits, so a long-lived task stays cheap to replay. */
const HISTORY_LIMIT = 2_000;
const RECENT = 20;
const DAY_MS = 86_400_000;

export async function taskLifecycle(input: TaskWorkflowInput): Promise<TaskStatus> {
  const policy = input.policy ?? DEFAULT_TASK_POLICY;
  const carried: Carried = input.carried ?? {
    status: { taskId: input.taskId, state: 'drawn', prUrl: null, failedAttempts: 0, recent: [] },
    headOid: null,
    waitingSince: new Date().toISOString(),
    scoredUntil: null,
  };
  const { status } = carried;
  const inbox: TaskEvent[] = [];
  setHandler(taskQueries.status, () => ({ ...status, recent: [...status.recent] }));
  setHandler(taskSignals.fixSubmitted, (submission) => void inbox.push({ kind: 'fixSubmitted', submission }));
  setHandler(taskSignals.pullRequestChanged, (change) => void inbox.push({ kind: 'pullRequestChanged', change }));
  setHandler(taskSignals.issueChanged, (change) => void inbox.push({ kind: 'issueChanged', change }));
  setHandler(taskSignals.withdraw, (withdrawal) => void inbox.push({ kind: 'withdraw', withdrawal }));

  // A task that exists already (a workflow restarted by hand) continues from the state the database holds.
  if (input.carried === undefined) {
    const stored = await recordTaskDrawn({
      taskId: input.taskId,
      drawId: input.drawId,
      repo: input.repo,
      issue: input.issue,
    });
    status.state = stored.state;
    // A scored task keeps its window: the timer runs to the stored scoredUntil, not from this restart.
    carried.scoredUntil = stored.scoredUntil;
  }

  const memory = (): TaskMemory => ({
    state: status.state,
    prUrl: status.prUrl,
    failedAttempts: status.failedAttempts,
    headOid: carried.headOid,
    waitingSince: carried.waitingSince,
  });

  const record = async (transition: Transition): Promise<void> => {
    const at = new Date().toISOString();
    const { to, cause, detail, set } = transition;
    await recordTaskTransition({
      taskId: input.taskId,
      from: status.state,
      to,
      cause,
      detail,
      ...(set === undefined ? {} : { set }),
    });
    status.recent = [...status.recent, { at, from: status.state, to, cause }].slice(-RECENT);
    status.state = to;
    if (set?.prUrl !== undefined) status.prUrl = set.prUrl;
    if (set?.scoredUntil !== undefined) carried.scoredUntil = set.scoredUntil;
  };

  /** Decides `step` (reading its pull request first where the decision needs it), records, and goes on as told. */
  const handle = async (first: TaskStep): Promise<void> => {
    let step: TaskStep | null = first;
    while (step !== null) {
      const prUrl = pullToRead(memory(), step);
      const pull = prUrl === null ? null : await inspectPull({ prUrl });
      const decision = decide(memory(), step, pull, policy, new Date().toISOString());
      if (decision.ignored !== undefined)
        log.info('signal without effect in this state', {
          taskId: input.taskId,
          state: status.state,
          signal: step.kind,
          why: decision.ignored,
        });
      const { headOid, failedAttempts, waitingSince } = decision.remember;
      if (headOid !== undefined) carried.headOid = headOid;
      if (failedAttempts !== undefined) status.failedAttempts = failedAttempts;
      if (waitingSince !== undefined) carried.waitingSince = waitingSince;
      for (const transition of decision.transitions) await record(transition);
      step = null;
      if (decision.then?.kind === 'follow') step = decision.then;
      else if (decision.then?.kind === 'freeze') {
        const { prUrl: merged, mergeCommit, mergedAt } = decision.then;
        const frozen = await executeChild(freezeMergedTask, {
          workflowId: `${input.taskId}-freeze`,
          args: [{ taskId: input.taskId, prUrl: merged, mergeCommit }],
        });
        await record(afterFreeze(frozen, mergedAt, policy));
      }
    }
  };

  while (!isTerminal(status.state)) {
    if (status.state === 'scored') {
      // Aging (spec §4.4): scoredUntil is mergedAt + scoredDays, counted from the merge, not from the end of the freeze.
      // A timer never fires early (it starts when this workflow task completes, a little after the now it was computed
      // from); the loop keeps "never before scoredUntil" true even for a clock that disagrees.
      const scoredUntil = carried.scoredUntil ?? new Date().toISOString();
      const until = Date.parse(scoredUntil);
      while (Date.now() < until) await sleep(until - Date.now());
      const agedAt = new Date().toISOString();
      // Signed and logged before the move, so the event names the signature that vouches for it.
      const signed = await signAgingTransition({ taskId: input.taskId });
      await record(agedOut(scoredUntil, agedAt, signed));
      break;
    }
    const waiting = awaitsFix(status.state);
    const deadline = Date.parse(carried.waitingSince) + policy.abandonAfterDays * DAY_MS;
    const arrived = waiting
      ? await condition(() => inbox.length > 0, Math.max(0, deadline - Date.now()))
      : (await condition(() => inbox.length > 0), true);
    if (!arrived) {
      await handle({ kind: 'noFixInTime' });
      break;
    }
    await handle(inbox.shift() as TaskEvent);
    if (inbox.length === 0 && workflowInfo().historyLength > (input.historyLimit ?? HISTORY_LIMIT)) {
      return continueAsNew<typeof taskLifecycle>({ ...input, policy, carried });
    }
  }
  return status;
}
