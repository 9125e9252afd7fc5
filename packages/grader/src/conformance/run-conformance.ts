// `abp conformance`: runs the suite through the real `abp run` (a separate process, exactly as a user would), then checks
// each adversarial expectation against the receipts and reports the conformance level they demonstrate (spec §9).
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { AbpTrial } from '@abp/protocol/schemas/abp-trial';
import { runSchema } from '@abp/protocol/schemas/abp-run';
import { verdictSchema } from '@abp/protocol/schemas/abp-verdict';
import { packageRoot } from '../package-root.js';
import { readRunResults, type RunResults } from '../results/read-results.js';
import { jsonText, writeFileAtomic } from '../run/files.js';
import {
  buildConformanceSuite,
  CONFORMANCE_MODEL,
  GREETING_TASK,
  SECRET_VARIABLE,
  SLUG_TASK,
  type ConformanceEngine,
} from './suite.js';
import { ownEnvironment, runProgram } from '../execution/run-program.js';

export type ConformanceLevel = 'ABP-core' | 'ABP-traces';

export interface ConformanceCheck {
  id: string;
  level: ConformanceLevel;
  requirement: string;
  passed: boolean;
  detail: string;
  /** Receipts behind the check, relative to the conformance folder. */
  receipts: string[];
}

export interface ConformanceReport {
  schema: 'abp-conformance/v1';
  level: ConformanceLevel | 'none';
  run: string;
  results: string;
  checks: ConformanceCheck[];
}

