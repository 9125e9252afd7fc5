// The last check before a trial is written. A record that fails abp-trial/v1 would stop the verdict, the report and the
// gate for every engine of the run, so it is written as a harness-error of its own instead (invalid-trial-record): what
// identifies it is kept, with every part of it that is still valid, and the first issue says what was wrong.
import type { z } from 'zod';
import { trialSchema, type AbpTrial } from '@abp/protocol/schemas/abp-trial';
import { locateIssues } from '@abp/protocol/schemas/issues';
import { formatJsonPath } from '@abp/protocol/schemas/json-text';
import { RunError } from './errors.js';

const parts = trialSchema.shape;
const noMetrics: AbpTrial['metrics'] = {
  diffBytesNormalized: null,
  tokensTotal: null,
  wallClockMs: null,
  computedUsd: null,
};

/** The trial as given when it is a valid abp-trial/v1 record; otherwise the harness-error that replaces it. */
export function checkedTrialRecord(trial: AbpTrial, now: () => Date): AbpTrial {
  // zod's default messages quote no values, so the detail cannot carry what the record held.
  const parsed = trialSchema.safeParse(trial);
  if (parsed.success) return trial;
  const [first] = locateIssues(parsed.error.issues);
  const kept = <T>(schema: z.ZodType<T>, value: unknown, fallback: T): T => {
    const part = schema.safeParse(value);
    return part.success ? part.data : fallback;
  };
  const at = now().toISOString();
  const replacement: AbpTrial = {
    schema: trial.schema,
    trialId: trial.trialId,
    task: trial.task,
    taskDigest: trial.taskDigest,
    engine: trial.engine,
    trial: trial.trial,
    order: trial.order,
    outcome: 'harness-error',
    reason: 'invalid-trial-record',
    detail:
      first === undefined
        ? 'the trial record does not match abp-trial/v1'
        : `the trial record does not match abp-trial/v1 at ${formatJsonPath(first.path)}: ${first.message}`,
    engineProcess: kept(parts.engineProcess, trial.engineProcess, null),
    diff: kept(parts.diff, trial.diff, null),
    verification: kept(parts.verification, trial.verification, null),
    metrics: kept(parts.metrics, trial.metrics, noMetrics),
    trace: kept(parts.trace, trial.trace, null),
    receipts: kept(parts.receipts, trial.receipts, {
      stdout: null,
      stderr: null,
      diff: null,
      trace: null,
      verificationLog: null,
    }),
    timing: kept(parts.timing, trial.timing, { startedAt: at, finishedAt: at, harnessOverheadMs: 0 }),
  };
  const again = trialSchema.safeParse(replacement);
  // Only the schedule's own fields are left unchecked above: a failure here is a grader bug, not an engine's doing.
  if (!again.success)
    throw new RunError(
      'invalid-trial-record',
      `trial ${trial.trialId}: even its harness-error record fails abp-trial/v1 (${again.error.issues.map((issue) => formatJsonPath(issue.path)).join(', ')})`,
    );
  return replacement;
}
