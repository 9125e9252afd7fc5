// Builds abp-verdict/v1 from a run's trial records: per-engine rates with Wilson intervals, the same rates per difficulty
// band of the task set, exact McNemar on paired outcomes, seeded paired bootstrap intervals of each efficiency metric
// (spec §3.3, §4.5, §8). Data in, data out: no I/O, and the same trials give the same verdict byte for byte (only
// wall-clock figures vary between runs).
import type { AbpRun } from '@abp/protocol/schemas/abp-run';
import { scoredOutcomes, type AbpTrial } from '@abp/protocol/schemas/abp-trial';
import { VERDICT_SCHEMA_ID, type AbpVerdict } from '@abp/protocol/schemas/abp-verdict';
import {
  bandOf,
  DIFFICULTY_MEASURES,
  DIFFICULTY_METHOD,
  difficultyBands,
  type DifficultyMeasure,
} from '@abp/protocol/schemas/difficulty-bands';
import { compareCodeUnits } from '@abp/protocol/schemas/primitives';
import { bootstrapRelativeMedianDelta, mcnemarExact, median, StatsError, wilsonInterval } from '../stats/index.js';
import { generatorSeed } from './schedule.js';

type Metric = keyof AbpTrial['metrics'];
type EngineResult = AbpVerdict['perEngine'][number];
type Difficulty = NonNullable<AbpVerdict['difficulty']>;
type Strata = NonNullable<EngineResult['byDifficulty']>;
type Pairwise = AbpVerdict['pairwise'][number];
type Delta = NonNullable<Pairwise['diffDelta']>;

/** A task's golden fix size (abp-task/v1 `golden`); null for a task without one (a fixture). */
export type GoldenSize = { diffBytesNormalized: number; filesTouched: number } | null;

export interface VerdictInputs {
  /** What the verdict must lead with, after the matched-models warning. */
  warnings?: readonly string[];
  /** Each task's golden size by task id; a task of the run left out counts as one without. */
  goldenSizes?: ReadonlyMap<string, GoldenSize>;
}

/** Below this many scored trials a rate is reported with a small-sample warning (harness spec). */
export const SMALL_SAMPLE = 30;
const BOOTSTRAP_RESAMPLES = 10_000;

// Rounded so a verdict reads cleanly and survives any JSON round trip identically.
const round = (value: number, digits = 6) => Number(value.toFixed(digits));

function rate(successes: number, trials: number): { point: number; wilson95: [number, number] } | null {
  if (trials === 0) return null;
  const interval = wilsonInterval(successes, trials);
  return { point: round(successes / trials), wilson95: [round(interval.lower), round(interval.upper)] };
}

function medianOf(trials: readonly AbpTrial[], metric: Metric): number | null {
  const values = trials.map((trial) => trial.metrics[metric]).filter((value): value is number => value !== null);
  return values.length === 0 ? null : round(median(values));
}

/** The task set's bands: every task of the run (and of any trial) with its golden sizes, in code-unit order. */
function difficultyOf(run: AbpRun, trials: readonly AbpTrial[], sizes: ReadonlyMap<string, GoldenSize>): Difficulty {
  const ids = [...new Set([...run.tasks, ...trials.map((trial) => trial.task)])].sort(compareCodeUnits);
  const tasks = ids.map((task) => {
    const size = sizes.get(task) ?? null;
    return {
      task,
      diffBytesNormalized: size?.diffBytesNormalized ?? null,
      filesTouched: size?.filesTouched ?? null,
    };
  });
  const bandsOf = (measure: DifficultyMeasure) =>
    difficultyBands(tasks.map((entry) => ({ task: entry.task, size: entry[measure] })));
  return {
    method: DIFFICULTY_METHOD,
    tasks,
    diffBytesNormalized: bandsOf('diffBytesNormalized'),
    filesTouched: bandsOf('filesTouched'),
  };
}

/** An engine's scored trials split by the band of their task, with the same Wilson rate as its overall one. */
function strataOf(scored: readonly AbpTrial[], difficulty: Difficulty): Strata {
  const sizeOf = new Map(difficulty.tasks.map((entry) => [entry.task, entry]));
  const ratesOf = (measure: DifficultyMeasure) =>
    difficulty[measure].bands.map(({ band }) => {
      const inBand = scored.filter(
        (trial) => bandOf(difficulty[measure].edges, sizeOf.get(trial.task)?.[measure] ?? null) === band,
      );
      const resolved = inBand.filter((trial) => trial.outcome === 'resolved').length;
      return {
        band,
        scoredTrials: inBand.length,
        resolvedTrials: resolved,
        resolveRate: rate(resolved, inBand.length),
      };
    });
  return Object.fromEntries(DIFFICULTY_MEASURES.map((measure) => [measure, ratesOf(measure)])) as Strata;
}

