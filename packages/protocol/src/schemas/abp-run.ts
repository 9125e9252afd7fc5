// The abp-run/v1 configuration (spec §7): what a harness pins and writes down before the first trial.
import { z } from 'zod';
import {
  command,
  describeValue,
  documentId,
  duplicateIndices,
  engineVersion,
  modelId,
  positiveInt,
  seed,
} from './primitives.js';

export const RUN_SCHEMA_ID = 'abp-run/v1';

/** Trial orderings: abba counterbalances drift between engines, shuffled is seeded by `seed`, sequential runs engine by engine. */
export const trialOrderings = ['abba', 'shuffled', 'sequential'] as const;

const engine = z.strictObject({
  // Verdicts name engines by this alone; compare two versions of one engine under two names (e.g. "oxagen-next").
  name: documentId,
  version: engineVersion,
  model: modelId
    .optional()
    .describe("Only when this engine runs a model other than the run's; then matchedModels is false."),
});

// The fields a harness fills in itself: a config may omit them (`abp run` computes and stamps them) but the written manifest has them.
const harnessStamped = {
  id: documentId.optional().describe('The run id that verdicts refer to.'),
  matchedModels: z
    .boolean()
    .describe('False when engines ran different models: such runs cannot back engine-vs-engine claims (spec §3.1).'),
  host: z.strictObject({
    os: z.string().regex(/^[a-z0-9_]+$/, {
      error: (issue) => `must be a platform name such as "linux" or "darwin", got ${describeValue(issue.input)}`,
    }),
    arch: z.string().regex(/^[a-z0-9_]+$/, {
      error: (issue) => `must be an architecture such as "arm64" or "x64", got ${describeValue(issue.input)}`,
    }),
    containerized: z.boolean(),
  }),
  reproduce: command.describe('The one-line command that reruns this configuration (spec §3.5).'),
};

const pinned = {
  schema: z.literal(RUN_SCHEMA_ID),
  engines: z.array(engine).min(1, 'must list at least one engine'),
  model: modelId,
  budgetUsd: z.number().positive(),
  timeoutSeconds: positiveInt,
  trials: positiveInt,
  ordering: z.enum(trialOrderings),
  seed,
  tasks: z.array(documentId).min(1, 'must list at least one task id'),
};

function checkRun(
  run: { engines: Array<z.infer<typeof engine>>; tasks: string[]; model: string; matchedModels?: boolean | undefined },
  ctx: z.core.$RefinementCtx,
) {
  for (const { index, first } of duplicateIndices(run.engines, (entry) => entry.name)) {
    ctx.addIssue({
      code: 'custom',
      path: ['engines', index, 'name'],
      message: `engine name ${describeValue(run.engines[index]?.name)} is already used by engines[${first}]; verdicts name engines by name alone`,
    });
  }
  for (const { index, first } of duplicateIndices(run.tasks)) {
    ctx.addIssue({
      code: 'custom',
      path: ['tasks', index],
      message: `repeats tasks[${first}]; list each task once and use trials for repetition`,
    });
  }
  // A mismatched run stamped as matched would back claims it cannot (spec §3.1). The converse is allowed: a harness that
  // cannot confirm which model an engine used stamps false conservatively.
  const mismatched = run.engines.findIndex((entry) => entry.model !== undefined && entry.model !== run.model);
  if (run.matchedModels === true && mismatched >= 0) {
    const entry = run.engines[mismatched];
    ctx.addIssue({
      code: 'custom',
      path: ['engines', mismatched, 'model'],
      message: `engine ${describeValue(entry?.name)} runs ${describeValue(entry?.model)}, not the run's model ${describeValue(run.model)}, so matchedModels must be false`,
    });
  }
}

// Keys in the spec's order, which is the order abp writes them in.
const runFields = z.strictObject({
  schema: pinned.schema,
  id: harnessStamped.id,
  engines: pinned.engines,
  model: pinned.model,
  matchedModels: harnessStamped.matchedModels,
  budgetUsd: pinned.budgetUsd,
  timeoutSeconds: pinned.timeoutSeconds,
  trials: pinned.trials,
  ordering: pinned.ordering,
  seed: pinned.seed,
  tasks: pinned.tasks,
  host: harnessStamped.host,
  reproduce: harnessStamped.reproduce,
});

export const runSchema = runFields
  .superRefine(checkRun)
  .describe('An ABP run configuration: engines, pinned model, budget, timeout, trials and tasks (spec §7).');

/**
 * What `abp run --config` reads: the same document, where the fields the harness stamps (id, matchedModels, host,
 * reproduce) may be left out. Given ones are checked against what the harness finds; it never trusts them.
 */
export const runConfigSchema = runFields
  .partial({ matchedModels: true, host: true, reproduce: true })
  .superRefine(checkRun)
  .describe(
    'An abp-run/v1 configuration as written by a person: the harness fills in id, matchedModels, host and reproduce.',
  );

export type AbpRunConfig = z.infer<typeof runConfigSchema>;
export type AbpRun = z.infer<typeof runSchema>;
