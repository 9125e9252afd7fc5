// The main job end to end: `abp start` as a real process on a fresh data directory with its own Temporal ports (a real
// dev server, worker, simulator with the small live world, abp serve), on a smaller draw: every stage runs, the draw
// record re-derives offline, the pulled bundles verify against the trust root, the gate passes. A second run with the
// same seed reuses what is stored and gives the same draw record bytes and bundle digests. Each run happens once, in a
// hook, and the tests read what it left: a run that fails is one failure, not one per test that reads it. The stack
// is torn down even when an assertion fails.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, statfs, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STAGES, type PipelineEvent } from '../src/events.js';
import type { MainJobSummary } from '../src/main-job.js';
import { isAlive } from '@abp/pipeline/dev-stack/processes';
import { freePort, runAbp, type CliResult } from './support/cli.js';
import { sharedEnvironmentStore } from '../../../test-support/toolchain-caches.js';

const abpBin = new URL('../bin/abp.js', import.meta.url).pathname;

// Seed 16 draws batchkit#3 (pytest, with more-itertools and pytest from PyPI: the Python task a host freeze used to
// lose) and textkit#3 (node --test), both fixed by a green pull request that merges and frozen in their environments.
// The smaller draw keeps the job quick; the environments' bases are in the store the other suites share. The job's own
// time limits sit inside the test's, generous for a CI machine running other suites beside it, so a stuck stage fails
// with its reason and log rather than being killed.
const JOB = [
  '--seed',
  '16',
  '--count',
  '2',
  '--trials',
  '1',
  '--review-delay-ms',
  '200',
  '--merge-timeout',
  '180',
  '--freeze-timeout',
  '240',
];
const RUN_TIMEOUT_MS = 480_000;

/**
 * A job of its own in `home`: its own Temporal ports, nothing of the machine's set-up (the job brings its stack, its
 * GitHub and its ports), and the worker freezing every task in its environment (ABP_FREEZE_IN's default) in the store
 * the other suites build into, so a base is built once per machine, not once per test.
 */
async function jobEnv(home: string): Promise<NodeJS.ProcessEnv> {
  return {
    ABP_HOME: home,
    ABP_TEMPORAL_PORT: String(await freePort()),
    ABP_TEMPORAL_UI_PORT: String(await freePort()),
    TEMPORAL_ADDRESS: '',
    DATABASE_URL: '',
    GITHUB_TOKEN: '',
    GITHUB_API_URL: '',
    ABP_SERVE_PORT: '',
    ABP_FREEZE_IN: '',
    ABP_ENVIRONMENTS: sharedEnvironmentStore,
  };
}

/** The progress events of an `abp start --json` run: every line of its stdout is one. */
function eventsOf(result: Pick<CliResult, 'stdout'>): PipelineEvent[] {
  return result.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as PipelineEvent);
}

interface Run {
  result: CliResult;
  events: PipelineEvent[];
  summary: MainJobSummary;
  ms: number;
}