function engineResult(engine: string, trials: readonly AbpTrial[], difficulty: Difficulty): EngineResult {
  const count = (outcome: AbpTrial['outcome']) => trials.filter((trial) => trial.outcome === outcome).length;
  const scored = trials.filter((trial) => scoredOutcomes.has(trial.outcome));
  const resolved = scored.filter((trial) => trial.outcome === 'resolved');
  const unsupported = count('unsupported');
  const resolveRate = rate(resolved.length, scored.length);
  return {
    engine,
    scoredTrials: scored.length,
    excludedEngineErrors: count('engine-error'),
    resolveRate,
    // Efficiency ranks only engines that passed: medians over resolved trials (spec §4.3).
    medianDiffBytesNormalized: medianOf(resolved, 'diffBytesNormalized'),
    medianTokensTotal: medianOf(resolved, 'tokensTotal'),
    medianWallClockMs: medianOf(resolved, 'wallClockMs'),
    medianComputedUsd: medianOf(resolved, 'computedUsd'),
    resolvedTrials: resolved.length,
    disqualifiedTrials: count('disqualified'),
    excludedHarnessErrors: count('harness-error'),
    unsupportedTrials: unsupported,
    verifiedRateExecuted: resolveRate,
    verifiedRateAllTrials: rate(resolved.length, scored.length + unsupported),
    byDifficulty: strataOf(scored, difficulty),
  };
}

const pairKey = (trial: AbpTrial) => `${trial.task}\n${trial.trial}`;

function delta(a: number[], b: number[], seed: number): Delta | null {
  if (a.length === 0) return null;
  try {
    const result = bootstrapRelativeMedianDelta(a, b, { seed: generatorSeed(seed), resamples: BOOTSTRAP_RESAMPLES });
    return {
      relMedian: round(result.relMedian),
      bootstrap95: [round(result.bootstrap[0]), round(result.bootstrap[1])],
      seed,
    };
  } catch (error) {
    // A zero median (an engine that spent no tokens, a free model) has no relative change: report none rather than guess.
    if (
      error instanceof StatsError &&
      (error.code === 'zero-baseline-median' || error.code === 'zero-baseline-median-in-resample')
    )
      return null;
    throw error;
  }
}

function pairwise(a: string, b: string, byEngine: ReadonlyMap<string, AbpTrial[]>, seed: number): Pairwise {
  const scoredOf = (engine: string) =>
    new Map(
      (byEngine.get(engine) ?? [])
        .filter((trial) => scoredOutcomes.has(trial.outcome))
        .map((trial) => [pairKey(trial), trial]),
    );
  const left = scoredOf(a);
  const right = scoredOf(b);
  const pairs = [...left.entries()].flatMap(([key, trial]) => {
    const other = right.get(key);
    return other ? [[trial, other] as const] : [];
  });
  const aOnly = pairs.filter(([x, y]) => x.outcome === 'resolved' && y.outcome !== 'resolved').length;
  const bOnly = pairs.filter(([x, y]) => x.outcome !== 'resolved' && y.outcome === 'resolved').length;
  const bothResolved = pairs.filter(([x, y]) => x.outcome === 'resolved' && y.outcome === 'resolved');
  const metricDelta = (metric: Metric) => {
    const complete = bothResolved.filter(([x, y]) => x.metrics[metric] !== null && y.metrics[metric] !== null);
    return delta(
      complete.map(([x]) => x.metrics[metric] ?? 0),
      complete.map(([, y]) => y.metrics[metric] ?? 0),
      seed,
    );
  };
  return {
    a,
    b,
    mcnemar: { discordant: [aOnly, bOnly], pExact: round(mcnemarExact(aOnly, bOnly).pExact, 9) },
    diffDelta: metricDelta('diffBytesNormalized'),
    pairedTrials: pairs.length,
    tokensDelta: metricDelta('tokensTotal'),
    wallClockDelta: metricDelta('wallClockMs'),
    costDelta: metricDelta('computedUsd'),
  };
}

// What a flag means for the comparison, where a reader could not guess it from the flag alone.
const flagMeanings: ReadonlyMap<string, string> = new Map([
  ['tokens-unknown', 'tokens and cost unknown, left out of the token and cost medians and deltas'],
  ['budget-unchecked', 'cost not measured, so budgetUsd was not checked'],
]);

