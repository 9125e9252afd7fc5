// `abp dev up|status|check|down` with real processes: the Temporal dev server and the abp worker.
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connection.js';
import { isAlive, portIsFree } from '../../src/dev-stack/processes.js';
import { freePort, runAbp } from '../support/cli.js';
import { appliedMigrations } from '../support/database.js';
import { startPostgresServer, type PostgresServer } from '../support/postgres-server.js';
import { startDevServer } from '../support/temporal.js';

interface StatusJson {
  home: string;
  mode: string;
  database: { kind: string; location: string };
  components: Array<{ name: string; state: string; pid: number | null; ui: string | null }>;
}

interface ErrorJson {
  error: { code: string; message: string };
}

async function migrationsIn(options: Parameters<typeof openDatabase>[0]): Promise<number> {
  const database = await openDatabase(options);
  try {
    return await appliedMigrations(database.db);
  } finally {
    await database.close();
  }
}

async function listen(port: number): Promise<Server> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
  return server;
}

describe('abp dev', () => {
  let home: string;
  let env: NodeJS.ProcessEnv;

  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'abp-dev-'));
    env = {
      ABP_HOME: home,
      ABP_TEMPORAL_PORT: String(await freePort()),
      ABP_TEMPORAL_UI_PORT: String(await freePort()),
      TEMPORAL_ADDRESS: '',
      DATABASE_URL: '',
    };
  });
  afterEach(async () => {
    await runAbp(['dev', 'down'], env);
    await rm(home, { recursive: true, force: true });
  });

  it('starts the stack, runs the wiring check, reports status, and stops leaving nothing behind', async () => {
    const up = await runAbp(['dev', 'up', '--check', '--json'], env);
    expect(up.stderr).toBe('');
    expect(up.code).toBe(0);
    const upJson = JSON.parse(up.stdout) as StatusJson & {
      check: { probe: string; after: { workerIdentity: string } };
    };
    const running = Object.fromEntries(upJson.components.map((c) => [c.name, c]));
    expect(running.temporal?.state).toBe('running');
    expect(running.worker?.state).toBe('running');
    // The wiring check ran on the background worker, not in this test process.
    expect(upJson.check.after.workerIdentity).toMatch(new RegExp(`^${running.worker?.pid}@`));
    expect(existsSync(join(home, 'temporal', 'dev.sqlite'))).toBe(true);
    // The worker migrated the embedded database before it took work.
    expect(upJson.database).toEqual({ kind: 'pglite', location: join(home, 'pglite') });
    expect(await migrationsIn({ dataDir: home, env: {} })).toBeGreaterThan(0);

    const ui = await fetch(running.temporal?.ui ?? 'http://invalid');
    expect(ui.status).toBe(200);

    const status = await runAbp(['dev', 'status'], env);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/temporal\s+running pid \d+/);
    expect(status.stdout).toMatch(/worker\s+running pid \d+/);
    expect(status.stdout).toContain(`Web UI ${running.temporal?.ui}`);

    // Up again is idempotent: same processes.
    const again = await runAbp(['dev', 'up', '--json'], env);
    expect(again.code).toBe(0);
    const againJson = JSON.parse(again.stdout) as StatusJson;
    expect(againJson.components.map((c) => c.pid)).toEqual(upJson.components.map((c) => c.pid));

    const down = await runAbp(['dev', 'down', '--json'], env);
    expect(down.code).toBe(0);
    expect(JSON.parse(down.stdout)).toEqual({
      components: [
        { name: 'worker', result: 'stopped' },
        { name: 'temporal', result: 'stopped' },
      ],
    });
    for (const component of upJson.components) expect(isAlive(component.pid ?? -1)).toBe(false);
    expect(existsSync(join(home, 'run', 'temporal.pid'))).toBe(false);
    expect(existsSync(join(home, 'run', 'worker.pid'))).toBe(false);
    expect(existsSync(join(home, 'run', 'stack.lock'))).toBe(false);

    const after = JSON.parse((await runAbp(['dev', 'status', '--json'], env)).stdout) as StatusJson;
    expect(after.components.map((c) => c.state)).toEqual(['stopped', 'stopped']);
  });

  it.each([
    ['gRPC', 'ABP_TEMPORAL_PORT'],
    ['Web UI', 'ABP_TEMPORAL_UI_PORT'],
  ])('refuses a busy %s port, naming it and the variable to change, and starts nothing', async (what, variable) => {
    const port = Number(env[variable]);
    const blocker = await listen(port);
    try {
      const up = await runAbp(['dev', 'up', '--json'], env);
      expect(up.code).toBe(1);
      const { error } = JSON.parse(up.stdout) as ErrorJson;
      expect(error.code).toBe('port-in-use');
      expect(error.message).toContain(`port ${port} (Temporal ${what})`);
      expect(error.message).toContain(variable);
      expect(existsSync(join(home, 'run', 'temporal.pid'))).toBe(false);
      expect(existsSync(join(home, 'run', 'worker.pid'))).toBe(false);
    } finally {
      await new Promise((done) => blocker.close(done));
    }
  });

  it('stops what it started when the worker cannot start, and says why', async () => {
    const up = await runAbp(['dev', 'up', '--json'], { ...env, DATABASE_URL: 'mysql://abp@127.0.0.1/abp' });
    expect(up.code).toBe(1);
    const { error } = JSON.parse(up.stdout) as ErrorJson;
    expect(error.code).toBe('start-failed');
    // The worker's own complaint, from its log, is in the message.
    expect(error.message).toContain('Invalid DATABASE_URL: it must start with postgres://');
    expect(existsSync(join(home, 'run', 'temporal.pid'))).toBe(false);
    expect(existsSync(join(home, 'run', 'worker.pid'))).toBe(false);
    // The dev server this call started is gone again: its port is free.
    expect(await portIsFree(Number(env.ABP_TEMPORAL_PORT))).toBe(true);
  });

  it('refuses `dev up` while another live abp process holds the stack lock, and starts nothing', async () => {
    // The lock as a second `dev up` finds it while the first starts the stack: held by a live process (this one). Two
    // CLI processes started together do not reliably overlap on a loaded machine (the first may finish first).
    await mkdir(join(home, 'run'), { recursive: true });
    await writeFile(join(home, 'run', 'stack.lock'), `${process.pid}\n`);
    const refused = await runAbp(['dev', 'up', '--json'], env);
    expect(refused.code).toBe(1);
    const { error } = JSON.parse(refused.stdout) as ErrorJson;
    expect(error.code).toBe('locked');
    expect(error.message).toContain(`pid ${process.pid}`);
    expect(existsSync(join(home, 'run', 'temporal.pid'))).toBe(false);
    expect(existsSync(join(home, 'run', 'worker.pid'))).toBe(false);
    // The lock is the holder's to remove, not the refused call's.
    expect(existsSync(join(home, 'run', 'stack.lock'))).toBe(true);
  });

  it('treats a pid file naming a process that is not ours as stale, and leaves that process alone', async () => {
    await mkdir(join(home, 'run'), { recursive: true });
    // This test process is alive but is not an abp worker: `dev down` must not signal it.
    await writeFile(join(home, 'run', 'worker.pid'), `${process.pid}\n`);
    // A pid beyond the kernel's pid space: no process at all; a lock left by such a process is taken over.
    await writeFile(join(home, 'run', 'temporal.pid'), '999999999\n');
    await writeFile(join(home, 'run', 'stack.lock'), '999999999\n');
    const status = JSON.parse((await runAbp(['dev', 'status', '--json'], env)).stdout) as StatusJson;
    expect(status.components.map((c) => [c.name, c.state])).toEqual([
      ['temporal', 'stale-pid'],
      ['worker', 'stale-pid'],
    ]);
    const down = await runAbp(['dev', 'down', '--json'], env);
    expect(down.code).toBe(0);
    expect(JSON.parse(down.stdout)).toEqual({
      components: [
        { name: 'worker', result: 'not-running' },
        { name: 'temporal', result: 'not-running' },
      ],
    });
    expect(existsSync(join(home, 'run', 'worker.pid'))).toBe(false);
    expect(existsSync(join(home, 'run', 'temporal.pid'))).toBe(false);
    expect(existsSync(join(home, 'run', 'stack.lock'))).toBe(false);
  });

  it('refuses a malformed setting as a usage error (exit 2) and a binary it cannot run (exit 1)', async () => {
    const badPort = await runAbp(['dev', 'up', '--json'], { ...env, ABP_TEMPORAL_PORT: '72330' });
    expect(badPort.code).toBe(2);
    expect((JSON.parse(badPort.stdout) as ErrorJson).error).toMatchObject({
      code: 'invalid-setting',
      message: expect.stringContaining('ABP_TEMPORAL_PORT=72330') as string,
    });

    const notExecutable = join(home, 'temporal');
    await writeFile(notExecutable, 'not a program');
    await chmod(notExecutable, 0o644);
    const badBinary = await runAbp(['dev', 'up', '--json'], { ...env, ABP_TEMPORAL_CLI: notExecutable });
    expect(badBinary.code).toBe(1);
    expect((JSON.parse(badBinary.stdout) as ErrorJson).error.code).toBe('missing-binary');
  });
});

