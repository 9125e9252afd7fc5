// What the real-engine tests share: the pinned CLIs scripts/install-engines.sh installs, and one graded run of an
// engine's scripted fix and scripted no-op on the conformance suite's slug task under the sandboxed policy, through the
// suite's real-engine leg, its only way out an egress proxy to the model-provider stand-in. Another service on the grader's machine (standing in for the
// simulator's API or abp serve) listens beside it, for the engine to be refused.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { parseScript } from '@abp/provider-sim/script';
import { startProviderStandIn, type ProviderStandIn } from '@abp/provider-sim/server';
import type { ConformanceCheck } from '../../src/conformance/checks.js';
import { runRealEngineLeg } from '../../src/conformance/real-engine-leg.js';
import type { RunOutcome } from '../../src/run/run-matrix.js';
import { packageRoot } from '../../src/package-root.js';
import { realEngineKey, type Endpoint, type RealEngine } from '../../src/engines/real-engines.js';

/** Where scripts/install-engines.sh installs the real engines, one folder each. */
export const ENGINES_DIR = join(packageRoot, '..', '..', '.tools', 'engines');

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
type Conversations = { fix: ScriptedTurns; noop: ScriptedTurns; preflight: ScriptedTurns };

/** A shell command as the engine's own shell tool takes it. */
function shellCall(engine: RealEngine, command: string): Record<string, unknown> {
  switch (engine) {
    case 'claude-code':
      return { name: 'Bash', input: { command, description: 'scripted step' } };
    case 'codex':
      return { name: 'exec_command', input: { cmd: command } };
    case 'hermes':
      return { name: 'terminal', input: { command } };
    case 'mini-swe-agent':
      return { name: 'bash', input: { command } };
  }
}

/**
 * The slug task scripted for an engine's own shell tool: the fix reaches for the other host, reads the code and runs
 * the workspace's tests, writes the fix, and says so; the no-op only talks. Anthropic reports cache writes; OpenAI
 * has none, so its turns script none. mini-swe-agent acts only through its shell: its last word is its own command for
 * "done".
 */
export function slugConversations(engine: RealEngine, otherPort: number): Conversations {
  const writes = engine === 'claude-code';
  const done = engine === 'mini-swe-agent' ? 'echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT' : null;
  const turn = (command: string | null, text: string | null, input: number, output: number, cached: number) => ({
    ...(command === null ? {} : { toolCalls: [shellCall(engine, command)] }),
    ...(text === null ? {} : { text }),
    usage: { input, output, ...(writes && cached === 0 ? { cacheWrite: 2900 } : { cacheRead: cached }) },
  });
  return {
    preflight: [{ text: 'ABP-PREFLIGHT-OK', usage: { input: 40, output: 6 } }],
    fix: [
      turn(`curl -s -m 5 http://host.abp.internal:${otherPort}/ || echo curl failed`, null, 3100, 80, 0),
      turn('cat src/slug.js && node --test', null, 400, 60, 2900),
      turn(`cat > src/slug.js <<'EOF'\n${SLUG_FIX}EOF`, null, 700, 140, 3300),
      turn(done, 'slugify now collapses separators and trims dashes.', 150, 20, 4000),
    ],
    noop: [turn(done, 'I will leave the code as it is.', 3000, 12, 0)],
  };
}

export interface RealEngineRun {
  outcome: RunOutcome;
  /** The real-engine leg's checks of the run's trials. */
  checks: ConformanceCheck[];
  standIn: ProviderStandIn;
  /** The other service's port on the grader's machine, which the engine tries and must be refused. */
  otherPort: number;
  cleanup(): Promise<void>;
}

/**
 * The engine's fix and no-op through the conformance suite's real-engine leg (the code `abp conformance --real-engines`
 * runs), with the adapter abp ships for it pointed at the stand-in, the script telling them apart by the note each adds
 * to its prompt (`abp-script: fix` or `abp-script: noop`).
 */
export async function runRealEngine(input: {
  engine: RealEngine;
  /** What the engine's key variable holds: by default the key the stand-in accepts; null leaves it unset. */
  keyValue?: string | null;
  /** The scripted conversations; slugConversations by default. */
  turns?(otherPort: number): Conversations;
  /** Another way to the stand-in than the straight one (a host left out of egress, a dead port). */
  endpoint?(standIn: ProviderStandIn, otherPort: number): Endpoint;
  preflightSeconds?: number;
}): Promise<RealEngineRun> {
  const keyVariable = realEngineKey(input.engine);
  const dir = await mkdtemp(join(tmpdir(), `abp-${input.engine}-`));
  const other: Server = createServer((_request, response) => response.end('reached'));
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  const otherPort = (other.address() as { port: number }).port;
  const key = `stand-in-key-${input.engine}-0123456789`;
  const turns = (input.turns ?? ((port) => slugConversations(input.engine, port)))(otherPort);
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
  const saved = process.env[keyVariable];
  const cleanup = async () => {
    if (saved === undefined) delete process.env[keyVariable];
    else process.env[keyVariable] = saved;
    await standIn.close();
    await new Promise<void>((resolve) => other.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    // The OpenAI clients name the API's /v1 root; Claude Code adds /v1 itself.
    const endpoint =
      input.endpoint?.(standIn, otherPort) ?? standInEndpoint(standIn, input.engine === 'claude-code' ? '' : '/v1');
    const value = input.keyValue === undefined ? key : input.keyValue;
    if (value === null) delete process.env[keyVariable];
    else process.env[keyVariable] = value;
    const report = await runRealEngineLeg({
      output: join(dir, 'leg'),
      enginesDir: ENGINES_DIR,
      entries: (['fix', 'noop'] as const).map((which) => ({
        engine: input.engine,
        name: `${input.engine}-${which}`,
        endpoint,
        note: `abp-script: ${which}`,
      })),
      timeoutSeconds: 300,
      ...(input.preflightSeconds === undefined ? {} : { preflightSeconds: input.preflightSeconds }),
    });
    const outcome = report.runs[0]?.outcome;
    if (outcome === undefined) throw new Error('the real-engine leg ran no engine');
    return { outcome, checks: report.checks, standIn, otherPort, cleanup };
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
  // What the conformance leg checks of every real engine holds for both: scored, egress to the stand-in alone, trace.
  expect(run.checks.filter((check) => !check.passed)).toEqual([]);
  expect(run.checks).toHaveLength(6);
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
