// The abp-trace/v1 event (spec §6), one per JSONL line, and the rules a whole trace obeys across its lines.
import { z } from 'zod';
import { describeValue, documentId, modelId, nonNegativeInt, positiveInt, usd, utcTimestamp } from './primitives.js';

export const TRACE_SCHEMA_ID = 'abp-trace/v1';

/** How a run ended. Closed on purpose: graders branch on it, and an unknown outcome must not be scored silently. */
export const runOutcomeMeanings = {
  resolved: 'the held-out verification bundle passed',
  unresolved: 'the engine finished but the held-out verification failed',
  timeout: 'the run hit its timeoutSeconds; scored as not resolved',
  'budget-exceeded': 'the run hit its budgetUsd; scored as not resolved',
  disqualified:
    'the run deleted or weakened tests or touched verification material (spec §4.5); scored as not resolved',
  'engine-error': 'the engine could not be invoked; excluded from comparison, not counted as a loss (spec §3.4)',
  'harness-error': 'the harness failed around the engine; the trial is void and rerun (spec §3.4)',
} as const;
export type RunOutcome = keyof typeof runOutcomeMeanings;
export const runOutcomes = Object.keys(runOutcomeMeanings) as [RunOutcome, ...RunOutcome[]];

// Input never includes cache reads; cache reads and writes are counted apart (spec §6, Arena's normalization).
export const tokenCounts = z.strictObject({
  input: nonNegativeInt,
  output: nonNegativeInt,
  cacheRead: nonNegativeInt,
  cacheWrite: nonNegativeInt,
});
export type TokenCounts = z.infer<typeof tokenCounts>;
const tokenFields = ['input', 'output', 'cacheRead', 'cacheWrite'] as const;

const engineRef = z.string().regex(/^\S*[^\s/]\/[^\s/]+$/, {
  error: (issue) => `must be "<engine>/<version>", e.g. "oxagen/1.4.2", got ${describeValue(issue.input)}`,
});

const subagentId = documentId;
// Absent means the root agent; a value names an open subagent, which is how fan-out bills are split per branch.
const attribution = subagentId
  .optional()
  .describe('The open subagent this event belongs to; absent for the root agent.');

const base = {
  t: utcTimestamp,
  seq: positiveInt.describe('Strictly increasing across the lines of one trace.'),
};

const runStart = z.strictObject({
  ...base,
  kind: z.literal('run.start'),
  engine: engineRef,
  model: modelId,
  task: documentId,
  // Open on purpose: engines differ in knobs; the pinned ones are typed.
  config: z.looseObject({ budgetUsd: usd.optional(), timeoutSeconds: positiveInt.optional() }),
});

const modelCall = z.strictObject({
  ...base,
  kind: z.literal('model.call'),
  tokens: tokenCounts,
  model: modelId.optional().describe('Multi-model engines record the model of each call (spec §6).'),
  subagent: attribution,
  durationMs: nonNegativeInt.optional(),
  costUsd: usd.optional(),
});

const toolCall = z.strictObject({
  ...base,
  kind: z.literal('tool.call'),
  tool: z.string().min(1),
  args: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('A redacted summary of the arguments, never raw secrets (spec §6).'),
  subagent: attribution,
  durationMs: nonNegativeInt.optional(),
  diffBytes: nonNegativeInt.optional(),
  exitCode: z.int().optional(),
});

const subagentStart = z.strictObject({
  ...base,
  kind: z.literal('subagent.start'),
  id: subagentId.describe('Unique within the trace.'),
  parent: subagentId.optional().describe('The open subagent that spawned this one; absent when the root agent did.'),
  purpose: z.string().optional(),
});

const subagentEnd = z.strictObject({
  ...base,
  kind: z.literal('subagent.end'),
  id: subagentId,
  durationMs: nonNegativeInt.optional(),
});

