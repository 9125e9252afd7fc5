// The conformance suite's real-engine leg (`abp conformance --real-engines`): the real engine CLIs abp ships adapters
// for, each run through the grader under the sandboxed policy on the suite's slug task with its shipped adapter, against
// its real provider with the user's own key (or any other endpoint that speaks the provider's API: a gateway, or the
// model-provider stand-in, which is how abp's own tests run this same code). It checks what the grader owes every real
// engine whatever the model does: a preflight that passes, a trial that is scored, a way out to the provider and
// nowhere else, and a trace whose tokens and cost are known. Whether the model fixed the bug is reported, not checked.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { AbpTrial } from '@abp/protocol/schemas/abp-trial';
import {
  realEngineAdapter,
  realEngineBinary,
  realEnginePins,
  type Endpoint,
  type RealEngine,
} from '../engines/real-engines.js';
import { jsonText } from '../run/files.js';
import { receiptsOf as journalReceipts, trialFileOf } from '../run/journal.js';
import { runMatrix, type RunOutcome } from '../run/run-matrix.js';
import type { ConformanceCheck } from './checks.js';
import { ConformanceError } from './errors.js';
import { buildConformanceSuite, SLUG_TASK } from './suite.js';

/** One engine of the leg; an engine may run more than once under other names (the stand-in tests' fix and no-op). */
export interface RealEngineEntry {
  engine: RealEngine;
  /** Its name in the run; the engine's own by default. */
  name?: string;
  /** Another endpoint than the provider's API (realEngineAdapter's). */
  endpoint?: Endpoint;
  /** Text added to its system prompt (realEngineAdapter's). */
  note?: string;
}

export interface RealEngineLegInput {
  /** An empty or new folder: each engine's suite and results go in a folder of its own inside it. */
  output: string;
  entries: RealEngineEntry[];
  /** Where the engines are installed, one folder per engine as scripts/install-engines.sh lays them out. */
  enginesDir: string;
  timeoutSeconds?: number;
  preflightSeconds?: number;
}

export interface RealEngineLegRun {
  engine: RealEngine;
  outcome: RunOutcome;
}

export interface RealEngineLegReport {
  schema: 'abp-conformance-real-engines/v1';
  /** One run per engine: a run holds its model fixed, and each engine has its own provider. */
  runs: RealEngineLegRun[];
  checks: ConformanceCheck[];
  /** Each entry's outcome, for the record: a real model may or may not fix the bug. */
  outcomes: Record<string, string>;
}

// Outcomes that are scored: the grader got the engine to act and judged what it left.
const SCORED = new Set(['resolved', 'unresolved', 'timeout', 'budget-exceeded', 'disqualified']);

/** The checks the grader owes a real engine's trial, with the receipts behind them. */
export function realEngineChecks(
  trial: AbpTrial,
  endpoint: { host: string; port: number },
  /** The trial's record and receipts, relative to the conformance folder. */
  receipts: string[],
): ConformanceCheck[] {
  const check = (id: string, requirement: string, passed: boolean, detail: string): ConformanceCheck => ({
    id: `real-engine-${id}:${trial.engine}`,
    level: id === 'trace' ? 'ABP-traces' : 'ABP-core',
    requirement,
    passed,
    detail,
    receipts,
  });
  const egress = trial.engineProcess?.egress ?? null;
  const allowed = `${endpoint.host}:${endpoint.port}`;
  const reached = (egress?.attempts ?? []).filter((attempt) => attempt.allowed && attempt.error === null);
  const elsewhere = reached.filter((attempt) => `${attempt.host}:${attempt.port}` !== allowed);
  const refused = (egress?.attempts ?? []).filter((attempt) => !attempt.allowed).map((a) => `${a.host}:${a.port}`);
  const trace = trial.trace;
  const traceProblems = [
    trace === null && 'no trace',
    trace !== null && !trace.source.startsWith('sidecar:') && `trace source ${trace.source}`,
    trace !== null && trace.problems > 0 && `${trace.problems} invalid trace lines`,
    trace !== null && trace.flags.length > 0 && `flagged ${trace.flags.join(', ')}`,
    trace !== null && trace.modelCalls === 0 && 'no model call on record',
    trial.metrics.tokensTotal === null && 'tokens unknown',
    trial.metrics.computedUsd === null && 'cost unknown',
  ].filter((problem): problem is string => typeof problem === 'string');
  return [
    check(
      'scored',
      'A real engine that passed its preflight is scored: it acted and the grader judged what it left (harness spec).',
      SCORED.has(trial.outcome),
      `${trial.outcome}${trial.reason === null ? '' : ` (${trial.reason})`}${trial.detail ? `: ${trial.detail.slice(0, 400)}` : ''}`,
    ),
    check(
      'egress',
      "Under sandboxed, the engine reaches its provider's API and nothing else, every attempt on record.",
      egress !== null &&
        egress.allow.length === 1 &&
        egress.allow[0] === allowed &&
        reached.length > 0 &&
        elsewhere.length === 0,
      egress === null
        ? 'no egress record'
        : `allowed ${egress.allow.join(', ')}; reached ${[...new Set(reached.map((a) => `${a.host}:${a.port}`))].join(', ') || 'nothing'}` +
            (refused.length > 0 ? `; refused ${[...new Set(refused)].join(', ')}` : ''),
    ),
    check(
      'trace',
      "The engine's own record of its calls is translated into a clean abp-trace: every call's tokens known, priced.",
      traceProblems.length === 0,
      traceProblems.length > 0
        ? traceProblems.join('; ')
        : `${trace?.modelCalls ?? 0} model calls, ${trial.metrics.tokensTotal ?? 0} tokens, $${trial.metrics.computedUsd ?? 0} (${trace?.source ?? ''})`,
    ),
  ];
}

