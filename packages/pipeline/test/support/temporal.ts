// Real Temporal servers for tests, from the binaries scripts/install-temporal.sh put in .tools/. They are started here
// rather than by the SDK: the SDK gives a server it starts a fixed 5 s to answer (sdk-core's ephemeral server polls 50
// times 100 ms), and the Java time-skipping server takes longer than that on a loaded 2-core machine. Here a server
// has START_DEADLINE_MS, and one that exits during start-up fails at once with the end of what it printed.
import { spawn, type ChildProcess } from 'node:child_process';
import { Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { freePort } from '../../src/dev-stack/processes.js';
import { findTemporalBinary } from '../../src/worker/config.js';

// Worker state changes at INFO drown test output; warnings and errors still show.
Runtime.install({ logger: new DefaultLogger('WARN') });

const START_DEADLINE_MS = 120_000;

/** What TestWorkflowEnvironment.createFromExistingServer does, with time skipping: the SDK keeps it to itself. */
type CreateEnvironment = (options: {
  server: { type: 'existing' };
  address: string;
  namespace: string;
  supportsTimeSkipping: boolean;
}) => Promise<TestWorkflowEnvironment>;

/** A server that lost a race for one of its ports exits at start-up; this many tries, each on fresh ports. */
const PORT_RACE_ATTEMPTS = 3;

/**
 * Starts the server `argvFor` describes on a free port. The dev server picks its internal services' ports itself (free
 * when it looks, maybe not a moment later when another test's process binds first); a start that loses such a race is
 * tried again on new ports rather than failing the test.
 */
async function startServer(
  argvFor: (port: number) => readonly string[],
  supportsTimeSkipping: boolean,
): Promise<TestWorkflowEnvironment> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServerOnce(argvFor, await freePort(), supportsTimeSkipping);
    } catch (error) {
      if (!(error instanceof PortRaceError) || attempt === PORT_RACE_ATTEMPTS) throw error;
    }
  }
}

class PortRaceError extends Error {}

async function startServerOnce(
  argvFor: (port: number) => readonly string[],
  port: number,
  supportsTimeSkipping: boolean,
): Promise<TestWorkflowEnvironment> {
  const [program = '', ...args] = argvFor(port);
  const child: ChildProcess = spawn(program, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  // A test file that ends without its teardown (a failed hook, a crash) takes its server with it.
  const orphaned = () => child.kill('SIGKILL');
  process.once('exit', orphaned);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4_000)));
  let exited: string | null = null;
  // 'close', not 'exit': by then everything the server wrote to stderr has been read.
  child.once(
    'close',
    (code, signal) =>
      (exited = `${program} exited during start-up (${signal ?? `code ${code}`}): ${stderr.trim() || 'no output'}`),
  );
  child.once('error', (error) => (exited = `${program} could not be started: ${error.message}`));
  const address = `127.0.0.1:${port}`;
  const deadline = Date.now() + START_DEADLINE_MS;
  for (;;) {
    if (exited !== null) {
      process.off('exit', orphaned);
      throw /address already in use/.test(stderr) ? new PortRaceError(exited) : new Error(exited);
    }
    const connection = await Connection.connect({ address, connectTimeout: 1_000 }).catch(() => null);
    if (connection !== null) {
      await connection.close();
      break;
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      process.off('exit', orphaned);
      throw new Error(
        `${program} did not answer on ${address} within ${START_DEADLINE_MS} ms: ${stderr.trim() || 'no output'}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const create = (TestWorkflowEnvironment as unknown as { create: CreateEnvironment }).create.bind(
    TestWorkflowEnvironment,
  );
  const env = await create({ server: { type: 'existing' }, address, namespace: 'default', supportsTimeSkipping });
  const teardown = env.teardown.bind(env);
  env.teardown = async () => {
    await teardown();
    child.kill('SIGKILL');
    process.off('exit', orphaned);
  };
  return env;
}

/** Temporal's time-skipping test server (Java), for workflows whose timers run for days or months. */
export async function startTimeSkippingServer(): Promise<TestWorkflowEnvironment> {
  return startServer((port) => [findTemporalBinary('temporal-test-server'), String(port)], true);
}

/** The full Temporal dev server (the official CLI's start-dev), in memory. */
export async function startDevServer(): Promise<TestWorkflowEnvironment> {
  const argvFor = (port: number) => [
    findTemporalBinary('temporal'),
    'server',
    'start-dev',
    '--port',
    String(port),
    '--ip',
    '127.0.0.1',
    '--namespace',
    'default',
    '--headless',
    '--log-level',
    'warn',
    '--dynamic-config-value',
    'frontend.enableUpdateWorkflowExecution=true',
    '--dynamic-config-value',
    'frontend.enableUpdateWorkflowExecutionAsyncAccepted=true',
  ];
  return startServer(argvFor, false);
}
