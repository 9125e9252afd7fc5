import { describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/redaction/index.js';
import { tokenCounts, type TokenCounts } from '@abp/protocol/schemas/abp-trace';
import {
  createTraceSummarizer,
  summarizeTrace,
  traceLimits,
  type TraceLimits,
  type TraceSource,
} from '../../src/traces/index.js';

const workspace = '/tmp/abp-trial-3/workspace';
const home = '/home/bob';
const githubToken = `ghp_${'Rw5m'.repeat(9)}`;
// Shaped like no token pattern, so only the environment rule can catch it, and long enough to be cut by a message.
const dbPassword = 'correct-horse-battery-staple-9f3e1a7c5d2b8e4f6a0c1d3e5f7a9b1c';
const redactor = createRedactor({ env: { GITHUB_TOKEN: githubToken, DB_PASSWORD: dbPassword, HOME: home }, workspace });
const runModel = 'anthropic/claude-sonnet-4-5';
const native: TraceSource = { kind: 'native' };

const T = '2026-11-02T10:00:00Z';
const tokens = (input: number, output: number, cacheRead = 0, cacheWrite = 0): TokenCounts => ({
  input,
  output,
  cacheRead,
  cacheWrite,
});
const start = (seq = 1) => ({
  t: T,
  seq,
  kind: 'run.start',
  engine: 'oxagen/1.4.2',
  model: runModel,
  task: 'fixture-router',
  config: { budgetUsd: 5 },
});
const call = (seq: number, counts: TokenCounts, extra: Record<string, unknown> = {}) => ({
  t: T,
  seq,
  kind: 'model.call',
  tokens: counts,
  ...extra,
});
const tool = (seq: number, name: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  t: T,
  seq,
  kind: 'tool.call',
  tool: name,
  args,
  ...extra,
});
const end = (seq: number, counts: TokenCounts, extra: Record<string, unknown> = {}) => ({
  t: T,
  seq,
  kind: 'run.end',
  outcome: 'resolved',
  wallClockMs: 184201,
  tokens: counts,
  ...extra,
});
const jsonl = (...lines: unknown[]) =>
  lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n') + '\n';
const summarize = (text: string, source: TraceSource = native, limits: Partial<TraceLimits> = {}) =>
  summarizeTrace(text, { source, runModel, redactor, limits });

