// How `abp run --on temporal` scales out: the throughput (trials per minute) of one distributed run on 1, 2 and 4
// trial-worker processes (`abp worker --queues trials --max-concurrent 1` each), against the target 0.9 × N times one
// worker's, measured in the same run; and the scheduling overhead per trial of a distributed run on ONE trial worker
// against the same configuration graded locally (`abp run --concurrency 1`), rounds interleaved, medians and spread.
// Trials wait rather than compute (an engine that sleeps, then applies the golden fix of fixture-greeting, whose
// verification is one `node --test` of one file), so the engine's wait dominates a trial; what CPU a trial still takes
// (Node start-ups, git) is printed beside each run, the machine's and this bench's own, since a shared machine's other
// work stretches trials too. The processes are the built `abp` (packages/pipeline/bin/abp.js over dist/: build first).
// A run's wall time is from the client's "starting" line (the matrix stamped, the lock taken) to the client's exit
// (the verdict sealed); the span from the first trial's start to the last trial's end is shown beside it.
// Every measured run has a config of its own (its seed), so a new run id and a new gradeRun workflow each time.
//   node bin/run-ts.js bench/scale-out.ts [trials] [rounds] [engine-sleep-ms]
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
// The package is CommonJS: its namespaces come through the default import only (as in dev-stack.ts).
import proto from '@temporalio/proto';
import { packageRoot } from '@abp/pipeline/package-root';
import { workflowIds } from '@abp/pipeline/workflows/shared';
import { buildRunFixture, GREETING_TASK, type RunFixture } from '../packages/grader/test/support/run-fixture.js';
import { startDevServer } from '../packages/pipeline/test/support/temporal.js';

const TRIALS = Math.max(2, Number(process.argv[2] ?? 24));
const ROUNDS = Math.max(2, Number(process.argv[3] ?? 3));
const ENGINE_SLEEP_MS = Number(process.argv[4] ?? 5_000);
const WORKER_COUNTS = [1, 2, 4] as const;
const SCALING_TARGET = 0.9;
/** After a worker's "queues:" line its pollers start; this lets the first polls reach the server. */
const POLL_GRACE_MS = 1_500;
const abp = join(packageRoot, 'bin', 'abp.js');
const EventType = proto.temporal.api.enums.v1.EventType;

/** The median of the finite values (the mean of the middle two for an even count: rounds are few); NaN for none. */
function median(values: readonly number[]): number {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  const middle = sorted.length / 2;
  if (sorted.length === 0) return NaN;
  return sorted.length % 2 === 1
    ? (sorted[Math.floor(middle)] ?? NaN)
    : ((sorted[middle - 1] ?? NaN) + (sorted[middle] ?? NaN)) / 2;
}
const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);
const mean = (values: readonly number[]) => (values.length === 0 ? NaN : sum(values) / values.length);
function spread(values: readonly number[], digits = 0): string {
  const finite = values.filter(Number.isFinite);
  return finite.length === 0 ? '-' : `${Math.min(...finite).toFixed(digits)}–${Math.max(...finite).toFixed(digits)}`;
}
/** Epoch milliseconds with performance.now()'s resolution, comparable with trial records and Temporal's event times. */
const epochNow = () => performance.timeOrigin + performance.now();
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The machine's CPU time so far, busy and all, in seconds (/proc/stat's first line is in USER_HZ ticks). */
function cpuTimes(): { busy: number; total: number } {
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1, 9).map(Number);
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = fields;
  const busy = user + nice + system + irq + softirq + steal;
  return { busy: busy / 100, total: (busy + idle + iowait) / 100 };
}
const CORES = availableParallelism();

const CPU_PARTS = ['client', 'trial workers', 'main worker', 'Temporal'] as const;
type CpuPart = (typeof CPU_PARTS)[number];

/**
 * The CPU seconds of this bench's processes so far, by part: each live child process (Temporal, workers) with what it
 * reaped (engines, git, verification), and the children this process reaped (finished clients: a run's client has
 * exited by the second reading). The machine may be shared with other work; this tells the bench's own load apart.
 */
