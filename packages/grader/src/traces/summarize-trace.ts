// What the grader takes from one trial's abp-trace/v1 text, read one line at a time: the valid events, redacted; the
// problems of the rest; token totals per model and per subagent summed from model.call events; and the run.end envelope,
// cross-checked against them. A trace that lost lines (invalid, too long, cut off) or reports implausible counts has
// unknown tokens: its sums are kept as what was read, but tokensKnown is false and nothing may rank on them.
import {
  createTraceRuleChecker,
  traceEventSchema,
  type TokenCounts,
  type TraceEvent,
} from '@abp/protocol/schemas/abp-trace';
import { locateIssues, plainWordsParseOptions } from '@abp/protocol/schemas/issues';
import { formatJsonPath, parseJsonText } from '@abp/protocol/schemas/json-text';
import type { Redactor } from '../redaction/redactor.js';
import { traceLimits, type TraceLimits } from './trace-limits.js';

export type TraceSource = { kind: 'native' } | { kind: 'sidecar'; translator: string } | { kind: 'missing' };

/** Flags the reading of the trace raises before its lines are summarized: each means lines were lost or never read. */
export const traceReadFlags = ['trace-not-a-file', 'trace-unreadable', 'trace-truncated', 'truncated-log'] as const;
export type TraceReadFlag = (typeof traceReadFlags)[number];

export const traceFlags = [
  'invalid-lines',
  'missing-run-start',
  'missing-run-end',
  'envelope-tokens-mismatch',
  'envelope-cost-mismatch',
  'no-model-calls',
  ...traceReadFlags,
  'tokens-out-of-range',
  'tokens-unknown',
  'receipt-truncated',
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
  /**
   * The lines that pass the event schema, in order, seq as given, every string redacted and tool.call args summarized;
   * only the first maxReceiptBytes of them (receipt-truncated says when more were valid).
   */
  events: TraceEvent[];
  /** The first maxProblems problems, by line. */
  problems: TraceProblem[];
  /** Every problem, kept or not. */
  problemCount: number;
  /** In the order of traceFlags. */
  flags: TraceFlag[];
  modelCalls: number;
  /**
   * False when lines were lost (invalid, too long, cut off, unread) or a call's counts are out of range: the sums below
   * are then what was read, a lower bound at best, and no ranking may use them (flag tokens-unknown).
   */
  tokensKnown: boolean;
  /** Summed over model.call events within maxTokensPerCall: the events are the evidence, the envelope is only cross-checked. */
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
  /** Default traceLimits. */
  limits?: Partial<TraceLimits> | undefined;
}

