// Held-out verification of one trial (spec §3.2): in a fresh checkout owned by the grader, base + the engine's non-test
// changes + the held-out files, run the task's failToPass and passToPass commands and its assertions. Results come from
// the runner's machine-readable report where it gives one, cross-checked with the exit code. The report directory lives
// outside the checkout, so nothing the engine planted can stand in for it.
import { randomBytes } from 'node:crypto';
import { appendFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AbpTrial } from '@abp/protocol/schemas/abp-trial';
import { runBounded, type SandboxSpec } from '../execution/index.js';
import {
  CHECKOUT,
  offlineVariables,
  WORK_FOLDERS,
  type EnvironmentRun,
  type ImageConfig,
} from '../environments/index.js';
import type { ParsedReport, TestResult } from '../test-reports/index.js';
import {
  matchingReportFiles,
  PlannedReportError,
  readPlannedReport,
  type ReportPlace,
} from '../verification/planned-report.js';
import { isCanary, planCanaries, readCanaries, type CanaryNames } from '../verification/canaries.js';
import { evaluateAssertion, type AssertionResult } from '../verification/assertions.js';
import type { ExpectedTests, TaskDirectory } from '../config/task-directory.js';
import { parseCommandLine } from '../verification/command-line.js';
import { planRunner, summarizeRun, type RunnerPlan } from '../verification/runner-recipes.js';

type Verification = NonNullable<AbpTrial['verification']>;
type CommandRecord = Verification['commands'][number];
type CanaryRecord = Verification['canaries'][number];
type JudgedSets = NonNullable<Verification['judged']>;

export interface VerificationEnvironment {
  env: Record<string, string>;
  sandbox: SandboxSpec | null;
  maxOutputBytes: number;
  /**
   * The task's environment: every command runs inside it, offline, with the checkout at /work/repo, `home` at
   * /work/home and the reports under /work/reports; `env` and `sandbox` are then not used.
   */
  image?: { rootfs: string; config: ImageConfig; home: string } | null;
}

/** How one verification command is run: where, with what, and where its reports land on each side of the sandbox. */
interface Placement {
  cwd: string;
  env: Record<string, string>;
  environment: EnvironmentRun | null;
  /** The report folder of command `index`, as the command names it and as the grader reads it. */
  reportDir(index: number): { inside: string; host: string };
  rootDir: string;
}

function placementOf(environment: VerificationEnvironment, checkoutDir: string, reportRoot: string): Placement {
  const image = environment.image;
  if (image === undefined || image === null)
    return {
      cwd: checkoutDir,
      env: environment.env,
      environment: null,
      reportDir: (index) => ({ inside: join(reportRoot, String(index)), host: join(reportRoot, String(index)) }),
      rootDir: checkoutDir,
    };
  return {
    cwd: CHECKOUT,
    env: offlineVariables(image.config, {
      home: WORK_FOLDERS.home,
      goCache: `${WORK_FOLDERS.home}/.cache/go-build`,
      cargoTarget: `${WORK_FOLDERS.home}/target`,
    }),
    environment: {
      rootfs: image.rootfs,
      config: image.config,
      checkout: checkoutDir,
      mounts: [
        { source: reportRoot, target: WORK_FOLDERS.reports, writable: true },
        { source: image.home, target: WORK_FOLDERS.home, writable: true },
      ],
      network: false,
    },
    reportDir: (index) => ({ inside: `${WORK_FOLDERS.reports}/${index}`, host: join(reportRoot, String(index)) }),
    rootDir: CHECKOUT,
  };
}

export interface VerificationOutcome {
  passed: boolean;
  commands: CommandRecord[];
  assertions: AssertionResult[];
  /** The frozen sets as every report showed them; null for a task without expected results. */
  judged: JudgedSets | null;
  canaries: CanaryRecord[];
  canariesUnavailable: string[];
  /** A sentinel was missing or had the wrong outcome in a report that exists: the run was tampered with. */
  tampered: boolean;
  /** Time spent in the task's own commands: not harness overhead. */
  commandMs: number;
  /** A readable log of every command with the tail of its output, for transcripts/. */
  log: string;
}

