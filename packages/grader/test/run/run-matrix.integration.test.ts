import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GraderConfigError } from '../../src/config/errors.js';
import { RunError } from '../../src/run/errors.js';
import { runMatrix } from '../../src/run/run-matrix.js';
import type { AbpTrial } from '@abp/protocol/schemas/abp-trial';
import type { AbpVerdict } from '@abp/protocol/schemas/abp-verdict';
import { packageRoot } from '../../src/package-root.js';
import { isAlive } from '../../src/execution/liveness.js';
import { buildRunFixture, GREETING_TASK, SLUG_TASK, type RunFixture } from '../support/run-fixture.js';

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});
async function fixture(input: Parameters<typeof buildRunFixture>[0]): Promise<RunFixture> {
  const built = await buildRunFixture(input);
  cleanups.push(() => built.cleanup());
  return built;
}
const output = (built: RunFixture, name: string) => join(built.dir, name);
const run = (built: RunFixture, name: string, extra: Partial<Parameters<typeof runMatrix>[0]> = {}) =>
  runMatrix({ config: built.config, output: output(built, name), cacheDir: join(built.dir, 'cache'), ...extra });
const errorCode = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: unknown) => (error instanceof RunError || error instanceof GraderConfigError ? error.code : String(error)),
  );

// Everything but wall-clock figures, which the acceptance allows to differ between runs.
function withoutDurations(verdict: AbpVerdict): unknown {
  return {
    ...verdict,
    perEngine: verdict.perEngine.map(({ medianWallClockMs: _ignored, ...rest }) => rest),
    pairwise: verdict.pairwise.map(({ wallClockDelta: _ignored, ...rest }) => rest),
  };
}

