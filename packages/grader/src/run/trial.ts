// One trial, start to receipt: a fresh scrubbed workspace, the adapter as a bounded command, the diff taken by the grader,
// the trace checked, test changes classified, held-out verification in a fresh checkout, and an abp-trial/v1 record whose
// outcome follows spec §3.4: engine and harness errors are excluded, never counted as losses.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Adapter, ExecutionPolicy } from '@abp/protocol/schemas/abp-adapters';
import type { AbpRun } from '@abp/protocol/schemas/abp-run';
import type { AbpTrial } from '@abp/protocol/schemas/abp-trial';
import { parsePatch } from '../diff/patch.js';
import { splitPatch } from '../diff/split.js';
import { normalizedDiffSize } from '../diff/normalized-size.js';
import { findTestWeakening } from '../diff/weakening.js';
import { expandPlaceholders } from '../execution/placeholders.js';
import { runBounded, type CommandResult } from '../execution/index.js';
import { reducedEnvironment } from '../execution/environment.js';
import { WORK_FOLDERS } from '../environments/index.js';
import { placeEngine, type EngineImage } from './engine-placement.js';
import { openEngineEgress } from './engine-egress.js';
import { checkBudget, computeCostUsd, type BudgetCheck, type PriceTable } from '../prices/index.js';
import { createRedactor, type Redactor } from '../redaction/index.js';
import { loadTaskDirectory, type TaskDirectory } from '../config/task-directory.js';
import { readTrialTrace, serializeTrace, type TraceSummary } from '../traces/index.js';
import {
  applyForVerification,
  cacheDigest,
  captureDiff,
  checkOutForVerification,
  createTrialWorkspace,
  readBlobAtBase,
  readCapturedBlob,
  snapshotWorkspace,
  WorkspaceError,
  type TaskRepo,
  type VerificationCheckout,
} from '../workspace/index.js';
import { TRIAL_SCHEMA_ID } from '@abp/protocol/schemas/abp-trial';
import { removeTree, writeFileAtomic } from './files.js';
import type { ScheduledTrial } from './schedule.js';
import { runSetup, runVerification, type VerificationEnvironment } from './verify.js';
import { machineryRule } from '../verification/machinery.js';

export interface PreflightResult {
  passed: boolean;
  detail: string;
}

export type TaskEnvironment = EngineImage;

export interface TrialContext {
  run: AbpRun & { id: string };
  runDir: string;
  workRoot: string;
  policy: ExecutionPolicy;
  adapterOf: ReadonlyMap<string, Adapter>;
  tasks: ReadonlyMap<string, TaskDirectory>;
  repos: ReadonlyMap<string, TaskRepo>;
  /** Each repository cache's digest as the run checked it (cacheDigest); taken only where engines lack namespaces. */
  cacheDigests: ReadonlyMap<string, string>;
  /** Each task's environment (its root file system, verified), or null for a task graded on the host's toolchains. */
  environments: ReadonlyMap<string, TaskEnvironment | null>;
  preflight: ReadonlyMap<string, PreflightResult>;
  prices: PriceTable;
  hostEnv: Readonly<Record<string, string | undefined>>;
  /** The folder of the adapters file: what {repo} expands to. */
  adaptersDir: string;
  /**
   * Folders no engine may see: task folders (held-out material), the results, the data directory and environment store,
   * the repository cache and the other trials' folders.
   */
  hiddenPaths: readonly string[];
  /** Whether bubblewrap works here: every engine and verification then runs in namespaces of its own. */
  namespaces: boolean;
  runUnsupported: boolean;
  keepWorkspaces: boolean;
  /** Verification stops at the first failed command (RunOptions.decisive). */
  decisive: boolean;
  now(): Date;
}

const elapsed = (since: bigint) => Number((process.hrtime.bigint() - since) / 1_000_000n);

