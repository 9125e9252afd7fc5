// OpenAI's Codex CLI itself, the pinned binary scripts/install-engines.sh installs, graded under the sandboxed policy on
// the conformance suite's slug task with the adapter abp ships for it (src/engines/real-engines.ts), against the
// model-provider stand-in's Responses API, its one way out an egress proxy. Codex is pointed at the stand-in as a
// provider of its own (`model_providers`), runs the scripted commands with
// its exec_command tool, and leaves its session log, which the adapter's wrapper (engines/codex-exec.sh) hands to the
// codex-rollout translator: the fix is resolved, the no-op not, the other host refused and recorded, and the tokens
// recorded are the usage the stand-in served, call by call, cached tokens apart.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectHonestRun, runRealEngine, type RealEngineRun } from '../support/real-engines.js';

let run: RealEngineRun;
beforeAll(async () => {
  run = await runRealEngine({ engine: 'codex' });
}, 600_000);
afterAll(() => run?.cleanup());

describe('Codex under the sandboxed policy, against the provider stand-in', () => {
  it('is graded honestly: fix resolved, no-op not, only the stand-in reached, tokens as served', async () => {
    await expectHonestRun(run, { fix: 'codex-fix', noop: 'codex-noop' });
  });

  it('ran the scripted commands, the refused request among them', async () => {
    const fix = run.outcome.trials.find((trial) => trial.engine === 'codex-fix');
    const trace = await readFile(join(run.outcome.runDir, fix?.receipts.trace ?? ''), 'utf8');
    expect(trace).toContain('"tool":"exec_command"');
    expect(fix?.trace?.source).toBe('sidecar:codex-rollout');
    expect(fix?.trace?.modelCalls).toBe(4);
  });
});
