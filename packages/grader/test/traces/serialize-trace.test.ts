import { describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/redaction/index.js';
import { serializeTrace, summarizeTrace, TraceError } from '../../src/traces/index.js';
import type { TraceEvent } from '@abp/protocol/schemas/abp-trace';

const T = '2026-11-02T10:00:00Z';
const redactor = createRedactor({ env: {}, workspace: '/tmp/abp-serialize/workspace' });

describe('serializeTrace', () => {
  it('writes one event per line with keys in schema order', () => {
    // Keys deliberately out of order, as an engine might write them.
    const events = [
      {
        config: { timeoutSeconds: 1200, budgetUsd: 5 },
        task: 'fixture-router',
        model: 'anthropic/claude-sonnet-4-5',
        engine: 'oxagen/1.4.2',
        kind: 'run.start',
        seq: 1,
        t: T,
      },
      {
        subagent: 'sa-1',
        model: 'openai/gpt-5',
        tokens: { cacheWrite: 0, cacheRead: 9, output: 2, input: 1 },
        kind: 'model.call',
        seq: 2,
        t: T,
      },
    ] as unknown as TraceEvent[];
    expect(serializeTrace(events)).toBe(
      `{"t":"${T}","seq":1,"kind":"run.start","engine":"oxagen/1.4.2","model":"anthropic/claude-sonnet-4-5","task":"fixture-router","config":{"budgetUsd":5,"timeoutSeconds":1200}}\n` +
        `{"t":"${T}","seq":2,"kind":"model.call","tokens":{"input":1,"output":2,"cacheRead":9,"cacheWrite":0},"model":"openai/gpt-5","subagent":"sa-1"}\n`,
    );
  });

  it('writes nothing for no events', () => {
    expect(serializeTrace([])).toBe('');
  });

  it('round-trips what summarizeTrace accepted, byte for byte', () => {
    const text = serializeTrace([
      {
        t: T,
        seq: 1,
        kind: 'run.start',
        engine: 'oxagen/1.4.2',
        model: 'anthropic/claude-sonnet-4-5',
        task: 'fixture-router',
        config: {},
      },
      { t: T, seq: 2, kind: 'tool.call', tool: 'edit_file', args: { path: 'src/a.ts', lines: [1, 2] }, diffBytes: 412 },
      {
        t: T,
        seq: 3,
        kind: 'run.end',
        outcome: 'unresolved',
        wallClockMs: 10,
        tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      },
    ]);
    const summary = summarizeTrace(text, {
      source: { kind: 'native' },
      runModel: 'anthropic/claude-sonnet-4-5',
      redactor,
    });
    expect(serializeTrace(summary.events)).toBe(text);
  });

  it('refuses an event that is not abp-trace/v1', () => {
    const invalid = [
      { t: T, seq: 0, kind: 'model.call', tokens: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 } },
    ] as unknown as TraceEvent[];
    expect(() => serializeTrace(invalid)).toThrow(TraceError);
    expect(() => serializeTrace(invalid)).toThrow(expect.objectContaining({ code: 'invalid-event' }));
  });
});
