// One trial's trace from where its adapter says it is: read within bounds, and every loss on the way a flag that makes
// the tokens unknown.
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/package-root.js';
import { createRedactor } from '../../src/redaction/index.js';
import { readTrialTrace, type TrialTraceInput } from '../../src/traces/index.js';

const root = await mkdtemp(join(tmpdir(), 'abp-trial-trace-'));
afterAll(() => rm(root, { recursive: true, force: true }));
let cases = 0;
const traceFileIn = async () => {
  const out = join(root, `case-${(cases += 1)}`, 'out');
  await mkdir(out, { recursive: true });
  return join(out, 'trace.abp-trace.jsonl');
};

const T = '2026-11-02T10:00:00Z';
const context = { task: 'fixture-router', engine: 'oxagen', model: 'abp/demo-model', startedAt: T };
const line = (event: Record<string, unknown>) => `${JSON.stringify({ t: T, ...event })}\n`;
const tokens = (input: number, output: number) => ({ input, output, cacheRead: 0, cacheWrite: 0 });
const trace = [
  line({ seq: 1, kind: 'run.start', engine: 'oxagen/1', model: context.model, task: context.task, config: {} }),
  ...Array.from({ length: 20 }, (_, index) => line({ seq: index + 2, kind: 'model.call', tokens: tokens(900, 100) })),
  line({ seq: 22, kind: 'run.end', outcome: 'resolved', wallClockMs: 5, tokens: tokens(18_000, 2_000) }),
].join('');

const input = (overrides: Partial<TrialTraceInput> & Pick<TrialTraceInput, 'traceFile'>): TrialTraceInput => ({
  trace: { kind: 'native' },
  stdout: Buffer.alloc(0),
  stdoutTruncated: false,
  context,
  redactor: createRedactor({ env: {}, workspace: '/tmp/abp-trial/workspace' }),
  ...overrides,
});

describe('readTrialTrace, native', () => {
  it('sums a trace read whole, with known tokens', async () => {
    const traceFile = await traceFileIn();
    await writeFile(traceFile, trace);
    const summary = await readTrialTrace(input({ traceFile }));
    expect(summary).toMatchObject({ source: { kind: 'native' }, flags: [], tokensKnown: true, modelCalls: 20 });
    expect(summary?.tokens.total).toBe(20_000);
    expect(summary?.events).toHaveLength(22);
  });

  it('cuts a trace past maxBytes: the lines read are kept, the tokens are unknown', async () => {
    const traceFile = await traceFileIn();
    await writeFile(traceFile, trace);
    const summary = await readTrialTrace(input({ traceFile, limits: { maxBytes: 1000 } }));
    expect(summary?.flags).toEqual(expect.arrayContaining(['trace-truncated', 'tokens-unknown']) as unknown);
    expect(summary?.flags).not.toContain('invalid-lines'); // the cut line is the cap's doing, not the engine's
    expect(summary?.tokensKnown).toBe(false);
    expect(summary?.modelCalls).toBeGreaterThan(0);
    expect(summary?.modelCalls).toBeLessThan(20);
  });

  it('reads no trace through a symlink, and says why', async () => {
    const traceFile = await traceFileIn();
    await symlink('/dev/zero', traceFile);
    const summary = await readTrialTrace(input({ traceFile }));
    expect(summary).toMatchObject({ source: { kind: 'missing' }, tokensKnown: false, modelCalls: 0 });
    expect(summary?.flags).toEqual(expect.arrayContaining(['trace-not-a-file', 'tokens-unknown']) as unknown);
  });

  it('takes an absent or empty file as no trace, with nothing lost', async () => {
    const absent = await readTrialTrace(input({ traceFile: await traceFileIn() }));
    const emptyFile = await traceFileIn();
    await writeFile(emptyFile, '\n\n');
    const empty = await readTrialTrace(input({ traceFile: emptyFile }));
    for (const summary of [absent, empty]) {
      expect(summary).toMatchObject({ source: { kind: 'missing' }, tokensKnown: true, modelCalls: 0 });
      expect(summary?.flags).not.toContain('tokens-unknown');
    }
  });

  it('is null for an adapter that records no trace', async () => {
    expect(await readTrialTrace(input({ traceFile: await traceFileIn(), trace: { kind: 'none' } }))).toBeNull();
  });
});

describe('readTrialTrace, sidecar', () => {
  const sidecar = { kind: 'sidecar', translator: 'claude-code-stream-json', from: 'stdout' } as const;
  const nativeLog = readFile(join(packageRoot, 'test', 'fixtures', 'traces', 'claude-code-stream.jsonl'));

  it('translates a whole log from stdout with known tokens', async () => {
    const summary = await readTrialTrace(
      input({ traceFile: await traceFileIn(), trace: sidecar, stdout: await nativeLog }),
    );
    expect(summary?.source).toEqual({ kind: 'sidecar', translator: 'claude-code-stream-json' });
    expect(summary?.tokensKnown).toBe(true);
    expect(summary?.modelCalls).toBeGreaterThan(0);
  });

  it('has unknown tokens when stdout passed its cap (truncated-log)', async () => {
    const summary = await readTrialTrace(
      input({ traceFile: await traceFileIn(), trace: sidecar, stdout: await nativeLog, stdoutTruncated: true }),
    );
    expect(summary?.flags).toEqual(expect.arrayContaining(['truncated-log', 'tokens-unknown']) as unknown);
    expect(summary?.tokensKnown).toBe(false);
  });

  it('reads a log at {traceFile} like a native trace file: no symlink, within the cap', async () => {
    const fromFile = { ...sidecar, from: 'traceFile' } as const;
    const traceFile = await traceFileIn();
    await writeFile(traceFile, await nativeLog);
    expect((await readTrialTrace(input({ traceFile, trace: fromFile })))?.tokensKnown).toBe(true);
    const cut = await readTrialTrace(input({ traceFile, trace: fromFile, limits: { maxBytes: 2000 } }));
    expect(cut?.flags).toEqual(expect.arrayContaining(['trace-truncated', 'tokens-unknown']) as unknown);
    const linked = await traceFileIn();
    await symlink(traceFile, linked);
    expect((await readTrialTrace(input({ traceFile: linked, trace: fromFile })))?.flags).toContain('trace-not-a-file');
  });
});
