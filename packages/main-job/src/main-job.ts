// The main job (`abp start`): the whole live pipeline once, on the embedded default. Stack → rotation → draw → solve →
// merge → freeze → pull → grade → gate, one module per stage, each timed and reported through the progress sink.
// Everything a stage makes is stored where the stage after it (or the next run) finds it, so a second run with the
// same seed reuses the rotation, the draw, the tasks and their bundles, and still pulls, grades and gates.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { homePaths } from '@abp/grader/home';
import { jsonText, writeFileAtomic } from '@abp/grader/run';
import { openTaskReads } from '@abp/pipeline/task-reads/reader';
import { MAX_TASK_LIMIT } from '@abp/pipeline/task-reads/records';
import type { StackConfig } from '@abp/pipeline/worker/config';
import { drawWithSeed } from './draw.js';
import type { ProgressSink, StageName } from './events.js';
import { reasonOfEvent, waitForFreezes } from './freeze.js';
import { gateRun } from './gate.js';
import { writeOracleRun } from '@abp/grader/engines';
import { gradeEngines } from './grade.js';
import { processMemory, type ProcessMemory } from './memory.js';
import { waitForMerges, type WatchedFix } from './merge.js';
import type { MainJobOptions } from './options.js';
import { mainJobPaths, runStamp } from './paths.js';
import { pullScoredTasks } from './pull.js';
import { rotateCurrentQuarter } from './rotation.js';
import { SIMULATOR_FORK_OWNER, solveDrawnTasks } from './solve.js';
import { runStage, type StageReport } from './stage.js';
import { guardStack, startStack } from './stack-stage.js';

export interface MainJobSummary {
  schema: 'abp-main-job-summary/1';
  startedAt: string;
  seed: number;
  world: { seed: number; date: string };
  registryVersion: string;
  drawId: string;
  drawRecord: string;
  drawDigest: string;
  auditCommand: string;
  tasks: { drawn: number; solved: number; merged: number; scored: number; rejected: number; pulled: number };
  /** Every merged fix the freeze rejected, with its reason code and detail: the job exits 1 when there is one. */
  rejected: Array<{ taskId: string; reason: string }>;
  /** Every drawn task where this run left it, with why for a task not in the scored set (its latest event). */
  drawnTasks: Array<{ taskId: string; state: string; reason: string | null }>;
  /** Merged fixes that did not end pulled and graded, and why: the job exits 1 when there is one. */
  notDelivered: Array<{ taskId: string; why: string }>;
  /** Bundle digest of every pulled task, by task id. */
  bundles: Record<string, string>;
  temporalUi: string | null;
  serve: string;
  simulator: string;
  /** The main job's folder for this run, and the grader's run folder in it. */
  runFolder: string;
  results: string;
  report: string;
  verdict: string;
  baseline: string;
  gate: 'pass';
  logs: { worker: string; simulator: string; serve: string; temporal: string };
  stages: Partial<Record<StageName, number>>;
  /** From the command's start until every component answered. */
  coldStartMs: number;
  totalMs: number;
  memory: ProcessMemory[];
}

