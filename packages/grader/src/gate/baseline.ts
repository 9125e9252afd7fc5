// Owns making an abp-baseline/v1 from a finished run: one engine's scored trials on the run's task set, with the
// thresholds the gate applies later. Pure: the file is written by baseline-file.ts.
import type { z } from 'zod';
import {
  BASELINE_SCHEMA_ID,
  baselineSchema,
  defaultGateThresholds,
  type AbpBaseline,
  type GatedMetric,
} from '@abp/protocol/schemas/abp-baseline';
import { scoredOutcomes } from '@abp/protocol/schemas/abp-trial';
import { locateIssues, plainWordsParseOptions } from '@abp/protocol/schemas/issues';
import { formatJsonPath } from '@abp/protocol/schemas/json-text';
import { compareCodeUnits } from '@abp/protocol/schemas/primitives';
import { assertCompleteRun, runIdOf, type RunResults } from '../results/index.js';
import { GateError } from './errors.js';

export interface BaselineOptions {
  /** Allowed relative growth per metric; the rest keep defaultGateThresholds. */
  thresholds?: Partial<Record<GatedMetric, number>> | undefined;
  /** Significance level for --require-significant; 0.05 when left out. */
  alpha?: number | undefined;
}

/**
 * The baseline of `engine` in a complete run with matched models. Engine and harness errors and unsupported trials
 * are left out (they are not the engine's results, spec §3.4); trials are sorted by task then trial.
 */
export function createBaseline(results: RunResults, engine: string, options: BaselineOptions = {}): AbpBaseline {
  const { run } = results;
  const engines = run.engines.map((entry) => entry.name);
  if (!engines.includes(engine)) {
    throw new GateError(
      'engine-not-in-run',
      `${results.dir}: engine "${engine}" is not in the run, which ran ${engines.join(', ')}: pass --engine with one of those`,
    );
  }
  // Such a run cannot say which model produced the numbers, and a baseline pins one model.
  if (!run.matchedModels) {
    throw new GateError(
      'models-not-matched',
      `${results.dir}: the run is stamped matchedModels: false, so its numbers are not tied to model ${run.model}: take the baseline from a run where every engine ran the same model`,
    );
  }
  assertCompleteRun(results, engine);
  const ofEngine = results.trials.filter((trial) => trial.engine === engine);
  const scored = ofEngine.filter((trial) => scoredOutcomes.has(trial.outcome));
  if (scored.length === 0) {
    throw new GateError(
      'no-scored-trials',
      `${results.dir}: all ${ofEngine.length} trials of engine "${engine}" were excluded (engine error, harness error or unsupported), so there is nothing to gate against: fix the cause shown in trials/ and rerun`,
    );
  }
  return validateBaseline(
    {
      schema: BASELINE_SCHEMA_ID,
      engine,
      model: run.model,
      run: runIdOf(results),
      tasks: results.tasks.map((task) => ({ id: task.id, digest: task.digest })),
      trials: scored
        .map((trial) => ({
          task: trial.task,
          trial: trial.trial,
          resolved: trial.outcome === 'resolved',
          diffBytesNormalized: trial.metrics.diffBytesNormalized,
          tokensTotal: trial.metrics.tokensTotal,
          wallClockMs: trial.metrics.wallClockMs,
          computedUsd: trial.metrics.computedUsd,
        }))
        .sort((a, b) => compareCodeUnits(a.task, b.task) || a.trial - b.trial),
      allTrials: ofEngine.length,
      thresholds: { ...defaultGateThresholds, ...options.thresholds },
      alpha: options.alpha ?? 0.05,
    },
    'the baseline options',
    'pass growth thresholds of 0 or more and an alpha between 0 and 1',
  );
}

/** Checks a value against abp-baseline/v1; `source` names where it came from (a file, or the options), `fix` what to do. */
export function validateBaseline(value: unknown, source: string, fix: string): AbpBaseline {
  const parsed = baselineSchema.safeParse(value, plainWordsParseOptions);
  if (parsed.success) return parsed.data;
  throw new GateError('invalid-baseline', `${source}: ${describeIssues(parsed.error)}; ${fix}`);
}

function describeIssues(error: z.ZodError): string {
  const issues = locateIssues(error.issues);
  const listed = issues.slice(0, 3).map((issue) => `${formatJsonPath(issue.path)}: ${issue.message}`);
  return `${listed.join('; ')}${issues.length > listed.length ? ` (and ${issues.length - listed.length} more)` : ''}`;
}
