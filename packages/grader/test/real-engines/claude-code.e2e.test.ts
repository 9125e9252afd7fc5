// Claude Code itself, the pinned CLI scripts/install-engines.sh installs, graded under the sandboxed policy on the
// conformance suite's slug task. Its one way out is its egress proxy, which lets it reach only the model-provider
// stand-in (the real API cannot be reached here; the stand-in speaks its wire format). The scripted fix runs the tests
// and edits the workspace through Claude Code's own tools and is graded resolved; the scripted no-op is unresolved; a
// scripted reach for another host on the grader's machine is refused and recorded; and the tokens abp records are the
// usage the stand-in served, call by call.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { arch, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScript } from '@abp/provider-sim/script';
import { startProviderStandIn, type ProviderStandIn } from '@abp/provider-sim/server';
import { createServer, type Server } from 'node:http';
import { SLUG_TASK, buildConformanceSuite } from '../../src/conformance/suite.js';
import { runMatrix, type RunOutcome } from '../../src/run/run-matrix.js';
import { packageRoot } from '../../src/package-root.js';

const CLAUDE = join(
  packageRoot,
  '..',
  '..',
  '.tools',
  'engines',
  'claude-code',
  'node_modules',
  '@anthropic-ai',
  `claude-code-linux-${arch()}`,
  'claude',
);
const MODEL = 'claude-sonnet-4-5';
const KEY = 'sk-ant-stand-in-0123456789';
const FIX = `export function slugify(text) {
  return text.toLowerCase().trim().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}
`;

let dir: string;
let standIn: ProviderStandIn;
let other: Server;
let otherPort: number;
let outcome: RunOutcome;
let savedKey: string | undefined;

beforeAll(async () => {
  if (!existsSync(CLAUDE)) throw new Error(`${CLAUDE} is missing: run scripts/install-engines.sh`);
  dir = await mkdtemp(join(tmpdir(), 'abp-claude-code-'));
  // Another service on the grader's machine (the simulator's API, abp serve): the engine must not reach it.
  other = createServer((_request, response) => response.end('reached'));
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  otherPort = (other.address() as { port: number }).port;
  const bash = (
    command: string,
    usage: { input: number; output: number; cacheRead?: number; cacheWrite?: number },
  ) => ({
    toolCalls: [{ name: 'Bash', input: { command, description: 'scripted step' } }],
    usage,
  });
  standIn = await startProviderStandIn({
    keys: [KEY],
    script: parseScript({
      schema: 'abp-provider-script/v1',
      conversations: [
        {
          name: 'preflight',
          match: 'Reply with exactly: ABP-PREFLIGHT-OK',
          turns: [{ text: 'ABP-PREFLIGHT-OK', usage: { input: 40, output: 6 } }],
        },
        {
          name: 'fix',
          match: 'abp-script: fix',
          turns: [
            bash(`curl -s -m 5 http://host.abp.internal:${otherPort}/ || echo curl failed`, {
              input: 3100,
              output: 80,
              cacheRead: 0,
              cacheWrite: 2900,
            }),
            bash('cat src/slug.js && node --test', { input: 400, output: 60, cacheRead: 2900 }),
            bash(`cat > src/slug.js <<'EOF'\n${FIX}EOF`, { input: 700, output: 140, cacheRead: 3300 }),
            {
              text: 'slugify now collapses separators and trims dashes.',
              usage: { input: 150, output: 20, cacheRead: 4000 },
            },
          ],
        },
        {
          name: 'noop',
          match: 'abp-script: noop',
          turns: [{ text: 'I will leave the code as it is.', usage: { input: 3000, output: 12, cacheWrite: 2800 } }],
        },
      ],
    }),
  });
  const suite = await buildConformanceSuite(join(dir, 'suite'));
  const adapter = (engine: 'fix' | 'noop') => ({
    engine: `claude-code-${engine}`,
    command: [
      CLAUDE,
      '-p',
      '{prompt}',
      '--output-format',
      'stream-json',
      '--verbose',
      '--include-partial-messages',
      '--model',
      MODEL,
      '--allowedTools',
      'Bash,Read,Edit,Write',
      '--append-system-prompt',
      `abp-script: ${engine}`,
    ],
    program: [dirname(CLAUDE)],
    egress: [{ host: 'host.abp.internal', ports: [standIn.port] }],
    env: {
      allow: ['ANTHROPIC_API_KEY'],
      set: {
        ANTHROPIC_BASE_URL: `http://host.abp.internal:${standIn.port}`,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      },
    },
    timeoutSeconds: 300,
    maxOutputBytes: 64 * 1024 * 1024,
    metadata: {
      model: `anthropic/${MODEL}`,
      provider: 'anthropic',
      toolPolicy: 'bash-read-edit-write',
      deployment: 'cloud',
    },
    capabilities: ['edit-files', 'run-commands'],
    preflight: {
      prompt: 'Reply with exactly: ABP-PREFLIGHT-OK',
      sentinel: 'ABP-PREFLIGHT-OK',
      command: [CLAUDE, '-p', '{prompt}', '--output-format', 'text', '--model', MODEL],
    },
    trace: { kind: 'sidecar', translator: 'claude-code-stream-json', from: 'stdout' },
  });
  await writeFile(
    suite.adapters,
    JSON.stringify({
      schema: 'abp-adapters/v1',
      executionPolicy: 'sandboxed',
      adapters: [adapter('fix'), adapter('noop')],
    }),
  );
  await writeFile(
    suite.config,
    JSON.stringify({
      schema: 'abp-run/v1',
      engines: [
        { name: 'claude-code-fix', version: '2.1.332' },
        { name: 'claude-code-noop', version: '2.1.332' },
      ],
      model: `anthropic/${MODEL}`,
      budgetUsd: 5,
      timeoutSeconds: 300,
      trials: 1,
      ordering: 'abba',
      seed: 7,
      tasks: [SLUG_TASK],
    }),
  );
  savedKey = process.env['ANTHROPIC_API_KEY'];
  process.env['ANTHROPIC_API_KEY'] = KEY;
  outcome = await runMatrix({ config: suite.config, output: join(dir, 'out'), cacheDir: join(dir, 'cache') });
}, 600_000);

