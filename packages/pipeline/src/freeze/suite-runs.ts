// Owns running the repository's suite for a freeze: fresh checkouts of the before and after trees
// (one per concurrent run, so runs never share build output), the recipe's install once per checkout,
// the test command repeated per state, each run bounded, pinned and offline (in bubblewrap where it
// works), its report read fresh into per-test statuses. Every run is recorded.

import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  reducedEnvironment,
  runBounded,
  sandboxStatus,
  type CommandResult,
  type SandboxSpec,
} from '@abp/grader/execution';
import {
  CHECKOUT,
  offlineVariables,
  pinnedVariables,
  WORK_FOLDERS as INSIDE,
  type EnvironmentRun,
  type EnvironmentStore,
} from '@abp/grader/environments';
import type { ParsedReport, TestStatus } from '@abp/grader/test-reports';
import { matchingReportFiles, parseCommandLine, PlannedReportError, readPlannedReport } from '@abp/grader/verification';
import { planRunner, type RunnerPlan } from '@abp/grader/verification';
import { installSteps, type RunnerRecipe } from '../registry/criteria/schema.js';
import type { RunResults } from './classify.js';
import { FreezeError } from './errors.js';
import { checkOutTree, type FixSource } from './fix-trees.js';

export type RunState = 'before' | 'after';

export interface RunRecord {
  state: RunState;
  /** 0-based, per state. */
  index: number;
  /** null when the process was killed or never started. */
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  counts: { total: number; pass: number; fail: number; error: number; skip: number };
  /** Why the run left no usable report; null when it did. */
  problem: string | null;
}

export interface SuiteRunsInput {
  source: FixSource;
  trees: Record<RunState, string>;
  recipe: RunnerRecipe;
  /** The freeze's own temporary folder: checkouts, homes and cargo targets go here. */
  root: string;
  /**
   * Go's build cache, kept between freezes: it is keyed by the content of every input and safe for
   * concurrent use, and test results are never cached (-count=1), so sharing it only saves the
   * half minute of compiling the standard library that each cold cache costs.
   */
  goCache: string;
  runs: number;
  concurrency: number;
  runTimeoutMs: number;
  /** true: bubblewrap required; false: none; undefined: bubblewrap where it works. Ignored with an environment. */
  sandbox: boolean | undefined;
  /** Run inside this environment (its install already done) instead of on the host's toolchains. */
  environment: { store: EnvironmentStore; digest: string } | null;
}

/**
 * Why the suites could not decide the sets: the recipe's install failed, a report could not be parsed, or a run left no
 * report or no test (it crashed, timed out, or ran nothing). A runner that leaves no report abp reads never gets here:
 * the input is refused first (unsupported-runner).
 */
export type SuiteFailure = 'install-failed' | 'report-unreadable' | 'suite-did-not-run';

interface Failure {
  reason: SuiteFailure;
  detail: string;
}

export type SuiteRuns =
  | { ran: true; results: Record<RunState, RunResults[]>; runs: RunRecord[] }
  | { ran: false; reason: SuiteFailure; detail: string; runs: RunRecord[] };

// go test -json and libtest print their reports on stdout; a large suite's must not be cut short.
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;
const TAIL_BYTES = 2000;

interface Lane {
  checkout: string;
  plan: RunnerPlan;
  env: Record<string, string>;
  sandbox: SandboxSpec | null;
  environment: EnvironmentRun | null;
  /** The command's working folder as the command sees it: the checkout's host path, or /work/repo in an environment. */
  cwd: string;
  /** A path the command names (its report file), as the host sees it. */
  hostPath(path: string): string;
}

interface Job {
  state: RunState;
  index: number;
}

/** One checkout's share of the runs: lane k of a state runs the indices i with i % lanesPerState === k, in order. */
interface LanePlan {
  state: RunState;
  indices: number[];
}

