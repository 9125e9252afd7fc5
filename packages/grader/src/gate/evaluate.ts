// Owns the gate's decision (spec §10): whether a run may be compared with a committed baseline at all, and if so
// whether the resolve rate dropped or an efficiency median grew past its threshold. Pure and deterministic.
import { gatedMetrics, type AbpBaseline, type GatedMetric } from '@abp/protocol/schemas/abp-baseline';
import { scoredOutcomes, type AbpTrial } from '@abp/protocol/schemas/abp-trial';
import { compareCodeUnits } from '@abp/protocol/schemas/primitives';
import { generatorSeed } from '../run/schedule.js';
import type { SealFinding } from '../run/seal.js';
import {
  StatsError,
  bootstrapRelativeMedianDelta,
  mcnemarExact,
  median,
  pairOutcomes,
  wilsonInterval,
} from '../stats/index.js';
import {
  describeMissingTrials,
  describeUnreadableTrials,
  formatChange,
  formatInterval,
  formatMetric,
  formatPercent,
  formatPValue,
  metricLabels,
  missingTrials,
  runIdOf,
  unreadableTrials,
  type RunResults,
} from '../results/index.js';

export type GateCheckId = 'resolve-rate' | 'resolve-rate-all-trials' | GatedMetric;

export interface GateCheck {
  id: GateCheckId;
  status: 'pass' | 'fail' | 'skipped';
  /** One line: the figures and why the check passed, failed or was skipped. */
  summary: string;
  /** resolve-rate: the rate among scored trials; metrics: the median over resolved trials. */
  baseline: number | null;
  current: number | null;
  /** resolve-rate: current − baseline; metrics: (current − baseline) / baseline. */
  change: number | null;
  /** Metrics: the allowed relative growth. resolve-rate: the alpha pValue is held to, or 0 (no drop allowed) without requireSignificant. */
  threshold: number | null;
  /** resolve-rate: exact McNemar p over trials paired by (task, trial). */
  pValue?: number;
  /** resolve-rate: Wilson 95% interval of the current rate. Metrics: seeded paired bootstrap 95% interval of the relative change. */
  interval?: [number, number];
}

export type RefusalCode =
  | 'engine-not-in-run'
  | 'no-trials'
  | 'no-scored-trials'
  | 'incomplete-run'
  /** A trial file the run sealed that this grader cannot read (another grader's schema): its trial cannot be counted. */
  | 'unreadable-trials'
  /** The results folder does not match its journal's digests: set by `abp gate` itself, before any comparison. */
  | 'results-tampered'
  | 'models-not-matched'
  | 'model-differs'
  | 'task-set-differs';

export interface GateReport {
  engine: string;
  run: string;
  baselineRun: string;
  comparable: boolean;
  /** Every reason the run cannot be compared, in one sentence; null when comparable. */
  refusal: string | null;
  reasons: Array<{
    code: RefusalCode;
    message: string;
    /** results-tampered: every file of the run folder that differs from its journal, and how. */
    findings?: SealFinding[];
  }>;
  passed: boolean;
  /** Empty when the run is refused. */
  checks: GateCheck[];
}

export interface GateInput {
  results: RunResults;
  baseline: AbpBaseline;
  /** The run's engine to gate; the baseline's engine when left out. */
  engine?: string;
  /** Fail the resolve rate only on a drop that McNemar finds significant at the baseline's alpha. */
  requireSignificant: boolean;
}

// Paired bootstrap figures where they are impossible rather than wrong: the check itself still stands.
const intervalUnavailable = new Set(['zero-baseline-median', 'zero-baseline-median-in-resample']);
const NAMED_IDS = 10;

/**
 * The refusal of a run folder that does not match its journal: nothing in it is compared, whatever it says. `run` is
 * the folder as given, since its run.json cannot be believed either.
 */
export function refuseTamperedRun(input: {
  run: string;
  baseline: AbpBaseline;
  engine?: string | undefined;
  message: string;
  findings: readonly SealFinding[];
}): GateReport {
  const reason = { code: 'results-tampered' as const, message: input.message, findings: [...input.findings] };
  return {
    engine: input.engine ?? input.baseline.engine,
    run: input.run,
    baselineRun: input.baseline.run,
    comparable: false,
    refusal: reason.message,
    reasons: [reason],
    passed: false,
    checks: [],
  };
}