afterAll(async () => {
  if (savedKey === undefined) delete process.env['ANTHROPIC_API_KEY'];
  else process.env['ANTHROPIC_API_KEY'] = savedKey;
  await standIn?.close();
  await new Promise<void>((resolve) => (other === undefined ? resolve() : other.close(() => resolve())));
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

const trialOf = (engine: string) => outcome.trials.find((trial) => trial.engine === engine);

describe('Claude Code under the sandboxed policy, against the provider stand-in', () => {
  it('resolves the scripted fix and leaves the scripted no-op unresolved', () => {
    expect(outcome.trials.map((trial) => [trial.engine, trial.outcome, trial.reason]).sort()).toEqual([
      ['claude-code-fix', 'resolved', null],
      ['claude-code-noop', 'unresolved', expect.any(String)],
    ]);
  });

  it("ran the scripted steps with its own tools: the refused request, the suite's tests, the edit", async () => {
    const stdout = await readFile(join(outcome.runDir, trialOf('claude-code-fix')?.receipts.stdout ?? ''), 'utf8');
    // Tool results as Claude Code reported them to its model, in its event stream.
    expect(stdout).toContain(`abp egress: host.abp.internal:${otherPort} is not a host this command may reach`);
    // The workspace's own tests (the held-out ones are not there): both pass before the fix and after.
    expect(stdout).toContain('# pass 2');
    expect(stdout).not.toContain('reached');
  });

  it('reached the stand-in only through its egress proxy, and the other host was refused and recorded', () => {
    const egress = trialOf('claude-code-fix')?.engineProcess?.egress;
    expect(egress?.allow).toEqual([`host.abp.internal:${standIn.port}`]);
    const allowed = egress?.attempts.filter((attempt) => attempt.allowed) ?? [];
    expect(allowed.map((attempt) => [attempt.host, attempt.port, attempt.error])).toEqual([
      ['host.abp.internal', standIn.port, null],
    ]);
    expect(egress?.attempts).toContainEqual({
      host: 'host.abp.internal',
      port: otherPort,
      allowed: false,
      error: 'not in the allow-list',
      count: 1,
    });
  });

  it('records the tokens the stand-in served, call by call, with cache reads and writes apart', async () => {
    const served = standIn.served();
    for (const [engine, conversation] of [
      ['claude-code-fix', 'fix'],
      ['claude-code-noop', 'noop'],
    ] as const) {
      const calls = served.filter((call) => call.conversation === conversation).map((call) => call.usage);
      const trial = trialOf(engine);
      const trace = (await readFile(join(outcome.runDir, trial?.receipts.trace ?? ''), 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { kind: string; tokens?: unknown });
      const recorded = trace.flatMap((event) => (event.kind === 'model.call' ? [event.tokens] : []));
      expect(recorded).toEqual(calls);
      const sum = (field: 'input' | 'output' | 'cacheRead' | 'cacheWrite') =>
        calls.reduce((total, usage) => total + (usage?.[field] ?? 0), 0);
      expect(trial?.trace?.tokens).toEqual({
        input: sum('input'),
        output: sum('output'),
        cacheRead: sum('cacheRead'),
        cacheWrite: sum('cacheWrite'),
      });
      expect(trial?.trace?.flags).toEqual([]);
      expect(trial?.metrics.computedUsd).toBeGreaterThan(0);
    }
    // Every request reached the stand-in with the key, and none asked for a turn the script does not have.
    expect(served.filter((call) => call.refused !== null)).toEqual([]);
    expect(await readFile(join(outcome.runDir, 'verdict.json'), 'utf8')).toContain('claude-code-fix');
  });
});
