// Sidecar translator for Claude Code's headless event stream (`claude -p --output-format stream-json --verbose
// --include-partial-messages`) into abp-trace/v1 events; docs/adapters.md describes the stream and the mapping.
// Claude Code writes each assistant message when its content is complete, with the usage the API's message_start
// gave, before the API's message_delta brings the message's output tokens. Only the partial-message lines carry that
// message_delta: with them every call is counted as the API reported it; without them its output tokens are those of
// message_start, and the run's own total (the result line) disagrees, which the trace's summary flags.
import type { RunOutcome, TokenCounts } from '@abp/protocol/schemas/abp-trace';
import {
  checkContext,
  countOf,
  isObject,
  numbered,
  objectLines,
  stringOf,
  type DraftEvent,
  type NativeObject,
} from './native.js';
import type { TraceTranslator, TraceTranslatorContext } from './translator.js';
const blocksOf = (message: unknown): unknown[] =>
  isObject(message) && Array.isArray(message.content) ? message.content : [];

// The tool that spawns a subagent was renamed from Task to Agent in later releases; both appear in the wild.
const SUBAGENT_TOOLS = new Set(['Task', 'Agent']);
// Claude Code writes messages it made itself (API errors, interruptions) under this model; no model call took place.
const SYNTHETIC_MODEL = '<synthetic>';

/** "claude-sonnet-4-5-20250929" -> "anthropic/claude-sonnet-4-5": the dated snapshot is priced like its alias. */
export function abpModelId(claudeModel: string): string {
  return claudeModel.includes('/') ? claudeModel : `anthropic/${claudeModel.replace(/-\d{8}$/, '')}`;
}

// Anthropic's input_tokens already excludes cache reads and writes, which is ABP's normalization as is.
function tokensOf(usage: NativeObject): TokenCounts {
  return {
    input: countOf(usage.input_tokens),
    output: countOf(usage.output_tokens),
    cacheRead: countOf(usage.cache_read_input_tokens),
    cacheWrite: countOf(usage.cache_creation_input_tokens),
  };
}

// The stream cannot know whether held-out verification passes: "resolved" is the engine's claim that it finished,
// which the grader replaces with its own verdict. Only the failure subtypes carry information the grader lacks.
function outcomeOf(result: NativeObject): { outcome: RunOutcome; detail?: string } {
  const subtype = stringOf(result.subtype) ?? 'missing';
  if (subtype === 'success' && result.is_error !== true) return { outcome: 'resolved' };
  const detail = `claude-code ended with result subtype ${JSON.stringify(subtype)}${result.is_error === true ? ' and is_error true' : ''}`;
  if (subtype === 'error_max_turns') return { outcome: 'unresolved', detail };
  if (subtype === 'error_max_budget_usd') return { outcome: 'budget-exceeded', detail };
  return { outcome: 'engine-error', detail };
}