const runEnd = z.strictObject({
  ...base,
  kind: z.literal('run.end'),
  outcome: z.enum(runOutcomes).describe(
    Object.entries(runOutcomeMeanings)
      .map(([outcome, meaning]) => `${outcome}: ${meaning}`)
      .join('; '),
  ),
  wallClockMs: nonNegativeInt,
  tokens: tokenCounts.describe('Totals of the run; never less than the sum over its model.call events.'),
  diffBytesNormalized: nonNegativeInt.optional(),
  filesTouched: nonNegativeInt.optional(),
  costUsd: usd.optional(),
  detail: z.string().optional().describe('Why the run ended this way, for error and disqualified outcomes.'),
});

export const traceEventSchema = z
  .discriminatedUnion('kind', [runStart, modelCall, toolCall, subagentStart, subagentEnd, runEnd])
  .describe(
    'One line of an ABP trace (spec §6). Across lines: seq strictly increases, run.start comes first, at most one run.end comes last, subagent ids open before use and close once.',
  );

export type TraceEvent = z.infer<typeof traceEventSchema>;
export type TraceEventKind = TraceEvent['kind'];
export const traceEventKinds = traceEventSchema.options.map((option) => option.shape.kind.value);

export interface TraceRuleViolation {
  /** Index of the offending event in the list given. */
  index: number;
  /** Path inside that event. */
  path: Array<string | number>;
  message: string;
}

interface LooseEvent {
  kind?: string;
  seq?: number;
  id?: string;
  parent?: string;
  subagent?: string;
  tokens?: TokenCounts;
}

// The rules read only the fields they need and skip what is malformed, so one bad line does not cascade into many errors.
function loose(event: unknown): LooseEvent {
  if (typeof event !== 'object' || event === null || Array.isArray(event)) return {};
  const record = event as Record<string, unknown>;
  const text = (key: string) => (typeof record[key] === 'string' ? record[key] : undefined);
  const view: LooseEvent = {};
  const kind = text('kind');
  if (kind !== undefined) view.kind = kind;
  if (typeof record.seq === 'number' && Number.isInteger(record.seq)) view.seq = record.seq;
  for (const key of ['id', 'parent', 'subagent'] as const) {
    const value = text(key);
    if (value !== undefined) view[key] = value;
  }
  const tokens = tokenCounts.safeParse(record.tokens);
  if (tokens.success) view.tokens = tokens.data;
  return view;
}

export interface TraceRuleChecker {
  /** Checks the next event (an unparseable line may be passed as anything; it is skipped) and returns its violations. */
  add(event: unknown): TraceRuleViolation[];
  /** The violations only the end of the trace reveals (a run.end that other events follow), at their events' indices. */
  finish(): TraceRuleViolation[];
}

/**
 * The rules of a whole trace, checked one event at a time so a long trace need not be held in memory. It keeps only the
 * subagent ids and the running token sums. A subagent still open at run.end is allowed: a timeout ends a run with
 * branches in flight, and the spec's own example does.
 */
