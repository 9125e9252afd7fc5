// Sidecar translator for Hermes Agent: what its shell hooks were handed during a one-shot run, one payload per line as
// engines/hermes-hook.py keeps it ({hook_event_name, tool_name, tool_input, session_id, extra}, extra holding the call's
// usage, model and times, or the tool's duration and exit code), then {"hermes_version", "usage_report"} (its
// --usage-file report), all put in the trace file by engines/hermes-oneshot.sh; docs/adapters.md describes the mapping.
// Hermes keeps usage per model call nowhere else: its session database and its usage report hold totals.
import type { RunOutcome, TokenCounts } from '@abp/protocol/schemas/abp-trace';
import {
  checkContext,
  countOf,
  epochClock,
  isObject,
  numbered,
  objectLines,
  stringOf,
  sumTokens,
  type DraftEvent,
  type NativeObject,
} from './native.js';
import type { TraceTranslator, TraceTranslatorContext } from './translator.js';

// Hermes normalizes every provider's usage to these buckets, input without cache reads or writes, as ABP counts it.
const tokensOf = (usage: NativeObject): TokenCounts => ({
  input: countOf(usage.input_tokens),
  output: countOf(usage.output_tokens),
  cacheRead: countOf(usage.cache_read_tokens),
  cacheWrite: countOf(usage.cache_write_tokens),
});

// Hermes's provider ids, as the provider half of an ABP model id.
const PROVIDERS: Record<string, string> = { 'openai-api': 'openai', 'openai-codex': 'openai', anthropic: 'anthropic' };

/** "gpt-5" from Hermes's "openai-api" provider -> "openai/gpt-5"; a model that names its provider stays as it is. */
export function hermesModelId(model: string, provider: string | undefined): string {
  if (model.includes('/')) return model;
  return `${(provider === undefined ? undefined : PROVIDERS[provider]) ?? provider ?? 'unknown'}/${model}`;
}

function translate(nativeText: string, context: TraceTranslatorContext): unknown[] {
  checkContext(context);
  const lines = objectLines(nativeText);
  const report = lines.map((line) => line.usage_report).find(isObject);
  // The report names the main agent's session; without one (Hermes killed), the first session a hook saw.
  const mainSession = stringOf(report?.session_id) || lines.map((line) => stringOf(line.session_id)).find(Boolean);

  // Payloads carry epoch seconds (a call's end); a tool call's payload none.
  const clock = epochClock(context.startedAt);
  const body: DraftEvent[] = [];
  const open = new Set<string>();
  const attribution = (session: string | undefined, t: string) => {
    if (session === undefined || session === mainSession) return {};
    if (!open.has(session)) {
      open.add(session);
      body.push({ t, kind: 'subagent.start', id: session });
    }
    return { subagent: session };
  };
  // Subagents' calls: Hermes counts each agent's usage on that agent, so the report (the main agent's) leaves them out.
  const subagentCalls: TokenCounts[] = [];

  for (const line of lines) {
    const extra = isObject(line.extra) ? line.extra : {};
    const session = stringOf(line.session_id);
    switch (line.hook_event_name) {
      case 'post_api_request': {
        const t = clock.at(extra.ended_at);
        // A call Hermes reported no usage for is on record without tokens: an invalid event, so the trace's tokens are
        // unknown rather than a call that cost nothing.
        const tokens = isObject(extra.usage) ? tokensOf(extra.usage) : undefined;
        if (tokens !== undefined && session !== undefined && session !== mainSession) subagentCalls.push(tokens);
        // The model asked for, as the price table names it; the response may name a dated snapshot of it.
        const model = stringOf(extra.model) ?? stringOf(extra.response_model);
        body.push({
          t,
          kind: 'model.call',
          ...(tokens === undefined ? {} : { tokens }),
          ...(model === undefined ? {} : { model: hermesModelId(model, stringOf(extra.provider)) }),
          ...attribution(session, t),
          ...(typeof extra.api_duration === 'number' ? { durationMs: Math.round(extra.api_duration * 1000) } : {}),
        });
        break;
      }
      case 'post_tool_call': {
        const t = clock.at(undefined);
        body.push({
          t,
          kind: 'tool.call',
          tool: stringOf(line.tool_name) ?? 'unknown',
          ...(isObject(line.tool_input) ? { args: line.tool_input } : {}),
          ...attribution(session, t),
          ...(typeof extra.duration_ms === 'number' ? { durationMs: extra.duration_ms } : {}),
          ...(Number.isInteger(extra.exit_code) ? { exitCode: extra.exit_code } : {}),
        });
        break;
      }
      case 'subagent_stop': {
        const child = stringOf(extra.child_session_id);
        if (child !== undefined && open.delete(child))
          body.push({
            t: clock.at(undefined),
            kind: 'subagent.end',
            id: child,
            ...(typeof extra.duration_ms === 'number' ? { durationMs: extra.duration_ms } : {}),
          });
        break;
      }
      default:
        break; // the usage report is read above; other hooks carry nothing ABP counts
    }
  }
  for (const child of open) body.push({ t: clock.last, kind: 'subagent.end', id: child });

  const version = lines.map((line) => stringOf(line.hermes_version)).find(Boolean);
  const engine = context.engine.includes('/') ? context.engine : `${context.engine}/${version ?? 'unknown'}`;
  const events: DraftEvent[] = [
    { t: context.startedAt, kind: 'run.start', engine, model: context.model, task: context.task, config: {} },
    ...body,
  ];
  if (report !== undefined && (report.completed === true || report.failed === true)) {
    // The main agent's totals as Hermes counted them, and its subagents' calls: the envelope the summary holds the
    // calls against, so a main-agent call the hooks missed shows as a mismatch.
    const tokens = sumTokens([tokensOf(report), ...subagentCalls]);
    const failure = report.failed === true ? (stringOf(report.failure) ?? 'the run failed') : undefined;
    const outcome: RunOutcome = failure === undefined ? 'resolved' : 'engine-error';
    events.push({
      t: clock.last,
      kind: 'run.end',
      outcome,
      wallClockMs: Date.parse(clock.last) - Date.parse(context.startedAt),
      tokens,
      ...(failure === undefined ? {} : { detail: `hermes reported: ${failure.slice(0, 500)}` }),
    });
  }
  return numbered(events);
}

export const hermesHooks: TraceTranslator = {
  id: 'hermes-hooks',
  description:
    "Hermes Agent's hook payloads and usage report (engines/hermes-oneshot.sh writes them to {traceFile}): one model.call per post_api_request with its usage, " +
    'one tool.call per post_tool_call, other sessions as subagents, the usage report as run.end.',
  translate,
};
