// Owns OpenAI's Responses API as the stand-in speaks it (POST /v1/responses): the request read for its conversation
// and turn (the model's earlier turns are the runs of assistant items in `input`: messages, reasoning and tool calls),
// and the scripted turn answered as one response or as its event stream (response.created, output items with text and
// argument deltas, response.completed carrying the usage). A tool call is a function_call, or a custom_tool_call when
// the request declares that tool as a free-form custom tool. Cached tokens are counted inside input_tokens, as the API
// counts them; cache writes do not exist there.
import type { ScriptedRequest, ScriptedTurn } from './script.js';
import { asArray, contentText, isObject, openingMessages, pieces, scriptedId, sse, type Json } from './wire.js';

const ASSISTANT_ITEMS = new Set([
  'function_call',
  'custom_tool_call',
  'reasoning',
  'local_shell_call',
  'web_search_call',
]);

const byAssistant = (item: Json) =>
  ASSISTANT_ITEMS.has(String(item['type'])) ||
  (item['role'] === 'assistant' && (item['type'] === undefined || item['type'] === 'message'));

export function readResponsesRequest(body: Json): ScriptedRequest & {
  model: string;
  stream: boolean;
  customTools: ReadonlySet<string>;
  echo: Json;
} {
  const input = typeof body['input'] === 'string' ? [{ role: 'user', content: body['input'] }] : asArray(body['input']);
  const items = input.filter(isObject);
  // Each run of consecutive assistant items is one turn the model took.
  let turns = 0;
  items.forEach((item, index) => {
    const previous = items[index - 1];
    if (byAssistant(item) && (previous === undefined || !byAssistant(previous))) turns += 1;
  });
  const customTools = new Set(
    asArray(body['tools'])
      .filter(isObject)
      .filter((tool) => tool['type'] === 'custom' && typeof tool['name'] === 'string')
      .map((tool) => String(tool['name'])),
  );
  return {
    model: typeof body['model'] === 'string' ? body['model'] : '',
    stream: body['stream'] === true,
    customTools,
    opening: [
      contentText(body['instructions']),
      ...openingMessages(items, byAssistant).map((item) => contentText(item['content'])),
    ].join('\n'),
    assistantTurns: turns,
    // What a response repeats of its request.
    echo: {
      instructions: body['instructions'] ?? null,
      tools: asArray(body['tools']),
      tool_choice: body['tool_choice'] ?? 'auto',
      parallel_tool_calls: body['parallel_tool_calls'] ?? true,
      store: body['store'] ?? true,
    },
  };
}

export function responsesUsage(answer: ScriptedTurn): Json {
  const input = answer.usage.input + answer.usage.cacheRead;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: answer.usage.cacheRead },
    output_tokens: answer.usage.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + answer.usage.output,
  };
}

interface At {
  model: string;
  conversation: string;
  turn: number;
  created: number;
  customTools: ReadonlySet<string>;
  echo: Json;
}

function outputItems(answer: ScriptedTurn, at: At): Json[] {
  const items: Json[] = [];
  if (answer.text !== undefined)
    items.push({
      type: 'message',
      id: scriptedId('msg_', at.conversation, at.turn),
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: answer.text, annotations: [] }],
    });
  answer.toolCalls.forEach((call, index) => {
    const ids = {
      call_id: scriptedId('call_', at.conversation, at.turn, index),
      status: 'completed',
      name: call.name,
    };
    items.push(
      at.customTools.has(call.name) && typeof call.input === 'string'
        ? {
            type: 'custom_tool_call',
            id: scriptedId('ctc_', at.conversation, at.turn, index),
            ...ids,
            input: call.input,
          }
        : {
            type: 'function_call',
            id: scriptedId('fc_', at.conversation, at.turn, index),
            ...ids,
            arguments: typeof call.input === 'string' ? call.input : JSON.stringify(call.input),
          },
    );
  });
  return items;
}

function envelope(at: At, status: string, output: Json[], usage: Json | null): Json {
  return {
    id: scriptedId('resp_', at.conversation, at.turn),
    object: 'response',
    created_at: at.created,
    status,
    error: null,
    incomplete_details: null,
    model: at.model,
    output,
    usage,
    metadata: {},
    text: { format: { type: 'text' } },
    ...at.echo,
  };
}

export function responsesResponse(answer: ScriptedTurn, at: At): Json {
  return envelope(at, 'completed', outputItems(answer, at), responsesUsage(answer));
}

export function responsesStream(answer: ScriptedTurn, at: At): string[] {
  let sequence = 0;
  const event = (type: string, fields: Json) => sse({ type, sequence_number: sequence++, ...fields }, type);
  const events = [
    event('response.created', { response: envelope(at, 'in_progress', [], null) }),
    event('response.in_progress', { response: envelope(at, 'in_progress', [], null) }),
  ];
  outputItems(answer, at).forEach((item, output_index) => {
    const item_id = item['id'];
    if (item['type'] === 'message') {
      const text = answer.text ?? '';
      events.push(
        event('response.output_item.added', {
          output_index,
          item: { ...item, status: 'in_progress', content: [] },
        }),
        event('response.content_part.added', {
          item_id,
          output_index,
          content_index: 0,
          part: { type: 'output_text', text: '', annotations: [] },
        }),
        ...pieces(text).map((delta) =>
          event('response.output_text.delta', { item_id, output_index, content_index: 0, delta, logprobs: [] }),
        ),
        event('response.output_text.done', { item_id, output_index, content_index: 0, text, logprobs: [] }),
        event('response.content_part.done', {
          item_id,
          output_index,
          content_index: 0,
          part: { type: 'output_text', text, annotations: [] },
        }),
      );
    } else if (item['type'] === 'custom_tool_call') {
      const input = String(item['input']);
      events.push(
        event('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', input: '' } }),
        ...pieces(input).map((delta) =>
          event('response.custom_tool_call_input.delta', { item_id, output_index, delta }),
        ),
        event('response.custom_tool_call_input.done', { item_id, output_index, input }),
      );
    } else {
      const args = String(item['arguments']);
      events.push(
        event('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } }),
        ...pieces(args).map((delta) =>
          event('response.function_call_arguments.delta', { item_id, output_index, delta }),
        ),
        event('response.function_call_arguments.done', { item_id, output_index, arguments: args }),
      );
    }
    events.push(event('response.output_item.done', { output_index, item }));
  });
  events.push(event('response.completed', { response: responsesResponse(answer, at) }));
  return events;
}
