// The abp-baseline/v1 file `abp gate` compares a run against: one engine's scored trials on a fixed task set,
// committed with the thresholds that say how much median growth a pull request may bring (spec §10).
import { z } from 'zod';
import {
  describeValue,
  documentId,
  duplicateIndices,
  modelId,
  nonNegativeInt,
  probability,
  sha256Digest,
  usd,
} from './primitives.js';

export const BASELINE_SCHEMA_ID = 'abp-baseline/v1';

/** The efficiency metrics the gate watches, in the spec's tie-break order (spec §4.3). */
export const gatedMetrics = ['diffBytesNormalized', 'tokensTotal', 'wallClockMs', 'computedUsd'] as const;
export type GatedMetric = (typeof gatedMetrics)[number];

const growth = z.number().nonnegative().describe('Largest allowed relative growth of the median, e.g. 0.1 for +10 %.');

export const defaultGateThresholds: Record<GatedMetric, number> = {
  diffBytesNormalized: 0.25,
  tokensTotal: 0.15,
  wallClockMs: 0.5,
  computedUsd: 0.15,
};

export const baselineSchema = z
  .strictObject({
    schema: z.literal(BASELINE_SCHEMA_ID),
    engine: documentId.describe(
      'The engine this baseline gates; a run is compared on its trials of the same engine name.',
    ),
    model: modelId,
    run: documentId.describe('The run the baseline was taken from.'),
    tasks: z
      .array(z.strictObject({ id: documentId, digest: sha256Digest }))
      .min(1)
      .describe('The task set, sorted by id; the gate refuses a run on a different set.'),
    trials: z
      .array(
        z.strictObject({
          task: documentId,
          trial: nonNegativeInt,
          resolved: z.boolean(),
          diffBytesNormalized: nonNegativeInt.nullable(),
          tokensTotal: nonNegativeInt.nullable(),
          wallClockMs: nonNegativeInt.nullable(),
          computedUsd: usd.nullable(),
        }),
      )
      .describe("The engine's scored trials (engine and harness errors excluded), sorted by task then trial."),
    allTrials: nonNegativeInt
      .nullable()
      .default(null)
      .describe(
        "Every trial of the engine in the run, excluded ones too: the all-trials rate's denominator, so excluding trials cannot raise a rate; null in baselines taken before it was recorded.",
      ),
    thresholds: z.strictObject({
      diffBytesNormalized: growth,
      tokensTotal: growth,
      wallClockMs: growth,
      computedUsd: growth,
    }),
    alpha: probability.default(0.05).describe('Significance level of the McNemar test behind --require-significant.'),
  })
  .superRefine((baseline, ctx) => {
    for (const { index, first } of duplicateIndices(baseline.tasks, (task) => task.id)) {
      ctx.addIssue({
        code: 'custom',
        path: ['tasks', index, 'id'],
        message: `repeats tasks[${first}] ${describeValue(baseline.tasks[index]?.id)}`,
      });
    }
    const taskIds = new Set(baseline.tasks.map((task) => task.id));
    baseline.trials.forEach((trial, index) => {
      if (!taskIds.has(trial.task))
        ctx.addIssue({
          code: 'custom',
          path: ['trials', index, 'task'],
          message: `names task ${describeValue(trial.task)}, which is not in tasks`,
        });
    });
    for (const { index, first } of duplicateIndices(baseline.trials, (trial) => `${trial.task}\n${trial.trial}`)) {
      ctx.addIssue({
        code: 'custom',
        path: ['trials', index],
        message: `repeats trials[${first}] (same task and trial)`,
      });
    }
  })
  .describe(
    'A committed baseline for `abp gate`: one engine, its task set, its scored trials and the allowed growth of each median.',
  );

export type AbpBaseline = z.infer<typeof baselineSchema>;