export function evaluateGate(input: GateInput): GateReport {
  const { results, baseline, requireSignificant } = input;
  const engine = input.engine ?? baseline.engine;
  const head = { engine, run: runIdOf(results), baselineRun: baseline.run };
  const reasons = refusals(results, baseline, engine);
  if (reasons.length > 0) {
    return {
      ...head,
      comparable: false,
      refusal: reasons.map((reason) => reason.message).join('; '),
      reasons,
      passed: false,
      checks: [],
    };
  }
  const scored = results.trials
    .filter((trial) => trial.engine === engine && scoredOutcomes.has(trial.outcome))
    .sort(bySlot);
  const all = results.trials.filter((trial) => trial.engine === engine);
  const checks = [
    resolveRateCheck(scored, baseline, requireSignificant),
    allTrialsRateCheck(all, baseline, requireSignificant),
    ...gatedMetrics.map((metric) => metricCheck(metric, scored, baseline, results.run.seed)),
  ];
  return {
    ...head,
    comparable: true,
    refusal: null,
    reasons: [],
    passed: checks.every((check) => check.status !== 'fail'),
    checks,
  };
}

function refusals(results: RunResults, baseline: AbpBaseline, engine: string): GateReport['reasons'] {
  const { run } = results;
  const reasons: GateReport['reasons'] = [];
  const engines = run.engines.map((entry) => entry.name);
  const ofEngine = results.trials.filter((trial) => trial.engine === engine);
  if (!engines.includes(engine)) {
    reasons.push({
      code: 'engine-not-in-run',
      message: `engine ${engine} is not in the run, which ran ${engines.join(', ')}: pass --engine to gate one of those against this baseline`,
    });
  } else if (ofEngine.length === 0) {
    reasons.push({
      code: 'no-trials',
      message: `engine ${engine} has no trials in the run yet: let \`abp run\` finish`,
    });
  } else {
    const missing = missingTrials(results, engine);
    if (missing.length > 0)
      reasons.push({
        code: 'incomplete-run',
        message: `the run is incomplete: ${describeMissingTrials(results, missing)}; let \`abp run\` finish, or rerun it`,
      });
    if (!ofEngine.some((trial) => scoredOutcomes.has(trial.outcome))) {
      reasons.push({
        code: 'no-scored-trials',
        message: `every trial of engine ${engine} was excluded (engine error, harness error or unsupported), so none can be compared: fix the cause shown in trials/ and rerun`,
      });
    }
  }
  const unreadable = engines.includes(engine) ? unreadableTrials(results, engine) : [];
  if (unreadable.length > 0)
    reasons.push({
      code: 'unreadable-trials',
      message: `${describeUnreadableTrials(unreadable)}; gate the run with the grader that wrote it, or rerun it`,
    });
  if (!run.matchedModels) {
    reasons.push({
      code: 'models-not-matched',
      message: `the run is stamped matchedModels: false, so its numbers are not tied to one model: rerun with every engine on ${run.model}`,
    });
  }
  if (run.model !== baseline.model) {
    reasons.push({
      code: 'model-differs',
      message: `the run used model ${run.model} but the baseline ${baseline.model}: a baseline gates one model; when the model changes on purpose, create a new baseline with \`abp baseline\``,
    });
  }
  const taskDifference = describeTaskDifference(results, baseline);
  if (taskDifference !== null) {
    reasons.push({
      code: 'task-set-differs',
      message: `the task sets differ (${taskDifference}): the gate compares the same tasks only; run the baseline's task set, or update the baseline deliberately with \`abp baseline\``,
    });
  }
  return reasons;
}

function describeTaskDifference(results: RunResults, baseline: AbpBaseline): string | null {
  const current = new Map(results.tasks.map((task) => [task.id, task.digest]));
  const committed = new Map(baseline.tasks.map((task) => [task.id, task.digest]));
  const onlyRun = [...current.keys()].filter((id) => !committed.has(id));
  const onlyBaseline = [...committed.keys()].filter((id) => !current.has(id));
  const changed = [...current]
    .filter(([id, digest]) => committed.has(id) && committed.get(id) !== digest)
    .map(([id]) => id);
  const parts = [
    onlyRun.length > 0 ? `only in the run: ${nameIds(onlyRun)}` : '',
    onlyBaseline.length > 0 ? `only in the baseline: ${nameIds(onlyBaseline)}` : '',
    changed.length > 0 ? `different digest: ${nameIds(changed)}` : '',
  ].filter(Boolean);
  return parts.length > 0 ? parts.join('; ') : null;
}

