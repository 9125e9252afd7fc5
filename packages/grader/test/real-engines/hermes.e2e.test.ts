// Nous Research's Hermes Agent itself, the pinned PyPI release scripts/install-engines.sh installs, graded under the
// sandboxed policy on the conformance suite's slug task with the adapter abp ships for it (src/engines/real-engines.ts),
// against the model-provider stand-in's Chat Completions API, its one way out an egress proxy. Hermes runs one-shot
// (`hermes -z`) with its OpenAI API provider pointed at the stand-in, runs the scripted commands with its terminal tool,
// and hands each model call's usage to the shell hooks the adapter's wrapper (engines/hermes-oneshot.sh) configures:
// the fix is resolved, the no-op not, the other host refused and recorded, and the tokens recorded are the usage the
// stand-in served, call by call.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectHonestRun, runRealEngine, type RealEngineRun } from '../support/real-engines.js';

let run: RealEngineRun;
beforeAll(async () => {
  run = await runRealEngine({ engine: 'hermes' });
}, 600_000);
afterAll(() => run?.cleanup());

describe('Hermes Agent under the sandboxed policy, against the provider stand-in', () => {
  it('is graded honestly: fix resolved, no-op not, only the stand-in reached, tokens as served', async () => {
    await expectHonestRun(run, { fix: 'hermes-fix', noop: 'hermes-noop' });
  });

  it('ran the scripted commands with its terminal tool, each with its exit code, and says how the run ended', async () => {
    const fix = run.outcome.trials.find((trial) => trial.engine === 'hermes-fix');
    const trace = await readFile(join(run.outcome.runDir, fix?.receipts.trace ?? ''), 'utf8');
    expect(trace).toMatch(
      /"tool":"terminal","args":\{"command":"cat src\/slug.js && node --test"\},"durationMs":\d+,"exitCode":\d+/,
    );
    expect(trace).toContain('"kind":"run.end","outcome":"resolved"');
    expect(trace).toContain('"engine":"hermes-fix/0.19.0"');
    expect(fix?.trace?.source).toBe('sidecar:hermes-hooks');
    expect(fix?.trace?.modelCalls).toBe(4);
  });
});
