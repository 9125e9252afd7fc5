// The gate stage: `abp gate` (grader/gate/) decides whether the run got worse than the baseline, and the no-op engine,
// gated against the same baseline, must be caught. The baseline belongs to the draw in this data directory: a bundle's
// digest covers its manifest, which records when its issue was drawn and the world's base commit, so every operator's
// bundles (and a baseline committed from someone else's run) differ. The first run of a draw takes the baseline from
// its own reference-engine trials (`abp baseline`); every later run of that draw, whose tasks are the same stored
// bundles, is gated against it. Commit it where a CI job grades the same pulled tasks (docs/ci.md).
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createBaseline, evaluateGate, readBaselineFile, writeBaselineFile, type GateReport } from '@abp/grader/gate';
import { readRunResults } from '@abp/grader/results';
import type { AbpBaseline } from '@abp/protocol/schemas/abp-baseline';
import { PipelineError } from './errors.js';
import type { StageReport } from './stage.js';

/**
 * The allowed growth of each median for the main job's engines. Their diff sizes and token counts are exact, so those
 * keep the defaults; their wall clock is mostly a Node process starting, which the load of the machine moves by more
 * than the default +50 %, so a doubling is allowed before it counts as a regression.
 */
export const MAIN_JOB_THRESHOLDS = { wallClockMs: 2 } as const;

export interface GateOutcome {
  baseline: string;
  /** True when this run took the baseline (the draw's first graded run, or its task set changed). */
  baselineTaken: boolean;
  reference: GateReport;
  noop: GateReport;
}

function failedChecks(report: GateReport): string {
  return report.checks
    .filter((check) => check.status === 'fail')
    .map((check) => `${check.id} (${check.summary})`)
    .join('; ');
}

export async function gateRun(
  input: { runDir: string; baselines: string; drawId: string; engine: string; control: string },
  report: StageReport,
): Promise<{ value: GateOutcome; summary: string }> {
  const results = await readRunResults(input.runDir);
  const baselineFile = join(input.baselines, `${input.drawId}.abp-baseline.json`);
  let baseline: AbpBaseline | null = existsSync(baselineFile) ? await readBaselineFile(baselineFile) : null;
  let baselineTaken = false;
  if (baseline !== null) {
    const comparable = evaluateGate({ results, baseline, requireSignificant: false, engine: input.engine });
    if (!comparable.comparable && comparable.reasons.some((reason) => reason.code === 'task-set-differs')) {
      report.note(
        `the task set changed since the baseline (${comparable.refusal ?? ''}): tasks frozen since then join it; the baseline is taken again`,
      );
      baseline = null;
    }
  }
  if (baseline === null) {
    await mkdir(input.baselines, { recursive: true });
    baseline = createBaseline(results, input.engine, { thresholds: MAIN_JOB_THRESHOLDS });
    await writeBaselineFile(baselineFile, baseline);
    baselineTaken = true;
    report.note(
      `baseline taken from this run's ${input.engine} trials (${baseline.trials.length} scored): ${baselineFile}; later runs of ${input.drawId} are gated against it`,
    );
  } else {
    report.note(
      `baseline ${baselineFile} (run ${baseline.run}, ${baseline.trials.length} scored trials of ${baseline.engine})`,
    );
  }

  const reference = evaluateGate({ results, baseline, requireSignificant: false, engine: input.engine });
  for (const check of reference.checks)
    report.note(`${input.engine}: ${check.status.padEnd(7)} ${check.id}: ${check.summary}`);
  if (!reference.comparable)
    throw new PipelineError(
      'gate',
      `the run cannot be compared with ${baselineFile}: ${reference.refusal ?? ''}`,
      null,
    );
  if (!reference.passed)
    throw new PipelineError(
      'gate',
      `${input.engine} got worse than the baseline ${baselineFile}: ${failedChecks(reference)}; read ${join(input.runDir, 'report.html')}`,
      null,
    );

  // The control: a gate that let the engine that changes nothing through would pass anything.
  const noop = evaluateGate({ results, baseline, requireSignificant: false, engine: input.control });
  if (!noop.comparable || noop.passed) {
    throw new PipelineError(
      'gate',
      `the gate did not catch the ${input.control} engine against ${baselineFile} (${noop.comparable ? 'it passed' : `refused: ${noop.refusal ?? ''}`}): the grading run is not trustworthy; read ${join(input.runDir, 'report.html')}`,
      null,
    );
  }
  report.note(`${input.control} (the control): FAIL as it must: ${failedChecks(noop)}`);
  return {
    value: { baseline: baselineFile, baselineTaken, reference, noop },
    summary: `PASS: ${input.engine} holds the baseline${baselineTaken ? ' (taken from this run)' : ''}; the ${input.control} control is caught (FAIL)`,
  };
}
