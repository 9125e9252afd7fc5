// What `abp serve` answers per second against nginx serving the same bytes from disk, measured in the same run on
// loopback with wrk: the task listing (`GET /v1/tasks`, 50 scored tasks read from PGlite through the worker's read
// endpoint, never a workflow) at 1 and 64 connections, and a 1 MiB bundle at 64 connections. Targets (issue 19): the
// listing at 64 connections at least 0.2× nginx's requests/s with p99 under 100 ms; bundles at least 0.5× nginx.
// `abp serve` is the real command in its own process; this process holds the database as `abp worker` does. Each
// measurement is bounded by wrk's duration; rounds alternate the servers so drift in the machine hits both.
//   node bin/run-ts.js bench/serve.ts [seconds-per-measurement] [rounds]
// Needs nginx and wrk (Debian: nginx-light wrk; scripts/install-bench-tools.sh installs them).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { migrate, openDatabase } from '../packages/pipeline/src/db/connection.js';
import { bundles, tasks } from '../packages/pipeline/src/db/schema/index.js';
import { BundleStore } from '../packages/pipeline/src/freeze/bundle/store.js';
import { freePort } from '../packages/pipeline/src/dev-stack/processes.js';
import { signingPaths } from '../packages/pipeline/src/signing/home.js';
import { startTaskReadEndpoint } from '../packages/pipeline/src/task-reads/endpoint.js';
import { bundleRow, commitOf, insertDrawnTask } from '../packages/pipeline/test/support/database.js';

const seconds = Math.max(2, Number(process.argv[2] ?? 5));
const rounds = Math.max(1, Number(process.argv[3] ?? 2));
const TASKS = 50;
const BUNDLE_BYTES = 1024 * 1024;
const abpBin = join(import.meta.dirname, '..', 'packages', 'pipeline', 'bin', 'abp.js');

for (const tool of ['nginx', 'wrk']) {
  if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) {
    console.error(
      `bench/serve.ts needs ${tool}: run \`bash scripts/install-bench-tools.sh\` (Debian's nginx-light and wrk)`,
    );
    process.exit(2);
  }
}

interface Measured {
  requestsPerSecond: number;
  p99Ms: number;
  non2xx: number;
}

/** wrk's figures: requests/s, the 99th percentile latency, and answers that were not 2xx or 3xx. */
async function wrk(url: string, connections: number): Promise<Measured> {
  const child = spawn(
    'wrk',
    [`-t${Math.min(2, connections)}`, `-c${connections}`, `-d${seconds}s`, '--timeout', '10s', '--latency', url],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`wrk exited ${code}: ${out}`);
  const rate = /Requests\/sec:\s+([\d.]+)/.exec(out)?.[1];
  const p99 = /\s99%\s+([\d.]+)(us|ms|s)\b/.exec(out);
  if (rate === undefined || p99 === null) throw new Error(`wrk printed no rate or p99:\n${out}`);
  const scale = { us: 0.001, ms: 1, s: 1000 }[p99[2] as 'us' | 'ms' | 's'];
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  return { requestsPerSecond: Number(rate), p99Ms: Number(p99[1]) * scale, non2xx };
}