/**
 * Runs each engine of the leg through the grader (one run per engine, one trial per entry) and checks them; the keys
 * are this process's environment, as abp run's are. An engine that is not installed is refused before anything runs.
 */
export async function runRealEngineLeg(input: RealEngineLegInput): Promise<RealEngineLegReport> {
  for (const entry of input.entries) {
    const binary = realEngineBinary(entry.engine, join(input.enginesDir, entry.engine));
    if (!existsSync(binary))
      throw new ConformanceError(
        'engine-not-installed',
        `${entry.engine} is not installed in ${input.enginesDir} (no ${binary}): run scripts/install-engines.sh, or pass --engines-dir with the folder that holds it`,
      );
  }
  const byEngine = new Map<RealEngine, RealEngineEntry[]>();
  for (const entry of input.entries) byEngine.set(entry.engine, [...(byEngine.get(entry.engine) ?? []), entry]);
  const runs: RealEngineLegRun[] = [];
  const checks: ConformanceCheck[] = [];
  const outcomes: Record<string, string> = {};
  for (const [engine, entries] of byEngine) {
    const dir = join(input.output, engine);
    const suite = await buildConformanceSuite(join(dir, 'suite'));
    const adapters = entries.map((entry) =>
      realEngineAdapter(engine, {
        installDir: join(input.enginesDir, engine),
        ...(entry.name === undefined ? {} : { name: entry.name }),
        ...(entry.endpoint === undefined ? {} : { endpoint: entry.endpoint }),
        ...(entry.note === undefined ? {} : { note: entry.note }),
        timeoutSeconds: input.timeoutSeconds ?? 1200,
        ...(input.preflightSeconds === undefined ? {} : { preflightSeconds: input.preflightSeconds }),
      }),
    );
    const model = (adapters[0]?.['metadata'] as { model: string }).model;
    await writeFile(suite.adapters, jsonText({ schema: 'abp-adapters/v1', executionPolicy: 'sandboxed', adapters }));
    await writeFile(
      suite.config,
      jsonText({
        schema: 'abp-run/v1',
        engines: adapters.map((adapter) => ({ name: adapter['engine'], version: realEnginePins()[engine].version })),
        model,
        budgetUsd: 5,
        timeoutSeconds: input.timeoutSeconds ?? 1200,
        trials: 1,
        ordering: 'abba',
        seed: 7,
        tasks: [SLUG_TASK],
      }),
    );
    await mkdir(join(dir, 'cache'), { recursive: true });
    const outcome = await runMatrix({
      config: suite.config,
      output: join(dir, 'results'),
      cacheDir: join(dir, 'cache'),
    });
    runs.push({ engine, outcome });
    const receiptsOf = (trial: AbpTrial) =>
      [trialFileOf(trial.trialId), ...journalReceipts(trial)].map((path) =>
        relative(input.output, join(outcome.runDir, path)),
      );
    for (const adapter of adapters) {
      const egress = (adapter['egress'] as Array<{ host: string; ports: number[] }>)[0];
      for (const trial of outcome.trials.filter((trial) => trial.engine === adapter['engine'])) {
        outcomes[trial.engine] = trial.outcome;
        checks.push(
          ...realEngineChecks(trial, { host: egress?.host ?? '', port: egress?.ports[0] ?? 0 }, receiptsOf(trial)),
        );
      }
    }
  }
  return { schema: 'abp-conformance-real-engines/v1', runs, checks, outcomes };
}