function nameIds(ids: string[]): string {
  const sorted = [...ids].sort(compareCodeUnits);
  const more = sorted.length - NAMED_IDS;
  return `${sorted.slice(0, NAMED_IDS).join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}

function resolveRateCheck(scored: AbpTrial[], baseline: AbpBaseline, requireSignificant: boolean): GateCheck {
  const threshold = requireSignificant ? baseline.alpha : 0;
  const baseScored = baseline.trials.length;
  const baseResolved = baseline.trials.filter((trial) => trial.resolved).length;
  const scoredCount = scored.length;
  const resolved = scored.filter((trial) => trial.outcome === 'resolved').length;
  const current = resolved / scoredCount;
  const rate = `${formatPercent(current)} resolved (${resolved}/${scoredCount})`;
  if (baseScored === 0) {
    return {
      id: 'resolve-rate',
      status: 'skipped',
      summary: `${rate}; the baseline has no scored trials, so there is no rate to compare with`,
      baseline: null,
      current,
      change: null,
      threshold,
    };
  }

  const base = baseResolved / baseScored;
  const committed = new Map(baseline.trials.map((trial) => [slotOf(trial), trial.resolved]));
  const paired = scored.filter((trial) => committed.has(slotOf(trial)));
  const outcomes = pairOutcomes(
    paired.map((trial) => trial.outcome === 'resolved'),
    paired.map((trial) => committed.get(slotOf(trial)) === true),
  );
  const { pExact } = mcnemarExact(outcomes.onlyA, outcomes.onlyB);
  // Cross-multiplied so equal rates over different counts compare equal exactly.
  const dropped = resolved * baseScored < baseResolved * scoredCount;
  const significant = outcomes.onlyB > outcomes.onlyA && pExact < baseline.alpha;
  const failed = dropped && (!requireSignificant || significant);
  const why = !dropped
    ? 'no drop'
    : requireSignificant
      ? significant
        ? `a significant drop (p < alpha ${baseline.alpha})`
        : `the drop is not significant at alpha ${baseline.alpha}`
      : 'the rate dropped; without --require-significant any drop fails';
  const { lower, upper } = wilsonInterval(resolved, scoredCount);
  return {
    id: 'resolve-rate',
    status: failed ? 'fail' : 'pass',
    summary:
      `${rate} vs ${formatPercent(base)} (${baseResolved}/${baseScored}) in the baseline, ${formatChange(current - base)}; ` +
      `of ${paired.length} paired trials ${outcomes.onlyA} newly resolved and ${outcomes.onlyB} newly unresolved, McNemar exact p = ${formatPValue(pExact)}: ${why}`,
    baseline: base,
    current,
    change: current - base,
    threshold,
    pValue: pExact,
    interval: [lower, upper],
  };
}

/**
 * Resolved over every trial, excluded ones too: an engine that is excluded where it cannot win must not raise its rate
 * by leaving the denominator. Paired by slot as the scored rate is, a baseline slot it excluded counting as unresolved.
 */
function allTrialsRateCheck(all: AbpTrial[], baseline: AbpBaseline, requireSignificant: boolean): GateCheck {
  const resolved = all.filter((trial) => trial.outcome === 'resolved').length;
  const current = resolved / all.length;
  const rate = `${formatPercent(current)} of all trials resolved (${resolved}/${all.length})`;
  const baseAll = baseline.allTrials;
  if (baseAll === null || baseAll === 0)
    return {
      id: 'resolve-rate-all-trials',
      status: 'skipped',
      summary: `${rate}; the baseline does not record its trial count (take it again with \`abp baseline\`)`,
      baseline: null,
      current,
      change: null,
      threshold: 0,
    };
  const baseResolved = baseline.trials.filter((trial) => trial.resolved).length;
  const base = baseResolved / baseAll;
  const dropped = resolved * baseAll < baseResolved * all.length;
  const committed = new Map(baseline.trials.map((trial) => [slotOf(trial), trial.resolved]));
  const outcomes = pairOutcomes(
    all.map((trial) => trial.outcome === 'resolved'),
    all.map((trial) => committed.get(slotOf(trial)) === true),
  );
  const { pExact } = mcnemarExact(outcomes.onlyA, outcomes.onlyB);
  const significant = outcomes.onlyB > outcomes.onlyA && pExact < baseline.alpha;
  const failed = dropped && (!requireSignificant || significant);
  const { lower, upper } = wilsonInterval(resolved, all.length);
  return {
    id: 'resolve-rate-all-trials',
    status: failed ? 'fail' : 'pass',
    summary: `${rate} vs ${formatPercent(base)} (${baseResolved}/${baseAll}) in the baseline, ${formatChange(current - base)}; McNemar exact p = ${formatPValue(pExact)}: ${dropped ? (failed ? 'the rate over all trials dropped' : `the drop is not significant at alpha ${baseline.alpha}`) : 'no drop'}`,
    baseline: base,
    current,
    change: current - base,
    threshold: requireSignificant ? baseline.alpha : 0,
    pValue: pExact,
    interval: [lower, upper],
  };
}

