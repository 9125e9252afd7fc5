// The stand-in heard through the providers' own published clients (@anthropic-ai/sdk and openai from npm), which parse
// the real wire formats: a scripted conversation with tool calls, answered whole and streamed, with the usage each
// answer reports kept in the ledger exactly; keys checked; a request past the script refused in the format's own shape.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScript } from '../src/script.js';
import { startProviderStandIn, type ProviderStandIn } from '../src/server.js';

const KEY = 'stand-in-key-0001';
const script = parseScript({
  schema: 'abp-provider-script/v1',
  conversations: [
    {
      name: 'fix-slug',
      match: 'slugify',
      turns: [
        {
          text: 'Let me run the tests first.',
          toolCalls: [{ name: 'run', input: { command: 'npm test', note: 'a "quoted" word and a line\nbreak' } }],
          usage: { input: 1200, output: 45, cacheRead: 800, cacheWrite: 0 },
        },
        { text: 'The slug is fixed.', usage: { input: 1500, output: 12, cacheRead: 2000, cacheWrite: 0 } },
      ],
    },
    {
      name: 'patcher',
      match: 'free-form',
      turns: [
        {
          toolCalls: [{ name: 'apply_patch', input: '*** Begin Patch\n*** End Patch\n' }],
          usage: { input: 10, output: 5 },
        },
      ],
    },
    {
      name: 'cached',
      match: 'cache writes',
      turns: [{ text: 'ok', usage: { input: 3, output: 1, cacheRead: 0, cacheWrite: 4096 } }],
    },
  ],
});

let standIn: ProviderStandIn;
beforeAll(async () => {
  standIn = await startProviderStandIn({ script, keys: [KEY] });
});
afterAll(() => standIn.close());

const tool = { name: 'run', description: 'Runs a command', input_schema: { type: 'object' as const, properties: {} } };
const opening = 'Please fix slugify in src/slug.js.';

describe('Anthropic Messages, through @anthropic-ai/sdk', () => {
  const client = () => new Anthropic({ apiKey: KEY, baseURL: standIn.url, maxRetries: 0 });

  it('answers the script turn by turn, the same whole and streamed, with the usage it reports', async () => {
    const before = standIn.served().length;
    const first = await client().messages.create({
      model: 'claude-test-1',
      max_tokens: 1024,
      system: 'You are an engine under test.',
      tools: [tool],
      messages: [{ role: 'user', content: opening }],
    });
    expect(first.stop_reason).toBe('tool_use');
    expect(first.content).toEqual([
      { type: 'text', text: 'Let me run the tests first.' },
      {
        type: 'tool_use',
        id: 'toolu_abp_fix_slug_0_0',
        name: 'run',
        input: { command: 'npm test', note: 'a "quoted" word and a line\nbreak' },
      },
    ]);
    expect(first.usage).toMatchObject({
      input_tokens: 1200,
      output_tokens: 45,
      cache_read_input_tokens: 800,
      cache_creation_input_tokens: 0,
    });
    const streamed = await client()
      .messages.stream({
        model: 'claude-test-1',
        max_tokens: 1024,
        tools: [tool],
        messages: [{ role: 'user', content: opening }],
      })
      .finalMessage();
    expect(streamed.content).toEqual(first.content);
    expect(streamed.usage).toMatchObject({ input_tokens: 1200, output_tokens: 45, cache_read_input_tokens: 800 });
    // The second turn: the history holds the model's first.
    const second = await client()
      .messages.stream({
        model: 'claude-test-1',
        max_tokens: 1024,
        tools: [tool],
        messages: [
          { role: 'user', content: opening },
          { role: 'assistant', content: first.content },
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: 'toolu_abp_fix_slug_0_0', content: '1 failing' }],
          },
        ],
      })
      .finalMessage();
    expect(second.content).toEqual([{ type: 'text', text: 'The slug is fixed.' }]);
    expect(second.stop_reason).toBe('end_turn');
    expect(standIn.served().slice(before)).toEqual([
      ...[false, true].map((stream) => ({
        api: 'anthropic-messages',
        model: 'claude-test-1',
        stream,
        conversation: 'fix-slug',
        turn: 0,
        usage: { input: 1200, output: 45, cacheRead: 800, cacheWrite: 0 },
        refused: null,
      })),
      {
        api: 'anthropic-messages',
        model: 'claude-test-1',
        stream: true,
        conversation: 'fix-slug',
        turn: 1,
        usage: { input: 1500, output: 12, cacheRead: 2000, cacheWrite: 0 },
        refused: null,
      },
    ]);
  });

  it('reports cache writes as their own field', async () => {
    const message = await client().messages.create({
      model: 'claude-test-1',
      max_tokens: 16,
      messages: [{ role: 'user', content: 'cache writes please' }],
    });
    expect(message.usage).toMatchObject({ input_tokens: 3, cache_creation_input_tokens: 4096, output_tokens: 1 });
  });

  it('refuses a wrong key, and a turn past the script, in the API’s own error shape', async () => {
    const wrong = new Anthropic({ apiKey: 'not-the-key', baseURL: standIn.url, maxRetries: 0 });
    await expect(
      wrong.messages.create({ model: 'm', max_tokens: 8, messages: [{ role: 'user', content: opening }] }),
    ).rejects.toMatchObject({ status: 401, error: { type: 'error', error: { type: 'authentication_error' } } });
    await expect(
      client().messages.create({
        model: 'm',
        max_tokens: 8,
        messages: [
          { role: 'user', content: opening },
          { role: 'assistant', content: 'one' },
          { role: 'user', content: 'go on' },
          { role: 'assistant', content: 'two' },
          { role: 'user', content: 'and on' },
        ],
      }),
    ).rejects.toThrow(/^400 .*has 2 turns, and this request asks for turn 3/);
    await expect(
      client().messages.create({ model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'unrelated' }] }),
    ).rejects.toThrow(/^400 .*no scripted conversation matches/);
    expect(
      standIn
        .served()
        .slice(-3)
        .map((call) => [call.usage, call.refused !== null]),
    ).toEqual([
      [null, true],
      [null, true],
      [null, true],
    ]);
  });
});

