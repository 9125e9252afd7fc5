// The abp-verdict/v1 report (spec §8): per-engine rates with their intervals, overall and per difficulty band of the
// task set (§4.5), pairwise tests, and the receipts behind them.
import { z } from 'zod';
import {
  DIFFICULTY_MEASURES,
  DIFFICULTY_METHOD,
  difficultyBands,
  SIZED_BANDS,
  UNKNOWN_BAND,
  type DifficultyMeasure,
} from './difficulty-bands.js';
import {
  compareCodeUnits,
  describeValue,
  documentId,
  duplicateIndices,
  nonNegativeInt,
  probability,
  relativePath,
  seed,
} from './primitives.js';

export const VERDICT_SCHEMA_ID = 'abp-verdict/v1';

const interval = (bound: z.ZodNumber) => z.tuple([bound, bound]);
const show = (pair: readonly number[]) => `[${pair.join(', ')}]`;

const resolveRate = z
  .strictObject({
    point: probability,
    wilson95: interval(probability).describe('Wilson 95% interval [lo, hi]; it contains point (spec §3.3).'),
  })
  .superRefine((rate, ctx) => {
    const [lo, hi] = rate.wilson95;
    if (lo > hi)
      ctx.addIssue({
        code: 'custom',
        path: ['wilson95'],
        message: `must be ordered [lo, hi] with lo <= hi, got ${show(rate.wilson95)}`,
      });
    else if (rate.point < lo || rate.point > hi) {
      ctx.addIssue({
        code: 'custom',
        path: ['wilson95'],
        message: `must contain the point estimate ${rate.point}, got ${show(rate.wilson95)} (need 0 <= lo <= point <= hi <= 1)`,
      });
    }
  });

// Medians are null when the engine has nothing to take a median of (no scored or no resolved trials).
const median = z.number().nonnegative().nullable();

const bandName = z.enum([...SIZED_BANDS, UNKNOWN_BAND]);

const bandRate = z
  .strictObject({
    band: bandName,
    scoredTrials: nonNegativeInt,
    resolvedTrials: nonNegativeInt,
    resolveRate: resolveRate
      .nullable()
      .describe('resolved / scored trials of the tasks in the band, Wilson 95%; null when none was scored.'),
  })
  .superRefine((rate, ctx) => {
    if (rate.resolvedTrials > rate.scoredTrials)
      ctx.addIssue({
        code: 'custom',
        path: ['resolvedTrials'],
        message: `must not exceed scoredTrials (${rate.scoredTrials}), got ${rate.resolvedTrials}`,
      });
    if ((rate.scoredTrials === 0) !== (rate.resolveRate === null))
      ctx.addIssue({
        code: 'custom',
        path: ['resolveRate'],
        message:
          rate.scoredTrials === 0
            ? 'must be null when scoredTrials is 0'
            : `is required: the band has ${rate.scoredTrials} scored trials`,
      });
  });

const byDifficulty = z
  .strictObject(
    Object.fromEntries(DIFFICULTY_MEASURES.map((measure) => [measure, z.array(bandRate)])) as Record<
      DifficultyMeasure,
      z.ZodArray<typeof bandRate>
    >,
  )
  .describe("The engine's resolve rate in each band of verdict.difficulty, in the same order (spec §4.5).");

const engineResult = z
  .strictObject({
    engine: documentId,
    scoredTrials: nonNegativeInt,
    excludedEngineErrors: nonNegativeInt.describe(
      'Trials the engine could not be invoked for: excluded, not losses (spec §3.4).',
    ),
    resolveRate: resolveRate
      .nullable()
      .describe('Null exactly when scoredTrials is 0: a rate of nothing has no interval.'),
    medianDiffBytesNormalized: median,
    medianTokensTotal: median,
    medianWallClockMs: median,
    medianComputedUsd: median,
    // Extensions beyond the spec's example, optional so other harnesses' verdicts stay valid.
    resolvedTrials: nonNegativeInt.optional(),
    disqualifiedTrials: nonNegativeInt
      .optional()
      .describe('Deleted or weakened tests: scored as not resolved (spec §4.5).'),
    excludedHarnessErrors: nonNegativeInt
      .optional()
      .describe('Trials the grader failed around the engine: excluded and reported (spec §3.4).'),
    unsupportedTrials: nonNegativeInt
      .optional()
      .describe('Trials needing a capability the adapter does not declare; reported apart from success.'),
    verifiedRateExecuted: resolveRate
      .nullable()
      .optional()
      .describe('resolved / scored trials: unsupported trials left out.'),
    verifiedRateAllTrials: resolveRate
      .nullable()
      .optional()
      .describe('resolved / (scored + unsupported) trials: unsupported trials count as not verified.'),
    byDifficulty: byDifficulty.optional(),
  })
  .superRefine((result, ctx) => {
    if (result.scoredTrials === 0 && result.resolveRate !== null)
      ctx.addIssue({ code: 'custom', path: ['resolveRate'], message: 'must be null when scoredTrials is 0' });
    if (result.scoredTrials > 0 && result.resolveRate === null)
      ctx.addIssue({
        code: 'custom',
        path: ['resolveRate'],
        message: `is required: the engine has ${result.scoredTrials} scored trials`,
      });
  });

