// The one way abp runs git, for the grader, the freeze, the pipeline, the solver and the simulator alike. Every call
// gets a pinned, minimal environment and command-line overrides that switch off each config key able to run a program
// or change what git reports, so no repository's config (an agent's least of all) can execute code in abp. Transports
// are local only unless a call asks for the network (a clone from GitHub, a fetch from the simulator).
import { ExecutionError } from './errors.js';
import {
  hostPathEnvironment,
  runProgram,
  runProgramSync,
  type ProgramCall,
  type ProgramResult,
} from './run-program.js';

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
  ['protocol.file.allow', 'always'],
].flatMap(([key, value]) => ['-c', `${key}=${value}`]);

/** Sources are local repositories: no transport may reach a network helper or ssh. */
const LOCAL_ONLY = ['-c', 'protocol.allow=never'];

/** With the network: http(s) only, never ssh or the git protocol, and no helper that asks for credentials. */
const HTTPS_ONLY = [
  '-c',
  'protocol.allow=never',
  '-c',
  'protocol.http.allow=always',
  '-c',
  'protocol.https.allow=always',
  '-c',
  'credential.helper=',
];

export interface GitIdentity {
  name: string;
  email: string;
}

export interface GitCall {
  cwd: string;
  input?: string | Buffer;
  /** Extra environment: a fixed author and committer (gitIdentityEnvironment), GIT_DIR and the like. */
  env?: Readonly<Record<string, string>>;
  /** Exit codes that are answers rather than failures. */
  allowExit?: readonly number[];
  /** `network`: the call may reach http(s) remotes (clone, fetch, ls-remote); default local only. */
  transport?: 'local' | 'network';
  timeoutMs?: number;
  /** Per stream; default run-program's (1 GiB). A call reading what an engine wrote sets its own, lower. */
  maxOutputBytes?: number;
}

export type GitResult = ProgramResult;

/**
 * HOME and XDG_CONFIG_HOME are /dev/null: never a directory, so no config, ignore or attributes file can be planted
 * there, and there is nothing to create or clean up.
 */
export function gitEnvironment(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  return {
    ...hostPathEnvironment(),
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

/** Author and committer with their dates (seconds since the epoch, UTC), so the same inputs make the same objects. */
export function gitIdentityEnvironment(
  author: { identity: GitIdentity; at: number },
  committer = author,
): Record<string, string> {
  return {
    GIT_AUTHOR_NAME: author.identity.name,
    GIT_AUTHOR_EMAIL: author.identity.email,
    GIT_AUTHOR_DATE: `${author.at} +0000`,
    GIT_COMMITTER_NAME: committer.identity.name,
    GIT_COMMITTER_EMAIL: committer.identity.email,
    GIT_COMMITTER_DATE: `${committer.at} +0000`,
  };
}

/** What a clone over https needs from the host: its proxy and its certificate authorities, and nothing else. */
const NETWORK_VARIABLES = [
  'HTTPS_PROXY',
  'https_proxy',
  'HTTP_PROXY',
  'http_proxy',
  'NO_PROXY',
  'no_proxy',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'GIT_SSL_CAINFO',
];

function networkEnvironment(): Record<string, string> {
  return Object.fromEntries(
    NETWORK_VARIABLES.flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])),
  );
}

function programCall(args: readonly string[], call: GitCall): ProgramCall {
  return {
    label: `git ${args.join(' ')}`,
    cwd: call.cwd,
    env: gitEnvironment({ ...(call.transport === 'network' ? networkEnvironment() : {}), ...call.env }),
    ...(call.input === undefined ? {} : { input: call.input }),
    ...(call.allowExit === undefined ? {} : { allowExit: call.allowExit }),
    ...(call.timeoutMs === undefined ? {} : { timeoutMs: call.timeoutMs }),
    ...(call.maxOutputBytes === undefined ? {} : { maxOutputBytes: call.maxOutputBytes }),
  };
}

function argvOf(args: readonly string[], call: GitCall): string[] {
  return ['git', ...HARDENING, ...(call.transport === 'network' ? HTTPS_ONLY : LOCAL_ONLY), ...args];
}

function asGitFailure(error: unknown): never {
  if (error instanceof ExecutionError && error.code !== 'invalid-command')
    throw new ExecutionError('git-failed', error.message, { cause: error });
  throw error;
}

export async function git(args: readonly string[], call: GitCall): Promise<GitResult> {
  return runProgram(argvOf(args, call), programCall(args, call)).catch(asGitFailure);
}

/** The same, synchronously (runProgramSync): for the simulator's world writer, whose interface cannot wait. */
export function gitSync(args: readonly string[], call: GitCall): GitResult {
  try {
    return runProgramSync(argvOf(args, call), programCall(args, call));
  } catch (error) {
    return asGitFailure(error);
  }
}

/**
 * Checks `commit` out into an empty work tree and writes the index of what it wrote: the one checkout of every
 * workspace and verification checkout. Parallel checkout (one worker per core) because writing the files is most of a
 * trial's overhead.
 */
export async function checkOut(gitDir: string, workTree: string, commit: string): Promise<void> {
  await git(
    ['-c', 'checkout.workers=0', '--git-dir', gitDir, '--work-tree', workTree, 'read-tree', '-u', '--reset', commit],
    { cwd: workTree },
  );
}
