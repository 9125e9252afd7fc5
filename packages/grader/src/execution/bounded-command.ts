// Owns running one adapter or verification command: an argument array with a given environment, optionally inside
// the sandbox, bounded in time and captured output (spawn.ts), and "could not be invoked" told apart from a failure.
import { stat } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { ExecutionError } from './errors.js';
import { resolveExecutable } from './executable.js';
import { sandboxArgv, sandboxStatus, type SandboxSpec } from './sandbox.js';
import { environmentArgv, findInEnvironment, type EnvironmentRun } from '../environments/runtime.js';
import { emptyResult, supervise, type CommandResult, type SpawnSpec } from './spawn.js';

export interface BoundedCommand extends SpawnSpec {
  readonly argv: readonly string[];
  readonly sandbox?: SandboxSpec | null;
  /**
   * Run inside this environment instead (always under bubblewrap): `cwd` and the paths in argv are the environment's
   * (the checkout is /work/repo), and PATH is looked up in its root file system.
   */
  readonly environment?: EnvironmentRun | null;
}

export async function runBounded(command: BoundedCommand): Promise<CommandResult> {
  checkCommand(command);
  const started = performance.now();
  const notInvoked = (code: string, message: string): CommandResult => ({
    ...emptyResult(),
    spawnError: { code, message },
    durationMs: performance.now() - started,
  });

  if (command.environment) return runInEnvironment(command, command.environment, started, notInvoked);
  const cwdProblem = await folderProblem(command.cwd);
  if (cwdProblem !== null)
    return notInvoked(cwdProblem, `working directory ${command.cwd} is not an existing folder (${cwdProblem})`);

  let program = command.argv[0] as string;
  let args = command.argv.slice(1);
  if (command.sandbox) {
    const status = await sandboxStatus();
    if (!status.available)
      throw new ExecutionError('sandbox-unavailable', `a sandboxed command was asked for but ${status.reason}`);
    // Inside bwrap a missing program is only "bwrap: execvp … exit 1", indistinguishable from the command failing.
    const lookup = await resolveExecutable(program, command.env['PATH'], command.cwd);
    if (!('found' in lookup)) return notInvoked(lookup.code, lookup.message);
    args = sandboxArgv(command.sandbox, command.argv, command.cwd, command.env);
    program = status.bwrap;
  }
  return supervise(program, args, command, started);
}

async function runInEnvironment(
  command: BoundedCommand,
  environment: EnvironmentRun,
  started: number,
  notInvoked: (code: string, message: string) => CommandResult,
): Promise<CommandResult> {
  const status = await sandboxStatus();
  if (!status.available)
    throw new ExecutionError('sandbox-unavailable', `a command in an environment was asked for but ${status.reason}`);
  if (environment.checkout !== null) {
    const problem = await folderProblem(environment.checkout);
    if (problem !== null)
      return notInvoked(problem, `checkout ${environment.checkout} is not an existing folder (${problem})`);
  }
  const program = command.argv[0] as string;
  const found = (await findInEnvironment(environment, program, command.env['PATH'], command.cwd)) !== null;
  if (!found)
    return notInvoked('ENOENT', `${program} was not found in the environment (PATH ${command.env['PATH'] ?? 'unset'})`);
  // bwrap itself starts on the host, where the environment's cwd does not exist; --chdir takes it there inside.
  const host = { ...command, cwd: environment.checkout ?? '/' };
  return supervise(status.bwrap, environmentArgv(environment, command.argv, command.cwd), host, started);
}

function checkCommand(command: BoundedCommand): void {
  const problems = [
    command.argv.length === 0 && 'argv is empty; give at least the program to run',
    !(command.timeoutMs > 0) && `timeoutMs must be positive; got ${command.timeoutMs}`,
    !(Number.isSafeInteger(command.maxOutputBytes) && command.maxOutputBytes >= 0) &&
      `maxOutputBytes must be a non-negative integer; got ${command.maxOutputBytes}`,
  ].filter((problem) => problem !== false);
  if (problems.length > 0)
    throw new ExecutionError('invalid-command', `bad command ${JSON.stringify(command.argv)}: ${problems.join('; ')}`);
}

async function folderProblem(path: string): Promise<string | null> {
  try {
    return (await stat(path)).isDirectory() ? null : 'ENOTDIR';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? 'ENOENT';
  }
}