function ownCpuSeconds(): Record<CpuPart, number> {
  const statOf = (pid: string) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    } catch {
      return null; // gone meanwhile
    }
  };
  const self = statOf('self') ?? [];
  const parts: Record<CpuPart, number> = {
    client: (Number(self[13] ?? 0) + Number(self[14] ?? 0)) / 100,
    'trial workers': 0,
    'main worker': 0,
    Temporal: 0,
  };
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    const fields = statOf(pid);
    if (fields === null || Number(fields[1]) !== process.pid) continue;
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const part: CpuPart = argv.includes('server')
      ? 'Temporal'
      : argv.includes('main')
        ? 'main worker'
        : argv.includes('trials')
          ? 'trial workers'
          : 'client';
    parts[part] += [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index] ?? 0), 0) / 100;
  }
  return parts;
}

// ---------------------------------------------------------------------------------------------------------------------
// Processes: every child is tracked, so a failure or Ctrl-C still ends them all.

interface Child {
  name: string;
  process: ChildProcess;
  /** Each line it printed, stdout and stderr, with the epoch time it arrived. */
  lines: Array<{ at: number; text: string }>;
  exited: Promise<number | null>;
}

const children = new Set<Child>();
let root = '';
let fixture: RunFixture | undefined;
let temporal: TestWorkflowEnvironment | undefined;

function spawnAbp(name: string, args: readonly string[], env: NodeJS.ProcessEnv): Child {
  const child = spawn(process.execPath, [abp, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Child['lines'] = [];
  for (const stream of [child.stdout, child.stderr])
    createInterface({ input: stream }).on('line', (text) => lines.push({ at: epochNow(), text }));
  const exited = new Promise<number | null>((done) => child.once('close', (code) => done(code)));
  const tracked: Child = { name, process: child, lines, exited };
  children.add(tracked);
  void exited.then(() => children.delete(tracked));
  return tracked;
}

const tail = (child: Child) =>
  child.lines
    .slice(-30)
    .map((line) => `  ${child.name}| ${line.text}`)
    .join('\n');

async function waitForLine(child: Child, pattern: RegExp, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = child.lines.find((line) => pattern.test(line.text));
    if (found !== undefined) return found.at;
    if (child.process.exitCode !== null || Date.now() > deadline)
      throw new Error(`${child.name} printed no ${pattern} (exit ${child.process.exitCode}):\n${tail(child)}`);
    await delay(50);
  }
}

async function stop(child: Child): Promise<void> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return;
  child.process.kill('SIGTERM');
  const ended = await Promise.race([child.exited.then(() => true), delay(20_000).then(() => false)]);
  if (!ended) {
    child.process.kill('SIGKILL');
    await child.exited;
  }
}

function stackEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  // Trials need no database; the main worker keeps the embedded PGlite in its own home.
  delete env.DATABASE_URL;
  return {
    ...env,
    ABP_HOME: join(root, home),
    TEMPORAL_ADDRESS: temporal?.address ?? '',
    ABP_RUN_STORE: join(root, 'run-store'),
  };
}

async function startWorker(name: string, queues: 'main' | 'trials'): Promise<Child> {
  const args = ['worker', '--queues', queues, ...(queues === 'trials' ? ['--max-concurrent', '1'] : [])];
  const worker = spawnAbp(name, args, stackEnv(name));
  await waitForLine(worker, /^queues: /, 120_000);
  return worker;
}

// ---------------------------------------------------------------------------------------------------------------------
// One measured run.

interface TrialTiming {
  trialId: string;
  outcome: string;
  startedAt: number;
  finishedAt: number;
  /** The engine process's run, and the harness's own work (record's timing.harnessOverheadMs: not engine, not tests). */
  engineMs: number;
  harnessMs: number;
}

interface ActivityTiming {
  type: string;
  scheduledAt: number;
  startedAt: number;
  completedAt: number;
  identity: string;
  attempt: number;
  trialId: string | null;
}