export async function runSuites(input: SuiteRunsInput): Promise<SuiteRuns> {
  const sandboxed = await useSandbox(input.sandbox, input.environment !== null);
  const { goCache } = input;
  await mkdir(goCache, { recursive: true });
  const installs = installSteps(input.recipe).map((line) => ({ line, ...parseCommandLine(line) }));
  const test = parseCommandLine(input.recipe.test);

  const image =
    input.environment === null
      ? null
      : {
          rootfs: await input.environment.store.rootfs(input.environment.digest),
          config: (await input.environment.store.readImage(input.environment.digest)).config,
        };
  const makeLane = async (plan: LanePlan, name: string): Promise<Lane | Failure> => {
    const dir = join(input.root, 'lanes', name);
    const checkout = join(dir, 'repo');
    const [home, tmp, reports, target] = ['home', 'tmp', 'reports', 'target'].map((folder) => join(dir, folder)) as [
      string,
      string,
      string,
      string,
    ];
    await Promise.all([checkout, home, tmp, reports, target].map((path) => mkdir(path, { recursive: true })));
    await checkOutTree(input.source, input.trees[plan.state], checkout);
    // The report folder as the runs see it: bound at INSIDE.reports in an environment. abp's helpers go there first.
    const runner = planRunner(test.argv, image === null ? reports : INSIDE.reports, test.env);
    for (const file of runner.files) await writeFile(join(reports, file.name), file.text);
    if (image !== null) {
      // The environment holds the install's output already; every run sees the same toolchain and dependencies.
      const environment: EnvironmentRun = {
        rootfs: image.rootfs,
        config: image.config,
        checkout,
        network: false,
        mounts: [
          { source: reports, target: INSIDE.reports, writable: true },
          { source: home, target: INSIDE.home, writable: true },
          { source: target, target: INSIDE.target, writable: true },
          { source: goCache, target: INSIDE.goCache, writable: true },
        ],
      };
      const env = offlineVariables(image.config, {
        home: INSIDE.home,
        goCache: INSIDE.goCache,
        cargoTarget: INSIDE.target,
      });
      const hostPath = (path: string): string =>
        path.startsWith(`${INSIDE.reports}/`) ? join(reports, path.slice(INSIDE.reports.length + 1)) : path;
      return {
        checkout,
        plan: runner,
        env,
        sandbox: null,
        environment,
        cwd: CHECKOUT,
        hostPath,
      };
    }
    const env = runEnvironment({ home, tmp, goCache, cargoTarget: target });
    const sandbox = sandboxed ? { writable: [dir, goCache], hidden: [], readOnly: input.source.objectDirs } : null;
    const lane: Lane = {
      checkout,
      plan: runner,
      env,
      sandbox,
      environment: null,
      cwd: checkout,
      hostPath: (path) => path,
    };
    for (const [index, install] of installs.entries()) {
      const installed = await run(lane, install.argv, install.env, input.runTimeoutMs);
      if (installed.exitCode !== 0) {
        const which = installs.length === 1 ? 'recipe.install' : `recipe.install[${index}]`;
        return {
          reason: 'install-failed',
          detail: `${which} ${JSON.stringify(install.line)} failed in the ${plan.state} checkout (${outcomeOf(installed)}): ${logOf(installed)}`,
        };
      }
    }
    return lane;
  };

  // Lanes are fixed up front, so which runs share a checkout (and what an earlier run left in it)
  // does not depend on which process happened to finish first. Each lane builds once and reuses
  // its build output (cargo's target folder) for its later runs.
  const lanesPerState = Math.min(input.runs, Math.max(1, Math.floor(input.concurrency / 2)));
  const plans: LanePlan[] = (['before', 'after'] as const).flatMap((state) =>
    Array.from({ length: lanesPerState }, (_, lane) => ({
      state,
      indices: Array.from({ length: input.runs }, (_, index) => index).filter(
        (index) => index % lanesPerState === lane,
      ),
    })),
  );
  const records: RunRecord[] = [];
  const results: Record<RunState, RunResults[]> = { before: [], after: [] };
  let failure: Failure | null = null;
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let at = next++; at < plans.length && failure === null; at = next++) {
      const plan = plans[at] as LanePlan;
      const lane = await makeLane(plan, `${plan.state}-${at}`);
      if ('reason' in lane) {
        failure ??= lane;
        return;
      }
      for (const index of plan.indices) {
        if (failure !== null) return;
        const { record, tests, reason } = await runOnce(
          lane,
          { state: plan.state, index },
          test.env,
          input.runTimeoutMs,
        );
        records.push(record);
        if (tests === null)
          failure ??= {
            reason,
            detail: `the ${plan.state} run ${index + 1} of ${JSON.stringify(input.recipe.test)}: ${record.problem ?? 'no report'}`,
          };
        else results[plan.state][index] = tests;
      }
    }
  };
  const settled = await Promise.allSettled(Array.from({ length: Math.min(input.concurrency, plans.length) }, worker));
  const crashed = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (crashed !== undefined) throw crashed.reason;
  records.sort((a, b) => (a.state === b.state ? a.index - b.index : a.state === 'before' ? -1 : 1));
  // Set by the workers: the compiler cannot see through their closures.
  const failed = failure as Failure | null;
  return failed === null
    ? { ran: true, results, runs: records }
    : { ran: false, reason: failed.reason, detail: failed.detail, runs: records };
}

async function useSandbox(requested: boolean | undefined, environment: boolean): Promise<boolean> {
  if (requested === false || environment) return false;
  const status = await sandboxStatus();
  if (status.available) return true;
  if (requested === true)
    throw new FreezeError(
      'sandbox-unavailable',
      `options.sandbox is true but ${status.reason}; or pass sandbox: false to run the suite unconfined`,
    );
  return false;
}

/**
 * On the host: the pinned variables, with HOME, TMPDIR and the build caches the freeze's own. Toolchains stay where the
 * host installed them (read-only under the sandbox).
 */
