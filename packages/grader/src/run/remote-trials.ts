// The seam between `abp run` and trials that run on other machines: what the run hands over (its inputs as files, the
// stamped manifest, the pending trials) and what comes back for each trial (its record and the bytes of its
// receipts), which the run then checks, writes and journals exactly as it does its own. The grader knows no
// orchestrator: the operators' abp plugs one in (packages/pipeline/src/grading).
import type { AbpRun } from '@abp/protocol/schemas/abp-run';
import type { AbpTrial } from '@abp/protocol/schemas/abp-trial';
import type { ScheduledTrial } from './schedule.js';
import type { PreflightResult } from './trial.js';

export interface TrialDispatch {
  runId: string;
  /** The run's fingerprint: a worker whose grader or copy of the inputs differs computes another and refuses. */
  fingerprint: string;
  run: AbpRun & { id: string };
  paths: { config: string; adapters: string; tasks: string };
  /** The trials not yet in the journal, in schedule order. */
  pending: readonly ScheduledTrial[];
  /** The engines with pending trials, each preflighted once before its first trial. */
  preflight: readonly string[];
  runUnsupported: boolean;
  decisive: boolean;
  /** Folders of this machine that hold results, stores and caches: never shipped with the inputs. */
  hidden: readonly string[];
}

export interface TrialSink {
  preflight(engine: string, result: PreflightResult): void;
  /** One finished trial: its record and every receipt it names, by run-folder-relative path. Called once per trial. */
  trial(trial: AbpTrial, receipts: ReadonlyMap<string, Buffer>): Promise<void>;
}

export interface RemoteTrials {
  /** Runs every pending trial elsewhere, handing each back to `sink` as it finishes; resolves when all are handed back. */
  runTrials(dispatch: TrialDispatch, sink: TrialSink): Promise<void>;
}
