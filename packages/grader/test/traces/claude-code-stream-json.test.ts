import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { computeCostUsd, loadPriceTable } from '../../src/prices/index.js';
import { createRedactor } from '../../src/redaction/index.js';
import {
  abpModelId,
  summarizeTrace,
  TraceError,
  traceTranslators,
  translateNativeTrace,
  type TraceSummary,
  type TraceTranslatorContext,
} from '../../src/traces/index.js';

const TRANSLATOR = 'claude-code-stream-json';
const workspace = '/tmp/abp-trial/workspace';
const context: TraceTranslatorContext = {
  task: 'fixture-router',
  engine: 'claude-code',
  model: 'anthropic/claude-sonnet-4-5',
  startedAt: '2026-11-02T10:00:00Z',
};
const redactor = createRedactor({ env: { HOME: '/home/runner' }, workspace });
const source = { kind: 'sidecar', translator: TRANSLATOR } as const;

const summarizeNative = (nativeText: string, overrides: Partial<TraceTranslatorContext> = {}): TraceSummary =>
  summarizeTrace(translateNativeTrace(TRANSLATOR, nativeText, { ...context, ...overrides }), {
    source,
    runModel: context.model,
    redactor,
  });
const stream = (...lines: unknown[]) =>
  lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n');
const usage = (input: number, output: number, cacheRead = 0, cacheWrite = 0) => ({
  input_tokens: input,
  output_tokens: output,
  cache_read_input_tokens: cacheRead,
  cache_creation_input_tokens: cacheWrite,
});
const init = {
  type: 'system',
  subtype: 'init',
  model: 'claude-sonnet-4-5-20250929',
  claude_code_version: '2.0.14',
  tools: ['Task', 'Bash'],
  session_id: 's-1',
};
const assistant = (id: string, content: unknown[], usageValue: unknown, extra: Record<string, unknown> = {}) => ({
  type: 'assistant',
  message: { id, model: 'claude-sonnet-4-5-20250929', content, usage: usageValue },
  parent_tool_use_id: null,
  ...extra,
});
const toolResult = (toolUseId: string, extra: Record<string, unknown> = {}) => ({
  type: 'user',
  message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUseId, content: 'ok' }] },
  ...extra,
});
const result = (subtype: string, extra: Record<string, unknown> = {}) => ({
  type: 'result',
  subtype,
  is_error: subtype !== 'success',
  duration_ms: 1500,
  num_turns: 1,
  total_cost_usd: 0.01,
  usage: usage(0, 0),
  ...extra,
});

describe('the sample Claude Code stream, end to end', () => {
  let summary: TraceSummary;
  beforeAll(async () => {
    summary = summarizeNative(
      await readFile(new URL('../fixtures/traces/claude-code-stream.jsonl', import.meta.url), 'utf8'),
    );
  });

  it('translates to a trace with no problems and no flags', () => {
    expect(summary.problems).toEqual([]);
    expect(summary.flags).toEqual([]);
    expect(summary.source).toEqual(source);
  });

  it('starts with the engine version from the init line and ends at the start plus duration_ms', () => {
    expect(summary.events[0]).toMatchObject({
      kind: 'run.start',
      engine: 'claude-code/2.0.14',
      model: 'anthropic/claude-sonnet-4-5',
      task: 'fixture-router',
    });
    expect(summary.events.at(-1)).toMatchObject({
      kind: 'run.end',
      t: '2026-11-02T10:00:48.211Z',
      outcome: 'resolved',
      wallClockMs: 48211,
      costUsd: 0.043813,
    });
  });

  it('counts each API message once, with input excluding cache reads and writes', () => {
    expect(summary.modelCalls).toBe(6);
    expect(summary.tokens).toEqual({ input: 3918, output: 623, cacheRead: 18530, cacheWrite: 6980, total: 30051 });
    expect(summary.envelope.tokens).toEqual({ input: 3918, output: 623, cacheRead: 18530, cacheWrite: 6980 });
  });

  it("normalizes dated model names and attributes the subagent's calls to it", () => {
    expect(summary.perModel).toEqual({
      'anthropic/claude-sonnet-4-5': { input: 18, output: 501, cacheRead: 18530, cacheWrite: 6980 },
      'anthropic/claude-haiku-4-5': { input: 3900, output: 122, cacheRead: 0, cacheWrite: 0 },
    });
    expect(summary.perSubagent).toEqual({
      root: { input: 18, output: 501, cacheRead: 18530, cacheWrite: 6980, parent: null },
      toolu_02TaskTests: { input: 3900, output: 122, cacheRead: 0, cacheWrite: 0, parent: 'root' },
    });
  });

  it("records tool calls with redacted, workspace-relative arguments and the subagent's lifetime", () => {
    const kinds = summary.events.map((event) => (event.kind === 'tool.call' ? `tool.call:${event.tool}` : event.kind));
    expect(kinds).toEqual([
      'run.start',
      'model.call',
      'tool.call:Read',
      'model.call',
      'tool.call:Task',
      'subagent.start',
      'model.call',
      'tool.call:Bash',
      'model.call',
      'subagent.end',
      'model.call',
      'tool.call:Edit',
      'model.call',
      'run.end',
    ]);
    expect(summary.events[2]).toMatchObject({ args: { file_path: 'src/router/match.ts' } });
    expect(summary.events[5]).toMatchObject({ id: 'toolu_02TaskTests', purpose: 'Run the router tests' });
    expect(summary.events[7]).toMatchObject({
      subagent: 'toolu_02TaskTests',
      args: { command: 'cd {workspace} && npm test -- test/router' },
    });
  });

  it('computes from the price table the same cost the engine reported', () => {
    expect(computeCostUsd(summary.perModel, loadPriceTable())).toEqual({
      usd: summary.envelope.costUsd,
      pricedUsd: summary.envelope.costUsd,
      unpricedModels: [],
    });
  });
});