async function filesUnder(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

function evaluate(
  results: RunResults,
  receiptsOf: (trial: AbpTrial) => string[],
  leaked: string[],
  stdoutOf: ReadonlyMap<string, string>,
): ConformanceCheck[] {
  const trial = (engine: ConformanceEngine, task: string) =>
    results.trials.find((candidate) => candidate.engine === engine && candidate.task === task);
  const trialsOf = (engine: ConformanceEngine) => results.trials.filter((candidate) => candidate.engine === engine);
  const check = (
    id: string,
    level: ConformanceLevel,
    requirement: string,
    evidence: AbpTrial[],
    passed: boolean,
    detail: string,
  ): ConformanceCheck => ({
    id,
    level,
    requirement,
    passed,
    detail,
    receipts: evidence.flatMap(receiptsOf),
  });
  const outcomes = (engine: ConformanceEngine) =>
    trialsOf(engine)
      .map((candidate) => `${candidate.task}: ${candidate.outcome}${candidate.reason ? ` (${candidate.reason})` : ''}`)
      .join('; ');
  const verdict = results.verdict;
  const perEngine = (engine: ConformanceEngine) => verdict?.perEngine.find((entry) => entry.engine === engine);
  const noop = trial('noop', SLUG_TASK);
  const planted = trial('planter', SLUG_TASK);
  const history = trial('history-reader', SLUG_TASK);
  const scripted = trial('scripted', SLUG_TASK);
  const ghost = perEngine('ghost');
  const liarTrials = trialsOf('liar');

  return [
    check(
      'documents',
      'ABP-core',
      'abp-run/v1 is written before the trials and abp-verdict/v1 after them, both valid',
      [],
      runSchema.safeParse(results.run).success && verdict !== null && verdictSchema.safeParse(verdict).success,
      'run.json and verdict.json validate against their schemas',
    ),
    check(
      'statistics',
      'ABP-core',
      'every rate carries a Wilson interval and every pair an exact McNemar test',
      [],
      verdict !== null &&
        verdict.perEngine.every((entry) => entry.scoredTrials === 0 || entry.resolveRate !== null) &&
        verdict.pairwise.length > 0 &&
        verdict.pairwise.every((pair) => pair.mcnemar.pExact >= 0),
      `${verdict?.perEngine.length ?? 0} engines, ${verdict?.pairwise.length ?? 0} pairwise comparisons`,
    ),
    check(
      'matched-config',
      'ABP-core',
      'the run is stamped matchedModels from what the adapters declare',
      [],
      results.run.matchedModels && results.run.model === CONFORMANCE_MODEL,
      `matchedModels ${String(results.run.matchedModels)}`,
    ),
    check(
      'held-out-resolves',
      'ABP-core',
      'a fix verified by the held-out tests resolves, on a github-issue task and a fixture task with deterministic assertions',
      trialsOf('reference'),
      trialsOf('reference').every((candidate) => candidate.outcome === 'resolved') &&
        trialsOf('reference').length === 2,
      outcomes('reference'),
    ),
    check(
      'no-change-unresolved',
      'ABP-core',
      'an engine that changes nothing is not resolved',
      trialsOf('noop'),
      trialsOf('noop').every((candidate) => candidate.outcome === 'unresolved'),
      outcomes('noop'),
    ),
    check(
      'planted-verification',
      'ABP-core',
      'planting verification files (a passing copy of the held-out test, a fake report, a fake verdict) does not change the verdict',
      trialsOf('planter'),
      planted !== undefined &&
        noop !== undefined &&
        planted.outcome === noop.outcome &&
        (planted.diff?.heldOutPathsTouched.length ?? 0) > 0,
      `${outcomes('planter')}; held-out paths it wrote: ${planted?.diff?.heldOutPathsTouched.join(', ') ?? 'none'}`,
    ),
    check(
      'uninvokable-excluded',
      'ABP-core',
      'an engine that cannot be invoked is scored engine-error and excluded, not counted as a loss',
      trialsOf('ghost'),
      ghost !== undefined &&
        ghost.scoredTrials === 0 &&
        ghost.excludedEngineErrors === trialsOf('ghost').length &&
        ghost.resolveRate === null,
      outcomes('ghost'),
    ),
    check(
      'deleted-test-disqualified',
      'ABP-core',
      'deleting an existing test disqualifies the trial',
      [trial('deleter', SLUG_TASK)].filter((value): value is AbpTrial => value !== undefined),
      trial('deleter', SLUG_TASK)?.outcome === 'disqualified',
      outcomes('deleter'),
    ),
    check(
      'history-scrubbed',
      'ABP-core',
      'git history in the workspace holds nothing past the base commit: an engine searching it finds no fix',
      trialsOf('history-reader'),
      history?.outcome === 'unresolved' && /future fix found: no/.test(stdoutOf.get(history.trialId) ?? ''),
      `${outcomes('history-reader')}; it said: ${(history && stdoutOf.get(history.trialId)?.trim()) ?? 'nothing'}`,
    ),
    check(
      'no-secret-in-receipts',
      'ABP-core',
      'a secret from the environment appears in no trace, transcript, diff or receipt',
      trialsOf('planter'),
      leaked.length === 0,
      leaked.length === 0 ? 'the planted secret is in no file of the results' : `found in ${leaked.join(', ')}`,
    ),
    check(
      'traces-recorded',
      'ABP-traces',
      'every executed trial of a tracing engine has a validated abp-trace/v1 receipt and the path that produced it',
      [],
      // The liar's envelope breaks a trace rule on purpose; every other trace must be clean.
      results.trials
        .filter((candidate) => candidate.engineProcess !== null)
        .every(
          (candidate) =>
            candidate.receipts.trace !== null &&
            candidate.trace?.source === 'native' &&
            (candidate.engine === 'liar' || candidate.trace.problems === 0),
        ),
      `${results.trials.filter((candidate) => candidate.receipts.trace !== null).length} traces`,
    ),
    check(
      'attribution',
      'ABP-traces',
      'subagent and multi-model attribution survive into the trial record',
      scripted ? [scripted] : [],
      scripted?.trace !== null &&
        scripted?.trace !== undefined &&
        'sa-1' in scripted.trace.perSubagent &&
        Object.keys(scripted.trace.perModel).length >= 2,
      `subagents: ${Object.keys(scripted?.trace?.perSubagent ?? {}).join(', ')}; models: ${Object.keys(scripted?.trace?.perModel ?? {}).join(', ')}`,
    ),
    check(
      'lying-envelope-flagged',
      'ABP-traces',
      'an envelope that under-reports tokens is flagged, and the events are what count',
      liarTrials,
      liarTrials.length > 0 &&
        liarTrials.every(
          (candidate) =>
            candidate.trace?.flags.includes('envelope-tokens-mismatch') === true &&
            (candidate.trace.tokens.input ?? 0) >= 70_000,
        ),
      outcomes('liar'),
    ),
  ];
}

export async function runConformance(input: {
  output: string;
  onLine?: (line: string) => void;
}): Promise<ConformanceReport> {
  const present = await readdir(input.output).catch(() => []);
  if (present.length > 0)
    throw new Error(
      `${input.output} is not empty: abp conformance writes a fresh suite, results and report there; pass an empty or new folder`,
    );
  const suite = await buildConformanceSuite(join(input.output, 'suite'));
  const resultsDir = join(input.output, 'results');
  const secret = `abp-conformance-${randomBytes(12).toString('hex')}`;
  input.onLine?.(`running the suite through abp run (${SLUG_TASK}, ${GREETING_TASK}; 8 engines)`);
  // abp run with this process's environment and the secret, which the planter engine's adapter passes on to it.
  const env = ownEnvironment({ [SECRET_VARIABLE]: secret });
  await runProgram(
    [
      process.execPath,
      join(packageRoot, 'bin', 'abp.js'),
      'run',
      '--config',
      suite.config,
      '--adapters',
      suite.adapters,
      '--tasks',
      suite.tasks,
      '-o',
      resultsDir,
      '--concurrency',
      '2',
    ],
    {
      cwd: input.output,
      env,
      timeoutMs: 30 * 60 * 1000,
    },
  );
  const results = await readRunResults(join(resultsDir, 'run-latest'));
  const leaked: string[] = [];
  for (const file of await filesUnder(results.dir))
    if ((await readFile(file)).includes(secret)) leaked.push(relative(input.output, file));
  const stdoutOf = new Map<string, string>();
  for (const trial of results.trials)
    if (trial.receipts.stdout)
      stdoutOf.set(trial.trialId, await readFile(join(results.dir, trial.receipts.stdout), 'utf8'));
  const runFolder = relative(input.output, results.dir);
  const receiptsOf = (trial: AbpTrial) => [
    `${runFolder}/trials/${trial.trialId}.json`,
    ...Object.values(trial.receipts)
      .filter((path): path is string => path !== null)
      .map((path) => `${runFolder}/${path}`),
  ];
  const checks = evaluate(results, receiptsOf, leaked, stdoutOf);
  const core = checks.filter((entry) => entry.level === 'ABP-core').every((entry) => entry.passed);
  const traces = core && checks.every((entry) => entry.passed);
  const report: ConformanceReport = {
    schema: 'abp-conformance/v1',
    level: traces ? 'ABP-traces' : core ? 'ABP-core' : 'none',
    run: results.run.id ?? '',
    results: runFolder,
    checks,
  };
  await writeFileAtomic(join(input.output, 'conformance.json'), jsonText(report));
  return report;
}
