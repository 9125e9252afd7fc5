// The solve stage: the reference solver (solver/) opens the fix of every drawn task whose fix the solver's fork
// carries and hands it to the task; tasks without one are reported and stay drawn. A second run opens nothing twice.
import type { Client } from '@temporalio/client';
import type { GithubClient } from '@abp/pipeline/github/client';
import type { DrawnTask } from '@abp/pipeline/contracts/draw-workflow';
import { temporalHandOff } from './solver/hand-off.js';
import { createReferenceSolver, type SolveOutcome } from './solver/reference-solver.js';
import type { StageReport } from './stage.js';
import type { TaskReads } from '@abp/pipeline/task-reads/reader';
import { MAX_TASK_LIMIT } from '@abp/pipeline/task-reads/records';

/** The simulator's solver account: its forks carry the known fixes (simulator/world/live/repos/catalog.ts). */
export const SIMULATOR_FORK_OWNER = 'abp-solver';

function describe(outcome: SolveOutcome): string {
  switch (outcome.$case) {
    case 'opened':
      return `${outcome.taskId}: opened ${outcome.prUrl}`;
    case 'reused':
      return `${outcome.taskId}: ${outcome.prUrl} was opened before (${outcome.pullState})`;
    case 'submitted-before':
      return `${outcome.taskId}: ${outcome.state}${outcome.prUrl === null ? '' : `, following ${outcome.prUrl}`}`;
    case 'declined':
      return `${outcome.taskId}: ${outcome.prUrl} was closed without a merge; not reopened`;
    case 'no-fix':
      return `${outcome.taskId}: no known fix (${outcome.reason}); left drawn`;
  }
}

export async function solveDrawnTasks(
  client: Client,
  input: {
    reads: TaskReads;
    github: GithubClient;
    picks: readonly DrawnTask[];
    forkOwner: string;
    registryVersion: string;
    drawSeed: number;
  },
  report: StageReport,
): Promise<{ value: SolveOutcome[]; summary: string }> {
  const records = new Map((await input.reads.read({ limit: MAX_TASK_LIMIT })).map((task) => [task.taskId, task]));
  const solver = createReferenceSolver({
    github: input.github,
    tasks: temporalHandOff(client),
    forkOwner: input.forkOwner,
  });
  const outcomes: SolveOutcome[] = [];
  report.progress(0, input.picks.length, 'tasks');
  for (const pick of input.picks) {
    const record = records.get(pick.taskId);
    const outcome = await solver.solve({
      taskId: pick.taskId,
      repo: pick.repo,
      issue: pick.issue,
      registryVersion: input.registryVersion,
      drawSeed: input.drawSeed,
      // A pick the worker has not stored yet is being created as drawn.
      state: record?.state ?? 'drawn',
      prUrl: record?.prUrl ?? null,
    });
    outcomes.push(outcome);
    report.note(describe(outcome));
    report.progress(outcomes.length, input.picks.length, 'tasks');
  }
  const count = (...cases: SolveOutcome['$case'][]) =>
    outcomes.filter((outcome) => cases.includes(outcome.$case)).length;
  const summary = `${count('opened')} pull requests opened, ${count('reused', 'submitted-before')} followed from before, ${count('no-fix')} without a known fix, ${count('declined')} declined`;
  return { value: outcomes, summary };
}
