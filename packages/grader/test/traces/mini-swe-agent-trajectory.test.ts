// The mini-swe-agent-trajectory translator on trajectories shaped as mini-swe-agent 2.4 writes them (checked against a
// real run in test/real-engines/mini-swe-agent.e2e.test.ts): a model call per assistant message with LiteLLM's usage,
// cache reads and writes taken out of input, tool calls with their return codes, the text-based form's actions, and
// the exit status as run.end.
import { describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/redaction/index.js';
import { summarizeTrace, translateNativeTrace, type TraceTranslatorContext } from '../../src/traces/index.js';

const context: TraceTranslatorContext = {
  task: 'fixture-slug',
  engine: 'mini-swe-agent',
  model: 'openai/gpt-5',
  startedAt: '2026-12-06T05:40:45Z',
};
const redactor = createRedactor({ env: { HOME: '/home/runner' }, workspace: '/tmp/abp-trial/workspace' });
const summarize = (trajectory: unknown) =>
  summarizeTrace(translateNativeTrace('mini-swe-agent-trajectory', JSON.stringify(trajectory), context), {
    source: { kind: 'sidecar', translator: 'mini-swe-agent-trajectory' },
    runModel: context.model,
    redactor,
  });

let second = 0;
const assistant = (
  usage: Record<string, unknown>,
  commands: string[],
  form: 'tools' | 'text' = 'tools',
): Record<string, unknown> => ({
  role: 'assistant',
  content: 'Looking.',
  ...(form === 'tools'
    ? {
        tool_calls: commands.map((command, index) => ({
          id: `call_${second}_${index}`,
          type: 'function',
          function: { name: 'bash', arguments: JSON.stringify({ command }) },
        })),
      }
    : {}),
  extra: {
    actions: commands.map((command) => ({ command })),
    response: { model: 'gpt-5-2025-08-07', usage },
    timestamp: Date.parse('2026-12-06T05:40:50Z') / 1000 + second++,
  },
});
const toolResult = (id: string, returncode: number) => ({
  role: 'tool',
  tool_call_id: id,
  content: '{}',
  extra: { raw_output: '', returncode },
});
const openaiUsage = (prompt: number, cached: number, completion: number) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
  prompt_tokens_details: { cached_tokens: cached },
});
const trajectory = (messages: unknown[], exit: string | null) => ({
  trajectory_format: 'mini-swe-agent-1.1',
  info: { mini_version: '2.4.6', config: { model: { model_name: 'openai/gpt-5' } } },
  messages: [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: 'Please solve this issue.' },
    ...messages,
    ...(exit === null ? [] : [{ role: 'exit', content: '', extra: { exit_status: exit, submission: '' } }]),
  ],
});

describe('the mini-swe-agent-trajectory translator', () => {
  it('records each response with its usage, cached tokens apart, and each command with its return code', () => {
    second = 0;
    const summary = summarize(
      trajectory(
        [
          assistant(openaiUsage(3100, 0, 80), ['node --test']),
          toolResult('call_0_0', 1),
          assistant(openaiUsage(3300, 2900, 60), ['echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT']),
        ],
        'Submitted',
      ),
    );
    expect(summary.problems).toEqual([]);
    expect(summary.flags).toEqual([]);
    expect(summary.events[0]).toMatchObject({ kind: 'run.start', engine: 'mini-swe-agent/2.4.6' });
    expect(summary.modelCalls).toBe(2);
    expect(summary.tokens).toMatchObject({ input: 3500, cacheRead: 2900, cacheWrite: 0, output: 140 });
    // The configured model, as the price table names it, not the dated snapshot the response names.
    expect(Object.keys(summary.perModel)).toEqual(['openai/gpt-5']);
    expect(summary.events.filter((event) => event.kind === 'tool.call')).toMatchObject([
      { tool: 'bash', args: { command: 'node --test' }, exitCode: 1 },
      { tool: 'bash', args: { command: 'echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT' } },
    ]);
    expect(summary.envelope).toMatchObject({ outcome: 'resolved' });
  });

  it("takes Anthropic's cache writes, which LiteLLM counts in prompt_tokens, out of input", () => {
    const anthropic = { ...openaiUsage(5000, 1000, 20), cache_creation_input_tokens: 3000 };
    const summary = summarize(trajectory([assistant(anthropic, ['ls'])], 'Submitted'));
    expect(summary.tokens).toMatchObject({ input: 1000, cacheRead: 1000, cacheWrite: 3000, output: 20 });
  });

  it("reads the text-based form's parsed actions as bash calls", () => {
    const summary = summarize(trajectory([assistant(openaiUsage(100, 0, 5), ['ls -la'], 'text')], 'Submitted'));
    expect(summary.events.filter((event) => event.kind === 'tool.call')).toMatchObject([
      { tool: 'bash', args: { command: 'ls -la' } },
    ]);
  });

  it('maps the exit status: limits to budget-exceeded, an exception to engine-error; no trajectory, no run.end', () => {
    expect(summarize(trajectory([], 'LimitsExceeded')).envelope.outcome).toBe('budget-exceeded');
    expect(summarize(trajectory([], 'RuntimeError')).envelope.outcome).toBe('engine-error');
    const none = summarizeTrace(translateNativeTrace('mini-swe-agent-trajectory', '', context), {
      source: { kind: 'sidecar', translator: 'mini-swe-agent-trajectory' },
      runModel: context.model,
      redactor,
    });
    expect(none.flags).toContain('missing-run-end');
    expect(none.modelCalls).toBe(0);
  });

  it('leaves the tokens unknown when a response has no usage, or mini-swe-agent counted calls the trajectory lacks', () => {
    const noUsage = assistant(openaiUsage(100, 0, 5), ['ls']);
    delete (noUsage.extra as { response: { usage?: unknown } }).response.usage;
    expect(summarize(trajectory([noUsage], 'Submitted')).tokensKnown).toBe(false);
    const lost = trajectory([assistant(openaiUsage(100, 0, 5), ['ls'])], 'Submitted');
    const counted = { ...lost, info: { ...lost.info, model_stats: { api_calls: 3, instance_cost: 0.01 } } };
    const summary = summarize(counted);
    expect(summary.tokensKnown).toBe(false);
    expect(summary.modelCalls).toBe(1);
    const whole = { ...lost, info: { ...lost.info, model_stats: { api_calls: 1, instance_cost: 0.01 } } };
    expect(summarize(whole).tokensKnown).toBe(true);
  });
});