async function readReport(
  plan: RunnerPlan,
  run: { stdout: Buffer; stdoutTruncated: boolean; stderr: Buffer },
  place: ReportPlace,
): Promise<{ report: ParsedReport | null; error: string | null }> {
  if (!plan.report) return { report: null, error: null };
  try {
    const output = { stdout: run.stdout, stdoutTruncated: run.stdoutTruncated, stderr: run.stderr.toString('utf8') };
    return { report: await readPlannedReport(plan.report, output, place), error: null };
  } catch (error) {
    if (!(error instanceof PlannedReportError)) throw error;
    return { report: null, error: error.message };
  }
}

const tail = (data: Buffer, bytes = 4000) =>
  data.length > bytes ? `…${data.subarray(data.length - bytes).toString('utf8')}` : data.toString('utf8');

/** Runs the task's environment.setup commands in `dir`; stops at the first that fails. */
export async function runSetup(input: {
  task: TaskDirectory;
  dir: string;
  environment: VerificationEnvironment;
  redact(text: string): string;
}): Promise<{ ok: boolean; failed: string | null; commandMs: number; log: string }> {
  const lines: string[] = [];
  let commandMs = 0;
  // Setup writes no report; the placement only decides where it runs.
  const placement = placementOf(input.environment, input.dir, input.dir);
  for (const line of input.task.manifest.environment.setup) {
    const parsed = parseCommandLine(line);
    const result = await runBounded({
      argv: parsed.argv,
      cwd: placement.cwd,
      env: { ...placement.env, ...parsed.env },
      timeoutMs: input.task.manifest.verification.timeoutSeconds * 1000,
      maxOutputBytes: input.environment.maxOutputBytes,
      sandbox: input.environment.sandbox,
      environment: placement.environment,
    });
    commandMs += result.durationMs;
    lines.push(
      `$ ${line}  (setup, exit ${String(result.exitCode)}${result.timedOut ? ', timed out' : ''})`,
      input.redact(tail(result.stdout)),
      input.redact(tail(result.stderr)),
    );
    if (result.exitCode !== 0)
      return {
        ok: false,
        failed: `${line} exited ${String(result.exitCode ?? result.signal)}${result.spawnError ? ` (${result.spawnError.code})` : ''}`,
        commandMs,
        log: lines.join('\n'),
      };
  }
  return { ok: true, failed: null, commandMs, log: lines.join('\n') };
}