describe('abp run on real tasks and real processes', () => {
  let fast: RunFixture;
  beforeAll(async () => {
    fast = await fixture({
      adapters: [
        { engine: 'fixer', script: 'fix' },
        { engine: 'noop', script: 'noop' },
      ],
      trials: 2,
    });
  });

  it('grades a fix as resolved and no change as unresolved, with receipts and a verdict', async () => {
    const result = await run(fast, 'first');
    expect(result.trials).toHaveLength(8);
    expect(
      result.trials.filter((trial) => trial.engine === 'fixer').every((trial) => trial.outcome === 'resolved'),
    ).toBe(true);
    expect(
      result.trials.filter((trial) => trial.engine === 'noop').every((trial) => trial.outcome === 'unresolved'),
    ).toBe(true);
    expect(result.verdict.pairwise[0]?.mcnemar).toEqual({ discordant: [4, 0], pExact: 0.125 });
    // The slug task's golden fix (task.json golden) makes the only sized band; the fixture has none.
    expect(result.verdict.difficulty?.diffBytesNormalized).toEqual({
      edges: [180, 180],
      bands: [
        { band: 'small', range: [180, 180], tasks: [SLUG_TASK] },
        { band: 'unknown', range: null, tasks: [GREETING_TASK] },
      ],
    });
    expect(
      result.verdict.perEngine.map((engine) =>
        engine.byDifficulty?.diffBytesNormalized.map((rate) => [rate.band, rate.resolvedTrials, rate.scoredTrials]),
      ),
    ).toEqual([
      [
        ['small', 2, 2],
        ['unknown', 2, 2],
      ],
      [
        ['small', 0, 2],
        ['unknown', 0, 2],
      ],
    ]);
    const files = await readdir(result.runDir);
    expect(files.sort()).toEqual([
      'diffs',
      'progress.jsonl',
      'report.html',
      'reproduce.txt',
      'run.json',
      'tasks.json',
      'traces',
      'transcripts',
      'trials',
      'verdict.json',
    ]);
    expect((await readFile(join(result.runDir, 'reproduce.txt'), 'utf8')).startsWith('abp run --config ')).toBe(true);
    const fixed = result.trials.find((trial) => trial.engine === 'fixer' && trial.task === SLUG_TASK);
    expect(
      fixed?.verification?.commands.map((command) => [command.role, command.runner, command.evidence, command.passed]),
    ).toEqual([
      ['failToPass', 'node-test', 'report', true],
      ['passToPass', 'node-test', 'report', true],
    ]);
    expect(fixed?.metrics.diffBytesNormalized).toBeGreaterThan(0);
  });

  it('decisive: stops a verification at its first failed command, with the same outcomes', async () => {
    const result = await run(fast, 'decisive', { decisive: true });
    const commandsOf = (engine: string) =>
      result.trials
        .filter((trial) => trial.engine === engine && trial.task === SLUG_TASK)
        .map((trial) => [trial.outcome, trial.verification?.commands.map((command) => command.role)]);
    // The slug task's FAIL_TO_PASS command fails without the fix: its PASS_TO_PASS command never runs.
    expect(commandsOf('noop')).toEqual([
      ['unresolved', ['failToPass']],
      ['unresolved', ['failToPass']],
    ]);
    expect(commandsOf('fixer')).toEqual([
      ['resolved', ['failToPass', 'passToPass']],
      ['resolved', ['failToPass', 'passToPass']],
    ]);
  });

  it('gives byte-identical verdicts for the same inputs, apart from wall-clock figures', async () => {
    const again = await run(fast, 'second');
    const first = JSON.parse(
      await readFile(join(output(fast, 'first'), 'run-latest', 'verdict.json'), 'utf8'),
    ) as AbpVerdict;
    expect(again.runId).toBe(first.run);
    expect(JSON.stringify(withoutDurations(again.verdict))).toBe(JSON.stringify(withoutDurations(first)));
  });

  it('refuses a second run into the same results folder without --resume-progress', async () => {
    expect(await errorCode(run(fast, 'first'))).toBe('journal-exists');
  });

  it('scores crashes, silence, timeouts and overspending as losses, and excludes only what never ran', async () => {
    const built = await fixture({
      adapters: [
        { engine: 'crasher', script: 'crash' },
        { engine: 'silent', script: 'silent' },
        { engine: 'sleepy', script: 'sleepy', timeoutSeconds: 1 },
        { engine: 'spender', script: 'spender' },
        { engine: 'nocap', script: 'fix', capabilities: [] },
      ],
      tasks: [SLUG_TASK],
    });
    const result = await run(built, 'out');
    const outcome = (engine: string) => result.trials.find((trial) => trial.engine === engine);
    // Only the harness may exclude a trial: a crash or a silent model is the engine's result, so ducking cannot pay.
    expect([outcome('crasher')?.outcome, outcome('crasher')?.reason]).toEqual(['unresolved', 'crashed-before-acting']);
    expect([outcome('silent')?.outcome, outcome('silent')?.reason]).toEqual(['unresolved', 'zero-model-calls']);
    // No model call is no measured cost, not a free run.
    expect(outcome('silent')?.metrics.computedUsd).toBeNull();
    expect(outcome('silent')?.trace?.flags).toContain('zero-model-calls');
    expect([outcome('sleepy')?.outcome, outcome('sleepy')?.reason]).toEqual(['unresolved', 'timeout']);
    expect([outcome('spender')?.outcome, outcome('spender')?.reason]).toEqual(['unresolved', 'budget-exceeded']);
    expect([outcome('nocap')?.outcome, outcome('nocap')?.reason]).toEqual(['unsupported', 'missing-capability']);
    const nocap = result.verdict.perEngine.find((entry) => entry.engine === 'nocap');
    expect(nocap).toMatchObject({
      scoredTrials: 0,
      unsupportedTrials: 1,
      resolveRate: null,
      verifiedRateAllTrials: { point: 0 },
    });
    expect(result.verdict.perEngine.find((entry) => entry.engine === 'crasher')).toMatchObject({
      scoredTrials: 1,
      excludedEngineErrors: 0,
      resolveRate: { point: 0 },
    });
  });

  it('runs environment.setup before the engine and before verification, and keeps its output out of the engine diff', async () => {
    const built = await fixture({ adapters: [{ engine: 'fixer', script: 'fix' }], tasks: [GREETING_TASK] });
    const manifestPath = join(built.tasks, GREETING_TASK, 'task.json');
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as { environment: { setup: string[] } };
    manifest.environment.setup = ['touch setup-output.txt'];
    await writeFile(manifestPath, JSON.stringify(manifest));
    const result = await run(built, 'out');
    const [trial] = result.trials;
    expect(trial?.outcome).toBe('resolved');
    const diff = await readFile(join(result.runDir, trial?.receipts.diff ?? ''), 'utf8');
    expect(diff).toContain('greet.js');
    expect(diff).not.toContain('setup-output.txt');
    expect(await readFile(join(result.runDir, trial?.receipts.verificationLog ?? ''), 'utf8')).toContain(
      '$ touch setup-output.txt  (setup, exit 0)',
    );
  });

  it('stamps matchedModels false when an adapter declares another model, leads the report with it, and --strict-comparison refuses', async () => {
    const built = await fixture({
      adapters: [
        { engine: 'fixer', script: 'fix' },
        { engine: 'other', script: 'noop', model: 'abp/other-model' },
      ],
      tasks: [GREETING_TASK],
    });
    expect(await errorCode(run(built, 'strict', { strictComparison: true }))).toBe('strict-comparison');
    const result = await run(built, 'loose');
    expect(JSON.parse(await readFile(join(result.runDir, 'run.json'), 'utf8'))).toMatchObject({ matchedModels: false });
    expect(result.verdict.warnings?.[0]).toMatch(/matchedModels is false/);
    const html = await readFile(join(result.runDir, 'report.html'), 'utf8');
    const body = html.slice(html.indexOf('<body'));
    expect(body.indexOf('matchedModels')).toBeGreaterThan(0);
    expect(body.indexOf('matchedModels')).toBeLessThan(body.indexOf('<table'));
  });

  it('names the file, the field and the fix when the adapters file lacks an execution policy', async () => {
    const built = await fixture({ adapters: [{ engine: 'fixer', script: 'fix' }] });
    const adapters = JSON.parse(await readFile(built.adapters, 'utf8')) as Record<string, unknown>;
    delete adapters.executionPolicy;
    await writeFile(built.adapters, JSON.stringify(adapters));
    const error = await run(built, 'out').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GraderConfigError);
    expect((error as GraderConfigError).code).toBe('invalid-adapters');
    expect((error as Error).message).toContain(built.adapters);
    expect((error as Error).message).toMatch(/executionPolicy.*trusted-local/);
  });
});

