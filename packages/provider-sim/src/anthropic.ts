// Owns the Anthropic Messages API as the stand-in speaks it (POST /v1/messages): the request read for its conversation
// and turn, and the scripted turn answered as one message or as the event stream (message_start, content blocks with
// text and input_json deltas, message_delta with the stop reason and output tokens, message_stop). Usage is reported
// as the API reports it, which is already the protocol's normalization: input_tokens counts neither cache reads nor
// cache writes, which are their own fields.
import type { ScriptedRequest, ScriptedTurn } from './script.js';
import { asArray, contentText, isObject, openingMessages, pieces, scriptedId, sse, type Json } from './wire.js';

export function readMessagesRequest(body: Json): ScriptedRequest & { model: string; stream: boolean } {
  const messages = asArray(body['messages']).filter(isObject);
  return {
    model: typeof body['model'] === 'string' ? body['model'] : '',
    stream: body['stream'] === true,
    opening: [contentText(body['system']), ...openingMessages(messages).map((m) => contentText(m['content']))].join(
      '\n',
    ),
    assistantTurns: messages.filter((message) => message['role'] === 'assistant').length,
  };
}

function blocks(answer: ScriptedTurn, conversation: string, turn: number): Json[] {
  return [
    ...(answer.text === undefined ? [] : [{ type: 'text', text: answer.text }]),
    ...answer.toolCalls.map((call, index) => ({
      type: 'tool_use',
      id: scriptedId('toolu_', conversation, turn, index),
      name: call.name,
      input: call.input,
    })),
  ];
}

function usageOf(answer: ScriptedTurn): Json {
  return {
    input_tokens: answer.usage.input,
    cache_creation_input_tokens: answer.usage.cacheWrite,
    cache_read_input_tokens: answer.usage.cacheRead,
    output_tokens: answer.usage.output,
  };
}

const stopReason = (answer: ScriptedTurn) => (answer.toolCalls.length > 0 ? 'tool_use' : 'end_turn');

export function messagesResponse(
  answer: ScriptedTurn,
  at: { model: string; conversation: string; turn: number },
): Json {
  return {
    id: scriptedId('msg_', at.conversation, at.turn),
    type: 'message',
    role: 'assistant',
    model: at.model,
    content: blocks(answer, at.conversation, at.turn),
    stop_reason: stopReason(answer),
    stop_sequence: null,
    usage: usageOf(answer),
  };
}

export function messagesStream(
  answer: ScriptedTurn,
  at: { model: string; conversation: string; turn: number },
): string[] {
  const events = [
    sse(
      {
        type: 'message_start',
        message: {
          ...messagesResponse(answer, at),
          content: [],
          stop_reason: null,
          // Output is counted as it is generated: the final figure comes in message_delta, as from the API.
          usage: { ...usageOf(answer), output_tokens: 0 },
        },
      },
      'message_start',
    ),
  ];
  blocks(answer, at.conversation, at.turn).forEach((block, index) => {
    const start = block['type'] === 'text' ? { type: 'text', text: '' } : { ...block, input: {} };
    events.push(sse({ type: 'content_block_start', index, content_block: start }, 'content_block_start'));
    const deltas =
      block['type'] === 'text'
        ? pieces(String(block['text'])).map((text) => ({ type: 'text_delta', text }))
        : pieces(JSON.stringify(block['input'])).map((partial_json) => ({ type: 'input_json_delta', partial_json }));
    for (const delta of deltas) events.push(sse({ type: 'content_block_delta', index, delta }, 'content_block_delta'));
    events.push(sse({ type: 'content_block_stop', index }, 'content_block_stop'));
  });
  events.push(
    sse(
      {
        type: 'message_delta',
        delta: { stop_reason: stopReason(answer), stop_sequence: null },
        usage: { output_tokens: answer.usage.output },
      },
      'message_delta',
    ),
    sse({ type: 'message_stop' }, 'message_stop'),
  );
  return events;
}

/** An error in the API's own shape: `{type: "error", error: {type, message}}`. */
export function messagesError(type: string, message: string): Json {
  return { type: 'error', error: { type, message } };
}