/** Takes a trace one line at a time, so that only the summary, never the whole trace, is held in memory. */
export interface TraceSummarizer {
  /** The next line of the trace, without its line break. */
  line(text: string): void;
  /** The next line was longer than maxLineBytes and skipped unread. */
  overlongLine(bytes: number): void;
  /** The summary; readFlags say how reading lost lines, and make the tokens unknown. */
  finish(readFlags?: readonly TraceReadFlag[]): TraceSummary;
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

export function createTraceSummarizer(options: SummarizeTraceOptions): TraceSummarizer {
  const { redactor } = options;
  const limits: TraceLimits = { ...traceLimits, ...options.limits };
  const problems: TraceProblem[] = [];
  let problemCount = 0;
  const events: TraceEvent[] = [];
  let receiptBytes = 0;
  let receiptTruncated = false;
  const rules = createTraceRuleChecker();
  // The line of each run.end by its index among the events the rules saw: the end of the trace may find fault with one.
  // Every other violation is of the event just checked, so no line table of the whole trace is held.
  const runEndLines = new Map<number, number>();
  let checked = 0;
  let lineNumber = 0;
  let invalidLines = false;
  let outOfRange = false;
  // Parse errors can quote property names, which were never redacted: the message itself passes through the redactor.
  const report = (line: number, message: string) => {
    problemCount += 1;
    if (problems.length < limits.maxProblems) problems.push({ line, message: redactor.redactText(message) });
  };

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

  // Sums stop at the largest integer a double holds exactly, so every figure stays a valid count; reaching it is a flag.
  const addTokens = (into: TokenCounts, counts: TokenCounts) => {
    for (const field of tokenFields) {
      const sum = into[field] + counts[field];
      if (sum > Number.MAX_SAFE_INTEGER) outOfRange = true;
      into[field] = Math.min(sum, Number.MAX_SAFE_INTEGER);
    }
  };

  const take = (event: TraceEvent) => {
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
        callCostUsd = callCostUsd === null || event.costUsd === undefined ? null : callCostUsd + event.costUsd;
        // A count no model call reaches is not summed: it would swamp every real figure or overflow the sums.
        if (tokenFields.reduce((sum, field) => sum + event.tokens[field], 0) > limits.maxTokensPerCall) {
          outOfRange = true;
          break;
        }
        addTokens(tokens, event.tokens);
        addTokens(entryOf(perModel, event.model ?? options.runModel, zeroTokens), event.tokens);
        // A call naming a subagent that never started is already a reported rule violation; its parent is unknown.
        addTokens(
          entryOf(perSubagent, event.subagent ?? ROOT, () => ({ ...zeroTokens(), parent: null })),
          event.tokens,
        );
        break;
      }
      case 'tool.call':
      case 'subagent.end':
        break;
    }
  };

  // Every non-blank line, valid or not, goes through the cross-line rules, so they see the trace as written.
  const checkRules = (line: number, value: unknown) => {
    if (isPlainObject(value) && value.kind === 'run.end') runEndLines.set(checked, line);
    checked += 1;
    for (const violation of rules.add(value)) report(line, `${pathPrefix(violation.path)}${violation.message}`);
  };

  const line = (raw: string) => {
    lineNumber += 1;
    const lineText = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (lineText.trim() === '') return;
    const at = lineNumber;
    if (Buffer.byteLength(lineText) > limits.maxLineBytes) {
      invalidLines = true;
      report(at, `$: is longer than ${limits.maxLineBytes} bytes, the most one trace line may hold`);
      checkRules(at, undefined);
      return;
    }
    const parsed = parseJsonText(lineText);
    if (!parsed.ok) {
      invalidLines = true;
      report(at, `$: is not valid JSON: ${parsed.error.message} (column ${parsed.error.column})`);
      checkRules(at, undefined);
      return;
    }
    const value = redactLine(parsed.value, redactor);
    const event = traceEventSchema.safeParse(value, plainWordsParseOptions);
    if (!event.success) {
      invalidLines = true;
      for (const issue of locateIssues(event.error.issues)) report(at, `${pathPrefix(issue.path)}${issue.message}`);
    }
    checkRules(at, value);
    if (!event.success) return;
    take(event.data);
    if (receiptTruncated || receiptBytes + lineText.length > limits.maxReceiptBytes) receiptTruncated = true;
    else {
      receiptBytes += lineText.length;
      events.push(event.data);
    }
  };

  const overlongLine = (bytes: number) => {
    lineNumber += 1;
    invalidLines = true;
    report(lineNumber, `$: is ${bytes} bytes, longer than the ${limits.maxLineBytes} one trace line may hold`);
    checkRules(lineNumber, undefined);
  };

  const finish = (readFlags: readonly TraceReadFlag[] = []): TraceSummary => {
    for (const violation of rules.finish())
      report(runEndLines.get(violation.index) ?? 0, `${pathPrefix(violation.path)}${violation.message}`);
    problems.sort((a, b) => a.line - b.line); // stable: the problems of one line keep their order

    const raised = new Set<TraceFlag>(readFlags);
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
    const total = tokenFields.reduce((sum, field) => sum + tokens[field], 0);
    if (total > Number.MAX_SAFE_INTEGER) outOfRange = true;
    if (outOfRange) raised.add('tokens-out-of-range');
    const tokensKnown = !invalidLines && !outOfRange && readFlags.length === 0;
    if (!tokensKnown) raised.add('tokens-unknown');
    if (receiptTruncated) raised.add('receipt-truncated');

    return {
      source: options.source,
      events,
      problems,
      problemCount,
      flags: traceFlags.filter((flag) => raised.has(flag)),
      modelCalls,
      tokensKnown,
      tokens: { ...tokens, total: Math.min(total, Number.MAX_SAFE_INTEGER) },
      perModel: Object.fromEntries(perModel),
      perSubagent: Object.fromEntries(perSubagent),
      envelope: {
        outcome: runEnd?.outcome ?? null,
        tokens: runEnd?.tokens ?? null,
        costUsd: runEnd?.costUsd ?? null,
        wallClockMs: runEnd?.wallClockMs ?? null,
      },
    };
  };

  return { line, overlongLine, finish };
}

/** Summarizes a trace already held as text (a test, a translator's output); files are read with readTraceFile. */
export function summarizeTrace(
  text: string,
  options: SummarizeTraceOptions,
  readFlags: readonly TraceReadFlag[] = [],
): TraceSummary {
  const summarizer = createTraceSummarizer(options);
  if (text !== '') for (const line of text.split('\n')) summarizer.line(line);
  return summarizer.finish(readFlags);
}
