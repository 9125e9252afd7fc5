// Small real runs for the grader's integration tests: the conformance suite's two tasks, plus engines written as plain
// Node scripts (no TypeScript loader, so a trial costs a process start, not a compiler start).
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildConformanceSuite, CONFORMANCE_MODEL, GREETING_TASK, SLUG_TASK } from '../../src/conformance/suite.js';

export const exec = promisify(execFile);
export { GREETING_TASK, SLUG_TASK };

// Shared prelude: read the input file, answer the preflight, write trace events with t and seq.
const prelude = `
import { appendFileSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
const input = JSON.parse(readFileSync(process.argv[2], 'utf8'));
if (input.preflight) { process.stdout.write('ABP-PREFLIGHT-OK\\n'); process.exit(0); }
let seq = 0;
const emit = (event) => appendFileSync(input.traceFile, JSON.stringify({ t: new Date().toISOString(), seq: ++seq, ...event }) + '\\n');
const tokens = (input, output) => ({ input, output, cacheRead: 0, cacheWrite: 0 });
const start = () => emit({ kind: 'run.start', engine: 'test/1', model: input.model, task: input.task, config: {} });
const call = (i, o) => emit({ kind: 'model.call', tokens: tokens(i, o) });
const end = (i, o) => emit({ kind: 'run.end', outcome: 'unresolved', wallClockMs: 1, tokens: tokens(i, o) });
const tasksDir = process.argv[3];
`;

export const engineScripts = {
  fix: `${prelude}
start(); call(1000, 100);
execFileSync('git', ['apply', join(tasksDir, input.task, 'held-out', 'golden.patch')], { cwd: input.workspace });
end(1000, 100);`,
  noop: `${prelude}
start(); call(800, 10); end(800, 10);`,
  slow: `${prelude}
start(); call(500, 50);
await new Promise((resolve) => setTimeout(resolve, Number(process.env.SLOW_MS ?? 300)));
execFileSync('git', ['apply', join(tasksDir, input.task, 'held-out', 'golden.patch')], { cwd: input.workspace });
end(500, 50);`,
  crash: `${prelude}
process.stderr.write('boom\\n'); process.exit(3);`,
  silent: `${prelude}
start(); end(0, 0);`,
  sleepy: `${prelude}
start(); call(100, 10);
if (process.env.PID_FILE) writeFileSync(process.env.PID_FILE, String(process.pid));
await new Promise((resolve) => setTimeout(resolve, 30_000));`,
  spender: `${prelude}
start(); call(9_000_000, 900_000); end(9_000_000, 900_000);`,
  // Knows both fixes without reading held-out material, so it resolves inside the sandbox too.
  knower: `${prelude}
start(); call(1200, 200);
if (input.task.startsWith('fixture-')) writeFileSync(join(input.workspace, 'greet.js'), "console.log('Hello, ABP!');\\n");
else writeFileSync(join(input.workspace, 'src', 'slug.js'), "export function slugify(text) {\\n  return text.toLowerCase().trim().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');\\n}\\n");
end(1200, 200);`,
  // Under the sandbox: try to read held-out material, write outside the workspace and reach the network; record what happened.
  prober: `${prelude}
start(); call(100, 10);
const seen = [];
try { seen.push('held-out: ' + readFileSync(join(tasksDir, input.task, 'held-out', 'golden.patch'), 'utf8').length + ' bytes'); } catch (error) { seen.push('held-out: ' + error.code); }
try { writeFileSync(join(tasksDir, 'planted.txt'), 'x'); seen.push('write tasks: ok'); } catch (error) { seen.push('write tasks: ' + error.code); }
try { writeFileSync('/etc/abp-planted', 'x'); seen.push('write etc: ok'); } catch (error) { seen.push('write etc: ' + error.code); }
const net = await new Promise((resolve) => { import('node:net').then(({ connect }) => { const socket = connect(Number(process.env.PROBE_PORT), '127.0.0.1'); socket.on('connect', () => { socket.destroy(); resolve('connected'); }); socket.on('error', (error) => resolve(error.code)); }); });
seen.push('network: ' + net);
try { seen.push('git history: ' + execFileSync('git', ['rev-list', '--count', 'HEAD'], { cwd: input.workspace, encoding: 'utf8' }).trim()); } catch (error) { seen.push('git history: failed'); }
writeFileSync(join(input.workspace, 'probe.txt'), seen.join('\\n') + '\\n');
end(100, 10);`,
  // Under the sandbox with an egress allow-list: asks its "model" (PROVIDER_URL) for the fix through the proxy the relay
  // names, tries OTHER_URL too, and writes what the model answered.
  caller: `${prelude}
start();
const http = await import('node:http');
const proxy = new URL(process.env.HTTP_PROXY);
const ask = (url) => new Promise((resolve) => {
  const request = http.get({ host: proxy.hostname, port: proxy.port, path: url, headers: { host: new URL(url).host } }, (response) => {
    let body = '';
    response.on('data', (chunk) => (body += chunk));
    response.on('end', () => resolve({ status: response.statusCode, body }));
  });
  request.on('error', (error) => resolve({ status: 0, body: error.code }));
});
const answer = await ask(process.env.PROVIDER_URL + '/' + input.task);
call(300, 30);
await ask(process.env.OTHER_URL);
if (answer.status === 200) writeFileSync(join(input.workspace, 'src', 'slug.js'), answer.body);
end(300, 30);`,
} as const;
export type EngineScript = keyof typeof engineScripts;
/** The scripts that apply the held-out golden patch. */
const ORACLES: ReadonlySet<EngineScript> = new Set(['fix', 'slow']);
/** The shared prelude, for tests that write engines of their own beside these (AdapterSpec.scriptPath). */
export { prelude as enginePrelude };