/** What kept an engine's trials from being scored, by outcome: "3 engine errors, 1 harness error, 0 unsupported". */
export function describeExclusions(result: EngineResult): string {
  const counted = (count: number, what: string) => `${count} ${what}${count === 1 ? '' : 's'}`;
  return [
    counted(result.excludedEngineErrors, 'engine error'),
    counted(result.excludedHarnessErrors ?? 0, 'harness error'),
    `${result.unsupportedTrials ?? 0} unsupported`,
  ].join(', ');
}

function warnings(
  run: AbpRun,
  perEngine: readonly EngineResult[],
  trials: readonly AbpTrial[],
  extra: readonly string[],
): string[] {
  const list: string[] = [];
  if (!run.matchedModels)
    list.push(
      'matchedModels is false: engines ran different or unconfirmed models, so this run cannot back engine-vs-engine conclusions (spec §7)',
    );
  list.push(...extra);
  for (const result of perEngine) {
    // Not a small sample but none at all: said as such, since `abp run` fails when no engine has one (cli/run.ts).
    if (result.scoredTrials === 0)
      list.push(
        `${result.engine}: no trial could be scored, so it has no resolve rate and takes no part in any comparison; ${describeExclusions(result)}`,
      );
    else if (result.scoredTrials < SMALL_SAMPLE)
      list.push(
        `${result.engine}: ${result.scoredTrials} scored trials is a small sample; read the intervals, not the points`,
      );
    if (result.excludedEngineErrors > 0)
      list.push(
        `${result.engine}: ${result.excludedEngineErrors} trials were engine errors, excluded from the comparison`,
      );
    if ((result.excludedHarnessErrors ?? 0) > 0)
      list.push(
        `${result.engine}: ${result.excludedHarnessErrors ?? 0} trials were harness errors, excluded and reported`,
      );
  }
  const byKey = ([x]: [string, number], [y]: [string, number]) => (x < y ? -1 : x > y ? 1 : 0);
  const flagged = new Map<string, number>();
  for (const trial of trials)
    for (const flag of trial.trace?.flags ?? [])
      flagged.set(`${trial.engine}: ${flag}`, (flagged.get(`${trial.engine}: ${flag}`) ?? 0) + 1);
  for (const [key, count] of [...flagged.entries()].sort(byKey)) {
    const meaning = flagMeanings.get(key.slice(key.indexOf(': ') + 2));
    list.push(`${key} in ${count} trace${count === 1 ? '' : 's'}${meaning === undefined ? '' : `: ${meaning}`}`);
  }
  // Named apart from the flag: the price table needs the model, and the reader needs to know which one.
  const unpriced = new Map<string, number>();
  for (const trial of trials)
    for (const model of trial.trace?.unpricedModels ?? [])
      unpriced.set(`${trial.engine}: model ${model}`, (unpriced.get(`${trial.engine}: model ${model}`) ?? 0) + 1);
  for (const [key, count] of [...unpriced.entries()].sort(byKey))
    list.push(
      `${key} has no price in the price table (${count} trial${count === 1 ? '' : 's'}): cost unknown, budget unchecked, not ranked on cost`,
    );
  return list;
}

export function buildVerdict(
  run: AbpRun & { id: string },
  trials: readonly AbpTrial[],
  inputs: VerdictInputs = {},
): AbpVerdict {
  const byEngine = new Map(run.engines.map((engine) => [engine.name, [] as AbpTrial[]]));
  for (const trial of [...trials].sort((x, y) => x.order - y.order)) byEngine.get(trial.engine)?.push(trial);
  const difficulty = difficultyOf(run, trials, inputs.goldenSizes ?? new Map());
  const perEngine = run.engines.map((engine) => engineResult(engine.name, byEngine.get(engine.name) ?? [], difficulty));
  const pairs: Pairwise[] = [];
  run.engines.forEach((a, i) =>
    run.engines.slice(i + 1).forEach((b) => pairs.push(pairwise(a.name, b.name, byEngine, run.seed))),
  );
  return {
    schema: VERDICT_SCHEMA_ID,
    run: run.id,
    perEngine,
    pairwise: pairs,
    matchedModels: run.matchedModels,
    difficulty,
    warnings: warnings(run, perEngine, trials, inputs.warnings ?? []),
    receipts: { trials: 'trials/', transcripts: 'transcripts/', diffs: 'diffs/', traces: 'traces/' },
  };
}
