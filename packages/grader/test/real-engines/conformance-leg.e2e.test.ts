// The conformance suite's real-engine leg as a user runs it: `abp conformance --real-engines`. Against the real
// providers it needs the user's keys and the network, so here that case is skipped; the same command pointed at the
// model-provider stand-in (--provider-url, as a user points it at a gateway) runs the same code end to end, and every
// engine's own test (test/real-engines/*.e2e.test.ts) goes through that code too. Without a key an engine is refused
// before anything runs.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseScript } from '@abp/provider-sim/script';
import { startProviderStandIn } from '@abp/provider-sim/server';
import { REAL_ENGINES, realEngineKey } from '../../src/engines/real-engines.js';
import { runAbp } from '../support/cli.js';
import { SLUG_FIX } from '../support/real-engines.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});
const freshDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'abp-conformance-leg-'));
  dirs.push(dir);
  return dir;
};

interface LegReport {
  checks: Array<{ id: string; passed: boolean; detail: string }>;
  outcomes: Record<string, string>;
}

// Keys of the user's for the real providers: the leg runs each engine whose key is set.
const keyed = REAL_ENGINES.filter((engine) => process.env[realEngineKey(engine)]);

describe('abp conformance --real-engines', () => {
  it.skipIf(keyed.length === 0)(
    'against the real providers, with the keys in this environment: every check passes',
    async () => {
      const output = join(await freshDir(), 'out');
      const result = await runAbp(
        ['conformance', '--real-engines', keyed.join(','), '-o', output, '--json'],
        {},
        60 * 60 * 1000,
      );
      expect(result.stderr).toBe('');
      const report = JSON.parse(result.stdout) as LegReport;
      expect(report.checks.filter((check) => !check.passed)).toEqual([]);
      expect(result.code).toBe(0);
    },
    60 * 60 * 1000,
  );

  it('pointed at the stand-in as at a gateway: the same leg, checked and reported', async () => {
    const key = 'stand-in-key-conformance-leg-0123456789';
    const shell = (command: string) => ({ name: 'bash', input: { command } });
    const standIn = await startProviderStandIn({
      keys: [key],
      script: parseScript({
        schema: 'abp-provider-script/v1',
        conversations: [
          {
            name: 'preflight',
            match: 'Reply with exactly: ABP-PREFLIGHT-OK',
            turns: [{ text: 'ABP-PREFLIGHT-OK', usage: { input: 40, output: 6 } }],
          },
          {
            // The slug task's own prompt: the leg adds nothing to what the engine is told.
            name: 'task',
            match: 'Make slugify collapse runs of separators',
            turns: [
              { toolCalls: [shell(`cat > src/slug.js <<'EOF'\n${SLUG_FIX}EOF`)], usage: { input: 2000, output: 90 } },
              {
                toolCalls: [shell('echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT')],
                usage: { input: 300, output: 10, cacheRead: 2000 },
              },
            ],
          },
        ],
      }),
    });
    try {
      const output = join(await freshDir(), 'out');
      const result = await runAbp(
        [
          'conformance',
          '--real-engines',
          'mini-swe-agent',
          '--provider-url',
          `openai=http://host.abp.internal:${standIn.port}/v1`,
          '-o',
          output,
          '--json',
        ],
        { OPENAI_API_KEY: key },
        600_000,
      );
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const report = JSON.parse(await readFile(join(output, 'real-engines.json'), 'utf8')) as LegReport;
      expect(report.checks.map((check) => [check.id, check.passed])).toEqual([
        ['real-engine-scored:mini-swe-agent', true],
        ['real-engine-egress:mini-swe-agent', true],
        ['real-engine-trace:mini-swe-agent', true],
      ]);
      expect(report.outcomes).toEqual({ 'mini-swe-agent': 'resolved' });
      // The trace check's figures are the stand-in's: two calls, their tokens.
      expect(report.checks[2]?.detail).toMatch(/^2 model calls, 4400 tokens/);
      expect(standIn.served().map((call) => call.conversation)).toEqual(['preflight', 'task', 'task']);
    } finally {
      await standIn.close();
    }
  }, 600_000);

  it('refuses an engine without its key before running anything', async () => {
    const output = join(await freshDir(), 'out');
    const result = await runAbp(['conformance', '--real-engines', 'codex', '-o', output, '--json'], {
      OPENAI_API_KEY: '',
    });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({
      error: { code: 'engine-key-missing', message: expect.stringContaining('OPENAI_API_KEY') as unknown },
    });
  });
});