function runEnvironment(paths: {
  home: string;
  tmp: string;
  goCache: string;
  cargoTarget: string;
}): Record<string, string> {
  const host = process.env;
  const hostHome = host['HOME'] ?? '/root';
  return reducedEnvironment({
    hostEnv: host,
    allow: ['GOMODCACHE', 'GOROOT', 'PYENV_ROOT', 'VIRTUAL_ENV', 'JAVA_HOME', 'MAVEN_OPTS', 'RUSTUP_TOOLCHAIN'].filter(
      (name) => host[name] !== undefined,
    ),
    set: {
      ...pinnedVariables(paths),
      GOPATH: host['GOPATH'] ?? `${hostHome}/go`,
      CARGO_HOME: host['CARGO_HOME'] ?? `${hostHome}/.cargo`,
      RUSTUP_HOME: host['RUSTUP_HOME'] ?? `${hostHome}/.rustup`,
    },
    home: paths.home,
    tmp: paths.tmp,
  }).env;
}

function run(
  lane: Lane,
  argv: readonly string[],
  env: Record<string, string>,
  timeoutMs: number,
): Promise<CommandResult> {
  return runBounded({
    argv,
    cwd: lane.cwd,
    env: { ...lane.env, ...env },
    timeoutMs,
    maxOutputBytes: MAX_OUTPUT_BYTES,
    sandbox: lane.sandbox,
    environment: lane.environment,
  });
}

async function runOnce(
  lane: Lane,
  job: Job,
  env: Record<string, string>,
  timeoutMs: number,
): Promise<{ record: RunRecord; tests: RunResults | null; reason: SuiteFailure }> {
  await removeReports(lane);
  const result = await run(lane, lane.plan.argv, { ...env, ...lane.plan.env }, timeoutMs);
  const { report, problem, reason } = await readReport(lane, result);
  const counts = { total: 0, pass: 0, fail: 0, error: 0, skip: 0 };
  for (const test of report?.tests ?? []) {
    counts.total += 1;
    counts[test.status] += 1;
  }
  const record: RunRecord = {
    state: job.state,
    index: job.index,
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    durationMs: Math.round(result.durationMs),
    counts,
    problem,
  };
  const tests =
    report === null ? null : new Map<string, TestStatus>(report.tests.map((test) => [test.id, test.status]));
  return { record, tests, reason };
}

/** Reports left by an earlier run (or committed to the repository) must never stand in for this run's. */
async function removeReports(lane: Lane): Promise<void> {
  const source = lane.plan.report?.source;
  if (source?.kind === 'file') await rm(lane.hostPath(source.path), { force: true });
  if (source?.kind === 'files')
    await Promise.all(
      (await matchingReportFiles(lane.checkout, source.dir, source.pattern)).map((path) =>
        rm(join(lane.checkout, path), { force: true }),
      ),
    );
}

async function readReport(
  lane: Lane,
  result: CommandResult,
): Promise<{ report: ParsedReport | null; problem: string | null; reason: SuiteFailure }> {
  const fail = (problem: string, reason: SuiteFailure = 'suite-did-not-run') => ({ report: null, problem, reason });
  if (result.spawnError !== null) return fail(`could not start: ${result.spawnError.message}`);
  if (result.timedOut) return fail(`timed out (${outcomeOf(result)})`);
  const expected = lane.plan.report;
  if (expected === null) return fail('the runner leaves no machine-readable report');
  let report: ParsedReport;
  try {
    report = await readPlannedReport(
      expected,
      { stdout: result.stdout, stdoutTruncated: result.stdoutTruncated, stderr: result.stderr.toString('utf8') },
      { checkout: lane.checkout, rootDir: lane.cwd, hostPath: (path) => lane.hostPath(path) },
    );
  } catch (error) {
    if (!(error instanceof PlannedReportError)) throw error;
    return fail(
      `${error.message} (${outcomeOf(result)}): ${logOf(result)}`,
      error.code === 'no-report' ? 'suite-did-not-run' : 'report-unreadable',
    );
  }
  if (report.tests.length === 0) return fail(`its report lists no tests (${outcomeOf(result)}): ${logOf(result)}`);
  return { report, problem: null, reason: 'suite-did-not-run' };
}

function outcomeOf(result: CommandResult): string {
  if (result.spawnError !== null) return `not started: ${result.spawnError.code}`;
  return result.exitCode === null ? `killed by ${result.signal ?? 'a signal'}` : `exit ${result.exitCode}`;
}

// The lines that usually name why a tool failed, among retries, progress and warnings.
const ROOT_CAUSE =
  /\b(error|ERROR|Error|ERR!|FAILED|fatal|No matching distribution|not found|Could not|cannot|Cannot|unable to|Unable to)\b/;

/** The last line that names a failure, when one does, then the output's tail: the cause first, not the retries. */
function logOf(result: CommandResult): string {
  const output = result.stderr.length > 0 ? result.stderr : result.stdout;
  const lines = output.toString('utf8').split('\n');
  const cause = lines.findLast((line) => ROOT_CAUSE.test(line))?.trim();
  const rest = tail(output);
  return cause === undefined || cause === '' ? rest : `${cause.slice(0, 500)}\n${rest}`;
}

function tail(output: Buffer): string {
  const text =
    output.length > TAIL_BYTES
      ? `…${output.subarray(output.length - TAIL_BYTES).toString('utf8')}`
      : output.toString('utf8');
  return text.trim();
}
