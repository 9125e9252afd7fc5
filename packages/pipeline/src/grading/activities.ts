// The trials queue's activities: preflight one engine, and grade one trial, of a run `abp run --on temporal` started on
// another machine. Each takes the run's inputs from the run store (unpacked once per worker), runs through the
// grader's own code (trial-apart.ts) in a folder of its own, and puts the trial's record and receipts back into the
// store, answering with their digests only: workflow histories stay small, and the bytes a worker produced are the
// bytes `abp run` journals.
import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/activity';
import type { AbpRun } from '@abp/protocol/schemas/abp-run';
import { isAlive } from '@abp/grader/execution';
import { jsonText, openApartRun, removeTree, type ApartRun, type PreflightResult } from '@abp/grader/run';
import { heartbeating } from '../activities/heartbeat.js';
import { inputCopiesDir, refDigest, unpackRunInputs, type RunInputsRef } from './run-inputs.js';
import type { RunStore } from '../run-store/store.js';

export interface GradingDependencies {
  home: string;
  store: RunStore;
  cacheDir: string;
  environmentStore: string;
  hostEnv: Readonly<Record<string, string | undefined>>;
}

/** What every activity of one run is given: enough to rebuild and check the run on any worker. */
export interface RunOnWorkers {
  runId: string;
  fingerprint: string;
  run: AbpRun & { id: string };
  inputs: RunInputsRef;
  runUnsupported: boolean;
  decisive: boolean;
}

export interface GradedTrial {
  trialId: string;
  /** The abp-trial/v1 record's digest in the run store. */
  record: string;
  /** Each receipt the record names, by run-folder-relative path, to its digest in the run store. */
  receipts: Record<string, string>;
}

const SCRATCH_PREFIX = 'abp-trial-';

/** Trial folders of worker processes that are gone (SIGKILL leaves them): they hold workspaces and held-out checkouts. */
async function sweepAbandonedScratch(): Promise<void> {
  for (const name of await readdir(tmpdir()).catch(() => [] as string[])) {
    const pid = Number(new RegExp(`^${SCRATCH_PREFIX}(\\d+)-`).exec(name)?.[1]);
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && !isAlive(pid))
      await removeTree(join(tmpdir(), name));
  }
}

export function createGradingActivities(deps: GradingDependencies) {
  // One checked copy per run and worker: the fingerprint check digests the grader's own files, once.
  const opened = new Map<string, Promise<ApartRun>>();
  const sweep = sweepAbandonedScratch();

  const openRun = (input: RunOnWorkers): Promise<ApartRun> => {
    const key = `${refDigest(input.inputs)}\0${input.fingerprint}`;
    let run = opened.get(key);
    if (run === undefined) {
      run = (async () => {
        await sweep;
        const copy = await unpackRunInputs(deps.store, input.inputs, inputCopiesDir(deps.home), deps.environmentStore);
        return openApartRun({
          paths: copy.paths,
          fingerprint: input.fingerprint,
          run: input.run,
          runUnsupported: input.runUnsupported,
          decisive: input.decisive,
          cacheDir: deps.cacheDir,
          environmentStore: deps.environmentStore,
          hidden: [deps.home, copy.root],
          hostEnv: deps.hostEnv,
        });
      })();
      // A failed open is not kept: the next attempt (here or on another worker) tries again.
      run.catch(() => opened.delete(key));
      opened.set(key, run);
      if (opened.size > 16) opened.delete(opened.keys().next().value as string);
    }
    return run;
  };

  const scratch = () => mkdtemp(join(tmpdir(), `${SCRATCH_PREFIX}${process.pid}-`));

  return {
    async preflightEngine(input: RunOnWorkers & { engine: string }): Promise<PreflightResult> {
      return heartbeating(async () => (await openRun(input)).preflight(input.engine, await scratch()), {
        engine: input.engine,
      });
    },

    async gradeTrial(
      input: RunOnWorkers & { trialId: string; preflight: Record<string, PreflightResult> },
    ): Promise<GradedTrial> {
      return heartbeating(
        async () => {
          const run = await openRun(input).catch((error: unknown) => {
            throw workerCannotGrade(error);
          });
          const { trial, receipts } = await run.trial(input.trialId, input.preflight, await scratch());
          const stored: Record<string, string> = {};
          for (const [path, bytes] of receipts) stored[path] = await deps.store.put(bytes);
          return {
            trialId: trial.trialId,
            record: await deps.store.put(Buffer.from(jsonText(trial))),
            receipts: stored,
          };
        },
        { trialId: input.trialId },
      );
    },
  };
}

/**
 * A worker that cannot open the run (another grader build, no sandbox, an engine not installed here) fails the
 * attempt with the reason as its type, so the Web UI and the run's error show it; the retry may land on a worker
 * that can.
 */
function workerCannotGrade(error: unknown): ApplicationFailure {
  const code = (error as { code?: unknown }).code;
  return ApplicationFailure.retryable(
    error instanceof Error ? error.message : String(error),
    typeof code === 'string' ? code : 'worker-cannot-grade',
  );
}

export type GradingActivities = ReturnType<typeof createGradingActivities>;
