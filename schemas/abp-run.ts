// The abp-run/v1 configuration (spec §7): what a harness pins and writes down before the first trial.
import { z } from 'zod';
import { command, describeValue, documentId, duplicateIndices, engineVersion, modelId, positiveInt, seed } from './primitives.js';

export const RUN_SCHEMA_ID = 'abp-run/v1';

/** Trial orderings: abba counterbalances drift between engines, shuffled is seeded by `seed`, sequential runs engine by engine. */
export const trialOrderings = ['abba', 'shuffled', 'sequential'] as const;

const engine = z.strictObject({
  // Verdicts name engines by this alone; compare two versions of one engine under two names (e.g. "oxagen-next").
  name: documentId,
  version: engineVersion,
  model: modelId.optional().describe("Only when this engine runs a model other than the run's; then matchedModels is false."),
});

export const runSchema = z
  .strictObject({
    schema: z.literal(RUN_SCHEMA_ID),
    id: documentId.optional().describe('The run id that verdicts refer to.'),
    engines: z.array(engine).min(1, 'must list at least one engine'),
    model: modelId,
    matchedModels: z.boolean().describe('False when engines ran different models: such runs cannot back engine-vs-engine claims (spec §3.1).'),
    budgetUsd: z.number().positive(),
    timeoutSeconds: positiveInt,
    trials: positiveInt,
    ordering: z.enum(trialOrderings),
    seed,
    tasks: z.array(documentId).min(1, 'must list at least one task id'),
    host: z.strictObject({
      os: z.string().regex(/^[a-z0-9_]+$/, { error: (issue) => `must be a platform name such as "linux" or "darwin", got ${describeValue(issue.input)}` }),
      arch: z.string().regex(/^[a-z0-9_]+$/, { error: (issue) => `must be an architecture such as "arm64" or "x64", got ${describeValue(issue.input)}` }),
      containerized: z.boolean(),
    }),
    reproduce: command.describe('The one-line command that reruns this configuration (spec §3.5).'),
  })
  .superRefine((run, ctx) => {
    for (const { index, first } of duplicateIndices(run.engines, (engine) => engine.name)) {
      ctx.addIssue({ code: 'custom', path: ['engines', index, 'name'], message: `engine name ${describeValue(run.engines[index]?.name)} is already used by engines[${first}]; verdicts name engines by name alone` });
    }
    for (const { index, first } of duplicateIndices(run.tasks)) {
      ctx.addIssue({ code: 'custom', path: ['tasks', index], message: `repeats tasks[${first}]; list each task once and use trials for repetition` });
    }
    // A mismatched run stamped as matched would back claims it cannot (spec §3.1). The converse is allowed: a harness that
    // cannot confirm which model an engine used stamps false conservatively.
    const mismatched = run.engines.findIndex((engine) => engine.model !== undefined && engine.model !== run.model);
    if (run.matchedModels && mismatched >= 0) {
      const engine = run.engines[mismatched];
      ctx.addIssue({
        code: 'custom',
        path: ['engines', mismatched, 'model'],
        message: `engine ${describeValue(engine?.name)} runs ${describeValue(engine?.model)}, not the run's model ${describeValue(run.model)}, so matchedModels must be false`,
      });
    }
  })
  .describe('An ABP run configuration: engines, pinned model, budget, timeout, trials and tasks (spec §7).');

export type AbpRun = z.infer<typeof runSchema>;
