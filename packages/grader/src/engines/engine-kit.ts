// What the bundled example engines share: reading the grader's abp-agent-input/v1 file, answering the preflight, and
// writing abp-trace/v1 events with increasing seq. Real engines do the same through their own adapters. An engine is
// the party under test, run in the trial's workspace as any engine is: it runs git as an engine would, with
// child_process, not through abp's hardened runner, which protects abp from what it reads.
import { appendFileSync, readFileSync } from 'node:fs';
import type { TokenCounts, TraceEvent } from '@abp/protocol/schemas/abp-trace';

export interface AgentInput {
  preflight?: boolean;
  task: string | null;
  trialId: string;
  prompt: string;
  model: string;
  workspace: string;
  state: string;
  traceFile: string;
  promptFile: string;
}

export function readAgentInput(argv: readonly string[]): AgentInput {
  const index = argv.indexOf('--input');
  const path = index >= 0 ? argv[index + 1] : undefined;
  if (!path) throw new Error('usage: <engine> --input <inputFile> (the adapter passes {inputFile})');
  return JSON.parse(readFileSync(path, 'utf8')) as AgentInput;
}

export function optionValue(argv: readonly string[], name: string): string | undefined {
  const index = argv.indexOf(name);
  return index >= 0 ? argv[index + 1] : undefined;
}

/** The preflight prompt asks for an exact reply; the example engines have no model, so they echo what it asks for. */
export function preflightAnswer(prompt: string): string {
  return /exactly:\s*(\S+)/.exec(prompt)?.[1] ?? 'ABP-PREFLIGHT-OK';
}

/** Reads the input; a preflight is answered here and ends the process, so an engine only ever sees a real trial. */
export function startTrial(argv: readonly string[]): AgentInput & { task: string } {
  const input = readAgentInput(argv);
  if (input.preflight || input.task === null) {
    process.stdout.write(`${preflightAnswer(input.prompt)}\n`);
    process.exit(0);
  }
  return { ...input, task: input.task };
}

type EventBody = TraceEvent extends infer E ? (E extends TraceEvent ? Omit<E, 't' | 'seq'> : never) : never;

export interface TraceWriter {
  emit(event: EventBody): void;
  readonly totals: TokenCounts;
}

/** Appends one event per line as it happens, so a killed engine still leaves the trace up to that point. */
export function traceWriter(path: string, clock: () => Date = () => new Date()): TraceWriter {
  let seq = 0;
  const totals: TokenCounts = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  return {
    totals,
    emit(event) {
      seq += 1;
      if (event.kind === 'model.call')
        for (const key of ['input', 'output', 'cacheRead', 'cacheWrite'] as const) totals[key] += event.tokens[key];
      appendFileSync(path, `${JSON.stringify({ t: clock().toISOString(), seq, ...event })}\n`);
    },
  };
}
