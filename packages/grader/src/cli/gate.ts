// `abp gate <run>`: compare a run with the committed baseline in CI (spec §10); `abp baseline <run>`: take that baseline.
// Exit codes come from CommandFailed: 1 when the gate fails, 3 when it refuses to compare (a folder that does not
// match its journal included: a gate must never pass on receipts something rewrote).
import { gatedMetrics, type GatedMetric } from '@abp/protocol/schemas/abp-baseline';
import {
  createBaseline,
  evaluateGate,
  readBaselineFile,
  refuseTamperedRun,
  writeBaselineFile,
  type GateReport,
} from '../gate/index.js';
import { formatChange, formatPercent, metricLabels, readRunResults, ResultsError } from '../results/index.js';
import { CommandFailed, createOutput, type OutputOptions } from './output.js';

export interface GateOptions extends OutputOptions {
  /** The committed abp-baseline/v1 file. */
  baseline: string;
  /** The run's engine to gate; the baseline's engine when left out. */
  engine?: string | undefined;
  requireSignificant?: boolean | undefined;
  /** The journal digest `abp run` printed, kept outside the run folder; the run is refused unless it still matches. */
  journalDigest?: string | undefined;
}

export async function gateCommand(runDir: string, options: GateOptions): Promise<void> {
  const out = createOutput(options);
  const baseline = await readBaselineFile(options.baseline);
  let report: GateReport;
  try {
    report = evaluateGate({
      results: await readRunResults(runDir, { journalDigest: options.journalDigest }),
      baseline,
      requireSignificant: options.requireSignificant === true,
      ...(options.engine === undefined ? {} : { engine: options.engine }),
    });
  } catch (error) {
    if (!(error instanceof ResultsError && error.code === 'results-tampered')) throw error;
    report = refuseTamperedRun({
      run: runDir,
      baseline,
      engine: options.engine,
      message: error.message,
      findings: error.findings,
    });
  }
  for (const line of gateScreen(report, options.baseline)) out.line(line);
  out.data(report);
  // The screen (or the JSON) already gives the reasons in full; the error line only names them.
  if (!report.comparable) {
    const codes = report.reasons.map((reason) => reason.code);
    throw new CommandFailed(
      codes.includes('results-tampered') ? 'results-tampered' : 'not-comparable',
      `gate refused: ${codes.includes('results-tampered') ? 'the run folder does not match its journal' : 'not comparable'} (${codes.join(', ')})`,
      options.json === true,
    );
  }
  const failed = report.checks.filter((check) => check.status === 'fail').map((check) => check.id);
  if (failed.length > 0)
    throw new CommandFailed('gate-failed', `gate failed: ${failed.join(', ')}`, options.json === true);
}

/** One screen: the verdict, then a line per check (or per refusal reason) with its figures and why. */
function gateScreen(report: GateReport, baselineFile: string): string[] {
  const subject = `engine ${report.engine}, run ${report.run} vs baseline ${baselineFile} (run ${report.baselineRun})`;
  const tampered = report.reasons.find((reason) => reason.code === 'results-tampered');
  if (tampered !== undefined)
    return [
      `REFUSED  ${subject}: the run folder does not match the journal that sealed it`,
      ...(tampered.findings ?? []).map(
        (finding) =>
          `  - ${finding.file}: ${finding.change} (journal: ${finding.recorded ?? 'nothing'}, folder: ${finding.found ?? 'nothing'})`,
      ),
      `  ${tampered.message}`,
    ];
  if (!report.comparable)
    return [`REFUSED  ${subject}: not comparable`, ...report.reasons.map((reason) => `  - ${reason.message}`)];
  const failed = report.checks.filter((check) => check.status === 'fail').map((check) => check.id);
  const verdict = report.passed
    ? `PASS  ${subject}: no check failed`
    : `FAIL  ${subject}: ${failed.length} of ${report.checks.length} checks failed (${failed.join(', ')})`;
  const width = Math.max(...report.checks.map((check) => check.id.length));
  return [
    verdict,
    ...report.checks.map((check) => `  ${check.status.padEnd(7)}  ${check.id.padEnd(width)}  ${check.summary}`),
  ];
}

export interface BaselineCommandOptions extends OutputOptions {
  engine: string;
  /** Where to write the abp-baseline/v1 file. */
  output: string;
  /** Allowed relative growth of each median (0.15 is +15 %); a metric left out keeps its default. */
  maxDiffGrowth?: number | undefined;
  maxTokensGrowth?: number | undefined;
  maxWallClockGrowth?: number | undefined;
  maxCostGrowth?: number | undefined;
  /** Significance level for --require-significant. */
  alpha?: number | undefined;
}

const growthFlags = {
  diffBytesNormalized: 'maxDiffGrowth',
  tokensTotal: 'maxTokensGrowth',
  wallClockMs: 'maxWallClockGrowth',
  computedUsd: 'maxCostGrowth',
} as const satisfies Record<GatedMetric, keyof BaselineCommandOptions>;

export async function baselineCommand(runDir: string, options: BaselineCommandOptions): Promise<void> {
  const out = createOutput(options);
  const results = await readRunResults(runDir);
  const thresholds: Partial<Record<GatedMetric, number>> = {};
  for (const metric of gatedMetrics) {
    const growth = options[growthFlags[metric]];
    if (growth !== undefined) thresholds[metric] = growth;
  }
  const baseline = createBaseline(results, options.engine, { thresholds, alpha: options.alpha });
  await writeBaselineFile(options.output, baseline);
  const resolved = baseline.trials.filter((trial) => trial.resolved).length;
  out.line(`wrote ${options.output}: engine ${baseline.engine} on ${baseline.model}, run ${baseline.run}`);
  out.line(
    `  ${baseline.tasks.length} tasks, ${baseline.trials.length} scored trials, ${resolved} resolved (${formatPercent(resolved / baseline.trials.length)})`,
  );
  const allowed = gatedMetrics.map((metric) => `${metricLabels[metric]} ${formatChange(baseline.thresholds[metric])}`);
  out.line(`  allowed median growth: ${allowed.join(', ')}; alpha ${baseline.alpha}`);
  out.line('  commit it; `abp gate <run> --baseline <file>` compares later runs with it');
  out.data({ file: options.output, baseline });
}
