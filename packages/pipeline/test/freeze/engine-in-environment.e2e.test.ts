// Engines run inside the task's environment, under both execution policies. The live world's mdanchor (vitest and dedent
// through `npm ci`; Node 22 from npm, which its `engines` asks for, where the host has Node 20) frozen with `abp freeze`
// and the detected recipe, then graded: the bundled reference and no-op engines resolve and fail as they must, and a
// probe engine, itself run by the host's Node 20, finds the environment's Node 22, its vitest and git when it runs the
// repository's tools, the base's history in its workspace, none of the host's folders (the results beside its adapters
// file covered by the sandbox), and the network and a resolver only when the policy is trusted-local.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionPolicy } from '@abp/protocol/schemas/abp-adapters';
import { ENGINE_ROOT } from '@abp/grader/environments';
import type { PublishedTask } from '../../src/freeze/index.js';
import { gradeBundledEngines } from '../support/bundled-engines.js';
import { freezeWithCli } from '../support/frozen-task.js';
import { buildRepos, knownFix, repoNamed } from './live-repos.js';
import { sharedEnvironmentStore } from '../../../../test-support/toolchain-caches.js';

const execFileAsync = promisify(execFile);

// What the probe saw, printed as one JSON line on its stdout (the trial's stdout receipt).
const PROBE = `
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { lookup } from 'node:dns/promises';
import { connect } from 'node:net';
const input = JSON.parse(readFileSync(process.argv[process.argv.indexOf('--input') + 1], 'utf8'));
if (input.preflight) { process.stdout.write('ABP-PREFLIGHT-OK\\n'); process.exit(0); }
const run = (program, args) => {
  try { return execFileSync(program, args, { cwd: input.workspace, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim(); }
  catch (error) { return 'failed: ' + String(error.stderr ?? error.message).trim().split('\\n').pop(); }
};
const network = await new Promise((resolve) => {
  const socket = connect(Number(process.env.PROBE_PORT), process.env.PROBE_HOST);
  socket.on('connect', () => { socket.destroy(); resolve('connected'); });
  socket.on('error', (error) => resolve(error.code));
});
const resolved = await lookup('registry.npmjs.org').then(() => 'resolved', (error) => error.code);
const listing = (path) => { try { return readdirSync(path); } catch (error) { return error.code; } };
process.stdout.write(JSON.stringify({
  engineNode: process.version,
  node: run('node', ['--version']),
  vitest: run('npx', ['--no-install', 'vitest', '--version']),
  history: run('git', ['rev-list', '--count', 'HEAD']),
  workspace: input.workspace,
  hostFolders: JSON.parse(process.env.HOST_FOLDERS).filter((path) => existsSync(path)),
  results: listing(process.env.RESULTS),
  network,
  resolved,
}) + '\\n');
`;

let root: string;
let tasksDir: string;
let task: PublishedTask;
let server: Server;
let port: number;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-engine-env-'));
  server = createServer((socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;

  const repo = repoNamed(await buildRepos(root), 'mdanchor');
  const fix = knownFix(repo, 3);
  await writeFile(join(root, 'fix.patch'), fix.patch);
  const fullName = `${repo.repo.owner}/${repo.repo.name}`;
  ({ task, tasksDir } = await freezeWithCli({
    root,
    repo: fullName,
    gitDir: repo.upstreamPath,
    base: fix.baseOid,
    fix: join(root, 'fix.patch'),
    issue: { number: 3, title: fix.title, body: fix.body },
    pr: `https://github.com/${fullName}/pull/4`,
  }));
  await writeFile(join(root, 'probe.mjs'), PROBE);
}, 900_000);

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(root, { recursive: true, force: true });
});

describe.each<ExecutionPolicy>(['sandboxed', 'trusted-local'])('an engine in the task environment, %s', (policy) => {
  let outcome: Awaited<ReturnType<typeof gradeBundledEngines>>;
  beforeAll(async () => {
    const dir = join(root, policy);
    await mkdir(dir);
    outcome = await gradeBundledEngines({
      dir,
      tasksDir,
      taskIds: [task.taskId],
      environments: sharedEnvironmentStore,
      policy,
      extraAdapters: [
        {
          engine: 'probe',
          command: [process.execPath, join(root, 'probe.mjs'), '--input', '{inputFile}'],
          program: [process.execPath, join(root, 'probe.mjs')],
          env: {
            allow: [],
            set: {
              PROBE_HOST: '127.0.0.1',
              PROBE_PORT: String(port),
              // Where the host's folders would be, at their own paths and under the program root (which holds the
              // folders above the probe's program as mount points, nothing more): none is there.
              HOST_FOLDERS: JSON.stringify([
                root,
                ...[tasksDir, join(tasksDir, task.taskId, 'held-out', 'golden.patch'), process.cwd()].flatMap(
                  (path) => [path, `${ENGINE_ROOT}${path}`],
                ),
              ]),
              // The results beside the adapters file, whose folder the probe's program paths include.
              RESULTS: `${ENGINE_ROOT}${join(root, policy, 'results')}`,
            },
          },
        },
      ],
    });
  }, 900_000);

  it('grades the bundled engines as on the host: the reference engine resolved, the no-op unresolved', () => {
    const byEngine = Object.fromEntries(outcome.trials.map((trial) => [trial.engine, trial]));
    const shown = JSON.stringify(byEngine['reference']);
    expect(byEngine['reference']?.outcome, shown).toBe('resolved');
    expect(byEngine['noop']?.outcome).toBe('unresolved');
    const digest = task.manifest.environment.image.slice(task.manifest.environment.image.indexOf('@') + 1);
    for (const trial of outcome.trials) {
      expect(trial.engineProcess?.environment).toBe(digest);
      expect(trial.engineProcess?.sandboxed).toBe(policy === 'sandboxed');
    }
  });

  it("gives the engine the environment's toolchain and dependencies, the base's history and none of the host", async () => {
    const probe = outcome.trials.find((trial) => trial.engine === 'probe');
    expect(probe?.outcome, JSON.stringify(probe)).toBe('unresolved');
    const seen = JSON.parse(await readFile(join(outcome.runDir, probe?.receipts.stdout ?? ''), 'utf8')) as Record<
      string,
      unknown
    >;
    const { stdout: hostNode } = await execFileAsync('node', ['--version']);
    expect(seen['engineNode']).toBe(hostNode.trim());
    expect(hostNode).not.toMatch(/^v22\./);
    expect(seen['node']).toMatch(/^v22\./);
    expect(seen['vitest']).toMatch(/3\.2\.4/);
    expect(Number(seen['history'])).toBeGreaterThanOrEqual(1);
    expect(seen['workspace']).toBe('/work/repo');
    expect(seen['hostFolders']).toEqual([]);
    // The results folder lies inside the adapters file's folder, bound for the probe: both policies cover it (a
    // trusted-local engine's namespace hides the run's results as it hides the task folders).
    expect(seen['results']).toEqual([]);
    if (policy === 'sandboxed') {
      expect(seen['network']).not.toBe('connected');
      expect(seen['resolved']).not.toBe('resolved');
    } else {
      // A trusted-local engine otherwise sees what it would on the host, the network and the host's resolver included.
      expect(seen['network']).toBe('connected');
      expect(seen['resolved']).toBe('resolved');
    }
  });
});
