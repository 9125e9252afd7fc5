// Runs git for the grader. Every call gets a pinned, minimal environment and command-line
// overrides that switch off each config key able to run a program or change what git reports,
// so no repository's config (an agent's least of all) can execute code in the grader.

import { execFile } from 'node:child_process';
import { WorkspaceError } from './errors.js';

/** Overrides placed before the subcommand; command-line `-c` beats every config file. */
const HARDENING = [
  ['core.fsmonitor', 'false'],
  ['core.hooksPath', '/dev/null'],
  ['core.pager', 'cat'],
  ['core.untrackedCache', 'false'],
  ['core.splitIndex', 'false'],
  ['gc.auto', '0'],
  ['maintenance.auto', 'false'],
  ['submodule.recurse', 'false'],
  // Sources are local repositories; no transport may reach a network helper or ssh.
  ['protocol.allow', 'never'],
  ['protocol.file.allow', 'always'],
].flatMap(([key, value]) => ['-c', `${key}=${value}`]);

/** Largest output read from one git call (a patch of a runaway agent, a blob). */
const MAX_OUTPUT_BYTES = 1024 ** 3;

export interface GitCall {
  cwd: string;
  input?: string | Buffer;
  /** Extra environment, e.g. a fixed author and committer. */
  env?: Readonly<Record<string, string>>;
  /** Exit codes that are answers rather than failures. */
  allowExit?: readonly number[];
}

export interface GitResult {
  exitCode: number;
  stdout: Buffer;
  stderr: string;
}

/**
 * HOME and XDG_CONFIG_HOME are /dev/null: never a directory, so no config, ignore or
 * attributes file can be planted there, and there is nothing to create or clean up.
 */
function gitEnv(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: '/dev/null',
    XDG_CONFIG_HOME: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_NO_REPLACE_OBJECTS: '1',
    GIT_TERMINAL_PROMPT: '0',
    LC_ALL: 'C',
    TZ: 'UTC',
    ...extra,
  };
}

export function git(args: readonly string[], call: GitCall): Promise<GitResult> {
  const fullArgs = [...HARDENING, ...args];
  return new Promise((resolve, reject) => {
    const child = execFile('git', fullArgs, { cwd: call.cwd, env: gitEnv(call.env), encoding: 'buffer', maxBuffer: MAX_OUTPUT_BYTES }, (error, stdout, stderr) => {
      const exitCode = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      const result = { exitCode, stdout, stderr: stderr.toString('utf8') };
      if (exitCode === 0 || (exitCode > 0 && call.allowExit?.includes(exitCode))) resolve(result);
      else reject(new WorkspaceError('git-failed', `git ${args.join(' ')} (in ${call.cwd}) failed with ${error?.code ?? 'no exit code'}: ${result.stderr.trim().slice(0, 800)}`, { cause: error }));
    });
    // A git that exits early closes its stdin; its exit code and stderr say why.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(call.input ?? '');
  });
}

/**
 * Checks `commit` out into an empty work tree and writes the index of what it wrote: the one
 * checkout of every workspace and verification checkout. Parallel checkout (one worker per core)
 * because writing the files is most of a trial's overhead.
 */
export async function checkOut(gitDir: string, workTree: string, commit: string): Promise<void> {
  await git(['-c', 'checkout.workers=0', '--git-dir', gitDir, '--work-tree', workTree, 'read-tree', '-u', '--reset', commit], { cwd: workTree });
}