interface Measured {
  label: string;
  workers: number;
  runId: string;
  /** From the client's "starting" line to its exit. */
  wallMs: number;
  /** CPU seconds the whole machine spent busy while the client ran, the share of all cores that is, and this bench's own. */
  cpuBusySeconds: number;
  cpuShare: number;
  ownCpuSeconds: number;
  ownCpuShare: number;
  ownCpuByPart: Record<CpuPart, number>;
  /** When the client printed its last trial line and its last line (the journal digest, after the seal). */
  lastTrialLineAt: number;
  lastLineAt: number;
  startedAt: number;
  endedAt: number;
  trials: TrialTiming[];
  /** The gradeRun workflow's history (distributed runs only). */
  history?: {
    workflowStartedAt: number;
    workflowCompletedAt: number;
    activities: ActivityTiming[];
  };
}

let runCount = 0;

/** A copy of the fixture's config with a seed of its own: a new run id, so nothing is attached to or reused. */
async function freshConfig(label: string): Promise<string> {
  if (fixture === undefined) throw new Error('no fixture');
  const config = JSON.parse(await readFile(fixture.config, 'utf8')) as Record<string, unknown>;
  runCount += 1;
  const path = join(fixture.dir, `abp-run-${runCount}-${label}.json`);
  await writeFile(path, `${JSON.stringify({ ...config, seed: 1_000 + runCount }, null, 2)}\n`);
  return path;
}

async function readTrials(runDir: string): Promise<TrialTiming[]> {
  const dir = join(runDir, 'trials');
  const files = (await readdir(dir)).filter((name) => name.endsWith('.json'));
  return Promise.all(
    files.map(async (name) => {
      const record = JSON.parse(await readFile(join(dir, name), 'utf8')) as {
        trialId: string;
        outcome: string;
        timing: { startedAt: string; finishedAt: string; harnessOverheadMs: number };
        engineProcess?: { durationMs: number } | null;
      };
      return {
        trialId: record.trialId,
        outcome: record.outcome,
        startedAt: Date.parse(record.timing.startedAt),
        finishedAt: Date.parse(record.timing.finishedAt),
        engineMs: record.engineProcess?.durationMs ?? NaN,
        harnessMs: record.timing.harnessOverheadMs,
      };
    }),
  );
}

type Timestamp = { seconds?: unknown; nanos?: number | null } | null | undefined;
const msOf = (time: Timestamp) => Number(time?.seconds ?? 0) * 1_000 + (time?.nanos ?? 0) / 1e6;

async function readHistory(runId: string): Promise<NonNullable<Measured['history']>> {
  if (temporal === undefined) throw new Error('no Temporal');
  const history = await temporal.client.workflow.getHandle(workflowIds.gradeRun(runId)).fetchHistory();
  const events = history.events ?? [];
  const byScheduled = new Map<string, ActivityTiming>();
  let workflowStartedAt = NaN;
  let workflowCompletedAt = NaN;
  for (const event of events) {
    const at = msOf(event.eventTime);
    // Only these events: workflow tasks and the rest say nothing of where a trial's time went.
    if (event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED) workflowStartedAt = at;
    else if (event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED) workflowCompletedAt = at;
    else if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
      byScheduled.set(String(event.eventId), {
        type: event.activityTaskScheduledEventAttributes?.activityType?.name ?? '?',
        scheduledAt: at,
        startedAt: NaN,
        completedAt: NaN,
        identity: '',
        attempt: 0,
        trialId: null,
      });
    else if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED) {
      const attributes = event.activityTaskStartedEventAttributes;
      const activity = byScheduled.get(String(attributes?.scheduledEventId));
      if (activity === undefined) continue;
      // With a retry policy the server writes this event when the attempt ends, stamped with the attempt's start.
      activity.startedAt = at;
      activity.identity = attributes?.identity ?? '';
      activity.attempt = attributes?.attempt ?? 1;
    } else if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED) {
      const attributes = event.activityTaskCompletedEventAttributes;
      const activity = byScheduled.get(String(attributes?.scheduledEventId));
      if (activity === undefined) continue;
      activity.completedAt = at;
      const data = attributes?.result?.payloads?.[0]?.data;
      if (data)
        activity.trialId = (JSON.parse(Buffer.from(data).toString('utf8')) as { trialId?: string }).trialId ?? null;
    }
  }
  return { workflowStartedAt, workflowCompletedAt, activities: [...byScheduled.values()] };
}

