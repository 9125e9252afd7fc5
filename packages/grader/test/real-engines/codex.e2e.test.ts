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
import { realEngineAdapter } from '../../src/engines/real-engines.js';
import {
  SLUG_FIX,
  expectHonestRun,
  installDirOf,
  runRealEngine,
  standInEndpoint,
  type RealEngineRun,
} from '../support/real-engines.js';

const MODEL = 'gpt-5';
const shell = (cmd: string, usage: Record<string, number>) => ({
  toolCalls: [{ name: 'exec_command', input: { cmd } }],
  usage,
});

let run: RealEngineRun;
beforeAll(async () => {
  run = await runRealEngine({
    engine: 'codex',
    version: '0.171.0',
    model: `openai/${MODEL}`,
    keyVariable: 'OPENAI_API_KEY',
    turns: (otherPort) => ({
      preflight: [{ text: 'ABP-PREFLIGHT-OK', usage: { input: 40, output: 6 } }],
      fix: [
        shell(`curl -s -m 5 http://host.abp.internal:${otherPort}/ || echo curl failed`, {
          input: 3000,
          output: 40,
          cacheRead: 1000,
        }),
        shell('cat src/slug.js && node --test', { input: 400, output: 60, cacheRead: 4000 }),
        shell(`cat > src/slug.js <<'EOF'\n${SLUG_FIX}EOF`, { input: 500, output: 120, cacheRead: 4400 }),
        {
          text: 'slugify now collapses separators and trims dashes.',
          usage: { input: 100, output: 15, cacheRead: 4900 },
        },
      ],
      noop: [{ text: 'I will leave the code as it is.', usage: { input: 3900, output: 12 } }],
    }),
    adapter: (which, standIn) =>
      realEngineAdapter('codex', {
        installDir: installDirOf('codex'),
        name: `codex-${which}`,
        model: MODEL,
        endpoint: standInEndpoint(standIn, '/v1'),
        note: `abp-script: ${which}`,
        timeoutSeconds: 300,
      }),
  });
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
