// The worker's side of `abp run --on temporal`: one preflight or one trial of a run stamped on another machine, from a
// copy of its inputs. The copy and this grader must give the run's own fingerprint, so a worker with another grader
// build, or a damaged copy, refuses rather than grades; the trial then runs through the same executeTrial as a local
// run, into a folder of its own, and comes back as its record and the bytes of its receipts.
import { mkdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { AbpRun } from '@abp/protocol/schemas/abp-run';
import type { AbpTrial } from '@abp/protocol/schemas/abp-trial';
import { loadRunInputs, type RunInputs } from '../config/load-run-inputs.js';
import { sandboxStatus } from '../execution/sandbox.js';
import { loadPriceTable } from '../prices/index.js';
import { checkProgramPaths } from './engine-placement.js';
import { RunError } from './errors.js';
import { removeTree } from './files.js';
import { runFingerprint } from './fingerprint.js';
import { receiptsOf } from './journal.js';
import { runPreflight } from './preflight.js';
import { scheduleTrials } from './schedule.js';
import { executeTrial, type PreflightResult } from './trial.js';
import { hiddenFromEngines, prepareTaskParts, prepareTrialHost, type TaskParts } from './trial-host.js';
import { checkedTrialRecord } from './trial-record.js';

export interface ApartRunOptions {
  /** This machine's copy of the run's inputs. */
  paths: { config: string; adapters: string; tasks: string };
  fingerprint: string;
  run: AbpRun & { id: string };
  runUnsupported: boolean;
  decisive: boolean;
  /** This machine's repository cache and environment store. */
  cacheDir: string;
  environmentStore: string;
  /** Folders of this machine no engine may see: the data directory, the inputs copy, stores. */
  hidden: readonly string[];
  hostEnv: Readonly<Record<string, string | undefined>>;
  now?: () => Date;
}

export interface ApartTrial {
  trial: AbpTrial;
  /** Every receipt the record names, by run-folder-relative path. */
  receipts: Map<string, Buffer>;
}

export interface ApartRun {
  inputs: RunInputs;
  preflight(engine: string, scratch: string): Promise<PreflightResult>;
  /** Runs trial `trialId` in `scratch` (removed afterwards), with the run's preflight results. */
  trial(trialId: string, preflight: Readonly<Record<string, PreflightResult>>, scratch: string): Promise<ApartTrial>;
}

/** Loads and checks the copy: same fingerprint as the run, sandbox as its policy needs, every program present here. */
export async function openApartRun(options: ApartRunOptions): Promise<ApartRun> {
  const inputs = await loadRunInputs(options.paths);
  const fingerprint = await runFingerprint(inputs, { runUnsupported: options.runUnsupported });
  if (fingerprint !== options.fingerprint)
    throw new RunError(
      'fingerprint-mismatch',
      `run ${options.run.id}: this machine's copy of the inputs with this grader gives fingerprint ${fingerprint}, not the run's ${options.fingerprint}; install the same abp version as the machine that started the run`,
    );
  const policy = inputs.adapters.executionPolicy;
  const sandbox = await sandboxStatus();
  if (policy === 'sandboxed' && !sandbox.available)
    throw new RunError(
      'sandbox-unavailable',
      `run ${options.run.id}: executionPolicy "sandboxed" needs bubblewrap, which cannot run on this worker: ${sandbox.reason}`,
    );
  const now = options.now ?? (() => new Date());
  const own = [...options.hidden, options.cacheDir, options.environmentStore];
  // Each task's repository cache checked and environment verified once per run on this worker, as a local run does once
  // for all its trials: hashing an image's layers for every trial would cost more than many trials' own work.
  const prepared = new Map<string, Promise<TaskParts>>();
  const partsOf = (taskId: string): Promise<TaskParts> => {
    let parts = prepared.get(taskId);
    if (parts === undefined) {
      parts = prepareTaskParts(inputs, {
        cacheDir: options.cacheDir,
        namespaces: sandbox.available,
        environmentStore: options.environmentStore,
        only: new Set([taskId]),
      });
      // A failed preparation is not kept: the next trial of the task tries again.
      parts.catch(() => prepared.delete(taskId));
      prepared.set(taskId, parts);
    }
    return parts;
  };
  const noTasks: TaskParts = { repos: new Map(), cacheDigests: new Map(), environments: new Map(), warnings: [] };

  const host = async (scratch: string, preflight: ReadonlyMap<string, PreflightResult>, parts: TaskParts) => {
    const runDir = join(scratch, 'run');
    const workRoot = join(scratch, 'work');
    await mkdir(workRoot, { recursive: true });
    const hiddenPaths = await hiddenFromEngines(inputs, runDir, [...own, workRoot]);
    checkProgramPaths({ adaptersFile: inputs.paths.adapters, adapters: inputs.adapters.adapters, policy, hiddenPaths });
    return prepareTrialHost(
      inputs,
      {
        run: options.run,
        runDir,
        workRoot,
        hiddenPaths,
        namespaces: sandbox.available,
        cacheDir: options.cacheDir,
        environmentStore: options.environmentStore,
        prices: loadPriceTable(),
        hostEnv: options.hostEnv,
        preflight,
        runUnsupported: options.runUnsupported,
        keepWorkspaces: false,
        decisive: options.decisive,
        now,
      },
      parts,
    );
  };

  return {
    inputs,
    async preflight(engine, scratch) {
      const adapter = inputs.adapterOf.get(engine);
      if (adapter === undefined)
        throw new RunError('unknown-trial', `run ${options.run.id} has no engine "${engine}" to preflight`);
      try {
        const { context } = await host(scratch, new Map(), noTasks);
        return await runPreflight(adapter, context);
      } finally {
        await removeTree(scratch);
      }
    },
    async trial(trialId, preflight, scratch) {
      const scheduled = scheduleTrials(inputs.config).find((entry) => entry.trialId === trialId);
      if (scheduled === undefined)
        throw new RunError('unknown-trial', `run ${options.run.id} schedules no trial ${trialId}`);
      try {
        const parts = await partsOf(scheduled.task);
        const { context } = await host(scratch, new Map(Object.entries(preflight)), parts);
        const trial = checkedTrialRecord(await executeTrial(context, scheduled), now);
        const receipts = new Map<string, Buffer>();
        for (const receipt of receiptsOf(trial))
          receipts.set(receipt, await readFile(resolve(context.runDir, receipt)));
        return { trial, receipts };
      } finally {
        await removeTree(scratch);
      }
    },
  };
}
