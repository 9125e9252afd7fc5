// How long `abp dev up` takes to a stack that runs workflows, cold (new data directory: Temporal's
// SQLite and PGlite created, migrations applied) and warm (the same directory again), against a
// baseline measured in the same run: the bare Temporal dev server answering its first call.
//   node bin/run-ts.js bench/dev-up.ts [rounds]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { packageRoot } from '@abp/pipeline/package-root';
import { findTemporalBinary } from '@abp/pipeline/worker/config';
import { freePort } from '@abp/pipeline/dev-stack/processes';

const rounds = Number(process.argv[2] ?? 3);
const abp = join(packageRoot, 'bin', 'abp.js');

async function bareServer(): Promise<number> {
  const home = mkdtempSync(join(tmpdir(), 'abp-bench-bare-'));
  const port = await freePort();
  const started = performance.now();
  const server = spawn(
    findTemporalBinary('temporal'),
    [
      'server',
      'start-dev',
      '--db-filename',
      join(home, 'dev.sqlite'),
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--ui-port',
      String(await freePort()),
      '--log-level',
      'warn',
    ],
    { stdio: 'ignore' },
  );
  try {
    for (;;) {
      try {
        const connection = await Connection.connect({ address: `127.0.0.1:${port}`, connectTimeout: 1_000 });
        await connection.workflowService.getSystemInfo({});
        await connection.close();
        return performance.now() - started;
      } catch {
        await delay(100);
      }
    }
  } finally {
    server.kill('SIGTERM');
    await new Promise((done) => server.once('exit', done));
    rmSync(home, { recursive: true, force: true });
  }
}

async function devUp(home: string): Promise<number> {
  const env = {
    ...process.env,
    ABP_HOME: home,
    ABP_TEMPORAL_PORT: String(await freePort()),
    ABP_TEMPORAL_UI_PORT: String(await freePort()),
    TEMPORAL_ADDRESS: '',
    DATABASE_URL: '',
  };
  const started = performance.now();
  const up = spawnSync(process.execPath, [abp, 'dev', 'up', '--check'], { env, encoding: 'utf8' });
  const elapsed = performance.now() - started;
  spawnSync(process.execPath, [abp, 'dev', 'down'], { env });
  if (up.status !== 0) throw new Error(`abp dev up failed:\n${up.stderr}`);
  return elapsed;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const samples = { bare: [] as number[], cold: [] as number[], warm: [] as number[] };
for (let round = 0; round < rounds; round += 1) {
  samples.bare.push(await bareServer());
  const home = mkdtempSync(join(tmpdir(), 'abp-bench-up-'));
  samples.cold.push(await devUp(home));
  samples.warm.push(await devUp(home));
  rmSync(home, { recursive: true, force: true });
}

const baseline = median(samples.bare);
console.log(
  `abp dev up --check, ${rounds} rounds (median; min–max), baseline = bare Temporal dev server to first answer`,
);
for (const [name, values] of Object.entries(samples)) {
  const line = `${name.padEnd(5)} ${(median(values) / 1000).toFixed(2)} s  (${(Math.min(...values) / 1000).toFixed(2)}–${(Math.max(...values) / 1000).toFixed(2)} s)  ×${(median(values) / baseline).toFixed(1)} baseline`;
  console.log(line);
}
