// `abp start`: the whole live pipeline once on the embedded default (pipeline/main-job.ts), with progress a person can
// follow (cli/progress.ts) or JSON events for machines; `abp stop`: stop everything it started (serve, simulator,
// worker, Temporal).
import { killRunningCommands } from '@abp/grader/execution';
import { PipelineError } from '../errors.js';
import { runMainJob, type MainJobSummary } from '../main-job.js';
import { DEFAULT_MAIN_JOB, type MainJobOptions } from '../options.js';
import { resolveStackConfig } from '@abp/pipeline/worker/config';
import { stackDown } from '@abp/pipeline/dev-stack/dev-stack';
import { serveDown } from '@abp/pipeline/dev-stack/serve-stack';
import { simDown } from '../sim-stack.js';
import { CommandFailed, createOutput, type OutputOptions } from '@abp/grader/cli';
import { createProgressPrinter, progressMode } from './progress.js';

export interface StartOptions extends OutputOptions {
  seed?: number;
  count?: number;
  trials?: number;
  worldSeed?: number;
  reviewDelayMs?: number;
  /** Seconds. */
  mergeTimeout?: number;
  /** Seconds. */
  freezeTimeout?: number;
}

export function mainJobOptions(options: StartOptions): MainJobOptions {
  return {
    seed: options.seed ?? DEFAULT_MAIN_JOB.seed,
    count: options.count ?? DEFAULT_MAIN_JOB.count,
    worldSeed: options.worldSeed ?? DEFAULT_MAIN_JOB.worldSeed,
    trials: options.trials ?? DEFAULT_MAIN_JOB.trials,
    reviewDelayMs: options.reviewDelayMs ?? DEFAULT_MAIN_JOB.reviewDelayMs,
    mergeTimeoutMs: options.mergeTimeout === undefined ? DEFAULT_MAIN_JOB.mergeTimeoutMs : options.mergeTimeout * 1000,
    freezeTimeoutMs:
      options.freezeTimeout === undefined ? DEFAULT_MAIN_JOB.freezeTimeoutMs : options.freezeTimeout * 1000,
  };
}

export async function startCommand(options: StartOptions): Promise<void> {
  const config = resolveStackConfig();
  const job = mainJobOptions(options);
  const printer = createProgressPrinter(progressMode(options));
  if (!options.json) {
    process.stdout.write(`abp start: the live pipeline on the embedded default, data directory ${config.home}\n`);
    process.stdout.write(
      `draw seed ${job.seed}${options.seed === undefined ? ' (the default; --seed <n> draws another)' : ''}, ${job.count} tasks, ${job.trials} trials per task and engine\n`,
    );
  }
  // The grader's engines run in process groups of their own: end them with us. The stack stays up for a rerun.
  const interrupted = (signal: NodeJS.Signals) => {
    killRunningCommands();
    printer.close();
    process.stderr.write(
      `abp start: interrupted by ${signal}; the stack keeps running (\`abp stop\` stops it), and \`abp start\` again continues from what is stored\n`,
    );
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  let summary: MainJobSummary;
  try {
    summary = await runMainJob(config, job, printer.sink);
  } catch (error) {
    // A failed stage may leave work behind (the grader's next trial, a poll): end the engines now, and do not let the
    // rest hold the command open once it has said why it failed.
    killRunningCommands();
    setTimeout(() => process.exit(), 2_000).unref();
    if (error instanceof PipelineError) {
      // The failure is printed already (or was an event with --json): the exit code and stderr line remain.
      throw new CommandFailed('stage-failed', error.message, options.json === true);
    }
    throw error;
  } finally {
    printer.close();
    process.removeListener('SIGINT', interrupted);
    process.removeListener('SIGTERM', interrupted);
  }
  // Every stage ran and the gate passed on what froze; a merged fix that did not become a task still fails the job.
  if (summary.rejected.length > 0)
    throw new CommandFailed(
      'tasks-rejected',
      `the freeze rejected ${summary.rejected.length} of ${summary.tasks.scored + summary.rejected.length} tasks with merged fixes: ${summary.rejected.map((task) => `${task.taskId} (${task.reason})`).join('; ')}`,
      options.json === true,
    );
  if (summary.notDelivered.length > 0)
    throw new CommandFailed(
      'tasks-not-delivered',
      `${summary.notDelivered.length} merged fixes did not end frozen, pulled and graded: ${summary.notDelivered.map((task) => `${task.taskId} (${task.why})`).join('; ')}`,
      options.json === true,
    );
}

/** Stops what `abp start` runs, the receiver first (it signals through Temporal), the server last. */
export async function stopCommand(options: OutputOptions): Promise<void> {
  const out = createOutput(options);
  const config = resolveStackConfig();
  const serve = await serveDown(config);
  out.line(`${'abp serve'.padEnd(15)} ${serve}`);
  const sim = await simDown(config);
  out.line(`${'simulator'.padEnd(15)} ${sim}`);
  const stack = await stackDown(config);
  for (const { name, result } of stack) out.line(`${name.padEnd(15)} ${result}`);
  out.data({ components: [{ name: 'serve', result: serve }, { name: 'simulator', result: sim }, ...stack] });
}