describe('abp start: the main job', () => {
  let home: string;
  let env: NodeJS.ProcessEnv;
  let first: Run;

  async function start(): Promise<Run> {
    const started = performance.now();
    const result = await runAbp(['start', ...JOB, '--json'], env, RUN_TIMEOUT_MS);
    const ms = Math.round(performance.now() - started);
    // --json: every line of stdout is one JSON event, nothing else.
    const events = eventsOf(result);
    const summary = events.find((event) => event.event === 'summary');
    if (result.code !== 0 || summary === undefined) {
      const failed = events.find((event) => event.event === 'stage-failed');
      throw new Error(
        `abp start exited ${result.code}: ${failed ? JSON.stringify(failed) : `${result.stderr.slice(-2_000)}\nlast events:\n${result.stdout.slice(-3_000)}`}`,
      );
    }
    return { result, events, summary: summary.summary as MainJobSummary, ms };
  }

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'abp-main-job-'));
    env = await jobEnv(home);
  });

  afterAll(async () => {
    // Everything the job started, whatever state the tests left it in; each command is a no-op where nothing runs.
    await runAbp(['stop'], env);
    await runAbp(['dev', 'down'], env);
    await runAbp(['sim', 'down'], env);
    await rm(home, { recursive: true, force: true });
  });

  beforeAll(async () => {
    // A stack someone started by hand, whose worker has no GitHub endpoint: the job must restart that worker, and say so.
    const devUp = await runAbp(['dev', 'up', '--json'], env);
    expect(devUp.code, devUp.stderr).toBe(0);
    first = await start();
  }, RUN_TIMEOUT_MS + 60_000);

  it('runs every stage on a fresh data directory and prints where to look', () => {
    const restarted = first.events.find(
      (event) => event.event === 'note' && event.message.startsWith('worker restarted'),
    );
    expect(restarted).toMatchObject({
      stage: 'stack',
      message: expect.stringContaining(
        'it ran with no GitHub endpoint, the stack needs GITHUB_API_URL=http://127.0.0.1:',
      ) as string,
    });
    const done = first.events.flatMap((event) => (event.event === 'stage-done' ? [event.stage] : []));
    expect(done).toEqual([...STAGES]);
    const { summary } = first;
    expect(summary.seed).toBe(16);
    expect(summary.tasks).toMatchObject({ drawn: 2, solved: 2, merged: 2, scored: 2, rejected: 0, pulled: 2 });
    expect(summary.rejected).toEqual([]);
    expect(Object.keys(summary.bundles).sort()).toEqual(['gh-mira-quill-textkit-3', 'gh-priya-venkat-batchkit-3']);
    // Both froze in their environments: each pulled manifest names its image by digest, the install inside it.
    for (const taskId of Object.keys(summary.bundles)) {
      const manifest = JSON.parse(
        readFileSync(join(summary.runFolder, 'pulled', taskId, 'task', 'task.json'), 'utf8'),
      ) as { environment: { image: string; setup: string[] } };
      expect(manifest.environment.image, taskId).toMatch(/^abp-env\/[a-z0-9.-]+@sha256:[0-9a-f]{64}$/);
      expect(manifest.environment.setup).toEqual([]);
    }
    expect(summary.temporalUi).toBe(`http://127.0.0.1:${env.ABP_TEMPORAL_UI_PORT ?? ''}`);
    for (const file of [
      summary.report,
      summary.verdict,
      summary.drawRecord,
      summary.baseline,
      join(summary.runFolder, 'summary.json'),
    ])
      expect(existsSync(file), file).toBe(true);
    expect(readFileSync(summary.report, 'utf8')).toContain('<html');
    expect(summary.gate).toBe('pass');
    expect(summary.coldStartMs).toBeGreaterThan(0);
    expect(summary.coldStartMs).toBeLessThanOrEqual(summary.totalMs);
    expect(Object.keys(summary.stages)).toEqual([...STAGES]);
    // Every process of the stack reports its peak memory (VmHWM) while it runs.
    expect(summary.memory.map((entry) => entry.process)).toEqual([
      'temporal dev server',
      'worker',
      'simulator',
      'abp serve',
      'abp start (this command)',
    ]);
    for (const entry of summary.memory) expect(entry.peakMiB, entry.process).toBeGreaterThan(10);
    // The reference engine resolves every pulled task and the no-op engine none.
    const verdict = JSON.parse(readFileSync(summary.verdict, 'utf8')) as {
      perEngine: Array<{ engine: string; resolvedTrials: number; scoredTrials: number }>;
    };
    expect(verdict.perEngine.map((engine) => [engine.engine, engine.resolvedTrials, engine.scoredTrials])).toEqual([
      ['reference', 2, 2],
      ['noop', 0, 2],
    ]);
  });

  it('publishes a draw record that re-derives offline from the published files', async () => {
    const [command, ...args] = first.summary.auditCommand.split(' ');
    expect(command).toBe('abp');
    const audit = await runAbp(args, env);
    expect(audit.code, audit.stderr).toBe(0);
    expect(audit.stdout).toContain('match');
  });

  it('pulled bundles that verify against the data directory’s trust root', async () => {
    for (const digest of Object.values(first.summary.bundles)) {
      const archive = join(home, 'bundles', 'sha256', `${digest.replace('sha256:', '')}.tar`);
      const verified = await runAbp(['verify', archive, '--trust-root', join(home, 'trust-root.json'), '--json'], env);
      expect(verified.code, verified.stdout + verified.stderr).toBe(0);
      // The consumer's copy: the agent-visible part and the held-out part apart, in the run's pulled/ folder.
      const taskId = Object.entries(first.summary.bundles).find(([, value]) => value === digest)?.[0] ?? '';
      expect(existsSync(join(first.summary.runFolder, 'pulled', taskId, 'task', 'task.json'))).toBe(true);
      expect(existsSync(join(first.summary.runFolder, 'pulled', taskId, 'held-out', 'golden.patch'))).toBe(true);
      expect(existsSync(join(first.summary.runFolder, 'pulled', taskId, 'task', 'golden.patch'))).toBe(false);
    }
  });

  describe('run again with the same seed', () => {
    let second: Run;
    let recordBefore: Buffer;
    beforeAll(async () => {
      recordBefore = readFileSync(first.summary.drawRecord);
      second = await start();
    }, RUN_TIMEOUT_MS + 30_000);

    it('gives the same draw record and bundles, reused, and still pulls, grades and gates', () => {
      expect(second.summary.drawRecord).toBe(first.summary.drawRecord);
      expect(readFileSync(second.summary.drawRecord).equals(recordBefore)).toBe(true);
      expect(second.summary.drawDigest).toBe(first.summary.drawDigest);
      expect(second.summary.bundles).toEqual(first.summary.bundles);
      expect(second.summary.tasks).toMatchObject({ drawn: 2, merged: 0, scored: 2, pulled: 2 });
      // Nothing rotated, drawn or opened twice.
      const notes = second.events.flatMap((event) =>
        event.event === 'stage-done' ? [`${event.stage}: ${event.summary}`] : [],
      );
      expect(notes.find((line) => line.startsWith('rotation:'))).toContain('reused');
      expect(notes.find((line) => line.startsWith('draw:'))).toContain('reused');
      expect(notes.find((line) => line.startsWith('solve:'))).toContain('0 pull requests opened');
      // The gate compares this run with the baseline the first run took.
      expect(second.summary.baseline).toBe(first.summary.baseline);
      expect(second.summary.results).not.toBe(first.summary.results);
      expect(second.summary.gate).toBe('pass');
      console.log(
        `main job: first run ${first.ms} ms (cold start ${first.summary.coldStartMs} ms), second run ${second.ms} ms; stages ${JSON.stringify(first.summary.stages)}`,
      );
    });
  });

  it('abp stop stops every process the job started', async () => {
    const pids = first.summary.memory
      .filter((entry) => entry.process !== 'abp start (this command)')
      .map((entry) => entry.pid);
    const stopped = await runAbp(['stop', '--json'], env);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(
      (JSON.parse(stopped.stdout) as { components: Array<{ result: string }> }).components.map(
        (component) => component.result,
      ),
    ).toEqual(['stopped', 'stopped', 'stopped', 'stopped']);
    for (const pid of pids) expect(isAlive(pid ?? -1), `pid ${pid}`).toBe(false);
  });

  it(
    'fails the running stage when a process of the stack dies, naming the stage and the log to read, and exits 1',
    async () => {
      // Three trials each, so the grading outlasts the guard's look at the stack; the worker is killed as it starts.
      const child = spawn(
        process.execPath,
        [abpBin, 'start', ...JOB.filter((_, index) => index < 4), '--trials', '3', '--json'],
        { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      const events: PipelineEvent[] = [];
      let buffered = '';
      let killed = false;
      child.stdout.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        for (const line of lines.filter((text) => text !== '')) {
          const event = JSON.parse(line) as PipelineEvent;
          events.push(event);
          if (!killed && event.event === 'stage-started' && event.stage === 'grade') {
            killed = true;
            process.kill(Number(readFileSync(join(home, 'run', 'worker.pid'), 'utf8').trim()), 'SIGKILL');
          }
        }
      });
      const code = await new Promise<number | null>((resolveExit) => child.once('close', resolveExit));
      expect(killed).toBe(true);
      expect(code).toBe(1);
      expect(events.at(-1)).toMatchObject({
        event: 'stage-failed',
        stage: 'grade',
        log: join(home, 'logs', 'worker.log'),
        reason: expect.stringContaining('the worker exited while the job ran') as string,
      });
      // Started again after `abp stop`, the simulator came back on its address: the tasks' pull request URLs still work.
      expect(readFileSync(join(home, 'run', 'sim.port'), 'utf8').trim()).toBe(new URL(first.summary.simulator).port);
      expect(events.some((event) => event.event === 'stage-done' && event.stage === 'merge')).toBe(true);
    },
    RUN_TIMEOUT_MS,
  );
});

