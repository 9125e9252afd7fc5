// `abp run --on temporal`: the run is stamped, journaled, sealed and reported on this machine as a local run is, and
// its pending trials run as activities of one gradeRun workflow on the trials queue, on whichever workers poll it.
// The inputs go to the run store first; each finished trial comes back through the workflow's progress query as
// digests, and its record and receipts from the store. The workflow is named by the run, so an `abp run` started
// again after this process died attaches to the workflow still running rather than grading anything twice.
import {
  Client,
  Connection,
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  type WorkflowHandle,
} from '@temporalio/client';
import type { AbpTrial } from '@abp/protocol/schemas/abp-trial';
import { resolveHome, homePaths } from '@abp/grader/home';
import { RunError, type RemoteTrials, type TrialDispatch, type TrialSink } from '@abp/grader/run';
import { resolveStackConfig } from '../worker/config.js';
import type { gradeRun, GradeRunInput, GradeRunProgress } from '../workflows/grade-run.js';
import { taskQueues, workflowIds } from '../workflows/shared.js';
import type { GradedTrial } from './activities.js';
import { packRunInputs } from './run-inputs.js';
import { openRunStore } from '../run-store/open.js';
import type { RunStore } from '../run-store/store.js';

type Env = Readonly<Record<string, string | undefined>>;

/** How often the progress query is asked while trials run: each answer hands over the trials finished since. */
const PROGRESS_EVERY_MS = 1_000;
/** Closed runs read before a start goes through: each is one that ended under us, so a handful means something is wrong. */
const REFUSALS_BEFORE_GIVING_UP = 5;

export function temporalTrials(env: Env = process.env): RemoteTrials {
  return {
    async runTrials(dispatch, sink) {
      const config = resolveStackConfig(env);
      const home = resolveHome(env);
      const store = await openRunStore(home, env);
      const inputs = await packRunInputs(
        store,
        dispatch.paths,
        dispatch.run.tasks,
        dispatch.hidden,
        homePaths(home, env).environments,
      );
      const connection = await Connection.connect({ address: config.temporal.address }).catch((error: unknown) => {
        throw new RunError(
          'remote-unavailable',
          `--on temporal: Temporal at ${config.temporal.address} does not answer (${error instanceof Error ? error.message : String(error)}); start the stack (abp dev up) or set TEMPORAL_ADDRESS`,
        );
      });
      try {
        const client = new Client({ connection, namespace: config.temporal.namespace });
        const input: Omit<GradeRunInput, 'trials' | 'preflight'> = {
          runId: dispatch.runId,
          fingerprint: dispatch.fingerprint,
          run: dispatch.run,
          inputs,
          runUnsupported: dispatch.runUnsupported,
          decisive: dispatch.decisive,
        };
        await gradeOnWorkers(client, store, dispatch, input, sink);
      } finally {
        await connection.close();
      }
    },
  };
}