// A relative change of a non-negative quantity cannot fall below -1 (that would be a negative diff size).
const relativeChange = z.number().min(-1);

const metricDelta = z
  .strictObject({
    relMedian: relativeChange,
    bootstrap95: interval(relativeChange),
    seed,
  })
  .superRefine((delta, ctx) => {
    const [lo, hi] = delta.bootstrap95;
    if (lo > hi)
      ctx.addIssue({
        code: 'custom',
        path: ['bootstrap95'],
        message: `must be ordered [lo, hi] with lo <= hi, got ${show(delta.bootstrap95)}`,
      });
  });

const goldenSize = nonNegativeInt.nullable();

const bands = z.strictObject({
  edges: z
    .array(nonNegativeInt)
    .describe(
      'Inclusive upper edges of the small and medium bands: the nearest-rank terciles of the known sizes; empty when none is known.',
    ),
  bands: z.array(
    z.strictObject({
      band: bandName,
      range: z.tuple([nonNegativeInt, nonNegativeInt]).nullable().describe('Smallest and largest size in the band.'),
      tasks: z.array(documentId),
    }),
  ),
});

const difficulty = z
  .strictObject({
    method: z.literal(DIFFICULTY_METHOD),
    tasks: z
      .array(
        z.strictObject({
          task: documentId,
          diffBytesNormalized: goldenSize,
          filesTouched: goldenSize,
        }),
      )
      .describe("Every task of the run with its golden fix's size (abp-task/v1 golden); null for tasks without one."),
    ...(Object.fromEntries(DIFFICULTY_MEASURES.map((measure) => [measure, bands])) as Record<
      DifficultyMeasure,
      typeof bands
    >),
  })
  .superRefine((value, ctx) => {
    value.tasks.forEach((entry, index) => {
      const previous = value.tasks[index - 1];
      if (previous !== undefined && compareCodeUnits(previous.task, entry.task) >= 0)
        ctx.addIssue({
          code: 'custom',
          path: ['tasks', index, 'task'],
          message: `must come after ${describeValue(previous.task)}: tasks are listed once each, in code-unit order`,
        });
      if ((entry.diffBytesNormalized === null) !== (entry.filesTouched === null))
        ctx.addIssue({
          code: 'custom',
          path: ['tasks', index],
          message: 'must give both golden sizes or neither: a task has a golden fix or it does not',
        });
    });
    // The bands are recomputed from the recorded sizes: a verdict cannot claim bands its own tasks do not give.
    for (const measure of DIFFICULTY_MEASURES) {
      const expected = difficultyBands(value.tasks.map((entry) => ({ task: entry.task, size: entry[measure] })));
      if (JSON.stringify({ edges: value[measure].edges, bands: value[measure].bands }) !== JSON.stringify(expected))
        ctx.addIssue({
          code: 'custom',
          path: [measure],
          message: `does not follow ${DIFFICULTY_METHOD} on the recorded task sizes, which give edges ${show(expected.edges)} and bands ${expected.bands.map((band) => `${band.band} (${band.tasks.length})`).join(', ')}`,
        });
    }
  })
  .describe(
    "Difficulty strata fixed by the task set: its tasks cut into bands by each golden size (spec §4.5); each engine's rate per band is in perEngine[].byDifficulty.",
  );

const pairwise = z.strictObject({
  a: documentId,
  b: documentId,
  mcnemar: z.strictObject({
    discordant: z
      .tuple([nonNegativeInt, nonNegativeInt])
      .describe('[a resolved and b not, b resolved and a not] over paired trials.'),
    pExact: probability.describe('Exact two-sided McNemar p-value (spec §3.3).'),
  }),
  diffDelta: metricDelta
    .nullable()
    .describe(
      'Relative change of the median normalized diff, a against b, with a seeded bootstrap interval; null when no task was resolved by both.',
    ),
  pairedTrials: nonNegativeInt.optional().describe('Trials scored for both engines: the pairs McNemar counts over.'),
  tokensDelta: metricDelta.nullable().optional(),
  wallClockDelta: metricDelta.nullable().optional(),
  costDelta: metricDelta.nullable().optional(),
});