async function measure(label: string, workers: number): Promise<Measured> {
  const config = await freshConfig(label);
  const output = join(root, 'results', `${runCount}-${label}`);
  const distributed = workers > 0;
  const args = distributed
    ? ['run', '--config', config, '-o', output, '--on', 'temporal']
    : ['run', '--config', config, '-o', output, '--concurrency', '1'];
  const cpuBefore = cpuTimes();
  const ownBefore = ownCpuSeconds();
  const client = spawnAbp(`client-${label}`, args, stackEnv(distributed ? 'home-client' : 'home-local'));
  const code = await client.exited;
  const endedAt = epochNow();
  const cpuAfter = cpuTimes();
  const ownAfter = ownCpuSeconds();
  if (code !== 0) throw new Error(`abp ${args.join(' ')} exited ${code}:\n${tail(client)}`);
  const starting = client.lines.find((line) => /^starting \S+: \d+ trials/.test(line.text));
  const runId = starting === undefined ? undefined : /^starting (\S+):/.exec(starting.text)?.[1];
  if (starting === undefined || runId === undefined)
    throw new Error(`abp run printed no "starting" line:\n${tail(client)}`);
  const trials = await readTrials(join(output, runId));
  const unresolved = trials.filter((trial) => trial.outcome !== 'resolved');
  if (trials.length !== TRIALS || unresolved.length > 0)
    throw new Error(
      `${label}: ${trials.length} trial records, ${unresolved.length} not resolved (${unresolved
        .slice(0, 3)
        .map((trial) => `${trial.trialId}: ${trial.outcome}`)
        .join(', ')}); the bench measures resolved waiting trials only`,
    );
  const measured: Measured = {
    label,
    workers,
    runId,
    wallMs: endedAt - starting.at,
    cpuBusySeconds: cpuAfter.busy - cpuBefore.busy,
    cpuShare: (cpuAfter.busy - cpuBefore.busy) / (cpuAfter.total - cpuBefore.total),
    ownCpuSeconds: sum(Object.values(ownAfter)) - sum(Object.values(ownBefore)),
    ownCpuShare: (sum(Object.values(ownAfter)) - sum(Object.values(ownBefore))) / (cpuAfter.total - cpuBefore.total),
    ownCpuByPart: Object.fromEntries(CPU_PARTS.map((part) => [part, ownAfter[part] - ownBefore[part]])) as Record<
      CpuPart,
      number
    >,
    lastTrialLineAt: Math.max(...client.lines.filter((line) => /^\[\d+\/\d+\]/.test(line.text)).map((line) => line.at)),
    lastLineAt: Math.max(...client.lines.map((line) => line.at)),
    startedAt: starting.at,
    endedAt,
    trials,
    ...(distributed ? { history: await readHistory(runId) } : {}),
  };
  console.log(`  ${describeRun(measured)}`);
  return measured;
}

// ---------------------------------------------------------------------------------------------------------------------
// What a run's timings say.

const perMinute = (trials: number, ms: number) => (trials * 60_000) / ms;
const trialSpanMs = (run: Measured) =>
  Math.max(...run.trials.map((trial) => trial.finishedAt)) - Math.min(...run.trials.map((trial) => trial.startedAt));
const recordMs = (trials: readonly TrialTiming[]) => trials.map((trial) => trial.finishedAt - trial.startedAt);

function describeRun(run: Measured): string {
  const where = run.workers === 0 ? 'local, --concurrency 1' : `${run.workers} trial worker(s)`;
  return `${run.label.padEnd(12)} ${where.padEnd(24)} ${seconds(run.wallMs).padStart(7)} starting→exit (${perMinute(TRIALS, run.wallMs).toFixed(1)}/min), ${seconds(trialSpanMs(run)).padStart(7)} first trial→last (${perMinute(TRIALS, trialSpanMs(run)).toFixed(1)}/min); machine CPU ${(run.cpuShare * 100).toFixed(0)} % of ${CORES} cores busy, this bench's ${(run.ownCpuShare * 100).toFixed(0)} % (${(run.ownCpuSeconds / TRIALS).toFixed(2)} CPU-s a trial)`;
}