async function gradeOnWorkers(
  client: Client,
  store: RunStore,
  dispatch: TrialDispatch,
  input: Omit<GradeRunInput, 'trials' | 'preflight'>,
  sink: TrialSink,
): Promise<void> {
  const remaining = new Map(dispatch.pending.map((scheduled) => [scheduled.trialId, scheduled]));
  const preflighted = new Set<string>();
  const workflowId = workflowIds.gradeRun(dispatch.runId);
  // Trials are journaled in schedule order, as a local run journals them: one that finished early waits (in the
  // workflow, which keeps it) for those before it. A trial no worker could grade is passed over and reported at the end.
  const order = dispatch.pending.map((scheduled) => scheduled.trialId);
  let cursor = 0;
  const ready = new Map<string, GradedTrial>();
  const deliver = async (progress: GradeRunProgress) => {
    for (const [engine, result] of Object.entries(progress.preflight)) {
      if (preflighted.has(engine)) continue;
      preflighted.add(engine);
      sink.preflight(engine, result);
    }
    for (const graded of progress.graded) if (remaining.has(graded.trialId)) ready.set(graded.trialId, graded);
    const failed = new Set(progress.failed.map((failure) => failure.trialId));
    while (cursor < order.length) {
      const trialId = order[cursor] as string;
      const graded = ready.get(trialId);
      if (graded !== undefined) {
        ready.delete(trialId);
        remaining.delete(trialId);
        await sink.trial(...(await fetchTrial(store, graded)));
      } else if (remaining.has(trialId) && !failed.has(trialId)) break;
      cursor += 1;
    }
  };
  // The workflow is started over only once this client has read the closed run before it: a run that finished while an
  // earlier `abp run` lay dead, or in the moment between any look and this start, holds trials already graded, and
  // starting over it would grade them again. So the start refuses any closed run not yet read, and reads it instead.
  let readClosedRun = false;
  let refusals = 0;
  let started = 0;
  while (remaining.size > 0) {
    const before = remaining.size;
    cursor = 0;
    // What an earlier workflow graded but could not yet be journaled (a gap before it) is not graded again.
    const toGrade = [...remaining.values()].filter((scheduled) => !ready.has(scheduled.trialId));
    let handle: WorkflowHandle<typeof gradeRun>;
    try {
      handle = await client.workflow.start<typeof gradeRun>('gradeRun', {
        taskQueue: taskQueues.main,
        workflowId,
        // A run of this workflow still going is attached to, whatever it was asked for: its trials are handed over as
        // they finish, and whatever it did not cover runs in a new workflow afterwards.
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
        workflowIdReusePolicy: readClosedRun
          ? WorkflowIdReusePolicy.ALLOW_DUPLICATE
          : WorkflowIdReusePolicy.REJECT_DUPLICATE,
        args: [
          {
            ...input,
            trials: toGrade.map((scheduled) => ({ trialId: scheduled.trialId, engine: scheduled.engine })),
            preflight: dispatch.preflight.filter((engine) => toGrade.some((scheduled) => scheduled.engine === engine)),
          },
        ],
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      if (++refusals > REFUSALS_BEFORE_GIVING_UP)
        throw new RunError(
          'remote-unavailable',
          `workflow ${workflowId} ended under this run ${REFUSALS_BEFORE_GIVING_UP} times before it could attach; is another abp run of the same run going? Run the same command again once it ends`,
        );
      const latest = await client.workflow.getHandle(workflowId).describe();
      if (latest.status.name === 'RUNNING') continue;
      if (latest.status.name === 'COMPLETED')
        await deliver(await client.workflow.getHandle<typeof gradeRun>(workflowId, latest.runId).result());
      readClosedRun = true;
      continue;
    }
    started += 1;
    const finished = handle.result();
    let done = false;
    void finished.then(
      () => (done = true),
      () => (done = true),
    );
    while (!done) {
      await deliver(await handle.query<GradeRunProgress>('gradeRunProgress'));
      // The timer is cleared when the workflow ends first: a pending one would hold the process open after its verdict.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        finished.catch(() => undefined),
        new Promise((resolve) => (timer = setTimeout(resolve, PROGRESS_EVERY_MS))),
      ]);
      clearTimeout(timer);
    }
    const result = await finished;
    // This run is read: the next start may begin another over it.
    readClosedRun = true;
    await deliver(result);
    if (result.failed.length > 0)
      throw new RunError(
        'trials-failed',
        `${result.failed.length} trial(s) could not be graded on any worker (the journal keeps the ${dispatch.pending.length - remaining.size} that were; run the same command again to retry the rest):\n  ${result.failed
          .slice(0, 10)
          .map((failure) => `${failure.trialId}: ${failure.message}`)
          .join('\n  ')}`,
      );
    if (remaining.size === before && started > 1)
      throw new RunError(
        'trials-failed',
        `workflow ${workflowId} ended without grading ${[...remaining.keys()].slice(0, 5).join(', ')}`,
      );
  }
}

/** A graded trial's record and receipts, read back from the store, each checked against its digest on the way. */
async function fetchTrial(store: RunStore, graded: GradedTrial): Promise<[AbpTrial, Map<string, Buffer>]> {
  const trial = JSON.parse((await store.get(graded.record)).toString('utf8')) as AbpTrial;
  const receipts = new Map<string, Buffer>();
  for (const [path, digest] of Object.entries(graded.receipts)) receipts.set(path, await store.get(digest));
  return [trial, receipts];
}
