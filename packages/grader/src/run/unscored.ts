// Owns what `abp run` says of a run that scored nothing: every trial an engine error, a harness error or unsupported.
// Such a run still ends with its receipts (verdict, report, seal), but it holds no evidence about any engine, so the
// command fails on it (cli/run.ts) rather than exit 0 as though there were something to compare.
import { scoredOutcomes, type AbpTrial } from '@abp/protocol/schemas/abp-trial';
import type { AbpVerdict } from '@abp/protocol/schemas/abp-verdict';
import { describeExclusions } from './verdict.js';

// A trial's detail can hold an engine's stderr; the message names the cause, the trial record keeps the rest.
const DETAIL_CHARS = 200;

/**
 * Why no trial of the run could be scored, engine by engine with the first excluded trial's reason; null when at least
 * one trial was scored. An engine with none scored beside engines with some is not this: spec §3.4 excludes it from the
 * comparison, the verdict warns of it, and `abp gate` refuses to gate it.
 */
export function describeUnscoredRun(verdict: AbpVerdict, trials: readonly AbpTrial[]): string | null {
  if (verdict.perEngine.some((result) => result.scoredTrials > 0)) return null;
  const engines = verdict.perEngine.map((result) => {
    const first = trials.find((trial) => trial.engine === result.engine && !scoredOutcomes.has(trial.outcome));
    if (first === undefined) return `${result.engine}: no trials`;
    const detail =
      first.detail === null
        ? ''
        : `: ${first.detail.length > DETAIL_CHARS ? `${first.detail.slice(0, DETAIL_CHARS)}…` : first.detail}`;
    return `${result.engine}: ${describeExclusions(result)}; first ${first.outcome}${first.reason === null ? '' : ` (${first.reason})`}${detail}`;
  });
  return `no trial could be scored: all ${trials.length} trials were excluded (${engines.join('; ')}). The verdict has no resolve rate for any engine; fix the cause the trial records give and run again`;
}
