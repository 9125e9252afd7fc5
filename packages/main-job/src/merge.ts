// The merge stage: wait while the simulator's CI runs each fix's real tests and its maintainers merge the green ones.
// A pull request is settled when it is merged, closed, or its checks failed. Maintainers leave some green ones open
// (a fix that conflicts with one merged before it): once every open one is green and nothing has moved for a while,
// those are settled as not merged.
import { setTimeout as delay } from 'node:timers/promises';
import type { GithubClient } from '@abp/pipeline/github/client';
import { PullRequestError, readPullByUrl, type PullStatus } from '@abp/pipeline/github/pulls';
import type { StageReport } from './stage.js';

export type MergeOutcome = 'merged' | 'closed' | 'ci-failed' | 'not-merged' | 'timed-out';

export interface WatchedFix {
  taskId: string;
  prUrl: string;
}

export interface SettledFix extends WatchedFix {
  outcome: MergeOutcome;
  mergedAt: string | null;
}

export interface MergeWait {
  /** Longest wait for the whole stage. */
  timeoutMs: number;
  /** How long green pull requests may sit unmerged, with nothing moving, before they count as not merged. */
  quietMs: number;
  pollMs?: number;
}

function settledOutcome(pull: PullStatus): MergeOutcome | null {
  if (pull.merged) return 'merged';
  if (pull.state === 'CLOSED') return 'closed';
  if (pull.checks === 'FAILURE' || pull.checks === 'ERROR') return 'ci-failed';
  return null;
}

const outcomeWords: Record<MergeOutcome, string> = {
  merged: 'merged',
  closed: 'closed without a merge',
  'ci-failed': 'CI failed: left open',
  'not-merged': 'green but not merged (a conflict with a fix merged before it, or the maintainers’ choice): left open',
  'timed-out': 'still waiting when the stage timed out',
};

export async function waitForMerges(
  input: { github: GithubClient; fixes: readonly WatchedFix[]; wait: MergeWait },
  report: StageReport,
): Promise<{ value: SettledFix[]; summary: string }> {
  const { github, fixes, wait } = input;
  const pollMs = wait.pollMs ?? 1_000;
  const settled = new Map<string, SettledFix>();
  const deadline = Date.now() + wait.timeoutMs;
  let lastView = '';
  let lastChange = Date.now();
  report.progress(0, fixes.length, 'pull requests');

  while (settled.size < fixes.length) {
    const open: Array<{ fix: WatchedFix; pull: PullStatus }> = [];
    for (const fix of fixes) {
      if (settled.has(fix.taskId)) continue;
      const pull = await readPullByUrl(github, fix.prUrl).catch((error: unknown) => {
        if (!(error instanceof PullRequestError) || error.code !== 'pull-not-found') throw error;
        // The job's GitHub is the simulator: what is missing is the pull request in its world, not a token's access.
        throw new PullRequestError(
          'pull-not-found',
          `${fix.taskId} follows ${fix.prUrl}, which the simulator's world does not have: the world was built afresh (the simulator's log says when and why), so the pull requests opened in the one before are gone; run the job on a new data directory (ABP_HOME)`,
          { cause: error },
        );
      });
      const outcome = settledOutcome(pull);
      if (outcome === null) {
        open.push({ fix, pull });
        continue;
      }
      settled.set(fix.taskId, { ...fix, outcome, mergedAt: pull.mergedAt });
      report.note(`${fix.prUrl} (${fix.taskId}): ${outcomeWords[outcome]}`);
    }
    const view = JSON.stringify([
      [...settled.keys()],
      open.map(({ pull }) => `${pull.url} ${pull.checks ?? 'none'} ${pull.headOid}`),
    ]);
    if (view !== lastView) {
      lastView = view;
      lastChange = Date.now();
    }
    const merged = [...settled.values()].filter((fix) => fix.outcome === 'merged').length;
    report.progress(
      settled.size,
      fixes.length,
      'pull requests',
      `${merged} merged, ${open.filter(({ pull }) => pull.checks === null || pull.checks === 'PENDING').length} in CI`,
    );
    if (open.length === 0) break;
    const allGreen = open.every(({ pull }) => pull.checks === 'SUCCESS');
    if (allGreen && Date.now() - lastChange >= wait.quietMs) {
      for (const { fix } of open) {
        settled.set(fix.taskId, { ...fix, outcome: 'not-merged', mergedAt: null });
        report.note(`${fix.prUrl} (${fix.taskId}): ${outcomeWords['not-merged']}`);
      }
      break;
    }
    if (Date.now() > deadline) {
      for (const { fix } of open) {
        settled.set(fix.taskId, { ...fix, outcome: 'timed-out', mergedAt: null });
        report.note(
          `${fix.prUrl} (${fix.taskId}): ${outcomeWords['timed-out']} (${Math.round(wait.timeoutMs / 1000)} s)`,
        );
      }
      break;
    }
    await delay(pollMs);
  }
  const all = fixes.map((fix) => settled.get(fix.taskId) as SettledFix);
  const count = (outcome: MergeOutcome) => all.filter((fix) => fix.outcome === outcome).length;
  const parts = (['closed', 'ci-failed', 'not-merged', 'timed-out'] as const)
    .filter((outcome) => count(outcome) > 0)
    .map((outcome) => `${count(outcome)} ${outcome}`);
  return {
    value: all,
    summary: `${count('merged')} of ${fixes.length} fixes merged${parts.length > 0 ? `; ${parts.join(', ')}` : ''}`,
  };
}
