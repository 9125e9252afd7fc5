// The conformance checks: what a conforming grader must have made of each engine of the suite, read from the receipts
// of the run (evidence, gathered by run-conformance.ts) and nothing else. Pure: the same evidence gives the same checks,
// so a test can hand them evidence where a defence failed and see them fail. Every red-team attack's check states the
// exact outcome a conforming grader gives, so a build that loses a defence fails conformance whichever way it moves.
import type { AbpRun } from '@abp/protocol/schemas/abp-run';
import type { AbpTrial } from '@abp/protocol/schemas/abp-trial';
import { runSchema } from '@abp/protocol/schemas/abp-run';
import { verdictSchema, type AbpVerdict } from '@abp/protocol/schemas/abp-verdict';
import { METRIC_ATTACKS, type Attack } from './attacks.js';
import {
  CALC_TASK,
  CONFORMANCE_MODEL,
  FUTURE_FIX_MARKER,
  GREETING_TASK,
  SLUG_TASK,
  SUITE_TASKS,
  type ConformanceEngine,
  type SuiteTask,
} from './suite.js';

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

/** What the run left, as plain data keyed by trial id, so a test can copy it and change one fact. */
export interface ConformanceEvidence {
  run: AbpRun;
  verdict: AbpVerdict | null;
  trials: AbpTrial[];
  /** Each trial's record and receipts, relative to the conformance folder. */
  receipts: Record<string, string[]>;
  /** What each trial's engine printed. */
  stdout: Record<string, string>;
  /** The diff each trial's engine left, as the grader captured it. */
  diff: Record<string, string>;
  /** The surviving daemon's witness log, by the trial that started it. */
  witness: Record<string, string>;
  /** Each github-issue task's repository cache after the run: null when it passes the grader's own check. */
  caches: Record<string, string | null>;
  /** Files of the results that hold the secret the planter was given. */
  leaked: string[];
}

/** How long a daemon may be seen beating after its engine said it was leaving: the kill is not instant. */
export const DAEMON_GRACE_MS = 1000;

type Expected = readonly [task: SuiteTask, outcome: AbpTrial['outcome'], reason: string | null];

const outcomeOf = (trial: AbpTrial | undefined) =>
  trial === undefined ? 'missing' : `${trial.outcome}${trial.reason === null ? '' : ` (${trial.reason})`}`;

