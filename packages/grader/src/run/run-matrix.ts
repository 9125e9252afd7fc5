// `abp run` as a function: validate every input, stamp and write abp-run/v1 before the first trial, take the lock, preflight
// every adapter, run the ABBA-ordered matrix with bounded concurrency into the journal, then write the verdict and report
// and seal them. The journal digests every file as it is written, so a reader can tell what changed after.
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat, symlink, rename } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import type { AbpRun } from '@abp/protocol/schemas/abp-run';
import { RUN_SCHEMA_ID, runSchema } from '@abp/protocol/schemas/abp-run';
import type { AbpTrial } from '@abp/protocol/schemas/abp-trial';
import { verdictSchema, type AbpVerdict } from '@abp/protocol/schemas/abp-verdict';
import { loadRunInputs, type RunInputs } from '../config/load-run-inputs.js';
import { loadPriceTable, type PriceTable } from '../prices/index.js';
import { sandboxStatus } from '../execution/sandbox.js';
import { checkTrials, type RunContents } from '../results/read-results.js';
import { renderReport } from '../html-report/index.js';
import { readTasksProvenance } from '../pull/provenance.js';
import { isAlive } from '../execution/liveness.js';
import { RunError } from './errors.js';
import { jsonText, makeDurable, recordingWrites, removeTree, writeFileAtomic } from './files.js';
import { runFingerprint, runIdOf } from './fingerprint.js';
import {
  createJournal,
  journalDigest,
  receiptsOf,
  resumeJournal,
  trialFileOf,
  type FileDigests,
  type Journal,
} from './journal.js';
import { acquireRunLock } from './lock.js';
import { runPreflight } from './preflight.js';
import { scheduleTrials, type ScheduledTrial } from './schedule.js';
import { checkProgramPaths } from './engine-placement.js';
import { executeTrial, type PreflightResult } from './trial.js';
import { hiddenFromEngines, prepareTrialHost } from './trial-host.js';
import type { RemoteTrials } from './remote-trials.js';
import { homePaths, resolveHome } from '../home.js';
import { buildVerdict, type GoldenSize } from './verdict.js';
import { checkedTrialRecord } from './trial-record.js';
import { sha256Of } from './seal.js';

export interface RunOptions {
  config: string;
  adapters?: string | undefined;
  tasks?: string | undefined;
  /** The results folder; the run writes <output>/<runId>/ and points <output>/run-latest at it. */
  output: string;
  /** A progress journal (or the run folder holding it) to continue. */
  resumeProgress?: string | undefined;
  lockFile?: string | undefined;
  concurrency?: number | undefined;
  keepWorkspaces?: boolean | undefined;
  /**
   * Stop each trial's verification at its first failed command, once the trial cannot resolve: the gold proof's
   * question (does the empty patch ever resolve?) needs no more, and the commands after it are skipped. An engine's
   * grade never uses it: a later command could still show tampering, which disqualifies rather than fails.
   */
  decisive?: boolean | undefined;
  runUnsupported?: boolean | undefined;
  strictComparison?: boolean | undefined;
  /** Where scrubbed task repositories are cached between runs. */
  cacheDir?: string | undefined;
  /** The environment store the tasks' images are read from (abp pull writes them there). */
  environments?: string | undefined;
  hostEnv?: Readonly<Record<string, string | undefined>> | undefined;
  now?: (() => Date) | undefined;
  onEvent?: ((event: RunEvent) => void) | undefined;
  /**
   * Where the trials run when not here: the run is stamped, journaled, sealed and reported on this machine as always,
   * and each pending trial's record and receipts come back from elsewhere (`abp run --on temporal`).
   */
  remote?: RemoteTrials | undefined;
}

export type RunEvent =
  | {
      kind: 'started';
      runId: string;
      runDir: string;
      total: number;
      done: number;
      resumed: boolean;
      warnings: string[];
      workRoot: string;
      keptWorkspaces: boolean;
    }
  | { kind: 'preflight'; engine: string; result: PreflightResult }
  | { kind: 'trial'; trial: AbpTrial; done: number; total: number };

