// The codex-rollout translator on session logs shaped as Codex 0.171 writes them (checked against a real run in
// test/real-engines/codex.e2e.test.ts): one model call per response with cached tokens taken out of input, tool calls,
// a subagent's thread, the older token_count-only form, and run.end from Codex's own totals.
import { describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/redaction/index.js';
import { summarizeTrace, translateNativeTrace, type TraceTranslatorContext } from '../../src/traces/index.js';

const context: TraceTranslatorContext = {
  task: 'fixture-slug',
  engine: 'codex',
  model: 'openai/gpt-5',
  startedAt: '2026-12-06T02:49:44Z',
};
const redactor = createRedactor({ env: { HOME: '/home/runner' }, workspace: '/tmp/abp-trial/workspace' });
const summarize = (lines: unknown[]) =>
  summarizeTrace(translateNativeTrace('codex-rollout', lines.map((line) => JSON.stringify(line)).join('\n'), context), {
    source: { kind: 'sidecar', translator: 'codex-rollout' },
    runModel: context.model,
    redactor,
  });

let second = 0;
const line = (type: string, payload: Record<string, unknown>) => ({
  timestamp: `2026-12-06T02:49:${String(45 + second++).padStart(2, '0')}.100Z`,
  type,
  payload,
});
const usage = (input: number, cached: number, output: number) => ({
  input_tokens: input,
  cached_input_tokens: cached,
  cache_write_input_tokens: 0,
  output_tokens: output,
  reasoning_output_tokens: 0,
  total_tokens: input + output,
});
const meta = (id: string) => line('session_meta', { id, cli_version: '0.171.0', source: 'exec' });
const turn = line('turn_context', { model: 'gpt-5' });
const record = (response: string, input: number, cached: number, output: number) =>
  line('token_usage_record', { response_id: response, usage: usage(input, cached, output) });
const tool = (name: string, args: unknown) =>
  line('response_item', { type: 'function_call', name, arguments: JSON.stringify(args), call_id: `call_${name}` });
const total = (input: number, cached: number, output: number) =>
  line('event_msg', { type: 'token_count', info: { total_token_usage: usage(input, cached, output) } });
const complete = line('event_msg', { type: 'task_complete', duration_ms: 473 });

describe('the codex-rollout translator', () => {
  it('counts each response once, input without its cached tokens, with its tool calls and Codex’s total as run.end', () => {
    const summary = summarize([
      meta('thread-main'),
      turn,
      tool('exec_command', { cmd: 'node --test' }),
      record('resp_1', 4000, 1000, 40),
      record('resp_1', 4000, 1000, 40),
      line('response_item', { type: 'custom_tool_call', name: 'apply_patch', input: '*** Begin Patch', call_id: 'c2' }),
      record('resp_2', 4400, 4000, 90),
      total(8400, 5000, 130),
      complete,
    ]);
    expect(summary.problems).toEqual([]);
    expect(summary.flags).toEqual([]);
    expect(summary.events[0]).toMatchObject({ kind: 'run.start', engine: 'codex/0.171.0' });
    expect(summary.modelCalls).toBe(2);
    expect(summary.tokens).toMatchObject({ input: 3400, cacheRead: 5000, cacheWrite: 0, output: 130 });
    expect(summary.perModel['openai/gpt-5']).toMatchObject({ input: 3400, output: 130 });
    expect(summary.events.flatMap((event) => (event.kind === 'tool.call' ? [event.tool] : []))).toEqual([
      'exec_command',
      'apply_patch',
    ]);
    expect(summary.envelope).toMatchObject({ outcome: 'resolved', wallClockMs: 473 });
  });

  it("attributes a subagent's thread to it, its total counted in run.end's", () => {
    const summary = summarize([
      meta('thread-main'),
      turn,
      record('resp_1', 1000, 0, 10),
      total(1000, 0, 10),
      complete,
      meta('thread-sub'),
      record('resp_sub', 300, 100, 5),
      total(300, 100, 5),
    ]);
    expect(summary.problems).toEqual([]);
    expect(summary.flags).toEqual([]);
    expect(summary.perSubagent['thread-sub']).toMatchObject({ input: 200, cacheRead: 100, output: 5, parent: 'root' });
    expect(summary.tokens).toMatchObject({ input: 1200, cacheRead: 100, output: 15 });
  });

  it('flags a total of its own that claims more than the calls it recorded', () => {
    const summary = summarize([meta('m'), turn, record('resp_1', 1000, 0, 10), total(5000, 0, 10), complete]);
    expect(summary.flags).toContain('envelope-tokens-mismatch');
  });

  it('reads the older form, usage only in token_count events, one per response', () => {
    const last = (input: number, cached: number, output: number) =>
      line('event_msg', { type: 'token_count', info: { last_token_usage: usage(input, cached, output) } });
    const summary = summarize([meta('thread-main'), turn, last(100, 20, 5), last(200, 150, 7), complete]);
    expect(summary.modelCalls).toBe(2);
    expect(summary.tokens).toMatchObject({ input: 130, cacheRead: 170, output: 12 });
  });

  it('ends as an engine error when Codex reported one, and leaves run.end out when the log stops short', () => {
    const failed = summarize([meta('m'), turn, line('event_msg', { type: 'error', message: 'stream disconnected' })]);
    expect(failed.envelope.outcome).toBe('engine-error');
    const cut = summarize([meta('m'), turn, record('resp_1', 10, 0, 1)]);
    expect(cut.flags).toContain('missing-run-end');
  });
});
