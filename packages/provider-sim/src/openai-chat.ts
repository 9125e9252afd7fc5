// Owns OpenAI's Chat Completions API as the stand-in speaks it (POST /v1/chat/completions): the request read for its
// conversation and turn, and the scripted turn answered as one completion or as chunks ending in `data: [DONE]`, with
// the usage chunk only when the request asks for it (stream_options.include_usage), as the API does. OpenAI counts
// cached tokens inside prompt_tokens: prompt_tokens is the script's input plus its cache reads, and cached_tokens the
// reads. It has no cache writes, so a turn that scripts some is refused rather than misreported.
import type { ScriptedRequest, ScriptedTurn } from './script.js';
import { asArray, contentText, isObject, openingMessages, pieces, scriptedId, sse, type Json } from './wire.js';

export function readChatRequest(
  body: Json,
): ScriptedRequest & { model: string; stream: boolean; includeUsage: boolean } {
  const messages = asArray(body['messages']).filter(isObject);
  const options = isObject(body['stream_options']) ? body['stream_options'] : {};
  return {
    model: typeof body['model'] === 'string' ? body['model'] : '',
    stream: body['stream'] === true,
    includeUsage: options['include_usage'] === true,
    opening: openingMessages(messages)
      .map((message) => contentText(message['content']))
      .join('\n'),
    assistantTurns: messages.filter((message) => message['role'] === 'assistant').length,
  };
}

export function chatUsage(answer: ScriptedTurn): Json {
  const prompt = answer.usage.input + answer.usage.cacheRead;
  return {
    prompt_tokens: prompt,
    completion_tokens: answer.usage.output,
    total_tokens: prompt + answer.usage.output,
    prompt_tokens_details: { cached_tokens: answer.usage.cacheRead },
    completion_tokens_details: { reasoning_tokens: 0 },
  };
}

const argumentsOf = (input: ScriptedTurn['toolCalls'][number]['input']) =>
  typeof input === 'string' ? input : JSON.stringify(input);

interface At {
  model: string;
  conversation: string;
  turn: number;
  created: number;
}

export function chatResponse(answer: ScriptedTurn, at: At): Json {
  return {
    id: scriptedId('chatcmpl-', at.conversation, at.turn),
    object: 'chat.completion',
    created: at.created,
    model: at.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: answer.text ?? null,
          refusal: null,
          ...(answer.toolCalls.length === 0
            ? {}
            : {
                tool_calls: answer.toolCalls.map((call, index) => ({
                  id: scriptedId('call_', at.conversation, at.turn, index),
                  type: 'function',
                  function: { name: call.name, arguments: argumentsOf(call.input) },
                })),
              }),
        },
        logprobs: null,
        finish_reason: answer.toolCalls.length > 0 ? 'tool_calls' : 'stop',
      },
    ],
    usage: chatUsage(answer),
  };
}

export function chatStream(answer: ScriptedTurn, at: At & { includeUsage: boolean }): string[] {
  const chunk = (choices: Json[], extra: Json = {}) =>
    sse({
      id: scriptedId('chatcmpl-', at.conversation, at.turn),
      object: 'chat.completion.chunk',
      created: at.created,
      model: at.model,
      choices,
      ...extra,
    });
  const delta = (value: Json, finish: string | null = null) => ({
    index: 0,
    delta: value,
    logprobs: null,
    finish_reason: finish,
  });
  const events = [chunk([delta({ role: 'assistant', content: '' })])];
  if (answer.text !== undefined) for (const text of pieces(answer.text)) events.push(chunk([delta({ content: text })]));
  answer.toolCalls.forEach((call, index) => {
    const id = scriptedId('call_', at.conversation, at.turn, index);
    events.push(
      chunk([delta({ tool_calls: [{ index, id, type: 'function', function: { name: call.name, arguments: '' } }] })]),
    );
    for (const part of pieces(argumentsOf(call.input)))
      events.push(chunk([delta({ tool_calls: [{ index, function: { arguments: part } }] })]));
  });
  events.push(chunk([delta({}, answer.toolCalls.length > 0 ? 'tool_calls' : 'stop')]));
  if (at.includeUsage) events.push(chunk([], { usage: chatUsage(answer) }));
  events.push(sse('[DONE]'));
  return events;
}

/** An error in the API's own shape: `{error: {message, type, param, code}}`. */
export function openaiError(type: string, code: string | null, message: string): Json {
  return { error: { message, type, param: null, code } };
}