export async function runVerification(input: {
  task: TaskDirectory;
  checkoutDir: string;
  reportRoot: string;
  engineStdout: Buffer;
  environment: VerificationEnvironment;
  redact(text: string): string;
  /** Stop at the first command that did not pass: the trial is unresolved whatever the rest would show. */
  decisive?: boolean;
}): Promise<VerificationOutcome> {
  const { task, checkoutDir, environment } = input;
  const { verification } = task.manifest;
  const timeoutMs = verification.timeoutSeconds * 1000;
  const commands: CommandRecord[] = [];
  const logLines: string[] = [];
  let commandMs = 0;
  const placement = placementOf(environment, checkoutDir, input.reportRoot);
  const run = async (argv: readonly string[], env: Record<string, string>) => {
    const result = await runBounded({
      argv,
      cwd: placement.cwd,
      env: { ...placement.env, ...env },
      timeoutMs,
      maxOutputBytes: environment.maxOutputBytes,
      sandbox: environment.sandbox,
      environment: placement.environment,
    });
    commandMs += result.durationMs;
    return result;
  };

  const roles = [
    ...verification.failToPass.map((line) => ['failToPass', line] as const),
    ...verification.passToPass.map((line) => ['passToPass', line] as const),
  ];
  const planned = roles.map(([role, line], index) => {
    const parsed = parseCommandLine(line);
    return { role, line, parsed, plan: planRunner(parsed.argv, placement.reportDir(index).inside, parsed.env) };
  });
  const canaries = planCanaries({
    commands: planned.map(({ plan }, index) => ({ index, plan })),
    heldOut: await heldOutTexts(task),
    failToPass: task.expected?.failToPass ?? [],
    passToPass: task.expected?.passToPass ?? [],
    token: () => randomBytes(6).toString('hex'),
  });
  // Into the checkout only, after the held-out files were copied over it: the task folder never holds them.
  for (const write of canaries.writes) {
    if (write.append) await appendFile(join(checkoutDir, write.path), write.text);
    else await writeFile(join(checkoutDir, write.path), write.text, { flag: 'wx' });
  }
  const graded =
    task.expected === null ? undefined : new Set([...task.expected.failToPass, ...task.expected.passToPass]);
  const reports: Array<readonly TestResult[]> = [];
  const canaryRecords: CanaryRecord[] = [];
  for (const [index, { role, line, parsed, plan }] of planned.entries()) {
    const reportDir = placement.reportDir(index);
    await mkdir(reportDir.host, { recursive: true });
    for (const file of plan.files) await writeFile(join(reportDir.host, file.name), file.text, { flag: 'wx' });
    const sentinels: CanaryNames | undefined = canaries.commands.get(index)?.names;
    const argv = canaries.commands.get(index)?.argv ?? plan.argv;
    const reportFile = (path: string): string =>
      path.startsWith(`${reportDir.inside}/`) ? join(reportDir.host, path.slice(reportDir.inside.length + 1)) : path;
    // Reports written inside the checkout could have come with the engine's diff: only this run's own may be read.
    if (plan.report?.source.kind === 'files') {
      const { dir, pattern } = plan.report.source;
      for (const path of await matchingReportFiles(checkoutDir, dir, pattern))
        await rm(join(checkoutDir, path), { force: true });
    }
    const result = await run(argv, { ...parsed.env, ...plan.env });
    const { report, error } = result.spawnError
      ? { report: null, error: result.spawnError.message }
      : await readReport(plan, result, { checkout: checkoutDir, rootDir: placement.rootDir, hostPath: reportFile });
    if (report !== null) reports.push(report.tests);
    // Read only from a run that ended by itself: a timeout cuts a report short and proves nothing either way.
    if (sentinels !== undefined && report !== null && !result.timedOut && result.exitCode !== null)
      for (const canary of readCanaries(report.tests, sentinels)) canaryRecords.push({ command: index, ...canary });
    const verdict = summarizeRun({
      plan,
      role,
      exitCode: result.exitCode,
      report,
      ...(error === null ? {} : { reportError: error }),
      ...(graded === undefined ? {} : { graded }),
      ...(sentinels === undefined ? {} : { ignore: (id: string) => isCanary(id, sentinels) }),
    });
    const reasons = [...verdict.reasons];
    if (result.timedOut) reasons.unshift(`timed out after ${verification.timeoutSeconds} s`);
    if (result.spawnError) reasons.unshift(`could not start: ${result.spawnError.message}`);
    commands.push({
      role,
      command: line,
      runner: plan.runner,
      passed: verdict.passed && !result.timedOut,
      evidence: verdict.evidence,
      tests: verdict.tests,
      exitCode: result.exitCode,
      timedOut: result.timedOut,
      durationMs: Math.round(result.durationMs),
      reasons,
    });
    logLines.push(
      `$ ${line}  (${role}, runner ${plan.runner}, exit ${String(result.exitCode)}, ${verdict.passed ? 'passed' : 'failed'}: ${reasons.join('; ') || 'ok'})`,
      input.redact(tail(result.stdout)),
      input.redact(tail(result.stderr)),
    );
    const left = planned.length - index - 1;
    if (input.decisive === true && commands.at(-1)?.passed === false && left > 0) {
      logLines.push(`stopped: the trial cannot resolve; ${left} later command${left === 1 ? '' : 's'} not run`);
      break;
    }
  }
  const judged = task.expected === null ? null : judgeSets(task.expected, reports);
  const tampered = canaryRecords.some((canary) => !canary.intact);
  if (judged !== null)
    logLines.push(
      `frozen sets: failToPass ${judged.failToPass.passed}/${judged.failToPass.expected} passed, passToPass ${judged.passToPass.passed}/${judged.passToPass.expected} passed`,
    );
  for (const canary of canaryRecords)
    logLines.push(
      `sentinel (${canary.role}) in command ${canary.command}: ${canary.status}${canary.intact ? '' : ', TAMPERED'}`,
    );

  const assertions: AssertionResult[] = [];
  for (const check of task.assertions) {
    assertions.push(
      await evaluateAssertion(check, {
        engineStdout: input.engineStdout,
        checkoutDir,
        runCommand: async (argv, limitMs) => {
          const result = await runBounded({
            argv,
            cwd: placement.cwd,
            env: placement.env,
            timeoutMs: limitMs,
            maxOutputBytes: environment.maxOutputBytes,
            sandbox: environment.sandbox,
            environment: placement.environment,
          });
          commandMs += result.durationMs;
          return { exitCode: result.exitCode, stdout: result.stdout };
        },
      }),
    );
  }
  for (const check of assertions)
    logLines.push(`assertion ${check.kind}: ${check.passed ? 'passed' : 'failed'} (${input.redact(check.detail)})`);
  const setsPassed =
    judged === null ||
    (judged.failToPass.passed === judged.failToPass.expected &&
      judged.passToPass.passed === judged.passToPass.expected);
  const passed =
    !tampered && setsPassed && commands.every((command) => command.passed) && assertions.every((check) => check.passed);
  return {
    passed,
    commands,
    assertions,
    judged,
    canaries: canaryRecords,
    canariesUnavailable: [...canaries.unavailable].map(([index, why]) => `command ${index}: ${why}`),
    tampered,
    commandMs,
    log: logLines.join('\n'),
  };
}