/** Where a run's time went, in phases and per trial; every figure is in ms. */
interface Breakdown {
  /** Client "starting" line to the first trial's start (local: preflight and host preparation). */
  head: number;
  /** The last trial's end to the client's exit (seal, report). */
  tailMs: number;
  /** Each trial's own span (executeTrial: workspace, engine, verification). */
  recordMedian: number;
  recordMean: number;
  /** Medians of a trial's parts: the engine process, the harness's own work, and the rest (verification commands). */
  engineMedian: number;
  harnessMedian: number;
  testsMedian: number;
  /** Per trial, between one trial's end and the next trial's start on the same process. */
  gapMean: number;
  /**
   * Distributed: inside the activity but outside the trial record (open the run, the task's preparation on its first trial, store puts, RPC), for
   * each worker's first trial (which opens the run: unpacks its inputs, checks the fingerprint) and for the rest.
   */
  firstOutsideMean?: number;
  laterOutsideMean?: number;
  /** Distributed: the preflight activity's scheduled → started, and started → completed (it opens the run first). */
  preflightDispatch?: number;
  preflightRun?: number;
  /** Distributed: an activity's completion to the server's start of that worker's next activity. */
  dispatchMean?: number;
  /** Distributed: client "starting" to the workflow's start (inputs packed into the run store, connection, start). */
  toWorkflow?: number;
  /** Distributed: the workflow's start to the first trial activity's start (preflight activity, dispatch). */
  toFirstTrial?: number;
  /** Distributed: the last activity's completion to the workflow's completion, and that to the client's exit. */
  workflowTail?: number;
  clientTail?: number;
  /** Distributed: the workflow's completion to the client's last trial line. */
  toLastTrialLine?: number;
  /** The client's last trial line to its last line (the verdict sealed and printed), and that to its exit. */
  toLastLine: number;
  toExit: number;
  /** Distributed: trial activities per worker identity. */
  perWorker?: number[];
}

function breakdown(run: Measured): Breakdown {
  const trials = [...run.trials].sort((a, b) => a.startedAt - b.startedAt);
  const firstStart = trials[0]?.startedAt ?? NaN;
  const lastEnd = Math.max(...trials.map((trial) => trial.finishedAt));
  const base = {
    head: firstStart - run.startedAt,
    tailMs: run.endedAt - lastEnd,
    recordMedian: median(recordMs(trials)),
    recordMean: mean(recordMs(trials)),
    engineMedian: median(trials.map((trial) => trial.engineMs)),
    harnessMedian: median(trials.map((trial) => trial.harnessMs)),
    testsMedian: median(trials.map((trial) => trial.finishedAt - trial.startedAt - trial.engineMs - trial.harnessMs)),
    toLastLine: run.lastLineAt - run.lastTrialLineAt,
    toExit: run.endedAt - run.lastLineAt,
  };
  if (run.history === undefined) {
    const gaps = trials.slice(1).map((trial, index) => trial.startedAt - (trials[index]?.finishedAt ?? NaN));
    return { ...base, gapMean: mean(gaps) };
  }
  const recordOf = new Map(trials.map((trial) => [trial.trialId, trial]));
  const graded = run.history.activities.filter((activity) => activity.type === 'gradeTrial');
  const outsideOf = (activity: ActivityTiming) => {
    const record = activity.trialId === null ? undefined : recordOf.get(activity.trialId);
    return record === undefined
      ? NaN
      : activity.completedAt - activity.startedAt - (record.finishedAt - record.startedAt);
  };
  const byWorker = new Map<string, ActivityTiming[]>();
  for (const activity of graded)
    byWorker.set(activity.identity, [...(byWorker.get(activity.identity) ?? []), activity]);
  const dispatch: number[] = [];
  const gaps: number[] = [];
  const firstOutside: number[] = [];
  const laterOutside: number[] = [];
  for (const activities of byWorker.values()) {
    activities.sort((a, b) => a.startedAt - b.startedAt);
    activities.forEach((activity, index) => (index === 0 ? firstOutside : laterOutside).push(outsideOf(activity)));
    for (let index = 1; index < activities.length; index += 1) {
      const previous = activities[index - 1];
      const current = activities[index];
      if (previous === undefined || current === undefined) continue;
      dispatch.push(current.startedAt - previous.completedAt);
      const before = previous.trialId === null ? undefined : recordOf.get(previous.trialId);
      const after = current.trialId === null ? undefined : recordOf.get(current.trialId);
      if (before !== undefined && after !== undefined) gaps.push(after.startedAt - before.finishedAt);
    }
  }
  const preflight = run.history.activities.find((activity) => activity.type === 'preflightEngine');
  const firstTrialStart = Math.min(...graded.map((activity) => activity.startedAt));
  const lastCompleted = Math.max(...graded.map((activity) => activity.completedAt));
  return {
    ...base,
    gapMean: mean(gaps),
    firstOutsideMean: mean(firstOutside),
    laterOutsideMean: mean(laterOutside),
    preflightDispatch: (preflight?.startedAt ?? NaN) - (preflight?.scheduledAt ?? NaN),
    preflightRun: (preflight?.completedAt ?? NaN) - (preflight?.startedAt ?? NaN),
    dispatchMean: mean(dispatch),
    toWorkflow: run.history.workflowStartedAt - run.startedAt,
    toFirstTrial: firstTrialStart - run.history.workflowStartedAt,
    workflowTail: run.history.workflowCompletedAt - lastCompleted,
    clientTail: run.endedAt - run.history.workflowCompletedAt,
    toLastTrialLine: run.lastTrialLineAt - run.history.workflowCompletedAt,
    perWorker: [...byWorker.values()].map((activities) => activities.length).sort((a, b) => b - a),
  };
}

