// The acceptance case of distributed grading with real processes: three `abp worker` processes on one Postgres and one
// Temporal dev server, a 24-trial `abp run --on temporal`, one worker SIGKILLed while it runs a trial. The run must end
// with every trial journaled exactly once and the same verdict, trial outcomes and receipts as a local run of the same
// configuration, apart from wall-clock figures.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { temporal as proto } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRunFixture, type RunFixture } from '../../../grader/test/support/run-fixture.js';
import { packageRoot } from '../../src/package-root.js';
import { workflowIds } from '../../src/workflows/shared.js';
import { runAbp } from '../support/cli.js';
import { startPostgresServer, type PostgresServer } from '../support/postgres-server.js';
import { startDevServer } from '../support/temporal.js';

const TRIALS_PER_PAIR = 4; // 2 tasks × 3 engines × 4 = 24 trials

let temporal: TestWorkflowEnvironment;
let postgres: PostgresServer;
let fixture: RunFixture;
let root = '';
const workers: ChildProcess[] = [];

beforeAll(async () => {
  [temporal, postgres, fixture] = await Promise.all([
    startDevServer(),
    startPostgresServer(),
    buildRunFixture({
      adapters: [
        // Waits, then applies the golden fix: long enough that a worker is killed while one of its trials runs.
        { engine: 'waiter', script: 'slow', env: { set: { SLOW_MS: '1500' } } },
        { engine: 'noop', script: 'noop' },
        { engine: 'knower', script: 'knower' },
      ],
      trials: TRIALS_PER_PAIR,
    }),
  ]);
  root = await mkdtemp(join(tmpdir(), 'abp-distributed-'));
  // Three workers on every queue: the first test kills the first, the second test runs on the two left.
  for (const name of ['worker-a', 'worker-b', 'worker-c']) startWorker(name, ['--max-concurrent', 'trials=2']);
}, 180_000);

afterAll(async () => {
  for (const worker of workers) worker.kill('SIGKILL');
  await Promise.all([temporal?.teardown(), postgres?.stop(), fixture?.cleanup()]);
  if (root) await rm(root, { recursive: true, force: true });
});

/** Each worker is a machine of its own: its own data directory; the database, Temporal and run store are shared. */
function stackEnv(home: string): NodeJS.ProcessEnv {
  return {
    ABP_HOME: join(root, home),
    TEMPORAL_ADDRESS: temporal.address,
    DATABASE_URL: postgres.url,
    ABP_RUN_STORE: join(root, 'shared-run-store'),
  };
}