export function createTraceRuleChecker(): TraceRuleChecker {
  const started = new Map<string, number | undefined>(); // subagent id -> seq of its subagent.start
  const ended = new Map<string, number | undefined>();
  const open = new Set<string>();
  const summed: TokenCounts = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  const runEnds: number[] = []; // indices of run.end events: whether one was last is known only at the end
  let previousSeq: number | undefined;
  let count = 0;
  // After an unreadable event, an unknown subagent id may have been opened there: stay quiet rather than guess.
  let unreadableSeen = false;
  const at = (seq: number | undefined) => (seq === undefined ? 'an earlier event' : `seq ${seq}`);
  const known = new Set<string>(traceEventKinds);

  const add = (raw: unknown): TraceRuleViolation[] => {
    const violations: TraceRuleViolation[] = [];
    const index = count;
    count += 1;
    const event = loose(raw);
    const report = (path: Array<string | number>, message: string) => violations.push({ index, path, message });
    if (index === 0 && event.kind !== undefined && event.kind !== 'run.start')
      report(['kind'], `the first event must be run.start, got ${describeValue(event.kind)}`);
    if (event.seq !== undefined) {
      if (previousSeq !== undefined && event.seq <= previousSeq) {
        report(
          ['seq'],
          `must be greater than the previous event's seq ${previousSeq} (seq strictly increases), got ${event.seq}`,
        );
      }
      previousSeq = event.seq;
    }
    // The reason an id is not open, or null when an unreadable event may have opened it.
    const notOpen = (id: string) =>
      ended.has(id)
        ? `subagent ${describeValue(id)} already ended at ${at(ended.get(id))}`
        : unreadableSeen
          ? null
          : `no subagent.start with id ${describeValue(id)} precedes this event`;
    const reportNotOpen = (path: string, prefix: string, id: string) => {
      const reason = notOpen(id);
      if (reason !== null) report([path], `${prefix}: ${reason}`);
    };
    switch (event.kind) {
      case 'run.start':
        if (index > 0) report(['kind'], 'run.start may only be the first event of a trace');
        break;
      case 'run.end': {
        runEnds.push(index);
        if (event.tokens) {
          for (const field of tokenFields) {
            if (event.tokens[field] < summed[field]) {
              report(
                ['tokens', field],
                `run.end reports ${event.tokens[field]} ${field} tokens, fewer than the ${summed[field]} summed over the model.call events before it`,
              );
            }
          }
        }
        break;
      }
      case 'subagent.start':
        if (event.id !== undefined) {
          if (started.has(event.id))
            report(
              ['id'],
              `subagent id ${describeValue(event.id)} was already started at ${at(started.get(event.id))}; ids are unique within a trace`,
            );
          else {
            started.set(event.id, event.seq);
            open.add(event.id);
          }
        }
        if (event.parent !== undefined && !open.has(event.parent))
          reportNotOpen('parent', 'must name an open subagent', event.parent);
        break;
      case 'subagent.end':
        if (event.id !== undefined) {
          if (open.has(event.id)) {
            open.delete(event.id);
            ended.set(event.id, event.seq);
          } else reportNotOpen('id', 'subagent.end must match an open subagent.start', event.id);
        }
        break;
      case 'model.call':
      case 'tool.call':
        if (event.subagent !== undefined && !open.has(event.subagent))
          reportNotOpen('subagent', 'must name an open subagent', event.subagent);
        if (event.kind === 'model.call' && event.tokens)
          for (const field of tokenFields) summed[field] += event.tokens[field];
        break;
      case undefined:
      default:
        break; // unknown or missing kinds are reported by the event schema
    }
    if (event.kind === undefined || !known.has(event.kind)) unreadableSeen = true;
    return violations;
  };

  const finish = (): TraceRuleViolation[] =>
    runEnds.flatMap((index) => {
      const following = count - index - 1;
      return following === 0
        ? []
        : [
            {
              index,
              path: ['kind'],
              message: `run.end must be the last event, but ${following} event${following === 1 ? '' : 's'} follow${following === 1 ? 's' : ''} it`,
            },
          ];
    });

  return { add, finish };
}

/**
 * The rules of a whole trace, over its events in line order (unparseable lines may be passed as anything; they are skipped).
 * In event order; at one event, the end-of-trace finding comes first, as a reader meets it.
 */
export function traceRuleViolations(events: readonly unknown[]): TraceRuleViolation[] {
  const checker = createTraceRuleChecker();
  const violations = events.flatMap((event) => checker.add(event));
  for (const late of checker.finish()) {
    const at = violations.findIndex((violation) => violation.index >= late.index);
    violations.splice(at === -1 ? violations.length : at, 0, late);
  }
  return violations;
}

/** A whole trace as an array of events, for callers that hold one in memory rather than as JSONL text. */
export const traceSchema = z
  .array(traceEventSchema)
  .min(1, 'a trace has at least its run.start event')
  .superRefine((events, ctx) => {
    for (const violation of traceRuleViolations(events))
      ctx.addIssue({ code: 'custom', path: [violation.index, ...violation.path], message: violation.message });
  });