export async function runMainJob(
  config: StackConfig,
  options: MainJobOptions,
  sink: ProgressSink,
): Promise<MainJobSummary> {
  const started = performance.now();
  const startedAt = new Date();
  const paths = mainJobPaths(config.home, runStamp(startedAt));
  const stages: Partial<Record<StageName, number>> = {};
  const timed = <T>(stage: StageName, result: { value: T; ms: number }): T => {
    stages[stage] = result.ms;
    return result.value;
  };

  const stack = timed(
    'stack',
    await runStage(sink, 'stack', null, async (report) => {
      const running = await startStack(
        config,
        { worldSeed: options.worldSeed, reviewDelayMs: options.reviewDelayMs },
        report,
      );
      return {
        value: running,
        summary: `up: Temporal ${running.temporal.address} (Web UI ${running.temporal.ui ?? 'none: external cluster'}), worker pid ${running.worker.pid}, simulator ${running.sim.apiUrl}, abp serve ${running.serve.url}`,
      };
    }),
  );
  const coldStartMs = Math.round(performance.now() - started);
  const workerLog = stack.worker.log;

  const guard = guardStack(stack);
  // Every later stage waits on the stack: one of its processes exiting ends the stage at once, naming its log.
  const guarded = <T>(
    stage: StageName,
    log: string | null,
    body: (report: StageReport) => Promise<{ value: T; summary: string }>,
  ) => runStage(sink, stage, log, body, guard.exited);
  // Task records come from the read path (the worker that holds the database), never through a workflow.
  const reads = await openTaskReads({ home: config.home });
  const connection = await Connection.connect({ address: config.temporal.address }).catch(async (error: unknown) => {
    await reads.close();
    throw error;
  });
  try {
    const client = new Client({ connection, namespace: config.temporal.namespace });
    const rotation = timed(
      'rotation',
      await guarded('rotation', workerLog, (report) =>
        rotateCurrentQuarter(client, { home: config.home, now: startedAt, workerLog }, report),
      ),
    );
    const drawn = timed(
      'draw',
      await guarded('draw', workerLog, (report) =>
        drawWithSeed(
          client,
          { seed: options.seed, count: options.count, registryVersion: rotation.version, workerLog },
          report,
        ),
      ),
    );
    const picks = drawn.draw.picks;

    const solved = timed(
      'solve',
      await guarded('solve', stack.sim.log, (report) =>
        solveDrawnTasks(
          client,
          {
            reads,
            github: stack.github,
            picks,
            forkOwner: SIMULATOR_FORK_OWNER,
            registryVersion: rotation.version,
            drawSeed: options.seed,
          },
          report,
        ),
      ),
    );
    // Fixes still to be decided upstream: those opened or found open now, and those a task was following already.
    const watched: WatchedFix[] = solved.flatMap((outcome): WatchedFix[] => {
      if (outcome.$case === 'opened' || outcome.$case === 'reused')
        return [{ taskId: outcome.taskId, prUrl: outcome.prUrl }];
      if (outcome.$case === 'submitted-before' && outcome.state === 'tracking' && outcome.prUrl !== null)
        return [{ taskId: outcome.taskId, prUrl: outcome.prUrl }];
      return [];
    });
    const merges = timed(
      'merge',
      await guarded('merge', stack.sim.log, (report) =>
        waitForMerges(
          {
            github: stack.github,
            fixes: watched,
            wait: { timeoutMs: options.mergeTimeoutMs, quietMs: Math.max(15_000, 5 * options.reviewDelayMs) },
          },
          report,
        ),
      ),
    );
    const merged = new Set(merges.filter((fix) => fix.outcome === 'merged').map((fix) => fix.taskId));

    const frozen = timed(
      'freeze',
      await guarded('freeze', workerLog, (report) =>
        waitForFreezes(
          client,
          {
            reads,
            taskIds: picks.map((pick) => pick.taskId),
            merged,
            workerLog,
            wait: { timeoutMs: options.freezeTimeoutMs },
          },
          report,
        ),
      ),
    );
    const scored = frozen.filter(
      (task) => task.bundleDigest !== null && (task.state === 'scored' || task.state === 'practice'),
    );
    const rejected = frozen.filter((task) => task.state === 'rejected');

    await mkdir(paths.pulled, { recursive: true });
    const pulled = timed(
      'pull',
      await guarded('pull', stack.serve.log, (report) =>
        pullScoredTasks(
          {
            taskIds: scored.map((task) => task.taskId),
            from: stack.serve.url,
            trustRoot: stack.trustRoot,
            pulledDir: paths.pulled,
            checkpointsDir: homePaths(config.home).keptCheckpoints,
          },
          report,
        ),
      ),
    );

    const graded = timed(
      'grade',
      await guarded('grade', null, async (report) => {
        await writeOracleRun({
          config: paths.config,
          adapters: paths.adapters,
          tasksDir: paths.pulled,
          tasks: pulled.map((task) => task.taskId),
          trials: options.trials,
          seed: options.seed,
        });
        return gradeEngines(
          { config: paths.config, adapters: paths.adapters, tasksDir: paths.pulled, results: paths.results },
          report,
        );
      }),
    );

    const gate = timed(
      'gate',
      await guarded('gate', null, (report) =>
        gateRun(
          {
            runDir: graded.runDir,
            baselines: paths.baselines,
            drawId: drawn.draw.drawId,
            engine: 'reference',
            control: 'noop',
          },
          report,
        ),
      ),
    );

    // Where every pick ended, read once more now that every stage is done.
    const pickIds = new Set(picks.map((pick) => pick.taskId));
    const endStates = (await reads.read({ limit: MAX_TASK_LIMIT }))
      .filter((record) => pickIds.has(record.taskId))
      .map((record) => ({
        taskId: record.taskId,
        state: record.state,
        reason: ['scored', 'practice'].includes(record.state) ? null : reasonOfEvent(record.lastEvent),
      }));
    const pulledIds = new Set(pulled.map((task) => task.taskId));
    const notDelivered = endStates
      .filter((task) => merged.has(task.taskId) && !pulledIds.has(task.taskId))
      .map((task) => ({
        taskId: task.taskId,
        why: ['scored', 'practice'].includes(task.state)
          ? `${task.state} but not pulled and graded`
          : `${task.state}${task.reason === null ? '' : `: ${task.reason}`}`,
      }));

    const summary: MainJobSummary = {
      schema: 'abp-main-job-summary/1',
      startedAt: startedAt.toISOString(),
      seed: options.seed,
      world: { seed: stack.sim.seed, date: stack.sim.date },
      registryVersion: rotation.version,
      drawId: drawn.draw.drawId,
      drawRecord: drawn.draw.recordPath,
      drawDigest: drawn.draw.digest,
      auditCommand: drawn.auditCommand,
      tasks: {
        drawn: picks.length,
        solved: solved.filter((outcome) => outcome.$case !== 'no-fix' && outcome.$case !== 'declined').length,
        merged: merged.size,
        scored: scored.length,
        rejected: rejected.length,
        pulled: pulled.length,
      },
      rejected: rejected.map((task) => ({ taskId: task.taskId, reason: task.reason ?? task.state })),
      drawnTasks: endStates,
      notDelivered,
      bundles: Object.fromEntries(pulled.map((task) => [task.taskId, task.digest])),
      temporalUi: stack.temporal.ui,
      serve: stack.serve.url,
      simulator: stack.sim.apiUrl,
      runFolder: paths.run,
      results: graded.runDir,
      report: join(graded.runDir, 'report.html'),
      verdict: join(graded.runDir, 'verdict.json'),
      baseline: gate.baseline,
      gate: 'pass',
      logs: { worker: workerLog, simulator: stack.sim.log, serve: stack.serve.log, temporal: stack.temporal.log },
      stages,
      coldStartMs,
      totalMs: Math.round(performance.now() - started),
      memory: processMemory([
        { process: 'temporal dev server', pid: stack.temporal.pid },
        { process: 'worker', pid: stack.worker.pid },
        { process: 'simulator', pid: stack.sim.pid },
        { process: 'abp serve', pid: stack.serve.pid },
        { process: 'abp start (this command)', pid: process.pid },
      ]),
    };
    await writeFileAtomic(paths.summary, jsonText(summary));
    sink({ event: 'summary', summary });
    return summary;
  } finally {
    guard.stop();
    await connection.close();
    await reads.close();
  }
}
