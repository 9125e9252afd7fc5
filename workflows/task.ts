// One task's life (spec §4.2–4.4) as one workflow whose id is the task id:
//   drawn ─fix submitted─▶ tracking ─valid merge─▶ freezing ─FAIL_TO_PASS─▶ scored ─180 days─▶ practice
//            ▲                 │ closed unmerged        └─ none ─▶ rejected
//            └── solving ◀─────┘ (reopened or a new fix: back to tracking)
// plus withdrawn: the issue closed by others, the repository opted out or archived, a merge that does not count, too
// many failed fixes, or no fix in time. Signals queue in an inbox and are handled one at a time; each transition is
// written to the task's event log (with its cause) before the workflow's own state moves. Signals only say "look
// again": the pull request is re-read from GitHub before anything is decided. Aging is a durable timer to
// mergedAt + 180 days; the move to practice is signed and logged first, and its event names the signature.
import { condition, continueAsNew, defineQuery, defineSignal, executeChild, log, proxyActivities, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import type { createAgingActivities } from '../activities/aging.js';
import type { createTaskActivities } from '../activities/tasks.js';
import type { createTrackingActivities } from '../activities/tracking.js';
import { DEFAULT_TASK_POLICY, TASK_SIGNAL_NAMES } from '../schemas/task-names.js';
import type {
  FixSubmission,
  IssueChanged,
  PullRequestChanged,
  TaskLifecycleInput,
  TaskPolicy,
  TaskState,
  TaskStatus,
  TaskTransition,
  Withdrawal,
} from '../schemas/task-workflow.js';
import { freezeMergedTask } from './freeze.js';

// Short timeouts on short activities: an activity lost with a killed worker is retried when its timeout runs out.
const retry = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' };
const { recordTaskDrawn, recordTaskTransition } = proxyActivities<ReturnType<typeof createTaskActivities>>({ startToCloseTimeout: '10 seconds', retry });
const { inspectPull } = proxyActivities<ReturnType<typeof createTrackingActivities>>({ startToCloseTimeout: '30 seconds', retry });
// Sign, fsync, append to the log and checkpoint: seconds at most. Retried without end: a worker without the signing key
// does not register it, and the task waits for one that does.
const { signAgingTransition } = proxyActivities<ReturnType<typeof createAgingActivities>>({ startToCloseTimeout: '1 minute', retry });

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

type InboxItem =
  | { kind: 'fixSubmitted'; submission: FixSubmission }
  | { kind: 'pullRequestChanged'; change: PullRequestChanged }
  | { kind: 'issueChanged'; change: IssueChanged }
  | { kind: 'withdraw'; withdrawal: Withdrawal };

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

const terminal = (state: TaskState): boolean => state === 'withdrawn' || state === 'rejected' || state === 'practice';

export async function taskLifecycle(input: TaskWorkflowInput): Promise<TaskStatus> {
  const policy = input.policy ?? DEFAULT_TASK_POLICY;
  const carried: Carried = input.carried ?? {
    status: { taskId: input.taskId, state: 'drawn', prUrl: null, failedAttempts: 0, recent: [] },
    headOid: null,
    waitingSince: new Date().toISOString(),
    scoredUntil: null,
  };
  const { status } = carried;
  const inbox: InboxItem[] = [];
  setHandler(taskQueries.status, () => ({ ...status, recent: [...status.recent] }));
  setHandler(taskSignals.fixSubmitted, (submission) => void inbox.push({ kind: 'fixSubmitted', submission }));
  setHandler(taskSignals.pullRequestChanged, (change) => void inbox.push({ kind: 'pullRequestChanged', change }));
  setHandler(taskSignals.issueChanged, (change) => void inbox.push({ kind: 'issueChanged', change }));
  setHandler(taskSignals.withdraw, (withdrawal) => void inbox.push({ kind: 'withdraw', withdrawal }));

  // A task that exists already (a workflow restarted by hand) continues from the state the database holds.
  if (input.carried === undefined) {
    const stored = await recordTaskDrawn({ taskId: input.taskId, drawId: input.drawId, repo: input.repo, issue: input.issue });
    status.state = stored.state;
    // A scored task keeps its window: the timer runs to the stored scoredUntil, not from this restart.
    carried.scoredUntil = stored.scoredUntil;
  }

  const move = async (to: TaskState, cause: string, detail: Record<string, string>, set?: TaskTransition['set']): Promise<void> => {
    const at = new Date().toISOString();
    await recordTaskTransition({ taskId: input.taskId, from: status.state, to, cause, detail, ...(set === undefined ? {} : { set }) });
    status.recent = [...status.recent, { at, from: status.state, to, cause }].slice(-RECENT);
    status.state = to;
    if (set?.prUrl !== undefined) status.prUrl = set.prUrl;
  };

  /** A valid merge hands over to the freeze; its result scores or rejects the task. */
  const handOver = async (prUrl: string, mergeCommit: string, mergedAt: string): Promise<void> => {
    await move('freezing', 'pr-merged', { prUrl, mergeCommit }, { mergeCommit, mergedAt });
    const frozen = await executeChild(freezeMergedTask, { workflowId: `${input.taskId}-freeze`, args: [{ taskId: input.taskId, prUrl, mergeCommit }] });
    if (frozen.status === 'frozen') {
      const scoredUntil = new Date(Date.parse(mergedAt) + policy.scoredDays * DAY_MS).toISOString();
      carried.scoredUntil = scoredUntil;
      await move('scored', 'frozen', { bundle: frozen.digest, failToPass: String(frozen.failToPass) }, { scoredUntil });
    } else {
      await move('rejected', `freeze-${frozen.reason}`, { detail: frozen.detail.slice(0, 500) });
    }
  };

  /** Re-reads the task's pull request and moves the task as it says. */
  const follow = async (prUrl: string, why: string): Promise<void> => {
    const { status: pull, verdict } = await inspectPull({ prUrl });
    if (pull.merged) {
      if (verdict?.accepted) return handOver(prUrl, pull.mergeCommitOid as string, pull.mergedAt as string);
      return move('withdrawn', 'merge-not-accepted', { prUrl, reason: verdict?.accepted === false ? verdict.reason : 'unknown', detail: verdict?.accepted === false ? verdict.detail : '' });
    }
    if (pull.repoArchived) return move('withdrawn', 'repository-archived', { repo: pull.repo });
    if (pull.state === 'CLOSED' && status.state === 'tracking') {
      status.failedAttempts += 1;
      carried.waitingSince = new Date().toISOString();
      if (status.failedAttempts >= policy.maxFailedAttempts) return move('withdrawn', 'abandoned-failed-fixes', { prUrl, attempts: String(status.failedAttempts) });
      return move('solving', 'pr-closed-unmerged', { prUrl, attempts: String(status.failedAttempts) });
    }
    if (pull.state === 'OPEN' && status.state === 'solving' && prUrl === status.prUrl) {
      carried.headOid = pull.headOid;
      return move('tracking', 'pr-reopened', { prUrl }, { prSeenUpdatedAt: pull.updatedAt });
    }
    if (pull.state === 'OPEN' && status.state === 'tracking' && carried.headOid !== null && pull.headOid !== carried.headOid) {
      carried.headOid = pull.headOid;
      return move('tracking', 'pr-head-moved', { prUrl, head: pull.headOid, via: why });
    }
  };

  const submit = async (prUrl: string): Promise<void> => {
    const { status: pull } = await inspectPull({ prUrl });
    carried.headOid = pull.headOid;
    await move('tracking', 'fix-submitted', { prUrl }, { prUrl, prNodeId: pull.nodeId, prSeenUpdatedAt: pull.updatedAt });
    // A fix merged before it was submitted is followed at once.
    if (pull.merged || pull.state === 'CLOSED') await follow(prUrl, 'submission');
  };

  const handle = async (item: InboxItem): Promise<void> => {
    const live = status.state === 'drawn' || status.state === 'solving' || status.state === 'tracking';
    switch (item.kind) {
      case 'fixSubmitted':
        if (status.state === 'drawn' || status.state === 'solving') return submit(item.submission.prUrl);
        break;
      case 'pullRequestChanged':
        if ((status.state === 'tracking' || status.state === 'solving') && item.change.prUrl === status.prUrl) return follow(item.change.prUrl, item.change.action);
        break;
      case 'issueChanged':
        if (item.change.action === 'closed' && live) {
          // Closed by the merge of our own fix: the pull request says so, and the merge path decides.
          if (status.prUrl !== null) {
            const { status: pull } = await inspectPull({ prUrl: status.prUrl });
            if (pull.merged) return follow(status.prUrl, 'issue-closed');
          }
          return move('withdrawn', 'issue-closed-by-others', { by: item.change.by ?? 'unknown' });
        }
        break;
      case 'withdraw':
        if (live) return move('withdrawn', item.withdrawal.cause, { detail: item.withdrawal.detail });
        break;
    }
    log.info('signal without effect in this state', { taskId: input.taskId, state: status.state, signal: item.kind });
  };

  while (!terminal(status.state)) {
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
      await move('practice', 'aged-out', { scoredUntil, agedAt, statement: signed.digest, ...(signed.logIndex === null ? {} : { logIndex: String(signed.logIndex) }) });
      break;
    }
    const waiting = status.state === 'drawn' || status.state === 'solving';
    const deadline = Date.parse(carried.waitingSince) + policy.abandonAfterDays * DAY_MS;
    const arrived = waiting ? await condition(() => inbox.length > 0, Math.max(0, deadline - Date.now())) : (await condition(() => inbox.length > 0), true);
    if (!arrived) {
      await move('withdrawn', 'abandoned-no-fix', { days: String(policy.abandonAfterDays) });
      break;
    }
    await handle(inbox.shift() as InboxItem);
    if (inbox.length === 0 && workflowInfo().historyLength > (input.historyLimit ?? HISTORY_LIMIT)) {
      return continueAsNew<typeof taskLifecycle>({ ...input, policy, carried });
    }
  }
  return status;
}