export interface RunOutcome {
  runId: string;
  runDir: string;
  verdict: AbpVerdict;
  trials: AbpTrial[];
  /**
   * The sha256 of the sealed progress.jsonl. Nothing in the run folder holds it (whoever rewrites the folder would
   * rewrite it too): keep it elsewhere, and `abp gate --journal-digest` refuses a folder whose journal changed.
   */
  journalDigest: string;
}

function containerized(): boolean {
  if (existsSync('/.dockerenv') || existsSync('/run/.containerenv')) return true;
  try {
    return /docker|kubepods|containerd|lxc/.test(readFileSync('/proc/1/cgroup', 'utf8'));
  } catch {
    return false;
  }
}

function reproduceCommand(inputs: RunInputs, output: string, runUnsupported: boolean): string {
  const rel = (path: string) => {
    const relativePath = relative(process.cwd(), path) || '.';
    return /^[\w./-]+$/.test(relativePath) ? relativePath : `'${relativePath.replace(/'/g, "'\\''")}'`;
  };
  return `abp run --config ${rel(inputs.paths.config)} --adapters ${rel(inputs.paths.adapters)} --tasks ${rel(inputs.paths.tasks)} -o ${rel(resolve(output))}${runUnsupported ? ' --run-unsupported' : ''}`;
}

/** Engines whose configured model (the run's, or the engine's own override) the price table lacks. */
function priceWarnings(inputs: RunInputs, prices: PriceTable): string[] {
  return inputs.config.engines.flatMap((engine) => {
    const model = engine.model ?? inputs.config.model;
    return Object.hasOwn(prices.models, model)
      ? []
      : [
          `engine "${engine.name}" runs ${model}, which has no price in the price table ${prices.version}: its cost is unknown and its budget unchecked`,
        ];
  });
}

/**
 * Trial folders of an earlier start of this run whose process is gone (SIGKILL leaves them): they hold workspaces and
 * verification checkouts with held-out files, so they go before this start makes its own.
 */
async function removeAbandonedWorkRoots(runId: string): Promise<void> {
  const prefix = `abp-work-${runId}-`;
  for (const name of await readdir(tmpdir()).catch(() => [] as string[])) {
    const pid = Number(name.slice(prefix.length));
    if (name.startsWith(prefix) && Number.isInteger(pid) && pid > 0 && !isAlive(pid))
      await removeTree(join(tmpdir(), name));
  }
}

async function pointLatest(output: string, runId: string): Promise<void> {
  const link = join(output, 'run-latest');
  const temporary = `${link}.${process.pid}.tmp`;
  await rm(temporary, { force: true });
  await symlink(runId, temporary);
  await rename(temporary, link);
}

/**
 * Runs `items` with at most `limit` in flight, starting them in order. After a failure no new item starts, the ones in
 * flight finish (their folders and the lock are still needed), and the first failure is thrown.
 */
async function inOrderPool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | null = null;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length && failure === null) {
      const item = items[next] as T;
      next += 1;
      try {
        await work(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  });
  await Promise.all(lanes);
  if (failure !== null) throw (failure as { error: unknown }).error;
}

async function openJournal(
  options: RunOptions,
  runDir: string,
  header: { runId: string; fingerprint: string; trials: number },
): Promise<{ journal: Journal; resumed: boolean }> {
  if (options.resumeProgress) {
    const given = resolve(options.resumeProgress);
    const path = (await stat(given).catch(() => null))?.isDirectory() ? join(given, 'progress.jsonl') : given;
    if (dirname(path) !== runDir) {
      throw new RunError(
        'fingerprint-mismatch',
        `${path} is not the journal of run ${header.runId} (expected ${join(runDir, 'progress.jsonl')}): the inputs changed since it was written, or it belongs to another -o folder`,
      );
    }
    return { journal: await resumeJournal(path, header), resumed: true };
  }
  return { journal: await createJournal(join(runDir, 'progress.jsonl'), header), resumed: false };
}

/**
 * The end of a run whose journal holds every trial: verdict.json and report.html, both made from the journal's own
 * records (never read back from the folder, so one trial file that fails its schema cannot keep the run from ending),
 * made durable, then sealed by the journal's last line. Returns the verdict and the sealed journal's digest.
 */