describe('the sandboxed execution policy', () => {
  let server: Server;
  let port = 0;
  beforeAll(async () => {
    server = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('resolves inside bubblewrap, hides held-out material, keeps the host read-only and the network out', async () => {
    const built = await fixture({
      adapters: [
        { engine: 'knower', script: 'knower' },
        { engine: 'prober', script: 'prober', env: { set: { PROBE_PORT: String(port) } } },
      ],
      tasks: [SLUG_TASK],
      policy: 'sandboxed',
    });
    const result = await run(built, 'out');
    const knower = result.trials.find((trial) => trial.engine === 'knower');
    expect(knower?.outcome).toBe('resolved');
    expect(knower?.engineProcess?.sandboxed).toBe(true);
    const prober = result.trials.find((trial) => trial.engine === 'prober');
    const diff = await readFile(join(result.runDir, prober?.receipts.diff ?? ''), 'utf8');
    expect(diff).toContain('+held-out: ENOENT');
    // The task folder is covered by a throwaway tmpfs: a write may succeed inside, but never reaches the host.
    expect(diff).toContain('+write tasks: ');
    expect(diff).toMatch(/\+write etc: E(ROFS|ACCES)/);
    expect(diff).not.toContain('network: connected');
    // The workspace's git still works inside the sandbox: its objects come from the read-only cache.
    expect(diff).toContain('+git history: 1');
    expect(await readdir(built.tasks)).not.toContain('planted.txt');
  });

  it('lets an engine reach only the hosts its adapter lists, through its egress proxy, and records every attempt', async () => {
    const fix =
      "export function slugify(text) {\n  return text.toLowerCase().trim().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');\n}\n";
    const asked: string[] = [];
    const provider = createHttpServer((request, response) => {
      asked.push(request.url ?? '');
      if (request.url === `/${SLUG_TASK}`) response.end(fix);
      else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    const model = (provider.address() as { port: number }).port;
    try {
      const built = await fixture({
        adapters: [
          {
            engine: 'caller',
            script: 'caller',
            egress: [{ host: 'host.abp.internal', ports: [model] }],
            env: {
              set: {
                PROVIDER_URL: `http://host.abp.internal:${model}`,
                // The grader's machine on a port the list does not name: as refused as any other host.
                OTHER_URL: `http://host.abp.internal:${port}/`,
              },
            },
          },
        ],
        tasks: [SLUG_TASK],
        policy: 'sandboxed',
      });
      // The task's own setup runs in the engine's sandbox, but never with its way out: it must not reach the provider.
      const manifestPath = join(built.tasks, SLUG_TASK, 'task.json');
      const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as { environment: { setup: string[] } };
      manifest.environment.setup = [`sh -c 'curl -s -m 3 http://host.abp.internal:${model}/setup-probe || true'`];
      await writeFile(manifestPath, JSON.stringify(manifest));
      const result = await run(built, 'out');
      expect(asked).not.toContain('/setup-probe');
      const [trial] = result.trials;
      expect([trial?.outcome, trial?.reason]).toEqual(['resolved', null]);
      const attempts = [
        { host: 'host.abp.internal', port: model, allowed: true, error: null, count: 1 },
        { host: 'host.abp.internal', port, allowed: false, error: 'not in the allow-list', count: 1 },
      ].sort((a, b) => a.port - b.port);
      expect(trial?.engineProcess?.egress).toEqual({ allow: [`host.abp.internal:${model}`], attempts });
      // Written to the trial's record on disk, the receipt an auditor reads.
      const onDisk = JSON.parse(
        await readFile(join(result.runDir, 'trials', `${trial?.trialId ?? ''}.json`), 'utf8'),
      ) as AbpTrial;
      expect(onDisk.engineProcess?.egress).toEqual(trial?.engineProcess?.egress);
      // Without a list there is no proxy and nothing to record: no network at all.
      const closed = await fixture({
        adapters: [{ engine: 'knower', script: 'knower' }],
        tasks: [SLUG_TASK],
        policy: 'sandboxed',
      });
      expect((await run(closed, 'out')).trials[0]?.engineProcess?.egress).toBeNull();
    } finally {
      await new Promise<void>((resolve) => provider.close(() => resolve()));
    }
  });
});

describe("an adapter's program paths", () => {
  it('bind a program that lives under /tmp outside the adapters folder back into the sandbox', async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), 'abp-engine-program-'));
    cleanups.push(() => rm(elsewhere, { recursive: true, force: true }));
    const script = join(elsewhere, 'knower.mjs');
    const adapter = { engine: 'knower', script: 'knower' as const, scriptPath: script };
    const listed = await fixture({
      adapters: [{ ...adapter, program: [process.execPath, elsewhere] }],
      tasks: [SLUG_TASK],
      policy: 'sandboxed',
    });
    await copyFile(join(listed.dir, 'engines', 'knower.mjs'), script);
    const resolved = await run(listed, 'out');
    expect(resolved.trials.map((trial) => [trial.outcome, trial.engineProcess?.environment])).toEqual([
      ['resolved', null],
    ]);
    // Unlisted, the sandbox's fresh /tmp hides it: the engine cannot start, and the run says so.
    const unlisted = await fixture({ adapters: [adapter], tasks: [SLUG_TASK], policy: 'sandboxed' });
    const failed = await run(unlisted, 'out');
    expect(failed.trials.map((trial) => [trial.outcome, trial.reason])).toEqual([['engine-error', 'failed-preflight']]);
  });

  it('are refused before any trial when missing, or when they reach into what the sandbox hides', async () => {
    const missing = await fixture({
      adapters: [{ engine: 'knower', script: 'knower', program: ['/nonexistent/abp-engine'] }],
      tasks: [SLUG_TASK],
    });
    await expect(errorCode(run(missing, 'out'))).resolves.toBe('missing-program-path');
    const everything = await fixture({ adapters: [{ engine: 'knower', script: 'knower', program: ['/'] }] });
    await expect(errorCode(run(everything, 'out'))).resolves.toBe('invalid-program-path');
    const hidden = await fixture({
      adapters: [{ engine: 'knower', script: 'knower', program: ['{repo}/tasks'] }],
      tasks: [SLUG_TASK],
      policy: 'sandboxed',
    });
    await expect(errorCode(run(hidden, 'out'))).resolves.toBe('hidden-program-path');
    expect(await readdir(hidden.dir)).not.toContain('out');
  });
});