describe('a good trace', () => {
  const summary = summarize(
    jsonl(
      start(),
      call(2, tokens(1000, 200, 5000)),
      tool(3, 'read_file', { path: `${workspace}/src/router/match.ts` }, { durationMs: 12 }),
      call(4, tokens(500, 100, 6000, 300), { model: 'openai/gpt-5' }),
      end(5, tokens(1500, 300, 11000, 300)),
    ),
  );

  it('has no problems and no flags, and known tokens', () => {
    expect(summary.problems).toEqual([]);
    expect(summary.flags).toEqual([]);
    expect(summary.tokensKnown).toBe(true);
  });

  it('sums tokens over model.call events, per model with the run model as fallback', () => {
    expect(summary.modelCalls).toBe(2);
    expect(summary.tokens).toEqual({ ...tokens(1500, 300, 11000, 300), total: 13100 });
    expect(summary.perModel).toEqual({
      [runModel]: tokens(1000, 200, 5000),
      'openai/gpt-5': tokens(500, 100, 6000, 300),
    });
    expect(summary.perSubagent).toEqual({ root: { ...tokens(1500, 300, 11000, 300), parent: null } });
  });

  it('reads the envelope from run.end and keeps the source', () => {
    expect(summary.envelope).toEqual({
      outcome: 'resolved',
      tokens: tokens(1500, 300, 11000, 300),
      costUsd: null,
      wallClockMs: 184201,
    });
    expect(summary.source).toEqual(native);
  });

  it('keeps every event with its seq and summarizes tool arguments', () => {
    expect(summary.events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(summary.events[2]).toEqual({
      t: T,
      seq: 3,
      kind: 'tool.call',
      tool: 'read_file',
      args: { path: 'src/router/match.ts' },
      durationMs: 12,
    });
  });
});

it('keeps seq values as given rather than renumbering', () => {
  const summary = summarize(jsonl(start(10), call(20, tokens(1, 1)), end(30, tokens(1, 1))));
  expect(summary.events.map((event) => event.seq)).toEqual([10, 20, 30]);
  expect(summary.problems).toEqual([]);
});

describe('an envelope that lies', () => {
  const calls = [call(2, tokens(100, 10, 1000)), call(3, tokens(50, 5))];

  it('is flagged when run.end claims more tokens than the calls add up to', () => {
    const summary = summarize(jsonl(start(), ...calls, end(4, tokens(151, 15, 1000))));
    expect(summary.flags).toEqual(['envelope-tokens-mismatch']);
    expect(summary.tokens).toEqual({ ...tokens(150, 15, 1000), total: 1165 });
    expect(summary.envelope.tokens).toEqual(tokens(151, 15, 1000));
  });

  it('is flagged and reported on its line when run.end claims fewer tokens than the calls add up to', () => {
    const summary = summarize(jsonl(start(), ...calls, end(4, tokens(150, 15, 999))));
    expect(summary.flags).toEqual(['envelope-tokens-mismatch']);
    expect(summary.problems).toHaveLength(1);
    expect(summary.problems[0]?.line).toBe(4);
    expect(summary.problems[0]?.message).toMatch(/^tokens\.cacheRead: /);
  });

  it("is flagged when run.end costUsd differs from the sum of the calls' costUsd", () => {
    const costed = [call(2, tokens(1, 1), { costUsd: 0.1 }), call(3, tokens(1, 1), { costUsd: 0.2 })];
    expect(summarize(jsonl(start(), ...costed, end(4, tokens(2, 2), { costUsd: 0.3 }))).flags).toEqual([]);
    expect(summarize(jsonl(start(), ...costed, end(4, tokens(2, 2), { costUsd: 0.35 }))).flags).toEqual([
      'envelope-cost-mismatch',
    ]);
  });

  it('cannot be cost-checked when a call has no costUsd', () => {
    const partly = [call(2, tokens(1, 1), { costUsd: 0.1 }), call(3, tokens(1, 1))];
    expect(summarize(jsonl(start(), ...partly, end(4, tokens(2, 2), { costUsd: 5 }))).flags).toEqual([]);
  });
});

describe('invalid lines', () => {
  const summary = summarize(
    jsonl(
      start(),
      'this is not json',
      call(3, tokens(-5, 10)),
      '',
      '[1, 2]',
      call(6, tokens(7, 3)),
      end(7, tokens(7, 3)),
    ),
  );

  it('are reported with their line numbers and dropped', () => {
    expect(summary.problems.map((problem) => problem.line)).toEqual([2, 3, 5]);
    expect(summary.problems[0]?.message).toMatch(/^\$: is not valid JSON/);
    expect(summary.problems[1]?.message).toMatch(/^tokens\.input: /);
    expect(summary.events.map((event) => event.seq)).toEqual([1, 6, 7]);
  });

  it('raise the invalid-lines flag and count no tokens from a dropped line', () => {
    expect(summary.flags).toEqual(['invalid-lines', 'tokens-unknown']);
    expect(summary.modelCalls).toBe(1);
    expect(summary.tokens.total).toBe(10);
  });

  it("make the tokens unknown: what was read is kept, but it is not the run's total", () => {
    expect(summary.tokensKnown).toBe(false);
    expect(summary.perModel).toEqual({ [runModel]: tokens(7, 3) });
  });
});

describe('missing pieces', () => {
  it('flags a trace without run.start, run.end or model calls', () => {
    const summary = summarize(jsonl(tool(1, 'bash', { command: 'ls' })));
    expect(summary.flags).toEqual(['missing-run-start', 'missing-run-end', 'no-model-calls']);
    expect(summary.problems.map((problem) => problem.message)).toEqual([
      'kind: the first event must be run.start, got "tool.call"',
    ]);
  });

  it('summarizes a missing trace as empty, with a null envelope', () => {
    const summary = summarize('', { kind: 'missing' });
    expect(summary).toMatchObject({
      source: { kind: 'missing' },
      events: [],
      problems: [],
      flags: ['missing-run-start', 'missing-run-end', 'no-model-calls'],
      modelCalls: 0,
      perModel: {},
      perSubagent: { root: { ...tokens(0, 0), parent: null } },
      envelope: { outcome: null, tokens: null, costUsd: null, wallClockMs: null },
    });
  });
});

describe('subagent and multi-model attribution', () => {
  const summary = summarize(
    jsonl(
      start(),
      call(2, tokens(10, 1)),
      { t: T, seq: 3, kind: 'subagent.start', id: 'sa-1', purpose: 'run tests' },
      call(4, tokens(20, 2), { subagent: 'sa-1', model: 'anthropic/claude-haiku-4-5' }),
      { t: T, seq: 5, kind: 'subagent.start', id: 'sa-2', parent: 'sa-1' },
      call(6, tokens(30, 3, 300), { subagent: 'sa-2', model: 'openai/gpt-5' }),
      call(7, tokens(40, 4), { subagent: 'sa-2', model: 'anthropic/claude-haiku-4-5' }),
      { t: T, seq: 8, kind: 'subagent.end', id: 'sa-2' },
      { t: T, seq: 9, kind: 'subagent.end', id: 'sa-1' },
      { t: T, seq: 10, kind: 'subagent.start', id: 'sa-3', purpose: 'idle' },
      call(11, tokens(5, 5), { subagent: 'ghost' }),
      end(12, tokens(105, 15, 300)),
    ),
  );

  it('gives each agent its own calls, with its parent', () => {
    expect(summary.perSubagent).toEqual({
      root: { ...tokens(10, 1), parent: null },
      'sa-1': { ...tokens(20, 2), parent: 'root' },
      'sa-2': { ...tokens(70, 7, 300), parent: 'sa-1' },
      'sa-3': { ...tokens(0, 0), parent: 'root' },
      ghost: { ...tokens(5, 5), parent: null },
    });
  });

  it('gives each model its calls across agents', () => {
    expect(summary.perModel).toEqual({
      [runModel]: tokens(15, 6),
      'anthropic/claude-haiku-4-5': tokens(60, 6),
      'openai/gpt-5': tokens(30, 3, 300),
    });
  });

  it('reports a call attributed to a subagent that never started', () => {
    expect(summary.problems).toHaveLength(1);
    expect(summary.problems[0]).toMatchObject({ line: 11 });
    expect(summary.problems[0]?.message).toMatch(/^subagent: /);
    expect(summary.flags).toEqual([]);
  });
});

describe('redaction', () => {
  const summary = summarize(
    jsonl(
      start(),
      tool(2, 'bash', {
        command: `curl -H "Authorization: token ${githubToken}" https://api.github.test`,
        netrc: `${home}/.netrc`,
        patch: 'y'.repeat(300),
      }),
      { t: T, seq: 3, kind: 'subagent.start', id: 'sa-1', purpose: `push with ${githubToken}` },
      call(4, tokens(1, 1), { subagent: 'sa-1' }),
      call(5, tokens(1, 1), { model: `bad model ${dbPassword}` }),
      `{"t": "${T}", "${githubToken}" 1}`,
      // The rules still count the invalid call's readable tokens, so run.end claims them to stay within the rules.
      end(7, tokens(2, 2), {
        outcome: 'engine-error',
        detail: `engine crashed in ${workspace} holding ${githubToken}`,
      }),
    ),
  );
  const everything = JSON.stringify(summary);

  it('summarizes tool arguments with the redactor', () => {
    expect(summary.events[1]).toMatchObject({
      kind: 'tool.call',
      args: {
        command: 'curl -H "Authorization: token [REDACTED:env:GITHUB_TOKEN]" https://api.github.test',
        netrc: '<outside-workspace>',
        patch: expect.stringMatching(/^<300 bytes, sha256:[0-9a-f]{12}>$/) as unknown,
      },
    });
  });

  it('redacts every other string of an event', () => {
    expect(summary.events[2]).toMatchObject({ purpose: 'push with [REDACTED:env:GITHUB_TOKEN]' });
    expect(summary.events.at(-1)).toMatchObject({
      detail: 'engine crashed in {workspace} holding [REDACTED:env:GITHUB_TOKEN]',
    });
  });

  it('lets no part of a secret into events or problems, even a truncated one', () => {
    expect(summary.problems.map((problem) => problem.line)).toEqual([5, 6]);
    expect(everything).not.toContain(githubToken.slice(0, 10));
    expect(everything).not.toContain(dbPassword.slice(0, 10));
    expect(everything).not.toContain(home);
  });
});

describe('token counts out of range', () => {
  const huge = Number.MAX_SAFE_INTEGER;

  it('are not summed, and make the tokens unknown', () => {
    const summary = summarize(
      jsonl(start(), call(2, tokens(900_000, 10)), call(3, tokens(huge, 0)), end(4, tokens(1, 1))),
    );
    expect(summary.flags).toEqual(
      expect.arrayContaining(['tokens-out-of-range', 'tokens-unknown', 'envelope-tokens-mismatch']) as unknown,
    );
    expect(summary.tokensKnown).toBe(false);
    expect(summary.modelCalls).toBe(2);
    expect(summary.tokens).toEqual({ ...tokens(900_000, 10), total: 900_010 });
    expect(summary.perModel).toEqual({ [runModel]: tokens(900_000, 10) });
  });

  it('start past maxTokensPerCall, the four counts of one call added', () => {
    const at = traceLimits.maxTokensPerCall;
    expect(summarize(jsonl(start(), call(2, tokens(at - 1, 1)))).tokensKnown).toBe(true);
    const over = summarize(jsonl(start(), call(2, tokens(at - 1, 1, 1))));
    expect(over.tokensKnown).toBe(false);
    expect(over.flags).toContain('tokens-out-of-range');
  });

  it('never push a sum past Number.MAX_SAFE_INTEGER, so every figure is a valid count', () => {
    const half = Math.ceil(huge / 2);
    const summary = summarize(
      jsonl(start(), call(2, tokens(half, half)), call(3, tokens(half, half)), call(4, tokens(half, 0, 0, 0))),
      native,
      { maxTokensPerCall: Number.POSITIVE_INFINITY },
    );
    expect(summary.flags).toContain('tokens-out-of-range');
    expect(summary.tokensKnown).toBe(false);
    expect(summary.tokens.total).toBe(huge);
    for (const counts of [summary.tokens, ...Object.values(summary.perModel), ...Object.values(summary.perSubagent)])
      expect(
        tokenCounts.safeParse({
          input: counts.input,
          output: counts.output,
          cacheRead: counts.cacheRead,
          cacheWrite: counts.cacheWrite,
        }).success,
      ).toBe(true);
  });

  it('beyond what JSON numbers hold exactly are invalid lines', () => {
    const summary = summarize(
      jsonl(
        start(),
        '{"t":"2026-11-02T10:00:00Z","seq":2,"kind":"model.call","tokens":{"input":1e20,"output":0,"cacheRead":0,"cacheWrite":0}}',
      ),
    );
    expect(summary.flags).toEqual(expect.arrayContaining(['invalid-lines', 'tokens-unknown']) as unknown);
    expect(summary.modelCalls).toBe(0);
  });
});

describe('bounds on what is kept', () => {
  const many = jsonl(
    start(),
    ...Array.from({ length: 40 }, (_, index) => call(index + 2, tokens(10, 1))),
    end(42, tokens(400, 40)),
  );

  it('keeps receipt events up to maxReceiptBytes, and still counts every call', () => {
    const summary = summarize(many, native, { maxReceiptBytes: 1000 });
    expect(summary.events.length).toBeGreaterThan(0);
    expect(summary.events.length).toBeLessThan(42);
    expect(summary.flags).toEqual(['receipt-truncated']);
    expect(summary.tokensKnown).toBe(true);
    expect(summary.modelCalls).toBe(40);
    expect(summary.tokens.total).toBe(440);
  });

  it('keeps the first maxProblems problems and counts them all', () => {
    const summary = summarize(jsonl(start(), 'x', 'y', 'z', '{', '['), native, { maxProblems: 2 });
    expect(summary.problems.map((problem) => problem.line)).toEqual([2, 3]);
    expect(summary.problemCount).toBe(5);
  });

  it('skips a line longer than maxLineBytes as an invalid line', () => {
    const summary = summarize(
      jsonl(start(), call(2, tokens(1, 1), { model: `a/${'m'.repeat(300)}` }), call(3, tokens(5, 5))),
      native,
      {
        maxLineBytes: 200,
      },
    );
    expect(summary.flags).toEqual(expect.arrayContaining(['invalid-lines', 'tokens-unknown']) as unknown);
    expect(summary.problems.map((problem) => problem.line)).toEqual([2]);
    expect(summary.events.map((event) => event.seq)).toEqual([1, 3]);
  });
});

describe('a trace summarized line by line', () => {
  it('is the same summary as the whole text, and reports a line it could not hold', () => {
    const text = jsonl(start(), call(2, tokens(3, 4)), 'oops', end(4, tokens(3, 4)));
    const summarizer = createTraceSummarizer({ source: native, runModel, redactor });
    for (const line of text.split('\n')) summarizer.line(line);
    expect(summarizer.finish()).toEqual(summarize(text));

    const overlong = createTraceSummarizer({ source: native, runModel, redactor });
    overlong.line(JSON.stringify(start()));
    overlong.overlongLine(5_000_000);
    overlong.line(JSON.stringify(call(3, tokens(1, 1))));
    const summary = overlong.finish();
    expect(summary.problems.map((problem) => problem.line)).toEqual([2]);
    expect(summary.flags).toEqual(expect.arrayContaining(['invalid-lines', 'tokens-unknown']) as unknown);
  });

  it('reports a run.end that events follow on its own line, once the end shows it', () => {
    const summary = summarize(jsonl(start(), 'not json', end(3, tokens(0, 0)), call(4, tokens(1, 1))));
    expect(summary.problems.map((problem) => [problem.line, problem.message.split(':')[0]])).toEqual([
      [2, '$'],
      [3, 'kind'],
    ]);
  });

  it('has unknown tokens when reading lost lines, whatever the lines read say', () => {
    const text = jsonl(start(), call(2, tokens(3, 4)), end(3, tokens(3, 4)));
    for (const flag of ['trace-truncated', 'truncated-log', 'trace-not-a-file', 'trace-unreadable'] as const) {
      const summary = summarizeTrace(text, { source: native, runModel, redactor }, [flag]);
      expect(summary.flags).toEqual([flag, 'tokens-unknown']);
      expect(summary.tokensKnown).toBe(false);
    }
  });
});