async function seal(
  journal: Journal,
  runDir: string,
  finished: {
    run: AbpRun & { id: string };
    tasks: RunContents['tasks'];
    trials: AbpTrial[];
    /** What the verdict must lead with: comparison metadata, unpriced models, a run without namespaces, rebuilt caches. */
    warnings: readonly string[];
    /** Each task's golden size from its manifest, which the task digests in the fingerprint pin. */
    goldenSizes: ReadonlyMap<string, GoldenSize>;
    provenance: Awaited<ReturnType<typeof readTasksProvenance>>;
  },
): Promise<{ verdict: AbpVerdict; journalDigest: string }> {
  const { run, tasks, trials, warnings, goldenSizes, provenance } = finished;
  const verdict = buildVerdict(run, trials, { warnings, goldenSizes });
  // The report shows what a reader of the folder would see: a record that fails the schema is named, not rendered.
  const checked = checkTrials(
    run,
    tasks,
    trials.map((trial) => ({
      file: trialFileOf(trial.trialId),
      trialId: trial.trialId,
      engine: trial.engine,
      // As a reader parses the trial file: fields left undefined are absent.
      value: JSON.parse(JSON.stringify(trial)) as unknown,
    })),
  );
  const contents: RunContents = { dir: runDir, run, verdict, tasks, ...checked };
  const written: Record<string, string> = {
    'verdict.json': jsonText(verdict),
    'report.html': renderReport(contents, { provenance }),
  };
  for (const [file, text] of Object.entries(written)) await writeFileAtomic(join(runDir, file), text);
  await makeDurable(Object.keys(written).map((file) => join(runDir, file)));
  const sealed: FileDigests = Object.fromEntries(Object.entries(written).map(([file, text]) => [file, sha256Of(text)]));
  return { verdict, journalDigest: await journal.seal(sealed) };
}

/** A finished run resumed: resumeJournal checked every file against the seal, so nothing is written again. */
async function alreadySealed(
  journal: Journal,
  runDir: string,
): Promise<{ verdict: AbpVerdict; journalDigest: string }> {
  const verdict = verdictSchema.parse(JSON.parse(await readFile(join(runDir, 'verdict.json'), 'utf8')));
  return { verdict, journalDigest: await journalDigest(journal.path) };
}

