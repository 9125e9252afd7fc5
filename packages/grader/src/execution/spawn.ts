// The one place abp starts a program and waits for it: an argument array with an explicit environment, in its own
// process group, bounded in time and captured output, the whole group gone when the result comes back. Adapter and
// verification commands (bounded-command.ts), trusted helper programs (run-program.ts) and git all come through here.
import { spawn, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';

/** The harness's cap on every process timeout (spec: agent-benchmarks-harness, "30 minutes"). */
export const maxTimeoutMs = 30 * 60 * 1000;
/** Between SIGTERM and SIGKILL on timeout; also how long pipes held by escaped processes may delay the result. */
export const killGraceMs = 2_000;

export interface SpawnSpec {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** Capped at maxTimeoutMs. */
  readonly timeoutMs: number;
  /** Per stream: the first maxOutputBytes are kept, the rest only counted. */
  readonly maxOutputBytes: number;
  /** Written then closed; when absent the command reads an empty /dev/null. */
  readonly stdin?: string | Buffer;
}

export interface CommandResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** The command could not be invoked (ENOENT, EACCES, a missing cwd): an engine error, not a crash. */
  spawnError: { code: string; message: string } | null;
  stdout: Buffer;
  stderr: Buffer;
  /** Total bytes seen; only the first maxOutputBytes of each are in stdout and stderr. */
  stdoutBytes: number;
  stderrBytes: number;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  durationMs: number;
}

// Process groups of commands still running: detached groups do not get the terminal's Ctrl-C, so the
// harness ends them itself when it is interrupted.
const runningGroups = new Set<number>();

/** Kills every command this process started that is still running (for SIGINT and SIGTERM handlers). */
export function killRunningCommands(): number {
  for (const pid of runningGroups) signalGroup(pid, 'SIGKILL');
  const killed = runningGroups.size;
  runningGroups.clear();
  return killed;
}

export function supervise(
  program: string,
  args: readonly string[],
  command: SpawnSpec,
  started = performance.now(),
): Promise<CommandResult> {
  const stdout = new CappedCapture(command.maxOutputBytes);
  const stderr = new CappedCapture(command.maxOutputBytes);
  let child: ChildProcess;
  try {
    // detached: the command leads its own process group, so one signal reaches all it started.
    child = spawn(program, args, {
      cwd: command.cwd,
      env: command.env,
      detached: true,
      stdio: [command.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
  } catch (error) {
    // Invalid arguments (a NUL byte in an argument or a variable) throw before anything starts.
    const failure = error as NodeJS.ErrnoException;
    return Promise.resolve({
      ...emptyResult(),
      spawnError: { code: failure.code ?? 'EINVAL', message: failure.message },
      durationMs: performance.now() - started,
    });
  }
  child.stdout?.on('data', (chunk: Buffer) => stdout.add(chunk));
  child.stderr?.on('data', (chunk: Buffer) => stderr.add(chunk));

  return new Promise((settle) => {
    let timedOut = false;
    let spawned = false;
    let termTimer: NodeJS.Timeout | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    const finish = (fields: Pick<CommandResult, 'exitCode' | 'signal' | 'spawnError'>): void => {
      clearTimeout(termTimer);
      clearTimeout(killTimer);
      settle({
        ...fields,
        timedOut,
        stdout: stdout.kept(),
        stderr: stderr.kept(),
        stdoutBytes: stdout.total,
        stderrBytes: stderr.total,
        stdoutTruncated: stdout.truncated,
        stderrTruncated: stderr.truncated,
        durationMs: performance.now() - started,
      });
    };

    child.once('error', (error: NodeJS.ErrnoException) => {
      // After 'spawn' an error concerns a process that runs anyway; its 'exit' reports the outcome.
      if (spawned) return;
      finish({ exitCode: null, signal: null, spawnError: { code: error.code ?? 'UNKNOWN', message: error.message } });
    });
    child.once('spawn', () => {
      spawned = true;
      const pid = child.pid as number;
      runningGroups.add(pid);
      if (command.stdin !== undefined && child.stdin) {
        // A command may exit without reading its input: EPIPE is its business, not ours.
        child.stdin.on('error', () => undefined);
        child.stdin.end(command.stdin);
      }
      termTimer = setTimeout(
        () => {
          timedOut = true;
          signalGroup(pid, 'SIGTERM');
          killTimer = setTimeout(() => signalGroup(pid, 'SIGKILL'), killGraceMs);
        },
        Math.min(command.timeoutMs, maxTimeoutMs),
      );
    });
    child.once('exit', (exitCode, signal) => {
      // Stragglers (background jobs, children that ignored SIGTERM) must not outlive the command.
      signalGroup(child.pid as number, 'SIGKILL');
      runningGroups.delete(child.pid as number);
      // A process that left the group (setsid) may still hold the pipes: wait a little, then stop reading.
      const drainTimer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish({ exitCode, signal, spawnError: null });
      }, killGraceMs);
      child.once('close', () => {
        clearTimeout(drainTimer);
        finish({ exitCode, signal, spawnError: null });
      });
    });
  });
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: nothing left in the group.
  }
}

class CappedCapture {
  total = 0;
  private readonly chunks: Buffer[] = [];
  private keptBytes = 0;

  constructor(private readonly limit: number) {}

  get truncated(): boolean {
    return this.total > this.keptBytes;
  }

  add(chunk: Buffer): void {
    this.total += chunk.length;
    const room = this.limit - this.keptBytes;
    if (room <= 0) return;
    const piece = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.chunks.push(piece);
    this.keptBytes += piece.length;
  }

  kept(): Buffer {
    return Buffer.concat(this.chunks, this.keptBytes);
  }
}

export function emptyResult(): CommandResult {
  return {
    exitCode: null,
    signal: null,
    timedOut: false,
    spawnError: null,
    stdout: Buffer.alloc(0),
    stderr: Buffer.alloc(0),
    stdoutBytes: 0,
    stderrBytes: 0,
    stdoutTruncated: false,
    stderrTruncated: false,
    durationMs: 0,
  };
}