// ---------------------------------------------------------------------------------------------------------------------

function cleanUpNow(): void {
  for (const child of children) child.process.kill('SIGKILL');
  if (root) rmSync(root, { recursive: true, force: true });
  if (fixture) rmSync(fixture.dir, { recursive: true, force: true });
}
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    cleanUpNow();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  });

const runs: Measured[] = [];
try {
  root = await mkdtemp(join(tmpdir(), 'abp-bench-scale-out-'));
  mkdirSync(join(root, 'results'));
  [temporal, fixture] = await Promise.all([
    startDevServer(),
    buildRunFixture({
      adapters: [{ engine: 'waiter', script: 'slow', env: { set: { SLOW_MS: String(ENGINE_SLEEP_MS) } } }],
      tasks: [GREETING_TASK],
      trials: TRIALS,
    }),
  ]);
  console.log(
    `scale-out of abp run --on temporal: ${TRIALS} trials of ${GREETING_TASK} per run, an engine that sleeps ${seconds(ENGINE_SLEEP_MS)} then applies the golden fix; ${ROUNDS} rounds per configuration; Temporal dev server at ${temporal.address}`,
  );
  const main = await startWorker('home-main', 'main');
  for (const count of WORKER_COUNTS) {
    // Each worker a machine of its own: its own data directory; Temporal and the run store are shared.
    const workers = await Promise.all(
      Array.from({ length: count }, (_, index) => startWorker(`home-w${count}-${index}`, 'trials')),
    );
    await delay(POLL_GRACE_MS);
    console.log(`\n${count} trial worker(s) polling:`);
    for (let round = 0; round < ROUNDS; round += 1) {
      // With one worker the local run interleaves with the distributed one, the order alternating, so drift hits both.
      const distributed = () => measure(`w${count}-r${round + 1}`, count).then((run) => runs.push(run));
      const local = () => measure(`local-r${round + 1}`, 0).then((run) => runs.push(run));
      const order = count !== 1 ? [distributed] : round % 2 === 0 ? [local, distributed] : [distributed, local];
      for (const step of order) await step();
    }
    await Promise.all(workers.map(stop));
  }
  await stop(main);
} finally {
  await Promise.all([...children].map(stop));
  await temporal?.teardown();
  await fixture?.cleanup();
  if (root) rmSync(root, { recursive: true, force: true });
}

// ---------------------------------------------------------------------------------------------------------------------
// Report.

