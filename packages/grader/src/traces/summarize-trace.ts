// What the grader takes from one trial's abp-trace/v1 text: the valid events, redacted; the problems of the rest; token
// totals per model and per subagent summed from model.call events; and the run.end envelope, cross-checked against them.
import {
  traceEventSchema,
  traceRuleViolations,
  type TokenCounts,
  type TraceEvent,
} from '@abp/protocol/schemas/abp-trace';
import { locateIssues, plainWordsParseOptions } from '@abp/protocol/schemas/issues';
import { formatJsonPath, parseJsonText } from '@abp/protocol/schemas/json-text';
import type { Redactor } from '../redaction/redactor.js';

export type TraceSource = { kind: 'native' } | { kind: 'sidecar'; translator: string } | { kind: 'missing' };

export const traceFlags = [
  'invalid-lines',
  'missing-run-start',
  'missing-run-end',
  'envelope-tokens-mismatch',
  'envelope-cost-mismatch',
  'no-model-calls',
] as const;
export type TraceFlag = (typeof traceFlags)[number];

export interface TraceProblem {
  /** 1-based line of the trace text. */
  line: number;
  message: string;
}

export interface TraceEnvelope {
  outcome: string | null;
  tokens: TokenCounts | null;
  costUsd: number | null;
  wallClockMs: number | null;
}

export interface TraceSummary {
  source: TraceSource;
  /** The lines that pass the event schema, in order, seq as given, every string redacted and tool.call args summarized. */
  events: TraceEvent[];
  problems: TraceProblem[];
  /** In the order of traceFlags. */
  flags: TraceFlag[];
  modelCalls: number;
  /** Summed over model.call events: the events are the evidence, the envelope is only cross-checked. */
  tokens: TokenCounts & { total: number };
  /** By model.call model, or the run's model where a call names none. */
  perModel: Record<string, TokenCounts>;
  /** Each agent's own calls (not its children's); the root agent is "root" with parent null. */
  perSubagent: Record<string, TokenCounts & { parent: string | null }>;
  envelope: TraceEnvelope;
}

export interface SummarizeTraceOptions {
  source: TraceSource;
  /** The run's model (abp-run/v1 "model"), for model.call events that do not name one. */
  runModel: string;
  redactor: Redactor;
}

const ROOT = 'root';
const tokenFields = ['input', 'output', 'cacheRead', 'cacheWrite'] as const;
// Engines report costs as floats summed in their own order; a micro-dollar apart is the same bill.
const COST_TOLERANCE_USD = 1e-6;

const zeroTokens = (): TokenCounts => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });
const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function entryOf<T>(map: Map<string, T>, key: string, fresh: () => T): T {
  const existing = map.get(key);
  if (existing !== undefined) return existing;
  const created = fresh();
  map.set(key, created);
  return created;
}

function addTokens(into: TokenCounts, tokens: TokenCounts): void {
  for (const field of tokenFields) into[field] += tokens[field];
}

function redactDeep(value: unknown, redactor: Redactor): unknown {
  if (typeof value === 'string') return redactor.redactText(value);
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redactor));
  if (isPlainObject(value))
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [redactor.redactText(key), redactDeep(item, redactor)]),
    );
  return value;
}

// Redaction runs before validation, so no schema message can quote a secret. tool.call args go to summarizeArgs alone:
// plain redaction first would turn a workspace path into "{workspace}/..." before the summary could make it relative.
function redactLine(value: unknown, redactor: Redactor): unknown {
  if (!isPlainObject(value)) return redactDeep(value, redactor);
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      redactor.redactText(key),
      key === 'args' && value.kind === 'tool.call' && isPlainObject(item)
        ? redactor.summarizeArgs(item)
        : redactDeep(item, redactor),
    ]),
  );
}

function pathPrefix(path: ReadonlyArray<string | number>): string {
  return `${formatJsonPath(path)}: `;
}

