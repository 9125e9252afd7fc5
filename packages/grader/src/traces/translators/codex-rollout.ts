// Sidecar translator for Codex's session log (the "rollout" `codex exec` writes under $CODEX_HOME/sessions, one JSON
// object per line with a timestamp, a type and a payload) into abp-trace/v1 events; docs/adapters.md describes the
// mapping. Codex's `--json` stdout gives usage per turn only, summed over the turn's model calls; its rollout records
// each model response with its own usage (token_usage_record), which is what a call-by-call trace needs. Several
// rollouts may be concatenated (a subagent's thread writes its own): each session_meta line starts one thread, the
// first the main agent's, the others subagents'.
import type { RunOutcome, TokenCounts } from '@abp/protocol/schemas/abp-trace';
import {
  checkContext,
  countOf,
  isObject,
  numbered,
  objectLines,
  parseObject,
  stringOf,
  sumTokens,
  type DraftEvent,
  type NativeObject,
} from './native.js';
import type { TraceTranslator, TraceTranslatorContext } from './translator.js';

/** "gpt-5-codex" -> "openai/gpt-5-codex": Codex names its model without the provider. */
export function openaiModelId(model: string): string {
  return model.includes('/') ? model : `openai/${model}`;
}

// OpenAI counts cached tokens inside input_tokens; ABP's input never includes them.
function tokensOf(usage: NativeObject): TokenCounts {
  const cacheRead = countOf(usage.cached_input_tokens);
  return {
    input: Math.max(0, countOf(usage.input_tokens) - cacheRead),
    output: countOf(usage.output_tokens),
    cacheRead,
    cacheWrite: countOf(usage.cache_write_input_tokens),
  };
}

/** A tool call's arguments as an object: function calls carry JSON text, free-form custom tools their input. */
function argumentsOf(item: NativeObject): NativeObject | undefined {
  if (typeof item.arguments === 'string') {
    const parsed = parseObject(item.arguments);
    return parsed ?? { arguments: item.arguments };
  }
  if (typeof item.input === 'string') return { input: item.input };
  if (isObject(item.action)) return item.action; // local_shell_call
  return undefined;
}

const TOOL_ITEMS = new Set(['function_call', 'custom_tool_call', 'local_shell_call', 'web_search_call']);

function translate(nativeText: string, context: TraceTranslatorContext): unknown[] {
  checkContext(context);
  const body: DraftEvent[] = [];
  let cliVersion: string | undefined;
  let model: string | undefined;
  let mainThread: string | undefined;
  let thread: string | undefined;
  let last = context.startedAt;
  let durationMs = 0;
  let completed = false;
  let failure: string | undefined;
  // Codex's own running total, per thread (the last one each reported): run.end carries their sum, and the summary
  // checks it against the calls.
  const totals = new Map<string, TokenCounts>();
  const perResponse = new Set<string>();

  // Lines carry their own times; concatenated threads may step back, and events must not.
  const timeOf = (line: NativeObject) => {
    const at = stringOf(line.timestamp);
    const parsed = at === undefined ? Number.NaN : Date.parse(at);
    if (!Number.isNaN(parsed) && parsed > Date.parse(last)) last = new Date(parsed).toISOString();
    return last;
  };
  const attribution = () => (thread !== undefined && thread !== mainThread ? { subagent: thread } : {});
  const endThread = () => {
    if (thread !== undefined && thread !== mainThread) body.push({ t: last, kind: 'subagent.end', id: thread });
  };

  const call = (t: string, usage: NativeObject): DraftEvent => ({
    t,
    kind: 'model.call',
    tokens: tokensOf(usage),
    ...(model === undefined ? {} : { model: openaiModelId(model) }),
    ...attribution(),
  });

  const lines = objectLines(nativeText);
  // A rollout written before token_usage_record existed has only token_count events, each with the last response's usage.
  const sawUsageRecords = lines.some((line) => line.type === 'token_usage_record');
  for (const line of lines) {
    const t = timeOf(line);
    const payload = isObject(line.payload) ? line.payload : {};
    switch (line.type) {
      case 'session_meta': {
        const id = stringOf(payload.id) ?? stringOf(payload.session_id);
        endThread();
        cliVersion ??= stringOf(payload.cli_version);
        mainThread ??= id;
        thread = id;
        if (id !== undefined && id !== mainThread) body.push({ t, kind: 'subagent.start', id });
        break;
      }
      case 'turn_context':
        model = stringOf(payload.model) ?? model;
        break;
      case 'response_item':
        if (TOOL_ITEMS.has(String(payload.type))) {
          const args = argumentsOf(payload);
          body.push({
            t,
            kind: 'tool.call',
            tool: stringOf(payload.name) ?? String(payload.type),
            ...(args === undefined ? {} : { args }),
            ...attribution(),
          });
        }
        break;
      case 'token_usage_record': {
        const response = stringOf(payload.response_id);
        // A response is recorded once; a repeated record (a resumed session) is not another call.
        if (response !== undefined && perResponse.has(response)) break;
        if (response !== undefined) perResponse.add(response);
        if (isObject(payload.usage)) body.push(call(t, payload.usage));
        break;
      }
      case 'event_msg':
        if (payload.type === 'token_count') {
          const info = isObject(payload.info) ? payload.info : {};
          if (!sawUsageRecords && isObject(info.last_token_usage)) body.push(call(t, info.last_token_usage));
          if (isObject(info.total_token_usage)) totals.set(thread ?? '', tokensOf(info.total_token_usage));
        } else if (payload.type === 'task_complete' && (thread === mainThread || thread === undefined)) {
          completed = true;
          durationMs += countOf(payload.duration_ms);
        } else if ((payload.type === 'error' || payload.type === 'turn_aborted') && thread === mainThread)
          failure = stringOf(payload.message) ?? stringOf(payload.reason) ?? String(payload.type);
        break;
      default:
        break; // other lines (world_state, compaction markers, later additions) carry nothing ABP counts
    }
  }
  endThread();

  const engine = context.engine.includes('/') ? context.engine : `${context.engine}/${cliVersion ?? 'unknown'}`;
  const events: DraftEvent[] = [
    { t: context.startedAt, kind: 'run.start', engine, model: context.model, task: context.task, config: {} },
    ...body,
  ];
  if (completed || failure !== undefined) {
    // Without a total of Codex's own (a turn that failed before its first response), the calls' sum: nothing to check.
    const calls = body.flatMap((event) => (event.kind === 'model.call' ? [event.tokens as TokenCounts] : []));
    const envelope = sumTokens([...(totals.size === 0 ? calls : totals.values())]);
    const outcome: RunOutcome = failure === undefined ? 'resolved' : 'engine-error';
    events.push({
      t: last,
      kind: 'run.end',
      outcome,
      // The turns' own durations: the rollout has no run-level figure, and its first and last lines bracket less.
      wallClockMs: durationMs,
      tokens: envelope,
      ...(failure === undefined ? {} : { detail: `codex reported: ${failure.slice(0, 500)}` }),
    });
  }
  return numbered(events);
}

export const codexRollout: TraceTranslator = {
  id: 'codex-rollout',
  description:
    "Codex's session log ($CODEX_HOME/sessions/…/rollout-*.jsonl, copied to {traceFile}): one model.call per token_usage_record with its response's usage (cached tokens taken out of input), " +
    'one tool.call per function, custom or shell tool call, other threads as subagents, task_complete as run.end.',
  translate,
};