export async function runMatrix(options: RunOptions): Promise<RunOutcome> {
  const now = options.now ?? (() => new Date());
  const hostEnv = options.hostEnv ?? process.env;
  const inputs = await loadRunInputs({ config: options.config, adapters: options.adapters, tasks: options.tasks });
  // Read before the first trial: a damaged provenance file stops the run at its start, not at the report.
  const provenance = await readTasksProvenance(
    inputs.tasks.map((task) => ({ id: task.manifest.id, dir: task.visibleDir })),
  );
  const prices = loadPriceTable();
  // A model without a price leaves every cost of its engine unknown and its budget unchecked: said before the first trial.
  const runWarnings = [...inputs.comparisonWarnings, ...priceWarnings(inputs, prices)];
  if (options.strictComparison && runWarnings.length > 0) {
    throw new RunError(
      'strict-comparison',
      `--strict-comparison: comparison metadata is incomplete or differs, or a model has no price:\n  ${runWarnings.join('\n  ')}`,
    );
  }
  const policy = inputs.adapters.executionPolicy;
  const sandbox = await sandboxStatus();
  if (policy === 'sandboxed' && !sandbox.available)
    throw new RunError(
      'sandbox-unavailable',
      `${inputs.paths.adapters}: executionPolicy "sandboxed" needs bubblewrap, which cannot run here: ${sandbox.reason}. Install the Debian package bubblewrap, or acknowledge "trusted-local".`,
    );
  const warnings = [...runWarnings];
  if (!sandbox.available)
    warnings.push(
      `trusted-local engines run as plain process groups, without namespaces of their own: ${sandbox.reason}. A process an engine detaches (setsid) can outlive its trial, and the grader's folders are not hidden from it; install bubblewrap to close both`,
    );

  const output = resolve(options.output);
  const home = resolveHome(hostEnv);
  const cacheDir = resolve(options.cacheDir ?? join(tmpdir(), 'abp-grader-cache'));
  const environmentStore = resolve(options.environments ?? homePaths(home, hostEnv).environments);
  const hiddenPaths = await hiddenFromEngines(inputs, output, [home, environmentStore, cacheDir]);
  checkProgramPaths({
    adaptersFile: inputs.paths.adapters,
    adapters: inputs.adapters.adapters,
    policy,
    hiddenPaths,
  });

  const runUnsupported = options.runUnsupported ?? false;
  const fingerprint = await runFingerprint(inputs, { runUnsupported });
  const runId = runIdOf(fingerprint);
  const runDir = join(output, runId);
  await mkdir(runDir, { recursive: true });
  const lock = await acquireRunLock(resolve(options.lockFile ?? join(output, '.abp-run.lock')), runId, now);
  const workRoot = join(tmpdir(), `abp-work-${runId}-${process.pid}`);
  hiddenPaths.push(workRoot);
  await removeAbandonedWorkRoots(runId);
  try {
    const schedule = scheduleTrials(inputs.config);
    const { journal, resumed } = await openJournal(options, runDir, { runId, fingerprint, trials: schedule.length });
    const run: AbpRun & { id: string } = {
      schema: RUN_SCHEMA_ID,
      id: runId,
      engines: inputs.config.engines,
      model: inputs.config.model,
      matchedModels: inputs.matchedModels,
      budgetUsd: inputs.config.budgetUsd,
      timeoutSeconds: inputs.config.timeoutSeconds,
      trials: inputs.config.trials,
      ordering: inputs.config.ordering,
      seed: inputs.config.seed,
      tasks: inputs.config.tasks,
      host: { os: process.platform, arch: process.arch, containerized: containerized() },
      reproduce: reproduceCommand(inputs, output, runUnsupported),
    };
    const taskEntries = inputs.tasks
      .map((task) => ({ id: task.manifest.id, digest: task.digest }))
      .sort((a, b) => (a.id < b.id ? -1 : 1));
    // Written once, before the first trial, and digested into the journal as written; a resumed run keeps the manifest
    // its first start wrote (resumeJournal checked it), unless that start was killed before recording it. Its host and
    // reproduce command are what the report shows, not this start's.
    const recordedRun: AbpRun & { id: string } = journal.hasManifest
      ? { ...runSchema.parse(JSON.parse(await readFile(join(runDir, 'run.json'), 'utf8'))), id: runId }
      : run;
    if (!journal.hasManifest) {
      const written: Record<string, string> = {
        'run.json': jsonText(run),
        'tasks.json': jsonText(taskEntries),
        'reproduce.txt': `${run.reproduce}\n`,
      };
      for (const [file, text] of Object.entries(written)) await writeFileAtomic(join(runDir, file), text);
      await makeDurable(Object.keys(written).map((file) => join(runDir, file)));
      await journal.recordManifest(
        Object.fromEntries(Object.entries(written).map(([file, text]) => [file, sha256Of(text)])),
      );
    }
    options.onEvent?.({
      kind: 'started',
      runId,
      runDir,
      total: schedule.length,
      done: journal.done.size,
      resumed,
      warnings,
      workRoot,
      keptWorkspaces: options.keepWorkspaces ?? false,
    });

    let done = journal.done.size;
    /** Writes one finished trial's record beside its receipts and journals it, digests first made durable. */
    const recordTrial = async (trial: AbpTrial, receipts: Readonly<Record<string, string>>): Promise<void> => {
      const trialFile = trialFileOf(trial.trialId);
      const trialText = jsonText(trial);
      await writeFileAtomic(join(runDir, trialFile), trialText);
      const files: Record<string, string> = { [trialFile]: sha256Of(trialText), ...receipts };
      await makeDurable(Object.keys(files).map((file) => join(runDir, file)));
      await journal.append(trial, files);
      done += 1;
      options.onEvent?.({ kind: 'trial', trial, done, total: schedule.length });
    };
    const pending: ScheduledTrial[] = schedule.filter((scheduled) => !journal.done.has(scheduled.trialId));
    if (options.remote !== undefined) {
      await options.remote.runTrials(
        {
          runId,
          fingerprint,
          run,
          paths: inputs.paths,
          pending,
          preflight: inputs.config.engines
            .map((engine) => engine.name)
            .filter((engine) => pending.some((scheduled) => scheduled.engine === engine)),
          runUnsupported,
          decisive: options.decisive ?? false,
          hidden: [output, home, environmentStore, cacheDir],
        },
        {
          preflight: (engine, result) => options.onEvent?.({ kind: 'preflight', engine, result }),
          trial: async (trial, receipts) => {
            // What a worker sent is checked as this machine's own trial would be, and written the same way.
            const checked = checkedTrialRecord(trial, now);
            const digests: Record<string, string> = {};
            for (const receipt of receiptsOf(checked)) {
              const bytes = receipts.get(receipt);
              if (bytes === undefined)
                throw new RunError(
                  'invalid-trial-record',
                  `trial ${checked.trialId}: the worker that ran it sent no ${receipt}, which its record names`,
                );
              await writeFileAtomic(join(runDir, receipt), bytes);
              digests[receipt] = sha256Of(bytes);
            }
            await recordTrial(checked, digests);
          },
        },
      );
      // A run is sealed only over every trial of its schedule: whatever handed back fewer must not yield a verdict.
      const missing = pending.filter((scheduled) => !journal.done.has(scheduled.trialId));
      if (missing.length > 0)
        throw new RunError(
          'trials-failed',
          `${missing.length} scheduled trial(s) were never handed back by the workers (${missing
            .slice(0, 5)
            .map((scheduled) => scheduled.trialId)
            .join(', ')}); the journal keeps the rest: run the same command again to grade them`,
        );
    } else {
      await mkdir(workRoot, { recursive: true });
      const preflightResults = new Map<string, PreflightResult>();
      const { context, warnings: cacheWarnings } = await prepareTrialHost(inputs, {
        run,
        runDir,
        workRoot,
        hiddenPaths,
        namespaces: sandbox.available,
        cacheDir,
        environmentStore,
        prices,
        hostEnv,
        preflight: preflightResults,
        runUnsupported,
        keepWorkspaces: options.keepWorkspaces ?? false,
        decisive: options.decisive ?? false,
        now,
      });
      warnings.push(...cacheWarnings);
      for (const engine of inputs.config.engines) {
        const adapter = inputs.adapterOf.get(engine.name);
        if (!adapter || !pending.some((scheduled) => scheduled.engine === engine.name)) continue;
        const result = await runPreflight(adapter, context);
        preflightResults.set(engine.name, result);
        options.onEvent?.({ kind: 'preflight', engine: engine.name, result });
      }
      await inOrderPool(pending, Math.max(1, options.concurrency ?? 1), async (scheduled) => {
        const { value: executed, written } = await recordingWrites(() => executeTrial(context, scheduled));
        // One malformed record must not stop the verdict, the report or the gate for every other trial.
        const trial = checkedTrialRecord(executed, now);
        const receipts: Record<string, string> = {};
        for (const receipt of receiptsOf(trial))
          // Every receipt trial.ts writes goes through writeFileAtomic; a path written some other way is read back.
          receipts[receipt] = written.get(resolve(runDir, receipt)) ?? sha256Of(await readFile(join(runDir, receipt)));
        await recordTrial(trial, receipts);
      });
    }
    await journal.close();

    const trials = schedule
      .map((scheduled) => journal.done.get(scheduled.trialId))
      .filter((trial): trial is AbpTrial => trial !== undefined);
    const finished = journal.sealed
      ? await alreadySealed(journal, runDir)
      : await seal(journal, runDir, {
          run: recordedRun,
          tasks: taskEntries,
          trials,
          warnings,
          goldenSizes: new Map(
            inputs.tasks.map((task) => {
              const { golden } = task.manifest;
              const size: GoldenSize =
                golden === undefined
                  ? null
                  : { diffBytesNormalized: golden.diffBytesNormalized, filesTouched: golden.filesTouched };
              return [task.manifest.id, size];
            }),
          ),
          provenance,
        });
    await pointLatest(output, runId);
    return { runId, runDir, trials, ...finished };
  } finally {
    if (!options.keepWorkspaces) await removeTree(workRoot);
    await lock.release();
  }
}