/** What the adapter's environment exposes: allow-listed values are treated as secrets everywhere a receipt is written. */
function adapterSecrets(adapter: Adapter, hostEnv: TrialContext['hostEnv']): string[] {
  return adapter.env.allow
    .map((name) => hostEnv[name])
    .filter((value): value is string => value !== undefined && value.length >= 6);
}

export function redactorFor(adapter: Adapter, context: Pick<TrialContext, 'hostEnv'>, workspace: string): Redactor {
  // The grader's whole environment, not only what the engine was given: an engine that reads a value it should not
  // have (another process's environ, a file the operator left) still cannot publish it. The list's rule picks the
  // variables with secret-looking names; the engine's own visible and set values come last, so their names label them.
  const visible = Object.fromEntries(adapter.env.allow.map((name) => [name, context.hostEnv[name]]));
  return createRedactor({
    env: { ...context.hostEnv, ...visible, ...adapter.env.set },
    workspace,
    secrets: adapterSecrets(adapter, context.hostEnv),
  });
}

/** The environment verification commands run in: no adapter credentials, pinned time zone and hash seed, host toolchains. */
export function verificationEnvironment(
  hostEnv: TrialContext['hostEnv'],
  home: string,
  tmp: string,
  sandboxed = false,
): Record<string, string> {
  const hostHome = hostEnv.HOME ?? '/root';
  // Under the sandbox the host is read-only: Go's build cache must live in the writable home.
  const goCache = sandboxed ? `${home}/.cache/go-build` : (hostEnv.GOCACHE ?? `${hostHome}/.cache/go-build`);
  const { env } = reducedEnvironment({
    hostEnv,
    allow: ['GOPATH', 'GOCACHE', 'GOMODCACHE', 'GOFLAGS', 'GOTOOLCHAIN', 'JAVA_HOME', 'MAVEN_OPTS'],
    set: {
      PYTHONHASHSEED: '0',
      PYTHONDONTWRITEBYTECODE: '1',
      CI: 'true',
      // Toolchains installed under the host user's home stay reachable though HOME is a fresh folder.
      CARGO_HOME: hostEnv.CARGO_HOME ?? `${hostHome}/.cargo`,
      RUSTUP_HOME: hostEnv.RUSTUP_HOME ?? `${hostHome}/.rustup`,
      GOCACHE: goCache,
      GOPATH: hostEnv.GOPATH ?? `${hostHome}/go`,
      GOFLAGS: hostEnv.GOFLAGS ?? '-mod=mod',
    },
    home,
    tmp,
  });
  return env;
}

function base(
  scheduled: ScheduledTrial,
  task: TaskDirectory,
): Omit<AbpTrial, 'outcome' | 'reason' | 'detail' | 'timing'> {
  return {
    schema: TRIAL_SCHEMA_ID,
    trialId: scheduled.trialId,
    task: scheduled.task,
    taskDigest: task.digest,
    engine: scheduled.engine,
    trial: scheduled.trial,
    order: scheduled.order,
    engineProcess: null,
    diff: null,
    verification: null,
    metrics: { diffBytesNormalized: null, tokensTotal: null, wallClockMs: null, computedUsd: null },
    trace: null,
    receipts: { stdout: null, stderr: null, diff: null, trace: null, verificationLog: null },
  };
}

function traceRecord(summary: TraceSummary, unpricedModels: string[]): NonNullable<AbpTrial['trace']> {
  const { input, output, cacheRead, cacheWrite } = summary.tokens;
  const tokens = { input, output, cacheRead, cacheWrite };
  return {
    source: summary.source.kind === 'sidecar' ? `sidecar:${summary.source.translator}` : summary.source.kind,
    flags: [...summary.flags],
    problems: summary.problemCount,
    modelCalls: summary.modelCalls,
    tokens,
    perModel: summary.perModel,
    perSubagent: summary.perSubagent,
    unpricedModels,
  };
}