const of = (workers: number) => runs.filter((run) => run.workers === workers);
const wallThroughput = (workers: number) => of(workers).map((run) => perMinute(TRIALS, run.wallMs));
const spanThroughput = (workers: number) => of(workers).map((run) => perMinute(TRIALS, trialSpanMs(run)));
const one = median(wallThroughput(1));
const oneSpan = median(spanThroughput(1));
let failed = false;

console.log(`\n1. throughput, trials per minute (median of ${ROUNDS} runs; spread in brackets)`);
console.log('   workers  starting→exit              ratio  target  verdict   first trial→last end       ratio');
for (const count of WORKER_COUNTS) {
  const wall = wallThroughput(count);
  const span = spanThroughput(count);
  const ratio = median(wall) / one;
  const target = SCALING_TARGET * count;
  const pass = ratio >= target;
  if (!pass) failed = true;
  console.log(
    `   ${String(count).padStart(7)}  ${median(wall).toFixed(1).padStart(6)} [${spread(wall, 1)}]`.padEnd(37) +
      `  ${ratio.toFixed(2).padStart(5)}  ${target.toFixed(1).padStart(6)}  ${(pass ? 'PASS' : 'FAIL').padEnd(8)}` +
      `  ${median(span).toFixed(1).padStart(6)} [${spread(span, 1)}]`.padEnd(27) +
      `  ${(median(span) / oneSpan).toFixed(2).padStart(5)}`,
  );
}
console.log(
  `   (the target and verdict use starting→exit, the run as its user waits for it; the right-hand columns leave out`,
);
console.log(
  `   the run's start-up and seal; engine sleep alone would allow ${perMinute(1, ENGINE_SLEEP_MS).toFixed(1)}/min per worker)`,
);

const locals = of(0);
const singles = of(1);
const perTrialOverhead = locals.map((local, index) => ((singles[index]?.wallMs ?? NaN) - local.wallMs) / TRIALS);
console.log(
  `\n2. scheduling overhead per trial: one trial worker against a local run (--concurrency 1), ${ROUNDS} interleaved rounds`,
);
console.log(
  `   wall time, starting→exit: local ${seconds(median(locals.map((run) => run.wallMs)))} [${spread(
    locals.map((run) => run.wallMs / 1000),
    1,
  )} s], distributed ${seconds(median(singles.map((run) => run.wallMs)))} [${spread(
    singles.map((run) => run.wallMs / 1000),
    1,
  )} s]`,
);
console.log(
  `   overhead per trial = (distributed − local) / ${TRIALS}: median ${median(perTrialOverhead).toFixed(0)} ms [${spread(perTrialOverhead)} ms over the rounds, each round's pair]`,
);

const table = (label: string, pick: (b: Breakdown) => number | undefined, group: Measured[]) => {
  const values = group.map((run) => pick(breakdown(run)) ?? NaN);
  return `${median(values).toFixed(0).padStart(7)} [${spread(values)}]`.padEnd(22) + ` ${label}`;
};
/** This bench's CPU per trial, by process: where a distributed trial's extra CPU goes on a shared machine. */
const cpuLine = (group: Measured[]) =>
  `CPU-s a trial, by process (median): ${CPU_PARTS.map(
    (part) => `${part} ${median(group.map((run) => run.ownCpuByPart[part] / TRIALS)).toFixed(3)}`,
  ).join(', ')}; all ${median(group.map((run) => run.ownCpuSeconds / TRIALS)).toFixed(2)}`;