function translate(nativeText: string, context: TraceTranslatorContext): unknown[] {
  checkContext(context);
  // The stream has no timestamps: every event is stamped with the start, and run.end with the start plus duration_ms.
  const t = context.startedAt;
  const body: DraftEvent[] = [];
  const modelCallsByMessage = new Map<string, DraftEvent>();
  const toolUsesSeen = new Set<string>();
  const openSubagents = new Set<string>();
  let engineVersion: string | undefined;
  let sessionModel: string | undefined;
  let result: NativeObject | undefined;

  // Each call's usage as the stream has shown it so far: a later sighting's fields replace the earlier ones.
  const usageByCall = new Map<DraftEvent, NativeObject>();
  // The message each agent (the main one, or a subagent by its spawning tool use) is being streamed: message_delta
  // names no message, and a subagent's stream can interleave with its parent's.
  const streamingBy = new Map<string, DraftEvent>();

  /** The call for an API message, made at its first sighting; undefined for a message Claude Code made itself. */
  const callFor = (message: NativeObject, parent: string | undefined): DraftEvent | undefined => {
    const subagent = parent !== undefined && openSubagents.has(parent) ? parent : undefined;
    const model = stringOf(message.model) ?? sessionModel;
    const messageId = stringOf(message.id);
    const earlier = messageId === undefined ? undefined : modelCallsByMessage.get(messageId);
    if (earlier !== undefined || model === SYNTHETIC_MODEL) return earlier;
    const call: DraftEvent = {
      t,
      kind: 'model.call',
      tokens: tokensOf({}),
      ...(model === undefined ? {} : { model: abpModelId(model) }),
      ...(subagent === undefined ? {} : { subagent }),
    };
    body.push(call);
    if (messageId !== undefined) modelCallsByMessage.set(messageId, call);
    return call;
  };
  const sawUsage = (call: DraftEvent | undefined, usage: unknown) => {
    if (call === undefined || !isObject(usage)) return;
    const merged = { ...usageByCall.get(call), ...usage };
    usageByCall.set(call, merged);
    call.tokens = tokensOf(merged);
  };

  // Partial-message lines: the API's own events. message_start opens a message, message_delta closes its usage.
  const onStreamEvent = (line: NativeObject) => {
    const event = isObject(line.event) ? line.event : {};
    const agent = stringOf(line.parent_tool_use_id) ?? '';
    if (event.type === 'message_start' && isObject(event.message)) {
      const call = callFor(event.message, stringOf(line.parent_tool_use_id));
      if (call !== undefined) streamingBy.set(agent, call);
      sawUsage(call, event.message.usage);
    } else if (event.type === 'message_delta') sawUsage(streamingBy.get(agent), event.usage);
  };

  const onAssistant = (line: NativeObject) => {
    const message = isObject(line.message) ? line.message : {};
    const parent = stringOf(line.parent_tool_use_id);
    const subagent = parent !== undefined && openSubagents.has(parent) ? parent : undefined;
    const attribution = subagent === undefined ? {} : { subagent };
    // One API response is written as one line per content block, each repeating the message id and its usage so
    // far: the message is counted once, with the last usage seen.
    sawUsage(callFor(message, parent), message.usage);

    for (const block of blocksOf(message)) {
      if (!isObject(block) || block.type !== 'tool_use') continue;
      const toolUseId = stringOf(block.id);
      if (toolUseId !== undefined) {
        if (toolUsesSeen.has(toolUseId)) continue;
        toolUsesSeen.add(toolUseId);
      }
      const input = isObject(block.input) ? block.input : undefined;
      body.push({
        t,
        kind: 'tool.call',
        tool: block.name,
        ...(input === undefined ? {} : { args: input }),
        ...attribution,
      });
      const name = stringOf(block.name);
      if (toolUseId !== undefined && name !== undefined && SUBAGENT_TOOLS.has(name)) {
        const purpose = stringOf(input?.description);
        body.push({
          t,
          kind: 'subagent.start',
          id: toolUseId,
          ...(subagent === undefined ? {} : { parent: subagent }),
          ...(purpose === undefined ? {} : { purpose }),
        });
        openSubagents.add(toolUseId);
      }
    }
  };

  // A subagent ends when its spawning tool call returns its result to the parent.
  const onUser = (line: NativeObject) => {
    for (const block of blocksOf(line.message)) {
      if (!isObject(block) || block.type !== 'tool_result') continue;
      const toolUseId = stringOf(block.tool_use_id);
      if (toolUseId !== undefined && openSubagents.delete(toolUseId))
        body.push({ t, kind: 'subagent.end', id: toolUseId });
    }
  };

  // stdout may carry a stray non-JSON line (a warning); it holds no events.
  for (const line of objectLines(nativeText)) {
    switch (line.type) {
      case 'system':
        if (line.subtype === 'init') {
          engineVersion = stringOf(line.claude_code_version);
          sessionModel = stringOf(line.model);
        }
        break;
      case 'assistant':
        onAssistant(line);
        break;
      case 'user':
        onUser(line);
        break;
      case 'stream_event':
        onStreamEvent(line);
        break;
      case 'result':
        result = line; // the last one is the run's envelope; run.end is written after everything else
        break;
      default:
        break; // other line types (hooks, later additions) carry nothing ABP counts
    }
  }

  const engine = context.engine.includes('/') ? context.engine : `${context.engine}/${engineVersion ?? 'unknown'}`;
  const events: DraftEvent[] = [
    { t, kind: 'run.start', engine, model: context.model, task: context.task, config: {} },
    ...body,
  ];
  if (result !== undefined) {
    const duration = typeof result.duration_ms === 'number' ? result.duration_ms : undefined;
    const { outcome, detail } = outcomeOf(result);
    events.push({
      t: duration === undefined ? t : new Date(Date.parse(t) + duration).toISOString(),
      kind: 'run.end',
      outcome,
      // A missing duration stays missing: summarizeTrace then reports the run.end as invalid instead of trusting a 0.
      ...(duration === undefined ? {} : { wallClockMs: duration }),
      tokens: tokensOf(isObject(result.usage) ? result.usage : {}),
      ...(typeof result.total_cost_usd === 'number' ? { costUsd: result.total_cost_usd } : {}),
      ...(detail === undefined ? {} : { detail }),
    });
  }
  return numbered(events);
}

export const claudeCodeStreamJson: TraceTranslator = {
  id: 'claude-code-stream-json',
  description:
    'Claude Code headless output (claude -p --output-format stream-json --verbose --include-partial-messages): one model.call per API message id with the usage its message_start and message_delta reported, ' +
    'one tool.call per tool_use, Task/Agent tool uses as subagents, the result line as run.end.',
  translate,
};
