// The reference solver: for a drawn task whose fix the solver's fork carries (`fix/<issue>`, fork-fix.ts), it opens the
// pull request upstream with the disclosure spec §4.5 requires and hands it to the task, as `abp task open-pr` does.
// Idempotent: a pull request already opened from that branch (in any state) is found by its head and reused, never
// opened twice; a task that follows a fix already is left alone. Tasks without a known fix are reported and stay drawn.
import type { GithubClient } from '@abp/pipeline/github/client';
import { disclosureText, fixPullRequestBody } from '@abp/pipeline/github/disclosure';
import { openFixPullRequest } from '@abp/pipeline/github/pulls';
import type { TaskState } from '@abp/pipeline/contracts/task-workflow';
import { findForkFix, type ForkFix } from './fork-fix.js';
import type { TaskHandOff } from './hand-off.js';

/** The engine named in the disclosure of every pull request the reference solver opens. */
export const REFERENCE_SOLVER_ENGINE = 'abp-reference@0.1.0';

/** A task as the solver needs it (the task record `abp task show` prints). */
export interface SolverTask {
  taskId: string;
  /** `owner/name` upstream. */
  repo: string;
  issue: number;
  /** `abp-registry/YYYYQn`. */
  registryVersion: string;
  drawSeed: number;
  state: TaskState;
  prUrl: string | null;
}

export type SolveOutcome =
  /** A new pull request was opened and handed to the task. */
  | { $case: 'opened'; taskId: string; prUrl: string; number: number }
  /** A pull request from the fix branch existed already (a second run): handed to the task if it did not follow it yet. */
  | { $case: 'reused'; taskId: string; prUrl: string; number: number; pullState: 'open' | 'merged' }
  /** The task follows a fix already, or has moved past fixes (tracking, frozen, withdrawn…): nothing to do. */
  | { $case: 'submitted-before'; taskId: string; prUrl: string | null; state: TaskState }
  /** A maintainer closed the pull request from the fix branch without merging it: not reopened. */
  | { $case: 'declined'; taskId: string; prUrl: string }
  /** The fork carries no fix for the issue: the task stays drawn for someone else to solve. */
  | { $case: 'no-fix'; taskId: string; reason: string };

/** One method: solve a task if the solver knows how. */
export interface ReferenceSolver {
  solve(task: SolverTask): Promise<SolveOutcome>;
}

export interface ReferenceSolverOptions {
  github: GithubClient;
  tasks: TaskHandOff;
  /** The account whose forks carry the fixes (on the simulator: `abp-solver`). */
  forkOwner: string;
  /** Named in the disclosure; default REFERENCE_SOLVER_ENGINE. */
  engine?: string;
}

/** States in which a task takes a fix (workflows/task.ts); in any other it follows one already, or is done. */
const TAKES_A_FIX: readonly TaskState[] = ['drawn', 'solving'];

export function createReferenceSolver(options: ReferenceSolverOptions): ReferenceSolver {
  const { github, tasks, forkOwner } = options;
  const engine = options.engine ?? REFERENCE_SOLVER_ENGINE;

  /** The newest pull request into `repo` from the fix branch, in any state, or null. */
  async function existingPull(
    repo: string,
    fix: ForkFix,
  ): Promise<{ url: string; number: number; state: 'open' | 'merged' | 'closed' } | null> {
    const [owner = '', name = ''] = repo.split('/');
    const { data } = await github.rest.pulls.list({
      owner,
      repo: name,
      head: fix.head,
      state: 'all',
      sort: 'created',
      direction: 'desc',
      per_page: 10,
    });
    const newest = data[0];
    if (newest === undefined) return null;
    return {
      url: newest.html_url,
      number: newest.number,
      state: newest.state === 'open' ? 'open' : newest.merged_at ? 'merged' : 'closed',
    };
  }

  async function defaultBranch(repo: string): Promise<string> {
    const [owner = '', name = ''] = repo.split('/');
    return (await github.rest.repos.get({ owner, repo: name })).data.default_branch;
  }

  return {
    async solve(task) {
      if (!TAKES_A_FIX.includes(task.state))
        return { $case: 'submitted-before', taskId: task.taskId, prUrl: task.prUrl, state: task.state };
      const lookup = await findForkFix(github, { repo: task.repo, issue: task.issue, forkOwner });
      if (lookup.$case === 'missing') return { $case: 'no-fix', taskId: task.taskId, reason: lookup.reason };
      const { fix } = lookup;

      const existing = await existingPull(task.repo, fix);
      if (existing !== null) {
        if (existing.state === 'closed') return { $case: 'declined', taskId: task.taskId, prUrl: existing.url };
        if (task.prUrl !== existing.url) await tasks.submit(task.taskId, existing.url);
        return {
          $case: 'reused',
          taskId: task.taskId,
          prUrl: existing.url,
          number: existing.number,
          pullState: existing.state,
        };
      }

      const body = fixPullRequestBody({
        issue: task.issue,
        summary: fix.summary,
        disclosure: disclosureText({
          taskId: task.taskId,
          engine,
          registryVersion: task.registryVersion.replace(/^abp-registry\//, ''),
          drawSeed: task.drawSeed,
        }),
        contributing: null,
      });
      // openFixPullRequest returns the open pull request of the same head when one raced this call.
      const opened = await openFixPullRequest(github, {
        repo: task.repo,
        head: fix.head,
        base: await defaultBranch(task.repo),
        title: fix.title,
        body,
      });
      await tasks.submit(task.taskId, opened.url);
      return { $case: 'opened', taskId: task.taskId, prUrl: opened.url, number: opened.number };
    },
  };
}