describe('abp start on a data directory it cannot use', () => {
  it(
    'a start that fails on a busy port names the log that says why and what it left running, and how to stop it',
    async () => {
      const home = await mkdtemp(join(tmpdir(), 'abp-main-job-busy-'));
      const [temporalPort, uiPort, servePort] = [await freePort(), await freePort(), await freePort()];
      const env = {
        ABP_HOME: home,
        ABP_TEMPORAL_PORT: String(temporalPort),
        ABP_TEMPORAL_UI_PORT: String(uiPort),
        ABP_SERVE_PORT: String(servePort),
        TEMPORAL_ADDRESS: '',
      };
      const occupy = async (port: number) => {
        const server = createServer();
        server.listen(port, '127.0.0.1');
        await once(server, 'listening');
        return server;
      };
      const failure = (result: CliResult) => eventsOf(result).at(-1);
      try {
        // Temporal's port is taken: the failure names temporal.log, and the simulator this start launched.
        const temporalBlock = await occupy(temporalPort);
        const clash = await runAbp(['start', ...JOB, '--json'], env, RUN_TIMEOUT_MS);
        temporalBlock.close();
        expect(clash.code).toBe(1);
        expect(failure(clash)).toMatchObject({
          event: 'stage-failed',
          stage: 'stack',
          log: join(home, 'logs', 'temporal.log'),
          reason: expect.stringMatching(
            /this start left running what it launched \(simulator pid \d+\): `abp stop` stops it/,
          ) as string,
        });
        await runAbp(['stop'], env);

        // abp serve's port is taken: the failure names serve.log, and everything else this start launched.
        const serveBlock = await occupy(servePort);
        const busy = await runAbp(['start', ...JOB, '--json'], env, RUN_TIMEOUT_MS);
        serveBlock.close();
        expect(busy.code).toBe(1);
        const event = failure(busy);
        expect(event).toMatchObject({ event: 'stage-failed', stage: 'stack', log: join(home, 'logs', 'serve.log') });
        const reason = (event as { reason: string }).reason;
        for (const name of ['simulator', 'Temporal dev server', 'worker'])
          expect(reason).toMatch(new RegExp(`${name} pid \\d+`));
        expect(reason).toContain('`abp stop` stops it');
      } finally {
        await runAbp(['stop'], env);
        await rm(home, { recursive: true, force: true });
      }
    },
    RUN_TIMEOUT_MS,
  );

  it('fails the stack stage with the reason and the simulator log when another world runs there, and starts nothing', async () => {
    const home = await mkdtemp(join(tmpdir(), 'abp-main-job-refused-'));
    const env = {
      ABP_HOME: home,
      ABP_TEMPORAL_PORT: String(await freePort()),
      ABP_TEMPORAL_UI_PORT: String(await freePort()),
      TEMPORAL_ADDRESS: '',
    };
    try {
      const scale = await runAbp(['sim', 'up', '--seed', '3', '--repos', '20', '--issues', '200', '--json'], env);
      expect(scale.code, scale.stderr).toBe(0);
      const refused = await runAbp(['start', '--json'], env);
      expect(refused.code).toBe(1);
      const events = eventsOf(refused);
      expect(events.at(-1)).toMatchObject({
        event: 'stage-failed',
        stage: 'stack',
        log: join(home, 'logs', 'sim.log'),
        reason: expect.stringContaining('a simulator with another world') as string,
      });
      expect(refused.stderr).toContain('abp: stack failed: a simulator with another world');
      expect(existsSync(join(home, 'run', 'temporal.pid'))).toBe(false);
    } finally {
      await runAbp(['stop'], env);
      await rm(home, { recursive: true, force: true });
    }
  });
});

