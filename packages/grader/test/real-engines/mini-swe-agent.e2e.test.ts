// mini-swe-agent itself, the pinned PyPI release scripts/install-engines.sh installs, graded under the sandboxed policy
// on the conformance suite's slug task with the adapter abp ships for it (src/engines/real-engines.ts), against the
// model-provider stand-in's Chat Completions API through LiteLLM, its one way out an egress proxy. It runs the scripted
// commands with its bash tool, submits with its own command for "done", and leaves its trajectory, which the
// mini-swe-agent-trajectory translator reads: the fix is resolved, the no-op not, the other host refused and recorded,
// and the tokens recorded are the usage the stand-in served, call by call, cached tokens apart.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectHonestRun, runRealEngine, type RealEngineRun } from '../support/real-engines.js';

let run: RealEngineRun;
beforeAll(async () => {
  run = await runRealEngine({ engine: 'mini-swe-agent' });
}, 600_000);
afterAll(() => run?.cleanup());

describe('mini-swe-agent under the sandboxed policy, against the provider stand-in', () => {
  it('is graded honestly: fix resolved, no-op not, only the stand-in reached, tokens as served', async () => {
    await expectHonestRun(run, { fix: 'mini-swe-agent-fix', noop: 'mini-swe-agent-noop' });
  });

  it('ran the scripted commands with its bash tool, each with its exit code, and submitted', async () => {
    const fix = run.outcome.trials.find((trial) => trial.engine === 'mini-swe-agent-fix');
    const trace = await readFile(join(run.outcome.runDir, fix?.receipts.trace ?? ''), 'utf8');
    expect(trace).toMatch(/"tool":"bash","args":\{"command":"cat src\/slug.js && node --test"\},"exitCode":\d+/);
    expect(trace).toContain('"kind":"run.end","outcome":"resolved"');
    expect(fix?.trace?.source).toBe('sidecar:mini-swe-agent-trajectory');
    expect(fix?.trace?.modelCalls).toBe(4);
  });
});