async function waitForHttp(url: string, process_: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (process_.exitCode !== null) throw new Error(`${url}: the server exited ${process_.exitCode}:\n${log()}`);
    const ok = await fetch(url).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${url} did not answer within 60 s:\n${log()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const exited = once(child, 'exit');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'abp-bench-serve-'));
  // nginx's workers drop root for its unprivileged user, who must be able to reach the site below.
  await chmod(root, 0o755);
  const children: ChildProcess[] = [];
  try {
    // The registry's data directory: 50 scored tasks in PGlite, each with its bundle in the store.
    const home = join(root, 'home');
    const database = await openDatabase({ dataDir: home, env: {} });
    await migrate(database);
    const store = new BundleStore(signingPaths(home).bundles);
    const bundle = randomBytes(BUNDLE_BYTES);
    let bundleDigest = '';
    for (let n = 1; n <= TASKS; n++) {
      const { task } = await insertDrawnTask(database.db, { task: { id: `gh-acme-serve-${n}` } });
      // Each task its own archive (the listing names distinct digests); the download is of the first.
      const archive = n === 1 ? bundle : randomBytes(256);
      const digest = await store.put(archive);
      if (n === 1) bundleDigest = digest;
      await database.db.insert(bundles).values(bundleRow({ taskId: task.id, digest, sizeBytes: archive.length }));
      await database.db
        .update(tasks)
        .set({
          state: 'scored',
          prUrl: `https://github.com/acme/serve/pull/${n}`,
          baseCommit: commitOf(`base-${n}`),
          mergeCommit: commitOf(`merge-${n}`),
          mergedAt: new Date('2026-11-01T00:00:00Z'),
          scoredUntil: new Date('2027-04-30T00:00:00Z'),
          bundleDigest: digest,
        })
        .where(eq(tasks.id, task.id));
    }
    if (createHash('sha256').update(bundle).digest('hex') !== bundleDigest.slice('sha256:'.length))
      throw new Error('the store named the bundle by another digest');
    const endpoint = await startTaskReadEndpoint({ db: database.db, home });

    const [abpPort, nginxPort] = [await freePort(), await freePort()];
    let serveLog = '';
    const serve = spawn(
      process.execPath,
      [
        ...(process.env.ABP_BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.ABP_BENCH_PROFILE}`] : []),
        abpBin,
        'serve',
        '--port',
        String(abpPort),
        '--host',
        '127.0.0.1',
      ],
      {
        env: { ...process.env, ABP_HOME: home, DATABASE_URL: '', ABP_WEBHOOK_SECRET: undefined },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    children.push(serve);
    serve.stderr?.on('data', (chunk: Buffer) => (serveLog += chunk.toString()));
    const abp = `http://127.0.0.1:${abpPort}`;
    await waitForHttp(`${abp}/v1/tasks`, serve, () => serveLog);

    // nginx serves the very bytes abp serve answers, from files, with its stock settings for static files.
    const site = join(root, 'nginx-site');
    await mkdir(join(site, 'v1', 'bundles'), { recursive: true });
    const listing = Buffer.from(await (await fetch(`${abp}/v1/tasks`)).arrayBuffer());
    const listed = (JSON.parse(listing.toString()) as { tasks: unknown[] }).tasks.length;
    if (listed !== TASKS) throw new Error(`abp serve listed ${listed} tasks, not ${TASKS}`);
    await writeFile(join(site, 'v1', 'tasks'), listing);
    await writeFile(join(site, 'v1', 'bundles', bundleDigest), bundle);
    const conf = join(root, 'nginx.conf');
    await writeFile(
      conf,
      [
        'worker_processes auto;',
        `pid ${join(root, 'nginx.pid')};`,
        `error_log ${join(root, 'nginx-error.log')};`,
        'events { worker_connections 1024; }',
        'http {',
        '  sendfile on; tcp_nopush on; keepalive_requests 100000;',
        `  access_log ${join(root, 'nginx-access.log')};`,
        `  client_body_temp_path ${root}/nginx-body; proxy_temp_path ${root}/nginx-proxy;`,
        `  fastcgi_temp_path ${root}/nginx-fastcgi; uwsgi_temp_path ${root}/nginx-uwsgi; scgi_temp_path ${root}/nginx-scgi;`,
        `  server { listen 127.0.0.1:${nginxPort}; root ${site}; default_type application/json; etag on; }`,
        '}',
      ].join('\n'),
    );
    let nginxLog = '';
    const nginx = spawn('nginx', ['-c', conf, '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
    children.push(nginx);
    nginx.stderr?.on('data', (chunk: Buffer) => (nginxLog += chunk.toString()));
    const ngx = `http://127.0.0.1:${nginxPort}`;
    await waitForHttp(`${ngx}/v1/tasks`, nginx, () => nginxLog);

    const cases = [
      { name: 'task listing, 1 connection', path: '/v1/tasks', connections: 1 },
      { name: 'task listing, 64 connections', path: '/v1/tasks', connections: 64 },
      { name: 'bundle (1 MiB), 64 connections', path: `/v1/bundles/${bundleDigest}`, connections: 64 },
    ];
    const results = new Map<string, { abp: Measured[]; nginx: Measured[] }>();
    for (const one of cases) results.set(one.name, { abp: [], nginx: [] });
    // Warm both (JIT, page cache), then alternate.
    await wrk(`${abp}/v1/tasks`, 8);
    await wrk(`${ngx}/v1/tasks`, 8);
    for (let round = 0; round < rounds; round++) {
      for (const one of cases) {
        const kept = results.get(one.name)!;
        const order = round % 2 === 0 ? (['abp', 'nginx'] as const) : (['nginx', 'abp'] as const);
        for (const server of order)
          kept[server].push(await wrk(`${server === 'abp' ? abp : ngx}${one.path}`, one.connections));
      }
    }

    const best = (runs: Measured[]): Measured =>
      runs.reduce((a, b) => (b.requestsPerSecond > a.requestsPerSecond ? b : a));
    console.log(`abp serve against nginx on loopback, wrk -t2 for ${seconds} s per measurement, best of ${rounds}`);
    console.log(
      `${'measurement'.padEnd(34)} ${'abp req/s'.padStart(10)} ${'p99'.padStart(9)} ${'nginx req/s'.padStart(12)} ${'p99'.padStart(9)}  ratio`,
    );
    const ratios = new Map<string, { ratio: number; p99Ms: number; non2xx: number }>();
    for (const one of cases) {
      const kept = results.get(one.name)!;
      const [a, n] = [best(kept.abp), best(kept.nginx)];
      const ratio = a.requestsPerSecond / n.requestsPerSecond;
      ratios.set(one.name, { ratio, p99Ms: a.p99Ms, non2xx: a.non2xx });
      console.log(
        `${one.name.padEnd(34)} ${a.requestsPerSecond.toFixed(0).padStart(10)} ${`${a.p99Ms.toFixed(1)} ms`.padStart(9)} ${n.requestsPerSecond.toFixed(0).padStart(12)} ${`${n.p99Ms.toFixed(1)} ms`.padStart(9)}  ${ratio.toFixed(2)}×${a.non2xx > 0 ? `  (${a.non2xx} answers not 2xx/3xx)` : ''}`,
      );
    }
    const listing64 = ratios.get('task listing, 64 connections')!;
    const bundle64 = ratios.get('bundle (1 MiB), 64 connections')!;
    const listingMet = listing64.ratio >= 0.2 && listing64.p99Ms < 100 && listing64.non2xx === 0;
    const bundleMet = bundle64.ratio >= 0.5 && bundle64.non2xx === 0;
    console.log(
      `task listing at 64 connections: ${listing64.ratio.toFixed(2)}× nginx, p99 ${listing64.p99Ms.toFixed(1)} ms (target: at least 0.2×, p99 under 100 ms)${listingMet ? '' : '  MISSED'}`,
    );
    console.log(
      `bundles at 64 connections: ${bundle64.ratio.toFixed(2)}× nginx (target: at least 0.5×)${bundleMet ? '' : '  MISSED'}`,
    );
    await endpoint.close();
    await database.close();
  } finally {
    for (const child of children) await stop(child);
    await rm(root, { recursive: true, force: true });
  }
}

await main();
