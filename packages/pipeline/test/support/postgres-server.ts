// Throwaway real PostgreSQL servers for tests: Debian's server binaries, a fresh cluster in a
// temp dir, 127.0.0.1 on a free port. With ABP_TEST_DATABASE_URL set, a fresh database on that
// server instead. Never skips silently: no binaries is an error that says how to get them.
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { access, chown, constants, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { freePort } from '../../src/dev-stack/processes.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';

export interface PostgresServer {
  /** URL of a fresh, empty database on the server. */
  readonly url: string;
  /** Shuts the server down and removes its files (or drops the database on an external server). */
  stop(): Promise<void>;
}

interface Binaries {
  readonly initdb: string;
  readonly pgCtl: string;
  readonly postgres: string;
}

/** The account that runs the server: the `postgres` user when we are root (initdb refuses root). */
interface ServerAccount {
  readonly uid: number;
  readonly gid: number;
}

const SETUP_HINT =
  "Run `bash scripts/setup.sh` (it installs Debian's postgresql package), or set " +
  'ABP_TEST_DATABASE_URL=postgres://user:password@127.0.0.1:5432/postgres to use an existing server.';

export async function startPostgresServer(): Promise<PostgresServer> {
  const external = process.env['ABP_TEST_DATABASE_URL'];
  if (external !== undefined && external !== '') return createScratchDatabase(external);
  return startLocalServer(await findBinaries());
}

/** The newest server found in /usr/lib/postgresql/<major>/bin, else in `pg_config --bindir`. */
async function findBinaries(): Promise<Binaries> {
  const root = '/usr/lib/postgresql';
  const majors = (await readdir(root).catch(() => []))
    .filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(b) - Number(a));
  const candidates = majors.map((major) => join(root, major, 'bin'));
  const pgConfig = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  if (pgConfig.status === 0) candidates.push(pgConfig.stdout.trim());
  for (const bin of candidates) {
    const binaries: Binaries = {
      initdb: join(bin, 'initdb'),
      pgCtl: join(bin, 'pg_ctl'),
      postgres: join(bin, 'postgres'),
    };
    const executable = (path: string) =>
      access(path, constants.X_OK).then(
        () => true,
        () => false,
      );
    const usable = await Promise.all([binaries.initdb, binaries.pgCtl, binaries.postgres].map(executable));
    if (usable.every(Boolean)) return binaries;
  }
  throw new Error(
    `No PostgreSQL server binaries (initdb, pg_ctl, postgres) in ${root}/*/bin or \`pg_config --bindir\`. ${SETUP_HINT}`,
  );
}

async function startLocalServer(binaries: Binaries): Promise<PostgresServer> {
  const account = await serverAccount();
  const root = await mkdtemp(join(tmpdir(), 'abp-pg-'));
  const dataDir = join(root, 'data');
  const logFile = join(root, 'server.log');
  let running = false;
  const stopNow = () => {
    // Last resort when the test process exits without stop(): don't leave a server behind.
    if (running)
      spawnSync(binaries.pgCtl, ['stop', '-D', dataDir, '-m', 'immediate'], { ...spawnAs(account), stdio: 'ignore' });
  };
  try {
    if (account !== undefined) await chown(root, account.uid, account.gid);
    await run(
      binaries.initdb,
      ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-locale', '--no-sync'],
      account,
      root,
    );
    const port = await startOnFreePort(binaries, dataDir, root, logFile, account);
    running = true;
    process.once('exit', stopNow);
    const serverUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const database = `abp_test`;
    await withClient(serverUrl, (sql) => sql.unsafe(`create database ${database}`));
    return {
      url: `postgres://postgres@127.0.0.1:${port}/${database}`,
      async stop() {
        if (running) {
          await run(binaries.pgCtl, ['stop', '-D', dataDir, '-m', 'fast', '-w'], account, root);
          running = false;
          process.off('exit', stopNow);
        }
        await rm(root, { recursive: true, force: true });
      },
    };
  } catch (error) {
    stopNow();
    const log = await readFile(logFile, 'utf8').catch(() => '');
    await rm(root, { recursive: true, force: true });
    throw new Error(`Could not start a PostgreSQL test server with ${binaries.initdb}: ${String(error)}\n${log}`, {
      cause: error,
    });
  }
}

/** A port the OS just said was free can be taken before the server binds it: retry a few times. */
async function startOnFreePort(
  binaries: Binaries,
  dataDir: string,
  socketDir: string,
  logFile: string,
  account: ServerAccount | undefined,
): Promise<number> {
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    // fsync off etc.: a throwaway cluster trades durability for speed.
    const serverOptions = [
      `-p ${port}`,
      `-k '${socketDir}'`,
      '-c listen_addresses=127.0.0.1',
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
    ].join(' ');
    try {
      await run(
        binaries.pgCtl,
        ['start', '-D', dataDir, '-l', logFile, '-w', '-t', '60', '-o', serverOptions],
        account,
        socketDir,
      );
      return port;
    } catch (error) {
      if (attempt >= 3) throw error;
    }
  }
}

async function serverAccount(): Promise<ServerAccount | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const passwd = await readFile('/etc/passwd', 'utf8');
  const entry = passwd.split('\n').find((line) => line.startsWith('postgres:'));
  const [, , uid, gid] = entry?.split(':') ?? [];
  if (uid === undefined || gid === undefined) {
    throw new Error(`Running as root, and initdb refuses root, but there is no 'postgres' user. ${SETUP_HINT}`);
  }
  return { uid: Number(uid), gid: Number(gid) };
}

function spawnAs(account: ServerAccount | undefined) {
  return account === undefined ? {} : { uid: account.uid, gid: account.gid };
}

function run(command: string, args: string[], account: ServerAccount | undefined, cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { ...spawnAs(account), cwd, timeout: 120_000 }, (error, stdout, stderr) => {
      if (error)
        reject(
          new Error(`${command} ${args.join(' ')} failed: ${stderr || stdout || error.message}`, { cause: error }),
        );
      else resolve();
    });
  });
}

async function withClient<T>(url: string, use: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    return await use(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

async function createScratchDatabase(serverUrl: string): Promise<PostgresServer> {
  const database = `abp_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  try {
    await withClient(serverUrl, (sql) => sql.unsafe(`create database ${database}`));
  } catch (error) {
    throw new Error(`Could not create a test database on ABP_TEST_DATABASE_URL: ${String(error)}`, { cause: error });
  }
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return {
    url: url.toString(),
    stop: () =>
      withClient(serverUrl, (sql) => sql.unsafe(`drop database if exists ${database} with (force)`)).then(
        () => undefined,
      ),
  };
}