function metricCheck(metric: GatedMetric, scored: AbpTrial[], baseline: AbpBaseline, seed: number): GateCheck {
  const label = `median ${metricLabels[metric]}`;
  const threshold = baseline.thresholds[metric];
  const currentValues = scored.flatMap((trial) =>
    trial.outcome === 'resolved' && trial.metrics[metric] !== null ? [trial.metrics[metric]] : [],
  );
  const baselineValues = baseline.trials.flatMap((trial) =>
    trial.resolved && trial[metric] !== null ? [trial[metric]] : [],
  );
  const base = baselineValues.length > 0 ? median(baselineValues) : null;
  const current = currentValues.length > 0 ? median(currentValues) : null;
  const skipped = (why: string): GateCheck => ({
    id: metric,
    status: 'skipped',
    summary: `${label}: ${why}`,
    baseline: base,
    current,
    change: null,
    threshold,
  });
  // A figure left unknown (a trace that lost lines, an unpriced model) drops out of the median: more of them than the
  // baseline had would let an engine leave the measurement it would fail, so that fails the check by itself.
  const resolvedNow = scored.filter((trial) => trial.outcome === 'resolved').length;
  const resolvedBefore = baseline.trials.filter((trial) => trial.resolved).length;
  const unknownNow = resolvedNow - currentValues.length;
  const unknownBefore = resolvedBefore - baselineValues.length;
  if (unknownNow > 0 && unknownNow * resolvedBefore > unknownBefore * resolvedNow)
    return {
      id: metric,
      status: 'fail',
      summary: `${label}: ${unknownNow} of ${resolvedNow} resolved trials have no value (their traces lost lines, reported implausible counts or named an unpriced model), against ${unknownBefore} of ${resolvedBefore} in the baseline: a figure an engine leaves unknown cannot pass`,
      baseline: base,
      current,
      change: null,
      threshold,
    };
  if (base === null)
    return skipped('the baseline has no resolved trial with a value, so there is nothing to grow from');
  if (base === 0) return skipped('the baseline median is 0, so a relative growth is undefined');
  if (current === null)
    return skipped(
      'no resolved trial of the run has a value (the resolve-rate check covers a run that resolves nothing)',
    );

  const change = (current - base) / base;
  const failed = change > threshold;
  const paired = pairedInterval(metric, scored, baseline, seed);
  const check: GateCheck = {
    id: metric,
    status: failed ? 'fail' : 'pass',
    summary:
      `${label} ${formatMetric(metric, current)} vs ${formatMetric(metric, base)} in the baseline, ${formatChange(change)} ` +
      `(allowed ${formatChange(threshold)}): ${failed ? 'grew past the threshold' : 'within the threshold'}; ${paired.note}`,
    baseline: base,
    current,
    change,
    threshold,
  };
  if (paired.interval) check.interval = paired.interval;
  return check;
}

/** Seeded paired bootstrap over the (task, trial) pairs resolved with a value in both; information, not a decision. */
function pairedInterval(
  metric: GatedMetric,
  scored: AbpTrial[],
  baseline: AbpBaseline,
  seed: number,
): { interval?: [number, number]; note: string } {
  const committed = new Map(
    baseline.trials.flatMap((trial) =>
      trial.resolved && trial[metric] !== null ? [[slotOf(trial), trial[metric]] as const] : [],
    ),
  );
  const current: number[] = [];
  const base: number[] = [];
  for (const trial of scored) {
    const value = trial.metrics[metric];
    const committedValue = committed.get(slotOf(trial));
    if (trial.outcome !== 'resolved' || value === null || committedValue === undefined) continue;
    current.push(value);
    base.push(committedValue);
  }
  if (current.length < 2)
    return {
      note: `no paired interval: ${current.length} trial${current.length === 1 ? ' was' : 's were'} resolved in both, 2 needed`,
    };
  try {
    const { bootstrap } = bootstrapRelativeMedianDelta(current, base, { seed: generatorSeed(seed) });
    return {
      interval: [bootstrap[0], bootstrap[1]],
      note: `paired bootstrap 95% ${formatInterval(bootstrap, formatChange)} over ${current.length} trials resolved in both, seed ${seed}`,
    };
  } catch (error) {
    if (error instanceof StatsError && intervalUnavailable.has(error.code))
      return { note: `no paired interval: ${error.message}` };
    throw error;
  }
}

function slotOf(trial: { task: string; trial: number }): string {
  return `${trial.task}\n${trial.trial}`;
}

// The bootstrap resamples by index, so pairs go in a fixed order that does not depend on the run's schedule.
function bySlot(a: AbpTrial, b: AbpTrial): number {
  return compareCodeUnits(a.task, b.task) || a.trial - b.trial;
}
