// Sidecar translator for mini-swe-agent's trajectory (the JSON file `mini --output {traceFile}` writes when it ends:
// {info, messages, trajectory_format}) into abp-trace/v1 events; docs/adapters.md describes the mapping. Each assistant
// message keeps the model's whole response, LiteLLM's usage in it, and when it was received; each tool message the
// command's return code; the last message says how the run ended.
import type { RunOutcome, TokenCounts } from '@abp/protocol/schemas/abp-trace';
import {
  checkContext,
  countOf,
  epochClock,
  isObject,
  numbered,
  parseObject,
  stringOf,
  sumTokens,
  type DraftEvent,
  type NativeObject,
} from './native.js';
import type { TraceTranslator, TraceTranslatorContext } from './translator.js';

const objectsOf = (value: unknown) => (Array.isArray(value) ? value.filter(isObject) : []);

// LiteLLM's usage is OpenAI's shape whatever the provider: prompt_tokens holds cache reads (and, from Anthropic, cache
// writes, which it also reports apart); ABP's input holds neither.
function tokensOf(usage: NativeObject): TokenCounts {
  const details = isObject(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  const cacheRead = countOf(details.cached_tokens);
  const cacheWrite = countOf(usage.cache_creation_input_tokens);
  return {
    input: Math.max(0, countOf(usage.prompt_tokens) - cacheRead - cacheWrite),
    output: countOf(usage.completion_tokens),
    cacheRead,
    cacheWrite,
  };
}

// How mini-swe-agent's last message says the run ended, as ABP's run outcomes; any other status is an exception's name.
const EXITS: Record<string, RunOutcome> = { Submitted: 'resolved', LimitsExceeded: 'budget-exceeded' };

function translate(nativeText: string, context: TraceTranslatorContext): unknown[] {
  checkContext(context);
  // No trajectory (mini-swe-agent killed before it wrote one) is a run with no calls on record.
  const trajectory = parseObject(nativeText) ?? {};
  const info = isObject(trajectory.info) ? trajectory.info : {};
  const config = isObject(info.config) && isObject(info.config.model) ? info.config.model : {};
  // "openai/gpt-5": the provider half, which responses leave out.
  const configured = stringOf(config.model_name) || undefined;
  const provider = configured?.includes('/') === true ? configured.split('/')[0] : undefined;
  const messages = objectsOf(trajectory.messages);
  const returnCodes = new Map<string, number>();
  for (const message of messages) {
    const extra = isObject(message.extra) ? message.extra : {};
    const id = stringOf(message.tool_call_id);
    if (message.role === 'tool' && id !== undefined && Number.isInteger(extra.returncode))
      returnCodes.set(id, extra.returncode as number);
  }

  const clock = epochClock(context.startedAt);
  const body: DraftEvent[] = [];
  const calls: TokenCounts[] = [];
  let exit: string | undefined;
  for (const message of messages) {
    const extra = isObject(message.extra) ? message.extra : {};
    if (message.role === 'exit') exit = stringOf(extra.exit_status);
    if (message.role !== 'assistant') continue;
    const t = clock.at(extra.timestamp);
    const response = isObject(extra.response) ? extra.response : {};
    // A response without usage is a call on record without tokens: an invalid event, so the trace's tokens are unknown
    // rather than a call that cost nothing.
    const tokens = isObject(response.usage) ? tokensOf(response.usage) : undefined;
    if (tokens !== undefined) calls.push(tokens);
    const model = configured ?? (stringOf(response.model) || undefined);
    body.push({
      t,
      kind: 'model.call',
      ...(tokens === undefined ? {} : { tokens }),
      ...(model === undefined
        ? {}
        : { model: model.includes('/') || provider === undefined ? model : `${provider}/${model}` }),
    });
    // Tool calling names each call; the text-based configuration has only the commands it parsed (actions).
    const toolCalls = objectsOf(message.tool_calls);
    if (toolCalls.length > 0)
      for (const call of toolCalls) {
        const fn = isObject(call.function) ? call.function : {};
        const args = typeof fn.arguments === 'string' ? parseObject(fn.arguments) : undefined;
        const code = returnCodes.get(stringOf(call.id) ?? '');
        body.push({
          t,
          kind: 'tool.call',
          tool: stringOf(fn.name) ?? 'bash',
          ...(args === undefined ? {} : { args }),
          ...(code === undefined ? {} : { exitCode: code }),
        });
      }
    else
      for (const action of objectsOf(extra.actions))
        body.push({ t, kind: 'tool.call', tool: 'bash', args: { command: stringOf(action.command) ?? '' } });
  }

  // mini-swe-agent counts its calls apart (model_stats): when it counted more than left a message, one call stands on
  // record without tokens for them, so a trajectory that lost some does not pass for the whole run.
  const counted = isObject(info.model_stats) ? info.model_stats.api_calls : undefined;
  const recorded = body.filter((event) => event.kind === 'model.call').length;
  if (typeof counted === 'number' && counted > recorded)
    body.push({ t: clock.last, kind: 'model.call', model: configured ?? context.model });
  const engine = context.engine.includes('/')
    ? context.engine
    : `${context.engine}/${stringOf(info.mini_version) ?? 'unknown'}`;
  const events: DraftEvent[] = [
    { t: context.startedAt, kind: 'run.start', engine, model: context.model, task: context.task, config: {} },
    ...body,
  ];
  if (exit !== undefined) {
    const outcome = EXITS[exit] ?? 'engine-error';
    events.push({
      t: clock.last,
      kind: 'run.end',
      outcome,
      wallClockMs: Date.parse(clock.last) - Date.parse(context.startedAt),
      tokens: sumTokens(calls),
      ...(outcome === 'resolved' ? {} : { detail: `mini-swe-agent ended with ${exit.slice(0, 200)}` }),
    });
  }
  return numbered(events);
}

export const miniSweAgentTrajectory: TraceTranslator = {
  id: 'mini-swe-agent-trajectory',
  description:
    "mini-swe-agent's trajectory (--output {traceFile}): one model.call per assistant message with its response's LiteLLM usage (cache reads and writes taken out of input), " +
    'one tool.call per tool call (or parsed action) with its return code, the exit status as run.end.',
  translate,
};