export async function executeTrial(context: TrialContext, scheduled: ScheduledTrial): Promise<AbpTrial> {
  const startedAt = context.now();
  const clock = process.hrtime.bigint();
  const task = context.tasks.get(scheduled.task);
  const adapter = context.adapterOf.get(scheduled.engine);
  if (!task || !adapter) throw new Error(`trial ${scheduled.trialId} names an unknown task or engine`);
  const record = base(scheduled, task);
  // A run may let an engine use another model (then matchedModels is false); its input and its trace say which.
  const engineModel = context.run.engines.find((entry) => entry.name === scheduled.engine)?.model ?? context.run.model;
  let excludedMs = 0; // engine and task-command time: what harness overhead leaves out
  const finish = (
    outcome: AbpTrial['outcome'],
    reason: string | null,
    detail: string | null,
    extra: Partial<AbpTrial> = {},
  ): AbpTrial => ({
    ...record,
    ...extra,
    outcome,
    reason,
    detail,
    timing: {
      startedAt: startedAt.toISOString(),
      finishedAt: context.now().toISOString(),
      harnessOverheadMs: Math.max(0, Math.round(elapsed(clock) - excludedMs)),
    },
  });

  const missing = (task.manifest.requires ?? []).filter((capability) => !adapter.capabilities.includes(capability));
  if (missing.length > 0 && !context.runUnsupported)
    return finish(
      'unsupported',
      'missing-capability',
      `the task needs ${missing.join(', ')}, which ${scheduled.engine} does not declare`,
    );
  const preflight = context.preflight.get(scheduled.engine);
  if (!preflight?.passed)
    return finish('engine-error', 'failed-preflight', preflight?.detail ?? 'preflight did not run');

  const repo = context.repos.get(scheduled.task);
  if (!repo) throw new Error(`task ${scheduled.task} has no prepared repository`);
  const trialRoot = join(context.workRoot, scheduled.trialId);
  const receipt = (folder: string, name: string) => `${folder}/${name}`;
  let pendingCheckout: Promise<VerificationCheckout> | null = null;
  let closeEgress: (() => Promise<unknown>) | undefined;
  try {
    await removeTree(trialRoot);
    await mkdir(trialRoot, { recursive: true });
    const taskEnvironment = context.environments.get(scheduled.task) ?? null;
    // Inside an environment the engine's git finds the base's objects where they are bound, not at their host path.
    const workspace = await createTrialWorkspace(
      repo,
      trialRoot,
      taskEnvironment === null ? {} : { agentObjects: `${WORK_FOLDERS.baseGit}/objects` },
    );
    const folders = {
      workspace: workspace.workspace,
      state: join(trialRoot, 'state'),
      tmp: join(trialRoot, 'tmp'),
      out: join(trialRoot, 'out'),
    };
    await Promise.all([mkdir(folders.state), mkdir(folders.tmp), mkdir(folders.out)]);
    const egress = await openEngineEgress({ adapter, policy: context.policy, hostEnv: context.hostEnv });
    closeEgress = egress === null ? undefined : () => egress.close();
    const placement = placeEngine({
      adapter,
      adaptersDir: context.adaptersDir,
      policy: context.policy,
      namespaces: context.namespaces,
      hostEnv: context.hostEnv,
      folders,
      gitDir: repo.gitDir,
      hiddenPaths: [...context.hiddenPaths, join(trialRoot, '.grader')],
      image: taskEnvironment,
      egress: egress?.socket ?? null,
    });
    const { seen } = placement;
    const promptFile = join(folders.state, 'prompt.md');
    const inputFile = join(folders.state, 'input.json');
    const traceFile = join(folders.out, 'trace.abp-trace.jsonl');
    const inside = {
      promptFile: `${seen.state}/prompt.md`,
      inputFile: `${seen.state}/input.json`,
      traceFile: `${seen.out}/trace.abp-trace.jsonl`,
    };
    const { prompt } = task.manifest;
    await writeFile(promptFile, prompt);
    await writeFile(
      inputFile,
      `${JSON.stringify({ schema: 'abp-agent-input/v1', task: task.manifest.id, trialId: scheduled.trialId, prompt, model: engineModel, budgetUsd: context.run.budgetUsd, timeoutSeconds: adapter.timeoutSeconds ?? context.run.timeoutSeconds, workspace: seen.workspace, state: seen.state, traceFile: inside.traceFile, promptFile: inside.promptFile }, null, 2)}\n`,
    );
    const redactor = redactorFor(adapter, context, workspace.workspace);

    // Setup runs before the engine and is not its work: the diff is taken against the workspace as setup left it.
    let startingPoint = repo.baseCommit;
    if (task.manifest.environment.setup.length > 0) {
      const setup = await runSetup({
        task,
        dir: workspace.workspace,
        environment: {
          env: verificationEnvironment(context.hostEnv, folders.state, folders.tmp, placement.sandbox !== null),
          // The engine's way out is the engine's: the task's own setup runs with no network, as verification does.
          sandbox: placement.sandbox === null ? null : { ...placement.sandbox, egress: null },
          maxOutputBytes: 1 << 20,
          image: taskEnvironment === null ? null : { ...taskEnvironment, home: folders.state },
        },
        redact: (text) => redactor.redactText(text),
      });
      excludedMs += setup.commandMs;
      if (!setup.ok)
        return finish('harness-error', 'setup-failed', `environment.setup in the workspace: ${setup.failed ?? ''}`);
      startingPoint = await snapshotWorkspace(workspace);
    }

    const argv = expandPlaceholders(adapter.command, {
      repo: context.adaptersDir,
      workspace: seen.workspace,
      state: seen.state,
      promptFile: inside.promptFile,
      inputFile: inside.inputFile,
      prompt,
      trialId: scheduled.trialId,
      traceFile: inside.traceFile,
    }).map(placement.translate);
    const engine: CommandResult = await runBounded({
      argv,
      cwd: placement.cwd,
      env: placement.env,
      timeoutMs: (adapter.timeoutSeconds ?? context.run.timeoutSeconds) * 1000,
      maxOutputBytes: adapter.maxOutputBytes,
      sandbox: placement.sandbox,
      environment: placement.environment,
    });
    excludedMs += engine.durationMs;
    // Closed as soon as the engine is gone: nothing it started can use the way out during verification.
    const egressSeen = (await egress?.close()) ?? null;
    record.engineProcess = {
      exitCode: engine.exitCode,
      signal: engine.signal,
      timedOut: engine.timedOut,
      durationMs: Math.round(engine.durationMs),
      stdoutBytes: engine.stdoutBytes,
      stderrBytes: engine.stderrBytes,
      truncated: engine.stdoutTruncated || engine.stderrTruncated,
      sandboxed: context.policy === 'sandboxed',
      isolated: placement.sandbox !== null || placement.environment !== null,
      environment: taskEnvironment?.digest ?? null,
      egress: egressSeen,
    };
    record.metrics.wallClockMs = Math.round(engine.durationMs);
    const stdoutReceipt = receipt('transcripts', `${scheduled.trialId}.stdout.txt`);
    const stderrReceipt = receipt('transcripts', `${scheduled.trialId}.stderr.txt`);
    await writeFileAtomic(join(context.runDir, stdoutReceipt), redactor.redactBytes(engine.stdout));
    await writeFileAtomic(join(context.runDir, stderrReceipt), redactor.redactBytes(engine.stderr));
    record.receipts.stdout = stdoutReceipt;
    record.receipts.stderr = stderrReceipt;
    if (engine.spawnError)
      return finish(
        'engine-error',
        'could-not-invoke',
        `${adapter.command[0] ?? ''}: ${engine.spawnError.code} (${redactor.redactText(engine.spawnError.message)})`,
      );

    // The fresh verification checkout of base is written while the engine's diff is taken and analysed.
    const checkoutDir = join(trialRoot, '.grader', 'verify');
    pendingCheckout = checkOutForVerification(repo, checkoutDir);
    // Handled here so an early return cannot leave a rejection unobserved; awaiting it below still throws.
    pendingCheckout.catch(() => undefined);
    // Whatever the engine left in its workspace is data: past the capture limits its changes cannot be graded, and that
    // is the engine's result (scored unresolved), never a harness failure that would exclude the trial.
    const captured = await captureDiff(repo, workspace, startingPoint).catch((error: unknown) => {
      if (error instanceof WorkspaceError && error.code === 'workspace-too-large') return error;
      throw error;
    });
    if (captured instanceof WorkspaceError) return finish('unresolved', 'workspace-too-large', captured.message);
    const engineDiff = captured;
    const diffReceipt = receipt('diffs', `${scheduled.trialId}.patch`);
    await writeFileAtomic(join(context.runDir, diffReceipt), redactor.redactText(engineDiff));
    record.receipts.diff = diffReceipt;

    const traceContext = {
      task: task.manifest.id,
      engine: scheduled.engine,
      model: engineModel,
      startedAt: startedAt.toISOString(),
    };
    // Read within bounds: the engine chose what lies at {traceFile} and what it says (traces/trace-limits.ts).
    const trace = await readTrialTrace({
      trace: adapter.trace,
      traceFile,
      stdout: engine.stdout,
      stdoutTruncated: engine.stdoutTruncated,
      context: traceContext,
      redactor,
    });
    // No trace means no measured cost: the budget cannot be checked, and there is no trace block to flag it in.
    let budget: BudgetCheck = checkBudget({
      cost: null,
      tokensKnown: false,
      modelCalls: 0,
      budgetUsd: context.run.budgetUsd,
    });
    if (trace) {
      const cost = computeCostUsd(trace.perModel, context.prices);
      record.trace = traceRecord(trace, cost.unpricedModels);
      // Only a trace read whole, with plausible counts and at least one call, measures tokens and cost; anything else
      // is unknown (null), never a partial sum or a $0 that would win a ranking.
      const measured = trace.tokensKnown && trace.modelCalls > 0;
      record.metrics.tokensTotal = measured ? trace.tokens.total : null;
      record.metrics.computedUsd = measured ? cost.usd : null;
      if (trace.modelCalls === 0 && trace.tokensKnown) record.trace.flags.push('zero-model-calls');
      if (cost.unpricedModels.length > 0) record.trace.flags.push('unpriced-model');
      budget = checkBudget({
        cost,
        tokensKnown: trace.tokensKnown,
        modelCalls: trace.modelCalls,
        budgetUsd: context.run.budgetUsd,
      });
      if (budget.$case === 'unchecked') record.trace.flags.push('budget-unchecked');
      if (trace.events.length > 0) {
        const traceReceipt = receipt('traces', `${scheduled.trialId}.abp-trace.jsonl`);
        await writeFileAtomic(join(context.runDir, traceReceipt), serializeTrace(trace.events));
        record.receipts.trace = traceReceipt;
      }
    }

    const changes = parsePatch(engineDiff);
    const rules = undefined;
    const split = splitPatch(engineDiff, rules);
    const weakening = findTestWeakening(changes, rules);
    const heldOut = new Set(task.heldOutPaths);
    const size = await normalizedDiffSize({
      changes,
      before: (path) => readBlobAtBase(repo, path),
      after: (path) => readCapturedBlob(workspace, path),
    });
    record.diff = {
      codeBytes: size.codeBytes,
      testBytes: size.testBytes,
      excludedBytes: size.excludedBytes,
      filesTouched: size.filesTouched,
      testWeakening: weakening.map((finding) => ({ path: finding.path, reason: finding.reason })),
      heldOutPathsTouched: changes.map((change) => change.path).filter((path) => heldOut.has(path)),
    };
    record.metrics.diffBytesNormalized = size.codeBytes;

    // Deleting or weakening tests disqualifies whatever else happened: a timeout must not hide it.
    if (weakening.length > 0) {
      const first = weakening[0];
      return finish(
        'disqualified',
        first?.reason ?? 'weakened-tests',
        weakening.map((finding) => `${finding.path}: ${finding.reason}`).join('; '),
      );
    }
    // Only the harness may exclude a trial, for what it proves happened before the engine acted (could not start, failed
    // preflight). A crash or a silent model is the engine's result: scored, never excluded, so ducking cannot pay.
    if (!engine.timedOut && (engine.exitCode !== 0 || engine.signal !== null) && engineDiff === '') {
      return finish(
        'unresolved',
        'crashed-before-acting',
        `exited ${String(engine.exitCode ?? engine.signal)} with no changes${(trace?.modelCalls ?? 0) === 0 ? ' and no model calls' : ''}`,
      );
    }
    if (trace && trace.source.kind !== 'missing' && trace.modelCalls === 0 && engineDiff === '' && !engine.timedOut) {
      return finish(
        'unresolved',
        'zero-model-calls',
        'the trace reports no model calls and the engine changed nothing: it did not run its model',
      );
    }
    if (engine.timedOut)
      return finish(
        'unresolved',
        'timeout',
        `the engine ran past ${adapter.timeoutSeconds ?? context.run.timeoutSeconds} s and was stopped`,
      );
    if (budget.$case === 'exceeded') {
      return finish(
        'unresolved',
        'budget-exceeded',
        `computed cost ${budget.atLeast ? 'of at least ' : ''}${budget.usd} USD exceeds the budget of ${context.run.budgetUsd} USD`,
      );
    }
    // The grading material must be what the run loaded and checked. In namespaces no engine can reach either; a
    // trusted-local engine without them can, and the change is then charged to the trial, never excluded: an engine
    // must not be able to duck a task it would lose.
    if ((await loadTaskDirectory(task.dir)).digest !== task.digest) {
      return finish(
        'disqualified',
        'task-modified',
        `the task folder ${task.dir} changed during the trial; its held-out material can no longer be trusted`,
      );
    }
    if (!context.namespaces && (await cacheDigest(repo)) !== context.cacheDigests.get(scheduled.task)) {
      return finish(
        'disqualified',
        'cache-modified',
        `the repository cache ${repo.gitDir} changed during the trial; the base it holds can no longer be trusted`,
      );
    }

    const verifyHome = join(trialRoot, '.grader', 'home');
    const verifyTmp = join(trialRoot, '.grader', 'tmp');
    const reportRoot = join(trialRoot, '.grader', 'reports');
    await Promise.all([
      mkdir(verifyHome, { recursive: true }),
      mkdir(verifyTmp, { recursive: true }),
      mkdir(reportRoot, { recursive: true }),
    ]);
    const environment: VerificationEnvironment = {
      env: verificationEnvironment(context.hostEnv, verifyHome, verifyTmp, context.policy === 'sandboxed'),
      // The engine's code runs here too (the tests import it): in namespaces of its own, never outliving its command,
      // offline and default-deny under sandboxed, with the host's network but none of the grader's folders otherwise.
      sandbox: !context.namespaces
        ? null
        : {
            view: context.policy === 'sandboxed' ? 'isolated' : 'host',
            writable: [checkoutDir, verifyHome, verifyTmp, reportRoot],
            hidden: context.hiddenPaths,
            readOnly: [repo.gitDir],
          },
      maxOutputBytes: 1 << 20,
      image: taskEnvironment === null ? null : { ...taskEnvironment, home: verifyHome },
    };
    // Same order as the engine saw: base, then setup, then the engine's changes, then the held-out files.
    const checkedOut = await pendingCheckout;
    const setup = await runSetup({ task, dir: checkoutDir, environment, redact: (text) => redactor.redactText(text) });
    excludedMs += setup.commandMs;
    const logReceipt = receipt('transcripts', `${scheduled.trialId}.verification.txt`);
    const writeLog = async (text: string) => {
      await writeFileAtomic(join(context.runDir, logReceipt), `${text}\n`);
      record.receipts.verificationLog = logReceipt;
    };
    if (!setup.ok) {
      await writeLog(setup.log);
      return finish(
        'harness-error',
        'setup-failed',
        `environment.setup in the verification checkout: ${setup.failed ?? ''}`,
      );
    }
    // What configures the runner is put back as the engine found it: its diff cannot change how it is graded.
    const guardedPaths = [
      ...new Set(
        split.changes
          .filter((change) => change.kind !== 'test')
          .flatMap((change) => [change.path, ...(change.oldPath === null ? [] : [change.oldPath])])
          .filter((path) => machineryRule(path) !== null),
      ),
    ].sort();
    const checkout = await applyForVerification(checkedOut, {
      patch: split.code,
      overlayDir: task.heldOutFilesDir,
      guarded: {
        paths: guardedPaths,
        restore: (path, before, after) => {
          const rule = machineryRule(path);
          // null from a rule removes the file: the engine added it and the checkout had none.
          return after === null || rule === null ? before : rule.restore(before, after);
        },
      },
    });
    if (!checkout.applied) {
      await writeLog(
        [setup.log, `git apply: ${redactor.redactText(checkout.applyError ?? 'failed')}`].filter(Boolean).join('\n'),
      );
      record.verification = {
        patchApplied: false,
        commands: [],
        assertions: [],
        judged: null,
        canaries: [],
        canariesUnavailable: [],
        machineryRestored: [],
      };
      return finish(
        'unresolved',
        'patch-did-not-apply',
        redactor.redactText(checkout.applyError ?? 'git apply failed'),
      );
    }
    const verification = await runVerification({
      task,
      checkoutDir,
      reportRoot,
      engineStdout: engine.stdout,
      environment,
      redact: (text) => redactor.redactText(text),
      decisive: context.decisive,
    });
    excludedMs += verification.commandMs;
    await writeLog([setup.log, verification.log].filter(Boolean).join('\n'));
    record.verification = {
      patchApplied: checkout.applied,
      commands: verification.commands,
      // Details quote what the engine wrote: they pass the redactor like every other receipt.
      assertions: verification.assertions.map((check) => ({ ...check, detail: redactor.redactText(check.detail) })),
      judged: verification.judged,
      canaries: verification.canaries,
      canariesUnavailable: verification.canariesUnavailable,
      machineryRestored: checkout.restored,
    };
    // Tampering outranks every other result: a report that lies about the sentinels cannot be believed about the rest.
    if (verification.tampered) {
      const broken = verification.canaries.filter((canary) => !canary.intact);
      return finish(
        'disqualified',
        'verification-tampered',
        broken
          .map((canary) => `the ${canary.role} sentinel of command ${canary.command} was ${canary.status}`)
          .join('; '),
      );
    }
    if (!verification.passed) {
      const failed = verification.commands.find((command) => !command.passed);
      const judged = verification.judged;
      const sets =
        judged === null ? [] : [['failToPass', judged.failToPass] as const, ['passToPass', judged.passToPass] as const];
      const short = sets.find(([, set]) => set.passed < set.expected);
      return finish(
        'unresolved',
        'verification-failed',
        failed
          ? `${failed.role} "${failed.command}": ${failed.reasons.join('; ')}`
          : short
            ? `${short[0]}: ${short[1].expected - short[1].passed} of ${short[1].expected} frozen tests did not pass (${short[1].problems
                .slice(0, 3)
                .map((problem) => `${problem.id}: ${problem.status}`)
                .join(', ')})`
            : 'an assertion failed',
      );
    }
    return finish('resolved', null, null);
  } catch (error) {
    // Anything thrown here is the grader's failure around the engine, not the engine's (spec §3.4).
    return finish('harness-error', 'grader-failed', error instanceof Error ? error.message : String(error));
  } finally {
    // Idempotent: a trial that threw before the engine ended still stops its proxy.
    await closeEgress?.().catch(() => undefined);
    // A checkout still being written when the trial ended early must finish before its folder goes.
    await pendingCheckout?.catch(() => undefined);
    if (!context.keepWorkspaces) await removeTree(trialRoot);
  }
}