describe('abp dev scaled out: TEMPORAL_ADDRESS and DATABASE_URL', () => {
  let server: TestWorkflowEnvironment;
  let postgresServer: PostgresServer;
  let home: string;
  afterAll(async () => {
    await server?.teardown();
    await postgresServer?.stop();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('uses the given cluster and database, starts only the worker, and runs the check there', async () => {
    [server, postgresServer] = await Promise.all([startDevServer(), startPostgresServer()]);
    home = await mkdtemp(join(tmpdir(), 'abp-dev-external-'));
    const env = { ABP_HOME: home, TEMPORAL_ADDRESS: server.address, DATABASE_URL: postgresServer.url };
    try {
      const up = await runAbp(['dev', 'up', '--check', '--json'], env);
      expect(up.code).toBe(0);
      const json = JSON.parse(up.stdout) as StatusJson;
      expect(json.mode).toBe('external');
      expect(json.components.find((c) => c.name === 'temporal')?.state).toBe('external');
      expect(json.components.find((c) => c.name === 'worker')?.state).toBe('running');
      expect(existsSync(join(home, 'run', 'temporal.pid'))).toBe(false);
      expect(json.database.kind).toBe('postgres');
      expect(await migrationsIn({ url: postgresServer.url })).toBeGreaterThan(0);
      expect(existsSync(join(home, 'pglite'))).toBe(false);
    } finally {
      const down = await runAbp(['dev', 'down'], env);
      expect(down.code).toBe(0);
    }
  });
});