function startWorker(name: string, args: string[]): ChildProcess {
  const log: string[] = [];
  const worker = spawn(process.execPath, [join(packageRoot, 'bin', 'abp.js'), 'worker', ...args], {
    env: { ...process.env, ...stackEnv(name) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  worker.stdout?.on('data', (chunk: Buffer) => log.push(chunk.toString()));
  worker.stderr?.on('data', (chunk: Buffer) => log.push(chunk.toString()));
  Object.assign(worker, { log });
  workers.push(worker);
  return worker;
}

/** The trial folders open right now (activities.ts names each by its worker's pid), by name. */
async function openTrialFolders(): Promise<Map<string, number>> {
  const names = await readdir(tmpdir());
  return new Map(
    names.flatMap((name) => {
      const pid = /^abp-trial-(\d+)-/.exec(name)?.[1];
      return pid === undefined ? [] : [[name, Number(pid)] as const];
    }),
  );
}

async function journalTrialIds(runDir: string): Promise<string[]> {
  const text = await readFile(join(runDir, 'progress.jsonl'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { kind?: string; trial?: { trialId?: string } })
    .filter((line) => line.kind === 'trial')
    .map((line) => line.trial?.trialId ?? '');
}

/** The verdict without its wall-clock figures: the medians of wall clock and the pairwise wall-clock deltas. */
function withoutWallClock(verdict: Record<string, unknown>): unknown {
  return JSON.parse(
    JSON.stringify(verdict, (key, value: unknown) =>
      key === 'medianWallClockMs' || key === 'wallClockDelta' ? undefined : value,
    ),
  );
}

describe('abp run --on temporal: three workers, one killed mid-matrix', () => {
  it('grades every trial exactly once and gives the local run verdict', async () => {
    const local = await runAbp(['run', '--config', fixture.config, '-o', join(root, 'local'), '--json'], {}, 300_000);
    expect(local.code, local.stderr).toBe(0);
    const localResult = JSON.parse(local.stdout) as { runId: string; runDir: string };

    const killed = workers[0] as ChildProcess;

    const output = join(root, 'distributed');
    const runDir = join(output, localResult.runId);
    const client = runAbp(
      ['run', '--config', fixture.config, '-o', output, '--on', 'temporal', '--json'],
      stackEnv('client'),
      600_000,
    );
    // SIGKILL worker a while it holds a trial folder, once five trials have started anywhere: mid-matrix, mid-trial.
    const started = new Set<string>();
    const deadline = Date.now() + 300_000;
    for (;;) {
      if (Date.now() > deadline) throw new Error('worker a never ran a trial after the first five started');
      const open = await openTrialFolders();
      for (const name of open.keys()) started.add(name);
      if (started.size >= 5 && [...open.values()].includes(killed.pid ?? -1)) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const journaledAtKill = (await journalTrialIds(runDir)).length;
    killed.kill('SIGKILL');

    const distributed = await client;
    expect(distributed.code, distributed.stderr).toBe(0);
    const result = JSON.parse(distributed.stdout) as { runId: string; runDir: string };
    expect(result.runId).toBe(localResult.runId);
    expect(journaledAtKill).toBeLessThan(24);

    // Every trial scored exactly once, journaled in the local run's (schedule) order.
    const ids = await journalTrialIds(runDir);
    expect(ids).toHaveLength(24);
    expect(new Set(ids).size).toBe(24);
    expect(ids).toEqual(await journalTrialIds(localResult.runDir));

    // The same verdict as the local run, apart from wall clock; the same outcome and diff for every trial.
    const verdictOf = async (dir: string) =>
      JSON.parse(await readFile(join(dir, 'verdict.json'), 'utf8')) as Record<string, unknown>;
    expect(withoutWallClock(await verdictOf(runDir))).toEqual(withoutWallClock(await verdictOf(localResult.runDir)));
    for (const id of ids) {
      const [here, there] = await Promise.all(
        [runDir, localResult.runDir].map(
          async (dir) =>
            JSON.parse(await readFile(join(dir, 'trials', `${id}.json`), 'utf8')) as {
              outcome: string;
              diff: unknown;
              verification: unknown;
              receipts: Record<string, string | null>;
            },
        ),
      );
      expect({ id, outcome: here?.outcome, diff: here?.diff }).toEqual({
        id,
        outcome: there?.outcome,
        diff: there?.diff,
      });
      if (here?.receipts.diff)
        expect(await readFile(join(runDir, here.receipts.diff), 'utf8')).toBe(
          await readFile(join(localResult.runDir, here.receipts.diff), 'utf8'),
        );
    }
    // Both runs resolve the same trials: the waiter and the knower every time, the no-op never.
    const verdict = await verdictOf(runDir);
    expect(
      (verdict.perEngine as Array<{ engine: string; resolvedTrials: number }>).map((engine) => [
        engine.engine,
        engine.resolvedTrials,
      ]),
    ).toEqual([
      ['waiter', 8],
      ['noop', 0],
      ['knower', 8],
    ]);

    // The Web UI's view: one workflow, one gradeTrial activity per trial, and the killed worker's trial retried.
    const history = await temporal.client.workflow.getHandle(workflowIds.gradeRun(result.runId)).fetchHistory();
    const events = history.events ?? [];
    const scheduled = events.filter(
      (event) =>
        event.eventType === proto.api.enums.v1.EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED &&
        event.activityTaskScheduledEventAttributes?.activityType?.name === 'gradeTrial',
    );
    expect(scheduled).toHaveLength(24);
    const retried = events.filter(
      (event) =>
        event.eventType === proto.api.enums.v1.EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED &&
        (event.activityTaskStartedEventAttributes?.attempt ?? 1) > 1,
    );
    expect(retried.length).toBeGreaterThanOrEqual(1);
  }, 900_000);

  it('lets a restarted abp run attach to its workflow: no trial graded twice when the client is killed', async () => {
    // Other inputs (another trial count), so another run and another workflow; the two workers left serve it.
    await killClientAndRestart({ trials: 3, slowMs: 1000, waitForWorkflow: false });
  }, 900_000);

  it('lets a restarted abp run read the workflow that finished while no client watched, grading nothing again', async () => {
    // The restart finds the run's workflow closed: its start is refused, and the closed run's trials are journaled.
    await killClientAndRestart({ trials: 2, slowMs: 500, waitForWorkflow: true });
  }, 900_000);
});

/**
 * Starts `abp run --on temporal`, SIGKILLs the client once it has journaled two trials, optionally waits for the run's
 * workflow to finish with nobody watching, and runs the same command again: every trial is journaled once and one
 * workflow run scheduled each trial once.
 */
async function killClientAndRestart(input: {
  trials: number;
  slowMs: number;
  waitForWorkflow: boolean;
}): Promise<void> {
  const again = await buildRunFixture({
    adapters: [
      { engine: 'waiter', script: 'slow', env: { set: { SLOW_MS: String(input.slowMs) } } },
      { engine: 'noop', script: 'noop' },
    ],
    trials: input.trials,
  });
  const total = 2 * 2 * input.trials; // 2 tasks × 2 engines
  try {
    const output = join(root, `restarted-${input.trials}`);
    const args = ['run', '--config', again.config, '-o', output, '--on', 'temporal', '--json'];
    const first = spawn(process.execPath, [join(packageRoot, 'bin', 'abp.js'), ...args], {
      env: { ...process.env, ...stackEnv('client-2') },
      stdio: 'ignore',
    });
    const firstExited = new Promise((resolve) => first.once('exit', resolve));
    let runDir = '';
    const deadline = Date.now() + 300_000;
    while ((await journalTrialIds(runDir)).length < 2) {
      if (Date.now() > deadline) throw new Error('the first client never journaled two trials');
      runDir = join(
        output,
        (await readdir(output).catch(() => [] as string[])).find((name) => name.startsWith('run-')) ?? '-',
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    first.kill('SIGKILL');
    await firstExited;
    const workflowId = workflowIds.gradeRun(basename(runDir));
    if (input.waitForWorkflow) await temporal.client.workflow.getHandle(workflowId).result();
    const second = await runAbp([...args, '--resume-progress', runDir], stackEnv('client-2'), 600_000);
    expect(second.code, second.stderr).toBe(0);
    expect((JSON.parse(second.stdout) as { runId: string }).runId).toBe(basename(runDir));
    const ids = await journalTrialIds(runDir);
    expect(ids).toHaveLength(total);
    expect(new Set(ids).size).toBe(total);
    // One workflow run graded them all: the second client attached to it, or read it, rather than grading them again.
    const runs: string[] = [];
    for await (const execution of temporal.client.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
      runs.push(execution.runId);
    expect(runs).toHaveLength(1);
    const events = (await temporal.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
    const scheduled = events.filter(
      (event) =>
        event.eventType === proto.api.enums.v1.EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED &&
        event.activityTaskScheduledEventAttributes?.activityType?.name === 'gradeTrial',
    );
    expect(scheduled).toHaveLength(total);
  } finally {
    await again.cleanup();
  }
}