// Mounting a tmpfs needs root, which CI and the machines this runs on have; elsewhere the full disk is left out.
const asRoot = process.getuid?.() === 0;

// One scenario, to keep the tier short: a data directory stopped with its fix still under review is started again, the
// worker's freeze folder (as root) a 64 MiB tmpfs filled to the last byte, which is freed once the freeze has stalled.
describe('abp stop, then abp start, while a fix is still under review', () => {
  it(
    `resumes the same data directory, and the task follows its pull request to the end${asRoot ? ' through a freeze stalled on a full disk' : ''}`,
    async () => {
      const home = await mkdtemp(join(tmpdir(), 'abp-main-job-resume-'));
      const env = await jobEnv(home);
      const notes = (all: PipelineEvent[], stage: string) =>
        all.flatMap((event) => (event.event === 'note' && event.stage === stage ? [event.message] : []));
      const oneTask = ['--seed', '16', '--count', '1', '--trials', '1', '--freeze-timeout', '240', '--json'];
      const small = join(home, 'freeze-work');
      let mounted = false;
      try {
        // The maintainers would take ten minutes: the merge stage gives up first, with the pull request open and green.
        const first = await runAbp(
          ['start', ...oneTask, '--review-delay-ms', '600000', '--merge-timeout', '20'],
          env,
          RUN_TIMEOUT_MS,
        );
        expect(first.code, first.stderr).toBe(1);
        const opened = notes(eventsOf(first), 'solve').find((note) => note.includes(': opened '));
        const prUrl = opened?.slice(opened.indexOf(': opened ') + ': opened '.length) ?? '';
        expect(prUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[^/]+\/[^/]+\/pull\/\d+$/);
        expect(notes(eventsOf(first), 'merge').join('\n')).toContain('still waiting when the stage timed out');

        const stopped = await runAbp(['stop'], env);
        expect(stopped.code, stopped.stderr).toBe(0);

        const filler = join(small, 'filler');
        if (asRoot) {
          await mkdir(small, { recursive: true });
          execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', small]);
          mounted = true;
          const free = await statfs(small);
          await writeFile(filler, Buffer.alloc(free.bavail * free.bsize)).catch((error: NodeJS.ErrnoException) => {
            if (error.code !== 'ENOSPC') throw error;
          });
        }

        // Started again: the simulator resumes its world on its address, the task still follows the same pull request,
        // the maintainers merge it, and the task freezes (once the disk is freed), is pulled and graded.
        const child = spawn(process.execPath, [abpBin, 'start', ...oneTask, '--review-delay-ms', '200'], {
          env: { ...process.env, ...env },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
        const exited = new Promise<number | null>((resolveExit) => child.once('close', resolveExit));
        if (asRoot) {
          // The operator's view, through the CLI, while the job waits on the freeze.
          let stalled: Array<{ taskId: string; fault: string; message: string }> = [];
          const deadline = Date.now() + RUN_TIMEOUT_MS / 2;
          while (stalled.length === 0 && Date.now() < deadline && child.exitCode === null) {
            await new Promise((resolveWait) => setTimeout(resolveWait, 2_000));
            const status = await runAbp(['status', '--json'], env);
            if (status.code !== 0) continue;
            const tasks = (JSON.parse(status.stdout) as { tasks: { value?: { stalled?: typeof stalled } } }).tasks;
            stalled = tasks.value?.stalled ?? [];
          }
          expect(stalled, stdout.slice(-3_000)).toEqual([
            expect.objectContaining({ taskId: 'gh-priya-venkat-batchkit-3', fault: 'disk-full' }),
          ]);
          await rm(filler);
        }
        const code = await exited;
        const all = eventsOf({ stdout });
        expect(code, JSON.stringify(all.at(-1))).toBe(0);
        // The resumed maintainers may merge it, and its webhook move the task on, before the solve stage looks.
        expect(notes(all, 'solve').join('\n')).toMatch(
          new RegExp(`: (tracking|freezing|scored), following ${prUrl.replace(/[.?]/g, '\\$&')}$`, 'm'),
        );
        const summary = all.find((event) => event.event === 'summary')?.summary as MainJobSummary;
        expect(summary.tasks).toMatchObject({ drawn: 1, scored: 1, rejected: 0, pulled: 1 });
        expect(readFileSync(join(home, 'logs', 'sim.log'), 'utf8')).toContain('resumed the world kept in');
        if (asRoot) {
          // A full disk is not a verdict on the task: it stalled, and was scored, never rejected.
          const shown = await runAbp(['task', 'show', 'gh-priya-venkat-batchkit-3', '--json'], env);
          expect(shown.code, shown.stderr).toBe(0);
          const causes = (JSON.parse(shown.stdout) as { events: Array<{ cause: string; to: string }> }).events.map(
            (event) => `${event.cause}→${event.to}`,
          );
          expect(causes).toEqual(expect.arrayContaining(['freeze-stalled→freezing', 'frozen→scored']));
          expect(causes.some((cause) => cause.endsWith('→rejected'))).toBe(false);
        }
      } finally {
        await runAbp(['stop'], env);
        if (mounted) execFileSync('umount', ['-l', small]);
        await rm(home, { recursive: true, force: true });
      }
    },
    2 * RUN_TIMEOUT_MS,
  );
});