describe('OpenAI Chat Completions, through openai', () => {
  const client = () => new OpenAI({ apiKey: KEY, baseURL: `${standIn.url}/v1`, maxRetries: 0 });
  const tools = [
    { type: 'function' as const, function: { name: 'run', parameters: { type: 'object', properties: {} } } },
  ];

  it('answers whole and streamed alike, counting cache reads inside prompt_tokens as OpenAI does', async () => {
    const whole = await client().chat.completions.create({
      model: 'gpt-test-1',
      tools,
      messages: [
        { role: 'system', content: 'You are an engine under test.' },
        { role: 'user', content: opening },
      ],
    });
    const choice = whole.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.content).toBe('Let me run the tests first.');
    expect(choice?.message.tool_calls).toEqual([
      {
        id: 'call_abp_fix_slug_0_0',
        type: 'function',
        function: {
          name: 'run',
          arguments: JSON.stringify({ command: 'npm test', note: 'a "quoted" word and a line\nbreak' }),
        },
      },
    ]);
    expect(whole.usage).toMatchObject({
      prompt_tokens: 2000,
      completion_tokens: 45,
      total_tokens: 2045,
      prompt_tokens_details: { cached_tokens: 800 },
    });
    const streamed = await client()
      .chat.completions.stream({
        model: 'gpt-test-1',
        tools,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: opening }],
      })
      .finalChatCompletion();
    expect(streamed.choices[0]?.message.tool_calls).toEqual(choice?.message.tool_calls);
    expect(streamed.choices[0]?.message.content).toBe(choice?.message.content);
    expect(streamed.usage).toMatchObject({ prompt_tokens: 2000, completion_tokens: 45 });
    // Without include_usage a stream carries no usage, as the API's does not.
    const bare = await client()
      .chat.completions.stream({ model: 'gpt-test-1', tools, messages: [{ role: 'user', content: opening }] })
      .finalChatCompletion();
    expect(bare.usage ?? null).toBeNull();
  });

  it('refuses a script turn with cache writes, which OpenAI has no field for', async () => {
    await expect(
      client().chat.completions.create({ model: 'gpt-test-1', messages: [{ role: 'user', content: 'cache writes' }] }),
    ).rejects.toMatchObject({ status: 400 });
  });

  it('refuses a wrong key with invalid_api_key', async () => {
    const wrong = new OpenAI({ apiKey: 'nope', baseURL: `${standIn.url}/v1`, maxRetries: 0 });
    await expect(
      wrong.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: opening }] }),
    ).rejects.toMatchObject({ status: 401, code: 'invalid_api_key' });
  });
});

describe('OpenAI Responses, through openai', () => {
  const client = () => new OpenAI({ apiKey: KEY, baseURL: `${standIn.url}/v1`, maxRetries: 0 });
  const tools = [
    { type: 'function' as const, name: 'run', parameters: { type: 'object', properties: {} }, strict: false },
  ];

  it('answers whole and streamed alike, and reads the turn from the assistant items of the input', async () => {
    const whole = await client().responses.create({
      model: 'gpt-test-1',
      instructions: 'Engine under test.',
      tools,
      input: opening,
    });
    expect(whole.status).toBe('completed');
    expect(whole.output_text).toBe('Let me run the tests first.');
    expect(whole.output.map((item) => item.type)).toEqual(['message', 'function_call']);
    expect(whole.output[1]).toMatchObject({
      type: 'function_call',
      call_id: 'call_abp_fix_slug_0_0',
      name: 'run',
      arguments: JSON.stringify({ command: 'npm test', note: 'a "quoted" word and a line\nbreak' }),
    });
    expect(whole.usage).toMatchObject({
      input_tokens: 2000,
      output_tokens: 45,
      input_tokens_details: { cached_tokens: 800 },
    });
    const streamed = await client()
      .responses.stream({ model: 'gpt-test-1', tools, input: [{ role: 'user', content: opening }] })
      .finalResponse();
    // The client's stream helper adds fields of its own (parsed, parsed_arguments): what the stand-in sent is the same.
    expect(streamed.output).toMatchObject(whole.output);
    expect(streamed.usage).toEqual(whole.usage);
    const second = await client().responses.create({
      model: 'gpt-test-1',
      tools,
      input: [
        { role: 'user', content: opening },
        ...whole.output.map((item) => item as OpenAI.Responses.ResponseInputItem),
        { type: 'function_call_output', call_id: 'call_abp_fix_slug_0_0', output: '1 failing' },
      ],
    });
    expect(second.output_text).toBe('The slug is fixed.');
  });

  it('answers a free-form custom tool with a custom_tool_call carrying the text', async () => {
    const events: string[] = [];
    const stream = await client().responses.create({
      model: 'gpt-test-1',
      stream: true,
      tools: [{ type: 'custom', name: 'apply_patch' }],
      input: 'apply a free-form patch',
    });
    let completed: OpenAI.Responses.Response | null = null;
    for await (const event of stream) {
      events.push(event.type);
      if (event.type === 'response.completed') completed = event.response;
    }
    expect(events[0]).toBe('response.created');
    expect(events).toContain('response.custom_tool_call_input.delta');
    expect(completed?.output).toEqual([
      expect.objectContaining({
        type: 'custom_tool_call',
        name: 'apply_patch',
        input: '*** Begin Patch\n*** End Patch\n',
      }),
    ]);
  });
});