const MAX_PROBLEMS = 100;

/**
 * Each frozen id as every report showed it: passed only when it appears and every appearance passed. An id may appear
 * twice (the narrowed FAIL_TO_PASS run and the full suite); one failing appearance fails it.
 */
export function judgeSets(expected: ExpectedTests, reports: ReadonlyArray<readonly TestResult[]>): JudgedSets {
  const seen = new Map<string, TestResult['status'][]>();
  for (const tests of reports)
    for (const test of tests) {
      const statuses = seen.get(test.id);
      if (statuses === undefined) seen.set(test.id, [test.status]);
      else statuses.push(test.status);
    }
  const judge = (ids: readonly string[]) => {
    const problems: Array<{ id: string; status: 'fail' | 'error' | 'skip' | 'missing' }> = [];
    let passed = 0;
    for (const id of ids) {
      const statuses = seen.get(id) ?? [];
      const worst = (['fail', 'error', 'skip'] as const).find((status) => statuses.includes(status));
      if (statuses.length > 0 && worst === undefined) passed += 1;
      else if (problems.length < MAX_PROBLEMS) problems.push({ id, status: worst ?? 'missing' });
    }
    return { expected: ids.length, passed, problems };
  };
  return { failToPass: judge(expected.failToPass), passToPass: judge(expected.passToPass) };
}

/** The held-out files' text, for the sentinels to join the one holding the FAIL_TO_PASS tests. */
async function heldOutTexts(task: TaskDirectory): Promise<Array<{ path: string; text: string }>> {
  const dir = task.heldOutFilesDir;
  if (dir === null) return [];
  const sources = /\.(py|[cm]?[jt]sx?|go|rs)$/;
  return Promise.all(
    task.heldOutPaths
      .filter((path) => sources.test(path))
      .map(async (path) => ({ path, text: await readFile(join(dir, path), 'utf8') })),
  );
}