describe('the claude-code-stream-json translator', () => {
  it('is registered under its id', () => {
    expect(traceTranslators.get(TRANSLATOR)?.id).toBe(TRANSLATOR);
  });

  it('counts a message streamed in several parts once, with its last usage', () => {
    const summary = summarizeNative(
      stream(
        init,
        assistant('msg_1', [{ type: 'text', text: 'Looking.' }], usage(10, 1, 100, 50)),
        assistant(
          'msg_1',
          [{ type: 'tool_use', id: 'toolu_a', name: 'Bash', input: { command: 'ls' } }],
          usage(10, 40, 100, 50),
        ),
        assistant(
          'msg_1',
          [{ type: 'tool_use', id: 'toolu_b', name: 'Bash', input: { command: 'pwd' } }],
          usage(10, 65, 100, 50),
        ),
        assistant('msg_1', [{ type: 'tool_use', id: 'toolu_b', name: 'Bash', input: { command: 'pwd' } }], undefined),
        result('success', { usage: usage(10, 65, 100, 50) }),
      ),
    );
    expect(summary.modelCalls).toBe(1);
    expect(summary.tokens).toEqual({ input: 10, output: 65, cacheRead: 100, cacheWrite: 50, total: 225 });
    expect(summary.events.filter((event) => event.kind === 'tool.call')).toHaveLength(2);
    expect(summary.flags).toEqual([]);
  });

  it("takes each call's output tokens from the API's message_delta, which comes after Claude Code's assistant line", () => {
    // What `--include-partial-messages` writes: message_start (the input side, output 0 so far), the assistant line
    // with that same usage, then message_delta with the output; a subagent's stream interleaved with its parent's.
    const event = (value: unknown, parent: string | null = null) => ({
      type: 'stream_event',
      event: value,
      parent_tool_use_id: parent,
    });
    const start = (id: string, input: number) => ({
      type: 'message_start',
      message: { id, model: 'claude-sonnet-4-5', usage: usage(input, 0, 50, 20) },
    });
    const spawn = { type: 'tool_use', id: 'toolu_sub', name: 'Agent', input: { description: 'look around' } };
    const summary = summarizeNative(
      stream(
        init,
        event(start('msg_1', 100)),
        assistant('msg_1', [spawn], usage(100, 0, 50, 20)),
        event({ type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 10 } }),
        event(start('msg_sub', 7), 'toolu_sub'),
        event(start('msg_2', 200)),
        assistant('msg_sub', [{ type: 'text', text: 'seen' }], usage(7, 0), { parent_tool_use_id: 'toolu_sub' }),
        event({ type: 'message_delta', usage: { output_tokens: 3 } }, 'toolu_sub'),
        toolResult('toolu_sub'),
        assistant('msg_2', [{ type: 'text', text: 'Done.' }], usage(200, 0, 50, 20)),
        event({ type: 'message_delta', usage: { output_tokens: 20 } }),
        result('success', { usage: usage(307, 33, 100, 40) }),
      ),
    );
    expect(summary.problems).toEqual([]);
    expect(summary.flags).toEqual([]);
    expect(summary.modelCalls).toBe(3);
    expect(summary.tokens).toMatchObject({ input: 307, output: 33, cacheRead: 100, cacheWrite: 40 });
    expect(summary.perSubagent['toolu_sub']).toMatchObject({ input: 7, output: 3 });
  });

  it('skips unknown line types, stray text and synthetic messages', () => {
    const summary = summarizeNative(
      stream(
        init,
        'npm warn something unrelated',
        { type: 'stream_event', event: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta' } } },
        { type: 'system', subtype: 'compact_boundary' },
        assistant('msg_1', [{ type: 'text', text: 'Done.' }], usage(5, 5)),
        {
          type: 'assistant',
          message: {
            id: 'msg_2',
            model: '<synthetic>',
            content: [{ type: 'text', text: 'API Error' }],
            usage: usage(0, 0),
          },
        },
        result('success', { usage: usage(5, 5) }),
      ),
    );
    expect(summary.problems).toEqual([]);
    expect(summary.modelCalls).toBe(1);
    expect(summary.tokens.total).toBe(10);
  });

  it('nests a subagent spawned inside a subagent, with the Agent tool name too', () => {
    const summary = summarizeNative(
      stream(
        init,
        assistant(
          'msg_1',
          [{ type: 'tool_use', id: 'toolu_outer', name: 'Agent', input: { description: 'plan' } }],
          usage(1, 1),
        ),
        assistant(
          'msg_2',
          [{ type: 'tool_use', id: 'toolu_inner', name: 'Task', input: { description: 'search' } }],
          usage(2, 2),
          { parent_tool_use_id: 'toolu_outer' },
        ),
        assistant('msg_3', [{ type: 'text', text: 'found' }], usage(3, 3), { parent_tool_use_id: 'toolu_inner' }),
        toolResult('toolu_inner', { parent_tool_use_id: 'toolu_outer' }),
        toolResult('toolu_outer'),
        result('success', { usage: usage(6, 6) }),
      ),
    );
    expect(summary.problems).toEqual([]);
    expect(summary.perSubagent).toEqual({
      root: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, parent: null },
      toolu_outer: { input: 2, output: 2, cacheRead: 0, cacheWrite: 0, parent: 'root' },
      toolu_inner: { input: 3, output: 3, cacheRead: 0, cacheWrite: 0, parent: 'toolu_outer' },
    });
    expect(summary.events.filter((event) => event.kind === 'subagent.end').map((event) => event.id)).toEqual([
      'toolu_inner',
      'toolu_outer',
    ]);
  });

  it.each([
    ['error_max_turns', {}, 'unresolved'],
    ['error_max_budget_usd', {}, 'budget-exceeded'],
    ['error_during_execution', {}, 'engine-error'],
    ['success', { is_error: true }, 'engine-error'],
  ])('maps result subtype %s to outcome %s with a detail', (subtype, extra, outcome) => {
    const summary = summarizeNative(
      stream(init, assistant('msg_1', [], usage(1, 1)), result(subtype, { usage: usage(1, 1), ...extra })),
    );
    expect(summary.envelope.outcome).toBe(outcome);
    expect(summary.events.at(-1)).toMatchObject({ detail: expect.stringContaining(subtype) as unknown });
  });

  it('leaves run.end out when the stream has no result line, so the trace is flagged', () => {
    const summary = summarizeNative(stream(assistant('msg_1', [], usage(1, 1))));
    expect(summary.flags).toEqual(['missing-run-end']);
    expect(summary.events[0]).toMatchObject({ kind: 'run.start', engine: 'claude-code/unknown' });
  });

  it('keeps an engine version given by the harness', () => {
    const summary = summarizeNative(stream(init), { engine: 'claude-code/2.1.0' });
    expect(summary.events[0]).toMatchObject({ engine: 'claude-code/2.1.0' });
  });

  it('refuses a start time that is not an RFC 3339 UTC timestamp', () => {
    expect(() => translateNativeTrace(TRANSLATOR, '', { ...context, startedAt: '2026-11-02 10:00' })).toThrow(
      expect.objectContaining({ code: 'invalid-translator-context' }),
    );
  });

  it('refuses an unknown translator id', () => {
    expect(() => translateNativeTrace('codex-jsonl', '', context)).toThrow(TraceError);
    expect(() => translateNativeTrace('codex-jsonl', '', context)).toThrow(
      expect.objectContaining({ code: 'unknown-translator' }),
    );
  });
});

describe('abpModelId', () => {
  it.each([
    ['claude-sonnet-4-5-20250929', 'anthropic/claude-sonnet-4-5'],
    ['claude-opus-4-1', 'anthropic/claude-opus-4-1'],
    ['claude-3-5-haiku-20241022', 'anthropic/claude-3-5-haiku'],
    ['bedrock/anthropic.claude-sonnet-4-5', 'bedrock/anthropic.claude-sonnet-4-5'],
  ])('%s -> %s', (claudeModel, expected) => {
    expect(abpModelId(claudeModel)).toBe(expected);
  });
});
