// `abp dev up|status|check|down` with real processes: the Temporal dev server and the abp worker.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { openDatabase, selectRows } from '../../db/connection.js';
import { isAlive } from '../../stack/processes.js';
import { freePort, runAbp } from '../support/cli.js';
import { startPostgresServer, type PostgresServer } from '../support/postgres-server.js';
import { startDevServer } from '../support/temporal.js';

interface StatusJson {
  home: string;
  mode: string;
  database: { kind: string; location: string };
  components: Array<{ name: string; state: string; pid: number | null; ui: string | null }>;
}

describe('abp dev', () => {
  let home: string;
  let env: NodeJS.ProcessEnv;

  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'abp-dev-'));
    const port = await freePort();
    env = { ABP_HOME: home, ABP_TEMPORAL_PORT: String(port), ABP_TEMPORAL_UI_PORT: String(await freePort()), TEMPORAL_ADDRESS: '', DATABASE_URL: '' };
  });
  afterEach(async () => {
    await runAbp(['dev', 'down'], env);
    await rm(home, { recursive: true, force: true });
  });

  it('starts the stack, runs the wiring check, reports status, and stops leaving nothing behind', async () => {
    const up = await runAbp(['dev', 'up', '--check', '--json'], env);
    expect(up.stderr).toBe('');
    expect(up.code).toBe(0);
    const upJson = JSON.parse(up.stdout) as StatusJson & { check: { probe: string; after: { workerIdentity: string } } };
    const running = Object.fromEntries(upJson.components.map((c) => [c.name, c]));
    expect(running.temporal?.state).toBe('running');
    expect(running.worker?.state).toBe('running');
    // The wiring check ran on the background worker, not in this test process.
    expect(upJson.check.after.workerIdentity).toMatch(new RegExp(`^${running.worker?.pid}@`));
    expect(existsSync(join(home, 'temporal', 'dev.sqlite'))).toBe(true);
    // The worker migrated the embedded database before it took work.
    expect(upJson.database).toEqual({ kind: 'pglite', location: join(home, 'pglite') });
    expect(await appliedMigrations({ dataDir: home, env: {} })).toBeGreaterThan(0);

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
    expect(JSON.parse(down.stdout)).toEqual({ components: [{ name: 'worker', result: 'stopped' }, { name: 'temporal', result: 'stopped' }] });
    for (const component of upJson.components) expect(isAlive(component.pid ?? -1)).toBe(false);
    expect(existsSync(join(home, 'run', 'temporal.pid'))).toBe(false);
    expect(existsSync(join(home, 'run', 'worker.pid'))).toBe(false);

    const after = JSON.parse((await runAbp(['dev', 'status', '--json'], env)).stdout) as StatusJson;
    expect(after.components.map((c) => c.state)).toEqual(['stopped', 'stopped']);
  });

  it('refuses a busy port with a message that names it and the fix, and starts nothing', async () => {
    const blocker: Server = createServer();
    const port = Number(env.ABP_TEMPORAL_PORT);
    await new Promise<void>((done) => blocker.listen(port, '127.0.0.1', done));
    try {
      const up = await runAbp(['dev', 'up'], env);
      expect(up.code).toBe(1);
      expect(up.stderr).toContain(`port ${port} (Temporal gRPC) is already in use`);
      expect(up.stderr).toContain('ABP_TEMPORAL_PORT');
      expect(existsSync(join(home, 'run', 'temporal.pid'))).toBe(false);
      expect(existsSync(join(home, 'run', 'worker.pid'))).toBe(false);
    } finally {
      await new Promise((done) => blocker.close(done));
    }
  });

  it('reports and clears a stale pid file', async () => {
    const { mkdir, writeFile } = await import('node:fs/promises');
    await mkdir(join(home, 'run'), { recursive: true });
    // A pid that cannot be ours: the pid space tops out far below this.
    await writeFile(join(home, 'run', 'worker.pid'), '999999999\n');
    const status = JSON.parse((await runAbp(['dev', 'status', '--json'], env)).stdout) as StatusJson;
    expect(status.components.find((c) => c.name === 'worker')?.state).toBe('stale-pid');
    const down = await runAbp(['dev', 'down'], env);
    expect(down.code).toBe(0);
    expect(existsSync(join(home, 'run', 'worker.pid'))).toBe(false);
  });
});

async function appliedMigrations(options: Parameters<typeof openDatabase>[0]): Promise<number> {
  const database = await openDatabase(options);
  try {
    const [row] = await selectRows<{ count: number }>(database.db, sql`select count(*)::int as count from drizzle.__drizzle_migrations`);
    return row?.count ?? 0;
  } finally {
    await database.close();
  }
}

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
    const address = server.address;
    const env = { ABP_HOME: home, TEMPORAL_ADDRESS: address, DATABASE_URL: postgresServer.url };
    try {
      const up = await runAbp(['dev', 'up', '--check', '--json'], env);
      expect(up.code).toBe(0);
      const json = JSON.parse(up.stdout) as StatusJson;
      expect(json.mode).toBe('external');
      expect(json.components.find((c) => c.name === 'temporal')?.state).toBe('external');
      expect(json.components.find((c) => c.name === 'worker')?.state).toBe('running');
      expect(existsSync(join(home, 'run', 'temporal.pid'))).toBe(false);
      expect(json.database.kind).toBe('postgres');
      expect(await appliedMigrations({ url: postgresServer.url })).toBeGreaterThan(0);
      expect(existsSync(join(home, 'pglite'))).toBe(false);
    } finally {
      const down = await runAbp(['dev', 'down'], env);
      expect(down.code).toBe(0);
    }
  });
});
