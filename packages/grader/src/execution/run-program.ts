// Running a program abp trusts (git, a formatter, a toolchain, abp itself) to completion: the same supervised spawn as
// every other command (spawn.ts), with a failure policy instead of a result to score. A program that cannot start,
// outlives its deadline, writes more than it may or exits with a code the caller did not allow throws an
// ExecutionError naming the command, its folder and the tail of what it wrote to stderr.
import { spawnSync } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { ExecutionError } from './errors.js';
import { supervise } from './spawn.js';

export interface ProgramCall {
  cwd: string;
  /** The whole environment the program sees: nothing of abp's own is passed on unless it is listed here. */
  env: Readonly<Record<string, string>>;
  input?: string | Buffer;
  /** Default 10 minutes. */
  timeoutMs?: number;
  /** Per stream; default 1 GiB (a runaway engine's patch, a large blob). */
  maxOutputBytes?: number;
  /** Exit codes that are answers rather than failures (1 from `git diff --quiet`, 128 from a probe). */
  allowExit?: readonly number[];
  /** What messages call the command (default: its argv), e.g. without the flags every call of a runner adds. */
  label?: string;
}

export interface ProgramResult {
  exitCode: number;
  stdout: Buffer;
  stderr: string;
}

const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;
const DEFAULT_MAX_OUTPUT_BYTES = 1024 ** 3;

/** The host's PATH and nothing else: a helper program finds its tools and inherits no secret. */
export function hostPathEnvironment(): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin' };
}

/** This process's whole environment and `extra`: for children that are abp itself (the CLI, the bundler). */
export function ownEnvironment(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  const own = Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return { ...Object.fromEntries(own), ...extra };
}

export async function runProgram(argv: readonly string[], call: ProgramCall): Promise<ProgramResult> {
  const [program, ...args] = argv;
  if (program === undefined)
    throw new ExecutionError('invalid-command', 'argv is empty; give at least the program to run');
  const folder = await stat(call.cwd).then(
    (info) => (info.isDirectory() ? null : 'not a folder'),
    (error: NodeJS.ErrnoException) => error.code ?? 'missing',
  );
  if (folder !== null)
    throw new ExecutionError(
      'program-not-started',
      `${describe(argv, call)}: its working folder ${call.cwd} cannot be used (${folder})`,
    );
  const timeoutMs = call.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxOutputBytes = call.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const result = await supervise(program, args, {
    cwd: call.cwd,
    env: call.env,
    timeoutMs,
    maxOutputBytes,
    ...(call.input === undefined ? {} : { stdin: call.input }),
  });
  const stderr = result.stderr.toString('utf8');
  if (result.spawnError)
    throw new ExecutionError(
      'program-not-started',
      `${describe(argv, call)} (in ${call.cwd}) could not be started: ${result.spawnError.message}`,
    );
  if (result.timedOut)
    throw new ExecutionError(
      'program-timed-out',
      `${describe(argv, call)} (in ${call.cwd}) ran past its ${timeoutMs} ms and was killed${tail(stderr)}`,
    );
  if (result.stdoutTruncated || result.stderrTruncated) {
    throw new ExecutionError(
      'program-output-too-large',
      `${describe(argv, call)} (in ${call.cwd}) wrote more than ${maxOutputBytes} bytes to ${result.stdoutTruncated ? 'stdout' : 'stderr'}`,
    );
  }
  return settle(argv, call, result.exitCode ?? -1, result.signal, result.stdout, stderr);
}

/**
 * The same, synchronously, for callers whose interface cannot wait (the simulator's world writer makes short git
 * calls on small repositories). Without process-group supervision: use it only for programs that start no daemons.
 */
export function runProgramSync(argv: readonly string[], call: ProgramCall): ProgramResult {
  const [program, ...args] = argv;
  if (program === undefined)
    throw new ExecutionError('invalid-command', 'argv is empty; give at least the program to run');
  const timeoutMs = call.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxOutputBytes = call.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const child = spawnSync(program, args, {
    cwd: call.cwd,
    env: call.env,
    input: call.input ?? '',
    timeout: timeoutMs,
    maxBuffer: maxOutputBytes,
    killSignal: 'SIGKILL',
  });
  const stderr = (child.stderr ?? Buffer.alloc(0)).toString('utf8');
  if (child.error) {
    const code = (child.error as NodeJS.ErrnoException).code;
    if (code === 'ETIMEDOUT')
      throw new ExecutionError(
        'program-timed-out',
        `${describe(argv, call)} (in ${call.cwd}) ran past its ${timeoutMs} ms and was killed${tail(stderr)}`,
      );
    if (code === 'ENOBUFS')
      throw new ExecutionError(
        'program-output-too-large',
        `${describe(argv, call)} (in ${call.cwd}) wrote more than ${maxOutputBytes} bytes`,
      );
    throw new ExecutionError(
      'program-not-started',
      `${describe(argv, call)} (in ${call.cwd}) could not be started: ${child.error.message}`,
    );
  }
  return settle(argv, call, child.status ?? -1, child.signal, child.stdout, stderr);
}

function settle(
  argv: readonly string[],
  call: ProgramCall,
  exitCode: number,
  signal: NodeJS.Signals | null,
  stdout: Buffer,
  stderr: string,
): ProgramResult {
  if (exitCode === 0 || (exitCode > 0 && call.allowExit?.includes(exitCode))) return { exitCode, stdout, stderr };
  const how = signal === null ? `exited with ${exitCode}` : `was killed by ${signal}`;
  throw new ExecutionError('program-failed', `${describe(argv, call)} (in ${call.cwd}) ${how}${tail(stderr)}`);
}

function describe(argv: readonly string[], call: Pick<ProgramCall, 'label'>): string {
  return (call.label ?? argv.join(' ')).slice(0, 300);
}

/** The end of stderr, where programs say what went wrong (retries and progress come first). */
function tail(stderr: string): string {
  const text = stderr.trim();
  return text === '' ? '' : `: ${text.length > 800 ? `…${text.slice(-800)}` : text}`;
}
