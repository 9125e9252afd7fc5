// OpenAI's Codex CLI itself, the pinned binary scripts/install-engines.sh installs, graded under the sandboxed policy on
// the conformance suite's slug task against the model-provider stand-in's Responses API, its one way out an egress
// proxy. Codex is pointed at the stand-in as a provider of its own (`model_providers`), runs the scripted commands with
// its exec_command tool, and leaves its session log, which the adapter's wrapper (engines/codex-exec.sh) hands to the
// codex-rollout translator: the fix is resolved, the no-op not, the other host refused and recorded, and the tokens
// recorded are the usage the stand-in served, call by call, cached tokens apart.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/package-root.js';
import {
  ENGINE_BINARIES,
  SLUG_FIX,
  expectHonestRun,
  runRealEngine,
  type RealEngineRun,
} from '../support/real-engines.js';

const CODEX = ENGINE_BINARIES.codex;
const WRAPPER = join(packageRoot, 'engines', 'codex-exec.sh');
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
    adapter: (which, standIn) => {
      // A provider of Codex's own, in dotted keys: braces in an adapter's argument are placeholders.
      const provider = Object.entries({
        name: 'abp-stand-in',
        base_url: `http://host.abp.internal:${standIn.port}/v1`,
        env_key: 'OPENAI_API_KEY',
        wire_api: 'responses',
      }).flatMap(([field, value]) => ['-c', `model_providers.abp.${field}="${value}"`]);
      const base = [
        CODEX,
        'exec',
        '--skip-git-repo-check',
        '--model',
        MODEL,
        // abp's sandbox is the isolation: Codex's own (a nested bubblewrap) is off.
        '--dangerously-bypass-approvals-and-sandbox',
        ...provider,
        '-c',
        'model_provider=abp',
      ];
      // The marker the stand-in's script tells the fix from the no-op by.
      const codex = [...base, '-c', `developer_instructions="abp-script: ${which}"`];
      return {
        engine: `codex-${which}`,
        command: ['/bin/sh', WRAPPER, '{traceFile}', ...codex, '{prompt}'],
        program: [join(CODEX, '..', '..'), WRAPPER],
        egress: [{ host: 'host.abp.internal', ports: [standIn.port] }],
        env: { allow: ['OPENAI_API_KEY'], set: {} },
        timeoutSeconds: 300,
        maxOutputBytes: 16 * 1024 * 1024,
        metadata: { model: `openai/${MODEL}`, provider: 'openai', toolPolicy: 'full-access', deployment: 'cloud' },
        capabilities: ['edit-files', 'run-commands'],
        preflight: {
          prompt: 'Reply with exactly: ABP-PREFLIGHT-OK',
          sentinel: 'ABP-PREFLIGHT-OK',
          command: [...base, '{prompt}'],
        },
        trace: { kind: 'sidecar', translator: 'codex-rollout', from: 'traceFile' },
      };
    },
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