export function summarizeTrace(text: string, options: SummarizeTraceOptions): TraceSummary {
  const { redactor } = options;
  const problems: TraceProblem[] = [];
  const events: TraceEvent[] = [];
  // Every non-blank line, valid or not, so the cross-line rules see the trace as written.
  const lineValues: unknown[] = [];
  const lineNumbers: number[] = [];
  let invalidLines = false;
  // Parse errors can quote property names, which were never redacted: the message itself passes through the redactor.
  const report = (line: number, message: string) => problems.push({ line, message: redactor.redactText(message) });

  text.split('\n').forEach((raw, index) => {
    const lineText = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (lineText.trim() === '') return;
    const line = index + 1;
    lineNumbers.push(line);
    const parsed = parseJsonText(lineText);
    if (!parsed.ok) {
      invalidLines = true;
      lineValues.push(undefined);
      report(line, `$: is not valid JSON: ${parsed.error.message} (column ${parsed.error.column})`);
      return;
    }
    const value = redactLine(parsed.value, redactor);
    lineValues.push(value);
    const event = traceEventSchema.safeParse(value, plainWordsParseOptions);
    if (event.success) events.push(event.data);
    else {
      invalidLines = true;
      for (const issue of locateIssues(event.error.issues)) report(line, `${pathPrefix(issue.path)}${issue.message}`);
    }
  });
  for (const violation of traceRuleViolations(lineValues))
    report(lineNumbers[violation.index] ?? 0, `${pathPrefix(violation.path)}${violation.message}`);
  problems.sort((a, b) => a.line - b.line); // stable: the problems of one line keep their order

  const tokens = zeroTokens();
  // Maps, not object literals: a model id such as "__proto__" must be a key like any other.
  const perModel = new Map<string, TokenCounts>();
  const perSubagent = new Map<string, TokenCounts & { parent: string | null }>([
    [ROOT, { ...zeroTokens(), parent: null }],
  ]);
  let modelCalls = 0;
  let callCostUsd: number | null = 0; // null once a call has no costUsd: a partial sum cannot check the envelope
  let runStart = false;
  let runEnd: Extract<TraceEvent, { kind: 'run.end' }> | undefined;

  for (const event of events) {
    switch (event.kind) {
      case 'run.start':
        runStart = true;
        break;
      case 'run.end':
        runEnd = event;
        break;
      case 'subagent.start':
        entryOf(perSubagent, event.id, () => ({ ...zeroTokens(), parent: event.parent ?? ROOT }));
        break;
      case 'model.call': {
        modelCalls += 1;
        addTokens(tokens, event.tokens);
        addTokens(entryOf(perModel, event.model ?? options.runModel, zeroTokens), event.tokens);
        // A call naming a subagent that never started is already a reported rule violation; its parent is unknown.
        addTokens(
          entryOf(perSubagent, event.subagent ?? ROOT, () => ({ ...zeroTokens(), parent: null })),
          event.tokens,
        );
        callCostUsd = callCostUsd === null || event.costUsd === undefined ? null : callCostUsd + event.costUsd;
        break;
      }
      case 'tool.call':
      case 'subagent.end':
        break;
    }
  }

  const raised = new Set<TraceFlag>();
  if (invalidLines) raised.add('invalid-lines');
  if (!runStart) raised.add('missing-run-start');
  if (runEnd === undefined) raised.add('missing-run-end');
  else {
    const claimed = runEnd.tokens;
    if (tokenFields.some((field) => claimed[field] !== tokens[field])) raised.add('envelope-tokens-mismatch');
    if (
      runEnd.costUsd !== undefined &&
      modelCalls > 0 &&
      callCostUsd !== null &&
      Math.abs(runEnd.costUsd - callCostUsd) > COST_TOLERANCE_USD
    ) {
      raised.add('envelope-cost-mismatch');
    }
  }
  if (modelCalls === 0) raised.add('no-model-calls');

  return {
    source: options.source,
    events,
    problems,
    flags: traceFlags.filter((flag) => raised.has(flag)),
    modelCalls,
    tokens: { ...tokens, total: tokenFields.reduce((sum, field) => sum + tokens[field], 0) },
    perModel: Object.fromEntries(perModel),
    perSubagent: Object.fromEntries(perSubagent),
    envelope: {
      outcome: runEnd?.outcome ?? null,
      tokens: runEnd?.tokens ?? null,
      costUsd: runEnd?.costUsd ?? null,
      wallClockMs: runEnd?.wallClockMs ?? null,
    },
  };
}