export const verdictSchema = z
  .strictObject({
    schema: z.literal(VERDICT_SCHEMA_ID),
    run: documentId,
    perEngine: z.array(engineResult).min(1, 'must report at least one engine'),
    pairwise: z.array(pairwise),
    matchedModels: z
      .boolean()
      .optional()
      .describe('Copied from the run: false means no engine-vs-engine conclusion may be drawn (spec §7).'),
    difficulty: difficulty.optional(),
    warnings: z
      .array(z.string())
      .optional()
      .describe('What a reader must see first: mismatched models, small samples, flagged traces.'),
    receipts: z
      .strictObject({
        trials: relativePath,
        transcripts: relativePath,
        diffs: relativePath,
        traces: relativePath.optional(),
      })
      .describe(
        'Where the evidence lives, relative to the verdict (spec §3.5); traces are required only for ABP-traces conformance.',
      ),
  })
  .superRefine((verdict, ctx) => {
    for (const { index, first } of duplicateIndices(verdict.perEngine, (result) => result.engine)) {
      ctx.addIssue({
        code: 'custom',
        path: ['perEngine', index, 'engine'],
        message: `engine ${describeValue(verdict.perEngine[index]?.engine)} is already reported at perEngine[${first}]`,
      });
    }
    const engines = new Set(verdict.perEngine.map((result) => result.engine));
    verdict.pairwise.forEach((pair, index) => {
      for (const side of ['a', 'b'] as const) {
        if (!engines.has(pair[side])) {
          ctx.addIssue({
            code: 'custom',
            path: ['pairwise', index, side],
            message: `names engine ${describeValue(pair[side])}, which perEngine does not report; known: ${[...engines].join(', ')}`,
          });
        }
      }
      if (pair.a === pair.b)
        ctx.addIssue({
          code: 'custom',
          path: ['pairwise', index, 'b'],
          message: 'must differ from a: an engine is not compared with itself',
        });
    });
    checkStrata(verdict, ctx);
    for (const { index, first } of duplicateIndices(verdict.pairwise, (pair) => [pair.a, pair.b].sort().join('\n'))) {
      ctx.addIssue({
        code: 'custom',
        path: ['pairwise', index],
        message: `compares the same two engines as pairwise[${first}]`,
      });
    }
  })
  .describe(
    'An ABP verdict: per-engine results with their uncertainty and pairwise comparisons, never a blended score (spec §8).',
  );

export type AbpVerdict = z.infer<typeof verdictSchema>;

type VerdictShape = {
  perEngine: Array<z.infer<typeof engineResult>>;
  difficulty?: z.infer<typeof difficulty> | undefined;
};

/**
 * Each engine's strata name the verdict's bands, in order, and add up to its totals: every scored trial is in exactly
 * one band of each measure. Both or neither: strata without the bands they refer to cannot be read.
 */
function checkStrata(verdict: VerdictShape, ctx: z.core.$RefinementCtx<unknown>): void {
  verdict.perEngine.forEach((result, index) => {
    const strata = result.byDifficulty;
    if (verdict.difficulty === undefined) {
      if (strata !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['perEngine', index, 'byDifficulty'],
          message: 'needs the bands it refers to: the verdict has no difficulty block',
        });
      return;
    }
    if (strata === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['perEngine', index, 'byDifficulty'],
        message: 'is required: the verdict defines difficulty bands, and every engine reports its rate in each',
      });
      return;
    }
    for (const measure of DIFFICULTY_MEASURES) {
      const names = verdict.difficulty[measure].bands.map((band) => band.band);
      const given = strata[measure].map((rate) => rate.band);
      if (given.join() !== names.join())
        ctx.addIssue({
          code: 'custom',
          path: ['perEngine', index, 'byDifficulty', measure],
          message: `must give the bands [${names.join(', ')}] in that order, got [${given.join(', ')}]`,
        });
      const sum = (key: 'scoredTrials' | 'resolvedTrials') =>
        strata[measure].reduce((total, rate) => total + rate[key], 0);
      if (sum('scoredTrials') !== result.scoredTrials)
        ctx.addIssue({
          code: 'custom',
          path: ['perEngine', index, 'byDifficulty', measure],
          message: `holds ${sum('scoredTrials')} scored trials in all, but the engine has ${result.scoredTrials}`,
        });
      if (result.resolvedTrials !== undefined && sum('resolvedTrials') !== result.resolvedTrials)
        ctx.addIssue({
          code: 'custom',
          path: ['perEngine', index, 'byDifficulty', measure],
          message: `holds ${sum('resolvedTrials')} resolved trials in all, but the engine has ${result.resolvedTrials}`,
        });
    }
  });
}
