// The hermes-hooks translator on what engines/hermes-oneshot.sh writes, the payloads Hermes Agent 0.19 hands its hooks
// as engines/hermes-hook.py keeps them (checked against a real run in test/real-engines/hermes.e2e.test.ts): a model call per
// post_api_request with its usage, tool calls, a subagent's session, and run.end from the usage report.
import { describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/redaction/index.js';
import { summarizeTrace, translateNativeTrace, type TraceTranslatorContext } from '../../src/traces/index.js';

const context: TraceTranslatorContext = {
  task: 'fixture-slug',
  engine: 'hermes',
  model: 'openai/gpt-5',
  startedAt: '2026-12-06T05:39:56Z',
};
const redactor = createRedactor({ env: { HOME: '/home/runner' }, workspace: '/tmp/abp-trial/workspace' });
const summarize = (lines: unknown[]) =>
  summarizeTrace(translateNativeTrace('hermes-hooks', lines.map((line) => JSON.stringify(line)).join('\n'), context), {
    source: { kind: 'sidecar', translator: 'hermes-hooks' },
    runModel: context.model,
    redactor,
  });

let second = 0;
const usage = (input: number, cacheRead: number, output: number) => ({
  input_tokens: input,
  output_tokens: output,
  cache_read_tokens: cacheRead,
  cache_write_tokens: 0,
  reasoning_tokens: 0,
  request_count: 1,
  prompt_tokens: input + cacheRead,
  total_tokens: input + cacheRead + output,
});
const call = (session: string, input: number, cacheRead: number, output: number, provider = 'openai-api') => ({
  hook_event_name: 'post_api_request',
  tool_name: null,
  tool_input: null,
  session_id: session,
  extra: {
    model: 'gpt-5',
    provider,
    api_duration: 0.51,
    ended_at: Date.parse('2026-12-06T05:40:00Z') / 1000 + second++,
    usage: usage(input, cacheRead, output),
  },
});
const tool = (session: string, command: string, exitCode: number) => ({
  hook_event_name: 'post_tool_call',
  tool_name: 'terminal',
  tool_input: { command },
  session_id: session,
  extra: { duration_ms: 77, exit_code: exitCode },
});
const report = (session: string, input: number, cacheRead: number, output: number, failure?: string) => ({
  hermes_version: '0.19.0',
  usage_report: {
    ...usage(input, cacheRead, output),
    api_calls: 2,
    model: 'gpt-5',
    provider: 'openai-api',
    session_id: session,
    completed: failure === undefined,
    failed: failure !== undefined,
    ...(failure === undefined ? {} : { failure }),
  },
});

describe('the hermes-hooks translator', () => {
  it('records each call with its own usage, the tool calls with their exit codes, and the report as run.end', () => {
    const summary = summarize([
      call('main', 3100, 0, 80),
      tool('main', 'node --test', 1),
      call('main', 400, 2900, 60),
      report('main', 3500, 2900, 140),
    ]);
    expect(summary.problems).toEqual([]);
    expect(summary.flags).toEqual([]);
    expect(summary.events[0]).toMatchObject({ kind: 'run.start', engine: 'hermes/0.19.0' });
    expect(summary.modelCalls).toBe(2);
    expect(summary.tokens).toMatchObject({ input: 3500, cacheRead: 2900, cacheWrite: 0, output: 140 });
    expect(summary.perModel['openai/gpt-5']).toMatchObject({ input: 3500, output: 140 });
    expect(summary.events.find((event) => event.kind === 'tool.call')).toMatchObject({
      tool: 'terminal',
      exitCode: 1,
      durationMs: 77,
    });
    expect(summary.envelope).toMatchObject({ outcome: 'resolved' });
  });

  it("attributes another session's calls to a subagent, ended by subagent_stop, and counts them in run.end", () => {
    const summary = summarize([
      call('main', 1000, 0, 10),
      call('child', 300, 100, 5, 'anthropic'),
      { hook_event_name: 'subagent_stop', session_id: 'main', extra: { child_session_id: 'child', duration_ms: 900 } },
      call('main', 200, 0, 4),
      report('main', 1200, 0, 14),
    ]);
    expect(summary.problems).toEqual([]);
    expect(summary.flags).toEqual([]);
    expect(summary.perSubagent['child']).toMatchObject({ input: 300, cacheRead: 100, output: 5, parent: 'root' });
    expect(summary.perModel['anthropic/gpt-5']).toMatchObject({ input: 300 });
    expect(summary.tokens).toMatchObject({ input: 1500, cacheRead: 100, output: 19 });
    expect(summary.events.map((event) => event.kind)).toEqual([
      'run.start',
      'model.call',
      'subagent.start',
      'model.call',
      'subagent.end',
      'model.call',
      'run.end',
    ]);
  });

  it('flags a report that claims more than the calls its hooks saw', () => {
    const summary = summarize([call('main', 1000, 0, 10), report('main', 5000, 0, 10)]);
    expect(summary.flags).toContain('envelope-tokens-mismatch');
  });

  it('ends as an engine error when Hermes reported a failure, and leaves run.end out without a report', () => {
    const failed = summarize([call('main', 10, 0, 1), report('main', 10, 0, 1, 'HTTP 401: invalid key')]);
    expect(failed.envelope.outcome).toBe('engine-error');
    const cut = summarize([call('main', 10, 0, 1)]);
    expect(cut.flags).toContain('missing-run-end');
  });

  it('leaves the tokens unknown for a call Hermes gave no usage for, and takes an impossible time as no time', () => {
    const extra: Record<string, unknown> = { ...call('main', 10, 0, 1).extra, ended_at: 1e300 };
    delete extra['usage'];
    const summary = summarize([{ ...call('main', 10, 0, 1), extra }, report('main', 10, 0, 1)]);
    expect(summary.tokensKnown).toBe(false);
    expect(summary.problemCount).toBe(1);
    expect(summary.events.at(-1)).toMatchObject({ kind: 'run.end', t: context.startedAt });
  });
});