describe('interrupting abp run', () => {
  it('resumes after SIGKILL with no trial lost or duplicated, keeping the stale lock as evidence', async () => {
    const built = await fixture({
      adapters: [
        { engine: 'slow-a', script: 'slow' },
        { engine: 'slow-b', script: 'slow' },
      ],
      trials: 3,
    });
    const out = output(built, 'out');
    const cli = join(packageRoot, 'bin', 'abp.js');
    const args = ['run', '--config', built.config, '-o', out];
    const child = spawn(process.execPath, [cli, ...args], { stdio: 'ignore', env: { ...process.env, SLOW_MS: '400' } });
    const journalLines = async () => {
      const runs = (await readdir(out).catch(() => [] as string[])).filter(
        (name) => name.startsWith('run-') && name !== 'run-latest',
      );
      if (runs.length === 0) return 0;
      const text = await readFile(join(out, runs[0] ?? '', 'progress.jsonl'), 'utf8').catch(() => '');
      return text.split('\n').filter((line) => line.includes('"kind":"trial"')).length;
    };
    const deadline = Date.now() + 60_000;
    while ((await journalLines()) < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    child.kill('SIGKILL');
    await new Promise((resolve) => child.on('exit', resolve));
    const before = await journalLines();
    expect(before).toBeGreaterThanOrEqual(3);
    expect(before).toBeLessThan(12);
    expect(await readdir(out)).toContain('.abp-run.lock');

    const [runId] = (await readdir(out)).filter((name) => name.startsWith('run-'));
    const abandoned = join(tmpdir(), `abp-work-${runId ?? ''}-${child.pid ?? 0}`);
    expect(
      await readdir(abandoned).then(
        () => true,
        () => false,
      ),
    ).toBe(true);
    const resumed = await runMatrix({
      config: built.config,
      output: out,
      resumeProgress: join(out, runId ?? ''),
      cacheDir: join(built.dir, 'cache'),
    });
    expect(resumed.trials).toHaveLength(12);
    const journal = (await readFile(join(resumed.runDir, 'progress.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; trial?: { trialId: string } });
    // The header, the manifest, a line per trial, and the seal the resumed start wrote at the end.
    expect(journal.map((line) => line.kind).filter((kind) => kind !== 'trial')).toEqual([
      'abp-progress/v2',
      'manifest',
      'seal',
    ]);
    const ids = journal.flatMap((line) => (line.trial === undefined ? [] : [line.trial.trialId]));
    expect(ids).toHaveLength(12);
    expect(new Set(ids).size).toBe(12);
    expect((await readdir(join(resumed.runDir, 'trials'))).filter((name) => name.endsWith('.json'))).toHaveLength(12);
    expect((await readdir(out)).filter((name) => name.startsWith('.abp-run.lock.stale-'))).toHaveLength(1);
    expect(resumed.trials.filter((trial) => trial.outcome === 'resolved')).toHaveLength(12);
    // The killed start's trial folders (workspaces, held-out checkouts) do not outlive the resume.
    expect(
      await readdir(abandoned).then(
        () => true,
        () => false,
      ),
    ).toBe(false);
  }, 120_000);

  it('takes its engines down with it when stopped by a signal', async () => {
    const pidFile = join(tmpdir(), `abp-test-engine-${process.pid}.pid`);
    const built = await fixture({
      adapters: [{ engine: 'sleepy', script: 'sleepy', env: { set: { PID_FILE: pidFile } } }],
      tasks: [GREETING_TASK],
    });
    await rm(pidFile, { force: true });
    const child = spawn(
      process.execPath,
      [join(packageRoot, 'bin', 'abp.js'), 'run', '--config', built.config, '-o', output(built, 'out')],
      { stdio: 'ignore' },
    );
    const deadline = Date.now() + 30_000;
    while (!(await readFile(pidFile, 'utf8').then(Boolean, () => false)) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    await rm(pidFile, { force: true });
    // The pid the engine wrote is its own namespace's: the host's are found by the script's path in their command line.
    const engines = await processesWith(join(built.dir, 'engines', 'sleepy.mjs'));
    expect(engines.length).toBeGreaterThan(0);
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(143);
    const gone = async () => {
      for (let attempt = 0; attempt < 40; attempt += 1) {
        if (engines.every((pid) => !isAlive(pid))) return true;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return false;
    };
    expect(await gone()).toBe(true);
  }, 60_000);

  it('refuses to resume when an input changed', async () => {
    const built = await fixture({ adapters: [{ engine: 'fixer', script: 'fix' }], tasks: [GREETING_TASK] });
    const first = await run(built, 'out');
    const config = JSON.parse(await readFile(built.config, 'utf8')) as { budgetUsd: number };
    await writeFile(built.config, JSON.stringify({ ...config, budgetUsd: 6 }));
    expect(await errorCode(run(built, 'out', { resumeProgress: first.runDir }))).toBe('fingerprint-mismatch');
  });
});

/** Host pids whose command line holds `marker`. */
async function processesWith(marker: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const line = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (line.includes(marker) && isAlive(Number(entry))) pids.push(Number(entry));
  }
  return pids;
}