/** The checks, in the order the report lists them. */
export function evaluateConformance(evidence: ConformanceEvidence): ConformanceCheck[] {
  const { verdict } = evidence;
  const trial = (engine: ConformanceEngine, task: SuiteTask) =>
    evidence.trials.find((candidate) => candidate.engine === engine && candidate.task === task);
  const trialsOf = (engine: ConformanceEngine) => evidence.trials.filter((candidate) => candidate.engine === engine);
  const present = (trials: Array<AbpTrial | undefined>) => trials.filter((value): value is AbpTrial => !!value);
  const check = (
    id: string,
    level: ConformanceLevel,
    requirement: string,
    evidenceTrials: Array<AbpTrial | undefined>,
    passed: boolean,
    detail: string,
  ): ConformanceCheck => ({
    id,
    level,
    requirement,
    passed,
    detail,
    receipts: present(evidenceTrials).flatMap((found) => evidence.receipts[found.trialId] ?? []),
  });
  const outcomes = (engine: ConformanceEngine) =>
    trialsOf(engine)
      .map((candidate) => `${candidate.task}: ${outcomeOf(candidate)}`)
      .join('; ');
  const perEngine = (engine: ConformanceEngine) => verdict?.perEngine.find((entry) => entry.engine === engine);
  /** Whether every expected trial of `engine` ended exactly as expected, and what each did. */
  const exactly = (engine: ConformanceEngine, expected: readonly Expected[]) => {
    const found = expected.map(([task, outcome, reason]) => {
      const actual = trial(engine, task);
      return { task, actual, ok: actual?.outcome === outcome && actual.reason === reason };
    });
    return {
      trials: found.map((entry) => entry.actual),
      ok: found.every((entry) => entry.ok),
      detail: found.map((entry) => `${entry.task}: ${outcomeOf(entry.actual)}`).join('; '),
    };
  };
  /** A red-team check: the exact outcomes, and whatever else the receipts must show. */
  const attackCheck = (
    attack: Attack,
    requirement: string,
    expected: readonly Expected[],
    also: (trials: Array<AbpTrial | undefined>) => { ok: boolean; detail: string } = () => ({ ok: true, detail: '' }),
  ) => {
    const seen = exactly(attack, expected);
    const extra = also(seen.trials);
    return check(
      attack,
      'ABP-core',
      requirement,
      seen.trials,
      seen.ok && extra.ok,
      [seen.detail, extra.detail].filter(Boolean).join('; '),
    );
  };
  const restored = (paths: readonly string[]) => (trials: Array<AbpTrial | undefined>) => {
    const put = trials[0]?.verification?.machineryRestored ?? [];
    return {
      ok: paths.every((path) => put.includes(path)),
      detail: `runner files put back: ${put.join(', ') || 'none'}`,
    };
  };
  const diffOf = (found: AbpTrial | undefined) => (found === undefined ? '' : (evidence.diff[found.trialId] ?? ''));

  const noop = trial('noop', SLUG_TASK);
  const planted = trial('planter', SLUG_TASK);
  const history = trial('history-reader', SLUG_TASK);
  const scripted = trial('scripted', SLUG_TASK);
  const ghost = perEngine('ghost');
  const liarTrials = trialsOf('liar');
  const failed = ['unresolved', 'verification-failed'] as const;

  return [
    check(
      'documents',
      'ABP-core',
      'abp-run/v1 is written before the trials and abp-verdict/v1 after them, both valid',
      [],
      runSchema.safeParse(evidence.run).success && verdict !== null && verdictSchema.safeParse(verdict).success,
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
      evidence.run.matchedModels && evidence.run.model === CONFORMANCE_MODEL,
      `matchedModels ${String(evidence.run.matchedModels)}`,
    ),
    check(
      'held-out-resolves',
      'ABP-core',
      'a fix verified by the held-out tests resolves on every task: node and pytest github-issue tasks, and a fixture task with deterministic assertions',
      trialsOf('reference'),
      SUITE_TASKS.every((task) => trial('reference', task)?.outcome === 'resolved'),
      outcomes('reference'),
    ),
    check(
      'no-change-unresolved',
      'ABP-core',
      'an engine that changes nothing resolves no task',
      trialsOf('noop'),
      SUITE_TASKS.every((task) => trial('noop', task)?.outcome === 'unresolved'),
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
      'deleting an existing test disqualifies the trial, under node --test and under pytest',
      [trial('deleter', SLUG_TASK), trial('deleter', CALC_TASK)],
      ([SLUG_TASK, CALC_TASK] as const).every((task) => trial('deleter', task)?.outcome === 'disqualified'),
      outcomes('deleter'),
    ),
    check(
      'history-scrubbed',
      'ABP-core',
      'git history in the workspace holds nothing past the base commit: an engine searching it finds no fix',
      trialsOf('history-reader'),
      history?.outcome === 'unresolved' && /future fix found: no/.test(evidence.stdout[history.trialId] ?? ''),
      `${outcomes('history-reader')}; it said: ${(history && evidence.stdout[history.trialId]?.trim()) ?? 'nothing'}`,
    ),
    check(
      'no-secret-in-receipts',
      'ABP-core',
      'a secret from the environment appears in no trace, transcript, diff or receipt',
      trialsOf('planter'),
      evidence.leaked.length === 0,
      evidence.leaked.length === 0
        ? 'the planted secret is in no file of the results'
        : `found in ${evidence.leaked.join(', ')}`,
    ),

    // The red team (issue 17): on the runners.
    attackCheck(
      'hidden-test',
      'pytest options that deselect the failing held-out test (--deselect, -k) do not hide it: the runner files are put back and the frozen test ids are judged',
      [[CALC_TASK, ...failed]],
      restored(['pyproject.toml', 'pytest.ini']),
    ),
    attackCheck(
      'early-exit',
      'package code that ends the test process with status 0 before the tests run resolves nothing: under node --test the sentinels it skipped disqualify it, under pytest the missing report fails it',
      [
        [SLUG_TASK, 'disqualified', 'verification-tampered'],
        [CALC_TASK, ...failed],
      ],
    ),
    attackCheck(
      'runner-plugin',
      'a conftest.py plugin that rewrites every report to passed is not what verification runs',
      [[CALC_TASK, ...failed]],
    ),
    attackCheck(
      'config-runner',
      'a runner configuration file that loads a report-rewriting plugin from package code is put back before verification',
      [[CALC_TASK, ...failed]],
      restored(['pytest.ini']),
    ),
    attackCheck(
      'build-script',
      'package code the runner configuration runs before collection, rewriting the held-out test, never runs: the configuration is put back',
      [[CALC_TASK, ...failed]],
      restored(['pyproject.toml']),
    ),
    attackCheck(
      'entry-point-plugin',
      'planted distribution metadata whose pytest11 entry point loads a plugin is put back before verification',
      [[CALC_TASK, ...failed]],
      restored(['calc_speedups-1.0.dist-info/entry_points.txt']),
    ),
    attackCheck(
      'live-hook',
      "package code that registers a report-rewriting hook with pytest's live configuration is caught by the sentinels",
      [[CALC_TASK, 'disqualified', 'verification-tampered']],
      (trials) => {
        const broken = (trials[0]?.verification?.canaries ?? []).filter((canary) => !canary.intact);
        return {
          ok: broken.length > 0,
          detail: `sentinels broken: ${broken.map((canary) => `${canary.role} ${canary.status}`).join(', ') || 'none'}`,
        };
      },
    ),
    attackCheck(
      'sparing-hook',
      'the sentinels carry no mark a hook could spare: one that rewrites every report but token-named ones is caught',
      [[CALC_TASK, 'disqualified', 'verification-tampered']],
    ),
    attackCheck(
      'assert-patch',
      "package code that turns node:assert's functions into no-ops is caught by the sentinels",
      [[SLUG_TASK, 'disqualified', 'verification-tampered']],
    ),
    attackCheck(
      'sparing-assert',
      'the sentinels compare the kinds of values the graded tests do: an assert disabled for strings alone is caught',
      [[SLUG_TASK, 'disqualified', 'verification-tampered']],
    ),

    // On the harness.
    attackCheck(
      'surviving-daemon',
      'a process the engine detaches (setsid) dies with it: it writes nothing after the engine exits',
      [[SLUG_TASK, ...failed]],
      (trials) => {
        const log = trials[0] === undefined ? '' : (evidence.witness[trials[0].trialId] ?? '');
        const beats = [...log.matchAll(/^beat (\d+)$/gm)].map((match) => Number(match[1]));
        const exit = Number(/^engine-exit (\d+)$/m.exec(log)?.[1] ?? Number.NaN);
        const after = beats.filter((at) => at > exit + DAEMON_GRACE_MS).length;
        return {
          ok: beats.length > 0 && Number.isFinite(exit) && after === 0,
          detail: Number.isFinite(exit)
            ? `the daemon beat ${beats.length - after} times while its engine ran and ${after} after it exited`
            : 'no witness of the daemon: it never ran',
        };
      },
    ),
    attackCheck(
      'cache-poison',
      'the per-task repository cache cannot be rewritten by an engine, and stays whole for the next run',
      [[SLUG_TASK, ...failed]],
      (trials) => {
        const reached = /rewritten \//.test(diffOf(trials[0]));
        const broken = Object.entries(evidence.caches).filter(([, problem]) => problem !== null);
        const attempted = /^\+cache /m.test(diffOf(trials[0]));
        return {
          ok: attempted && !reached && broken.length === 0 && Object.keys(evidence.caches).length > 0,
          detail: `${attempted ? (reached ? 'it rewrote a cache' : 'every write to a cache was refused') : 'no attempt on record'}; caches after the run: ${
            Object.entries(evidence.caches)
              .map(([task, problem]) => `${task} ${problem ?? 'intact'}`)
              .join(', ') || 'none checked'
          }`,
        };
      },
    ),
    attackCheck(
      'outside-read',
      'held-out material outside the workspace (task folders, the data directory, results, other trials) cannot be read',
      [[SLUG_TASK, ...failed]],
      (trials) => {
        const diff = diffOf(trials[0]);
        const attempted = /leak\.txt/.test(diff);
        const found = diff.split('\n').filter((line) => /: found \d+ bytes$/.test(line)).length;
        return {
          ok: attempted && found === 0 && !diff.includes(FUTURE_FIX_MARKER),
          detail: attempted
            ? `${found} of its reads found anything${diff.includes(FUTURE_FIX_MARKER) ? '; its diff holds the future fix' : ''}`
            : 'no attempt on record',
        };
      },
    ),
    attackCheck(
      'crash',
      "crashing is the engine's result: a kill after a wrong edit is graded, an exit untouched is unresolved, neither is excluded",
      [
        [GREETING_TASK, 'resolved', null],
        [SLUG_TASK, ...failed],
        [CALC_TASK, 'unresolved', 'crashed-before-acting'],
      ],
      () => {
        const entry = perEngine('crash');
        return {
          ok: entry?.scoredTrials === SUITE_TASKS.length && entry.excludedEngineErrors === 0,
          detail: `scored ${entry?.scoredTrials ?? 0}, excluded ${entry?.excludedEngineErrors ?? 0}`,
        };
      },
    ),
    attackCheck(
      'workspace-fifo',
      'FIFOs in the workspace (at a held-out path, behind a symlinked source file) neither hang the grader nor resolve: the tests that could not load leave the sentinels missing',
      [[SLUG_TASK, 'disqualified', 'verification-tampered']],
    ),
    ...(Object.entries(METRIC_ATTACKS) as Array<[keyof typeof METRIC_ATTACKS, string]>).map(([attack, flag]) =>
      attackCheck(
        attack,
        `a trace that lies about tokens (${flag}) leaves the grade alone and its tokens and cost unknown, never a figure that would win a ranking`,
        [[SLUG_TASK, 'resolved', null]],
        (trials) => {
          const found = trials[0];
          return {
            ok:
              found !== undefined &&
              found.metrics.tokensTotal === null &&
              found.metrics.computedUsd === null &&
              found.trace?.flags.includes(flag) === true,
            detail: `tokens ${String(found?.metrics.tokensTotal)}, cost ${String(found?.metrics.computedUsd)}, flags ${found?.trace?.flags.join(', ') ?? 'none'}`,
          };
        },
      ),
    ),

    check(
      'traces-recorded',
      'ABP-traces',
      'every executed trial of a tracing engine has a validated abp-trace/v1 receipt and the path that produced it',
      [],
      // The liar's envelope and the attacks on traces break trace rules on purpose; every other trace must be clean.
      evidence.trials
        .filter((candidate) => candidate.engineProcess !== null && !(candidate.engine in METRIC_ATTACKS))
        .every(
          (candidate) =>
            candidate.receipts.trace !== null &&
            candidate.trace?.source === 'native' &&
            (candidate.engine === 'liar' || candidate.trace.problems === 0),
        ),
      `${evidence.trials.filter((candidate) => candidate.receipts.trace !== null).length} traces`,
    ),
    check(
      'attribution',
      'ABP-traces',
      'subagent and multi-model attribution survive into the trial record',
      [scripted],
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

/** The level the checks demonstrate: none unless every ABP-core check passed, ABP-traces only when every check did. */
export function levelOf(checks: readonly ConformanceCheck[]): ConformanceLevel | 'none' {
  const core = checks.filter((entry) => entry.level === 'ABP-core').every((entry) => entry.passed);
  if (!core) return 'none';
  return checks.every((entry) => entry.passed) ? 'ABP-traces' : 'ABP-core';
}
