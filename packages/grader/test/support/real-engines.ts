// What the real-engine tests share: the pinned CLIs scripts/install-engines.sh installs, and one graded run of an
// engine's scripted fix and scripted no-op on the conformance suite's slug task under the sandboxed policy, its only
// way out an egress proxy to the model-provider stand-in. Another service on the grader's machine (standing in for the
// simulator's API or abp serve) listens beside it, for the engine to be refused.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { parseScript } from '@abp/provider-sim/script';
import { startProviderStandIn, type ProviderStandIn } from '@abp/provider-sim/server';
import { SLUG_TASK, buildConformanceSuite } from '../../src/conformance/suite.js';
import { runMatrix, type RunOutcome } from '../../src/run/run-matrix.js';
import { packageRoot } from '../../src/package-root.js';
import { realEngineBinary, type Endpoint, type RealEngine } from '../../src/engines/real-engines.js';

/** Where scripts/install-engines.sh installs each real engine. */
export const installDirOf = (engine: RealEngine) => join(packageRoot, '..', '..', '.tools', 'engines', engine);

/** The stand-in as an engine's endpoint: on the grader's loopback, reached as host.abp.internal through egress. */
export function standInEndpoint(standIn: ProviderStandIn, path = ''): Endpoint {
  return { url: `http://host.abp.internal:${standIn.port}${path}`, host: 'host.abp.internal', port: standIn.port };
}

/** The slug task's fix, as the scripted engine writes it with its own shell tool. */
export const SLUG_FIX = `export function slugify(text) {
  return text.toLowerCase().trim().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}
`;

export type ScriptedTurns = Array<Record<string, unknown>>;

export interface RealEngineRun {
  outcome: RunOutcome;
  standIn: ProviderStandIn;
  /** The other service's port on the grader's machine, which the engine tries and must be refused. */
  otherPort: number;
  cleanup(): Promise<void>;
}

export async function runRealEngine(input: {
  engine: RealEngine;
  version: string;
  /** The ABP model id the adapters declare and the run names. */
  model: string;
  /** The variable the engine reads its key from, set for the run and passed through env.allow. */
  keyVariable: string;
  /** What that variable holds: by default the key the stand-in accepts; null leaves it unset. */
  keyValue?: string | null;
  /** The scripted conversations: the fix (it may use the other port), the no-op, and the preflight's answer. */
  turns(otherPort: number): { fix: ScriptedTurns; noop: ScriptedTurns; preflight: ScriptedTurns };
  /** The adapter of the fix or no-op engine; its system prompt or opening must hold `abp-script: <which>`. */
  adapter(which: 'fix' | 'noop', standIn: ProviderStandIn): Record<string, unknown>;
}): Promise<RealEngineRun> {
  const binary = realEngineBinary(input.engine, installDirOf(input.engine));
  if (!existsSync(binary)) throw new Error(`${binary} is missing: run scripts/install-engines.sh`);
  const dir = await mkdtemp(join(tmpdir(), `abp-${input.engine}-`));
  const other: Server = createServer((_request, response) => response.end('reached'));
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  const otherPort = (other.address() as { port: number }).port;
  const key = `stand-in-key-${input.engine}-0123456789`;
  const turns = input.turns(otherPort);
  const standIn = await startProviderStandIn({
    keys: [key],
    script: parseScript({
      schema: 'abp-provider-script/v1',
      conversations: [
        { name: 'preflight', match: 'Reply with exactly: ABP-PREFLIGHT-OK', turns: turns.preflight },
        { name: 'fix', match: 'abp-script: fix', turns: turns.fix },
        { name: 'noop', match: 'abp-script: noop', turns: turns.noop },
      ],
    }),
  });
  const saved = process.env[input.keyVariable];
  const cleanup = async () => {
    if (saved === undefined) delete process.env[input.keyVariable];
    else process.env[input.keyVariable] = saved;
    await standIn.close();
    await new Promise<void>((resolve) => other.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const suite = await buildConformanceSuite(join(dir, 'suite'));
    const engines = (['fix', 'noop'] as const).map((which) => input.adapter(which, standIn));
    await writeFile(
      suite.adapters,
      JSON.stringify({ schema: 'abp-adapters/v1', executionPolicy: 'sandboxed', adapters: engines }),
    );
    await writeFile(
      suite.config,
      JSON.stringify({
        schema: 'abp-run/v1',
        engines: engines.map((adapter) => ({ name: adapter['engine'], version: input.version })),
        model: input.model,
        budgetUsd: 5,
        timeoutSeconds: 300,
        trials: 1,
        ordering: 'abba',
        seed: 7,
        tasks: [SLUG_TASK],
      }),
    );
    const value = input.keyValue === undefined ? key : input.keyValue;
    if (value === null) delete process.env[input.keyVariable];
    else process.env[input.keyVariable] = value;
    const outcome = await runMatrix({ config: suite.config, output: join(dir, 'out'), cacheDir: join(dir, 'cache') });
    return { outcome, standIn, otherPort, cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/**
 * What every real engine's run must show: the fix resolved and the no-op not; the stand-in reached through the egress
 * proxy and nothing else, the other port refused and recorded; and the tokens recorded for each trial, call by call,
 * the usage the stand-in served for that engine's conversation.
 */
export async function expectHonestRun(run: RealEngineRun, engines: { fix: string; noop: string }): Promise<void> {
  const { outcome, standIn, otherPort } = run;
  const trialOf = (engine: string) => outcome.trials.find((trial) => trial.engine === engine);
  expect(outcome.trials.map((trial) => [trial.engine, trial.outcome]).sort()).toEqual([
    [engines.fix, 'resolved'],
    [engines.noop, 'unresolved'],
  ]);
  const egress = trialOf(engines.fix)?.engineProcess?.egress;
  expect(egress?.allow).toEqual([`host.abp.internal:${standIn.port}`]);
  expect(egress?.attempts.filter((attempt) => attempt.allowed).map((a) => [a.host, a.port, a.error])).toEqual([
    ['host.abp.internal', standIn.port, null],
  ]);
  expect(egress?.attempts).toContainEqual({
    host: 'host.abp.internal',
    port: otherPort,
    allowed: false,
    error: 'not in the allow-list',
    count: 1,
  });
  const served = standIn.served();
  expect(served.filter((call) => call.refused !== null)).toEqual([]);
  for (const [engine, conversation] of [
    [engines.fix, 'fix'],
    [engines.noop, 'noop'],
  ] as const) {
    const calls = served.filter((call) => call.conversation === conversation).map((call) => call.usage);
    const trial = trialOf(engine);
    const trace = (await readFile(join(outcome.runDir, trial?.receipts.trace ?? ''), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; tokens?: unknown });
    expect(trace.flatMap((event) => (event.kind === 'model.call' ? [event.tokens] : []))).toEqual(calls);
    const sum = (field: 'input' | 'output' | 'cacheRead' | 'cacheWrite') =>
      calls.reduce((total, usage) => total + (usage?.[field] ?? 0), 0);
    expect(trial?.trace?.tokens).toEqual({
      input: sum('input'),
      output: sum('output'),
      cacheRead: sum('cacheRead'),
      cacheWrite: sum('cacheWrite'),
    });
    expect(trial?.trace?.flags).toEqual([]);
    expect(trial?.metrics.computedUsd).toBeGreaterThan(0);
  }
}