export interface AdapterSpec {
  engine: string;
  script: EngineScript;
  model?: string;
  capabilities?: string[];
  timeoutSeconds?: number;
  env?: { allow?: string[]; set?: Record<string, string> };
  /** Run the script from this path instead of {repo}/engines/ (the test copies it there). */
  scriptPath?: string;
  /** The adapter's whole command instead of node and a script: an engine that cannot even start, say. */
  command?: string[];
  program?: string[];
  egress?: Array<{ host: string; ports: number[] }>;
}

export interface RunFixture {
  dir: string;
  config: string;
  adapters: string;
  tasks: string;
  cleanup(): Promise<void>;
}

export async function buildRunFixture(input: {
  adapters: AdapterSpec[];
  tasks?: string[];
  trials?: number;
  policy?: 'trusted-local' | 'sandboxed';
  model?: string;
}): Promise<RunFixture> {
  const dir = await mkdtemp(join(tmpdir(), 'abp-run-fixture-'));
  const suite = await buildConformanceSuite(dir);
  const scripts = join(dir, 'engines');
  await exec('mkdir', ['-p', scripts]);
  for (const [name, text] of Object.entries(engineScripts)) await writeFile(join(scripts, `${name}.mjs`), text);
  await writeFile(
    suite.adapters,
    `${JSON.stringify(
      {
        schema: 'abp-adapters/v1',
        executionPolicy: input.policy ?? 'trusted-local',
        adapters: input.adapters.map((adapter) => ({
          engine: adapter.engine,
          command: adapter.command ?? [
            process.execPath,
            adapter.scriptPath ?? `{repo}/engines/${adapter.script}.mjs`,
            '{inputFile}',
            suite.tasks,
          ],
          // The oracles read golden patches from the task folders, which every engine's namespace hides unless its
          // adapter lists them: a trusted-local adapter may, in the open (the bundled reference engine does the same).
          ...(adapter.program !== undefined
            ? { program: adapter.program }
            : ORACLES.has(adapter.script) && (input.policy ?? 'trusted-local') === 'trusted-local'
              ? { program: [suite.tasks] }
              : {}),
          ...(adapter.egress === undefined ? {} : { egress: adapter.egress }),
          env: { allow: adapter.env?.allow ?? [], set: adapter.env?.set ?? {} },
          timeoutSeconds: adapter.timeoutSeconds ?? 60,
          metadata: {
            model: adapter.model ?? CONFORMANCE_MODEL,
            provider: 'abp',
            sampling: { temperature: 0 },
            toolPolicy: 'default',
            deployment: 'local',
          },
          capabilities: adapter.capabilities ?? ['edit-files'],
          preflight: {
            prompt: 'Reply with exactly: ABP-PREFLIGHT-OK',
            sentinel: 'ABP-PREFLIGHT-OK',
            timeoutSeconds: 30,
          },
          trace: { kind: 'native' },
        })),
      },
      null,
      2,
    )}\n`,
  );
  await writeFile(
    suite.config,
    `${JSON.stringify(
      {
        schema: 'abp-run/v1',
        engines: input.adapters.map((adapter) => ({ name: adapter.engine, version: '1.0.0' })),
        model: input.model ?? CONFORMANCE_MODEL,
        budgetUsd: 5,
        timeoutSeconds: 60,
        trials: input.trials ?? 1,
        ordering: 'abba',
        seed: 42,
        tasks: input.tasks ?? [SLUG_TASK, GREETING_TASK],
      },
      null,
      2,
    )}\n`,
  );
  return {
    dir,
    config: suite.config,
    adapters: suite.adapters,
    tasks: suite.tasks,
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}