console.log('\n   where the time goes (ms; median [spread] over the rounds):');
console.log('   local (--concurrency 1):');
console.log(`     ${table('"starting" → first trial starts (preflight, repository cache)', (b) => b.head, locals)}`);
console.log(
  `     ${table("a trial's own span (trial record: startedAt → finishedAt), median", (b) => b.recordMedian, locals)}`,
);
console.log(`       ${table('  of which the engine process', (b) => b.engineMedian, locals)}`);
console.log(`       ${table('  of which the harness (record: harnessOverheadMs)', (b) => b.harnessMedian, locals)}`);
console.log(`       ${table('  of which the verification commands', (b) => b.testsMedian, locals)}`);
console.log(`     ${table("between one trial's end and the next one's start, mean", (b) => b.gapMean, locals)}`);
console.log(`     ${table('last trial ends → client exits, of which:', (b) => b.tailMs, locals)}`);
console.log(`       ${table('  last trial line → the verdict sealed and printed', (b) => b.toLastLine, locals)}`);
console.log(`       ${table('  → the process exits', (b) => b.toExit, locals)}`);
console.log(`     ${cpuLine(locals)}`);
for (const count of WORKER_COUNTS) {
  const group = of(count);
  console.log(`   distributed, ${count} trial worker(s):`);
  console.log(
    `     ${table('"starting" → workflow started (inputs packed into the run store, start)', (b) => b.toWorkflow, group)}`,
  );
  console.log(
    `     ${table('workflow started → first trial activity starts (preflight activity, its dispatch)', (b) => b.toFirstTrial, group)}`,
  );
  console.log(`     ${table("a trial's own span (trial record), median", (b) => b.recordMedian, group)}`);
  console.log(`       ${table('  of which the engine process', (b) => b.engineMedian, group)}`);
  console.log(`       ${table('  of which the harness (record: harnessOverheadMs)', (b) => b.harnessMedian, group)}`);
  console.log(`       ${table('  of which the verification commands', (b) => b.testsMedian, group)}`);
  console.log(`       ${table('  preflight activity: scheduled → started', (b) => b.preflightDispatch, group)}`);
  console.log(
    `       ${table('  preflight activity: started → completed (opens the run, then preflights)', (b) => b.preflightRun, group)}`,
  );
  console.log(
    `     ${table("in the activity but outside the trial record, each worker's first trial (opens the run), mean", (b) => b.firstOutsideMean, group)}`,
  );
  console.log(
    `     ${table('in the activity but outside the trial record, later trials, mean', (b) => b.laterOutsideMean, group)}`,
  );
  console.log(
    `     ${table("per trial: activity completed → that worker's next activity started, mean", (b) => b.dispatchMean, group)}`,
  );
  console.log(
    `     ${table("per trial: one trial's end → the next one's start on the same worker, mean", (b) => b.gapMean, group)}`,
  );
  console.log(`     ${table('last activity completed → workflow completed', (b) => b.workflowTail, group)}`);
  console.log(`     ${table('workflow completed → client exits, of which:', (b) => b.clientTail, group)}`);
  console.log(`       ${table('  → the client journals its last trial', (b) => b.toLastTrialLine, group)}`);
  console.log(`       ${table('  → the verdict sealed and printed', (b) => b.toLastLine, group)}`);
  console.log(`       ${table('  → the process exits', (b) => b.toExit, group)}`);
  console.log(`     trials per worker: ${group.map((run) => breakdown(run).perWorker?.join('/') ?? '?').join(', ')}`);
  console.log(`     ${cpuLine(group)}`);
}
// A trial's cycle on one process: its own span and the gap to the next one's start; what the cycles leave of the wall
// time is the run's start-up and seal.
const cycle = (run: Measured) => breakdown(run).recordMean + breakdown(run).gapMean;
const localCycle = median(locals.map(cycle));
const singleCycle = median(singles.map(cycle));
const fixed =
  median(singles.map((run) => run.wallMs - TRIALS * cycle(run))) -
  median(locals.map((run) => run.wallMs - TRIALS * cycle(run)));
console.log(
  `\n   per-trial cycle (mean trial span + mean gap to the next): local ${localCycle.toFixed(0)} ms, one worker ${singleCycle.toFixed(0)} ms: ${(singleCycle - localCycle).toFixed(0)} ms a trial from the records;` +
    ` the rest, ${(fixed / TRIALS).toFixed(0)} ms a trial (${seconds(fixed)} a run), is start-up and seal`,
);
// The gap leaves out the trial's own work (the same code either way, and what machine load stretches most).
const localGap = median(locals.map((run) => breakdown(run).gapMean));
const singleGap = median(singles.map((run) => breakdown(run).gapMean));
console.log(
  `   scheduling alone, the gap between trials: local ${localGap.toFixed(0)} ms, one worker ${singleGap.toFixed(0)} ms: ${(singleGap - localGap).toFixed(0)} ms a trial`,
);
if (failed) process.exitCode = 1;
