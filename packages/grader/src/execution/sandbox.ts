// Owns the bubblewrap sandbox around a command: whether bwrap works on this machine, and the bwrap arguments for one of
// two views of the host. "isolated" (the sandboxed policy) is default-deny: the system folders and the toolchains the
// command's own variables name, read-only, then only what is listed, and no network. "host" (trusted-local) is the
// host's file system and network as the user has them, but in the command's own process, mount and IPC namespaces, so
// nothing it starts outlives it, it cannot read the grader's process, and the grader's folders are hidden or read-only.

import { existsSync, lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, resolve, sep } from 'node:path';
import { egressBinding } from './egress-binding.js';
import { ExecutionError } from './errors.js';
import { resolveExecutable } from './executable.js';
import { hostPathEnvironment, runProgram } from './run-program.js';

export interface SandboxSpec {
  /** What of the host is there before the lists below apply; "isolated" when left out. */
  readonly view?: 'isolated' | 'host';
  /** Bound read-write at the same path; each must exist (HOME and TMPDIR of the command belong here). */
  readonly writable: readonly string[];
  /** Replaced by something empty (held-out material, the results folder); absent ones are skipped. */
  readonly hidden: readonly string[];
  /** Bound read-only (again, where a hidden folder or the fresh /tmp would cover them); absent ones are skipped. */
  readonly readOnly?: readonly string[];
  /**
   * The Unix socket of an egress proxy (egress-proxy.ts): the isolated view's one way out, through the relay wrapped
   * around the command. Only for the isolated view: the host view has the host's network already.
   */
  readonly egress?: string | null;
}

export type SandboxStatus = { available: true; bwrap: string; version: string } | { available: false; reason: string };

let cachedStatus: Promise<SandboxStatus> | undefined;

/** Probed once per process: bwrap must be on PATH and able to create namespaces here. */
export async function sandboxStatus(): Promise<SandboxStatus> {
  cachedStatus ??= probe();
  return cachedStatus;
}

async function probe(): Promise<SandboxStatus> {
  const lookup = await resolveExecutable('bwrap', process.env['PATH'], '/');
  if (!('found' in lookup)) {
    return {
      available: false,
      reason: `bubblewrap is not installed (${lookup.message}); install it with \`apt-get install bubblewrap\``,
    };
  }
  const bwrap = lookup.found;
  const call = { cwd: '/', env: hostPathEnvironment(), timeoutMs: 10_000 };
  try {
    const { stdout } = await runProgram([bwrap, '--version'], call);
    const version = stdout
      .toString('utf8')
      .trim()
      .replace(/^bubblewrap\s+/, '');
    // Namespaces can be forbidden (containers, sysctls) even where bwrap is installed: try both views.
    for (const view of ['isolated', 'host'] as const)
      await runProgram([bwrap, ...sandboxArgv({ view, writable: [], hidden: [] }, ['true'], '/', call.env)], call);
    return { available: true, bwrap, version };
  } catch (error) {
    const detail = (error as Error).message;
    return {
      available: false,
      reason: `${bwrap} cannot create a sandbox on this machine: ${detail}; unprivileged user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone=1, or run as root)`,
    };
  }
}

/** What every isolated command sees read-only: the operating system's programs, libraries and settings. */
export const SYSTEM_FOLDERS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc'] as const;

/** Variables naming a toolchain's own folders (its compilers, the dependencies it downloaded). */
const TOOLCHAIN_VARIABLES = [
  'CARGO_HOME',
  'RUSTUP_HOME',
  'GOROOT',
  'GOPATH',
  'GOMODCACHE',
  'JAVA_HOME',
  'PYENV_ROOT',
  'VIRTUAL_ENV',
  'NVM_DIR',
  'VOLTA_HOME',
] as const;

const inside = (path: string, folder: string) =>
  path === folder || path.startsWith(folder === sep ? sep : `${folder}${sep}`);
const realOrNull = (path: string) => {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
};

/**
 * The host folders an isolated command needs to find its programs, by their real paths: each PATH entry outside the
 * system folders, widened to the toolchain's root where the entry is its bin/ or shims/ (pyenv's shims run its
 * versions, cargo's bin its registry), and the folders the toolchain variables name. Widening stops short of / and of
 * the user's home, and no folder is given that holds or lies in a hidden path: a toolchain never uncovers the grader's.
 */
export function toolchainFolders(env: Readonly<Record<string, string>>, hidden: readonly string[]): string[] {
  const covered = hidden.map(realOrNull).filter((path): path is string => path !== null);
  const home = realOrNull(env['HOME'] ?? homedir());
  const clashes = (path: string) => covered.some((folder) => inside(path, folder) || inside(folder, path));
  const found = new Set<string>();
  const consider = (entry: string, widen: boolean) => {
    if (!isAbsolute(entry)) return;
    const real = realOrNull(entry);
    if (real === null || SYSTEM_FOLDERS.some((folder) => inside(real, folder)) || clashes(real)) return;
    const parent = dirname(real);
    const root =
      widen &&
      /^(bin|shims)$/.test(real.slice(parent.length + 1)) &&
      parent !== sep &&
      parent !== home &&
      !clashes(parent)
        ? parent
        : real;
    found.add(root);
  };
  for (const entry of (env['PATH'] ?? '').split(':')) consider(entry, true);
  for (const name of TOOLCHAIN_VARIABLES) for (const entry of (env[name] ?? '').split(':')) consider(entry, false);
  // A folder inside another listed one adds nothing.
  const roots = [...found].sort();
  return roots.filter((path) => !roots.some((other) => other !== path && inside(path, other)));
}

/**
 * The arguments to pass to bwrap (not including the bwrap binary itself) to run `argv` in `cwd`; `env` is the
 * command's environment, whose PATH and toolchain variables name what an isolated view binds.
 *
 * Mounts are applied parent before child, so the deeper path wins where two overlap:
 * - a writable path inside a hidden one is bound back into the empty hidden folder, so a trial
 *   can write its own workspace under the results folder without seeing the other trials;
 * - a hidden path inside a writable one stays hidden; writes there land in a throwaway tmpfs.
 * Capabilities are dropped, so even root cannot remount what is read-only or uncover what is hidden.
 * --new-session puts the command outside the caller's process group: on timeout bwrap itself takes the SIGTERM and
 * dies, and --die-with-parent then SIGKILLs everything inside at once. In its own pid namespace nothing outlives the
 * command: when it exits, bwrap's init goes, and the kernel kills whatever is left (a daemon started with setsid too).
 */
export function sandboxArgv(
  spec: SandboxSpec,
  argv: readonly string[],
  cwd: string,
  env: Readonly<Record<string, string>> = {},
): string[] {
  const view = spec.view ?? 'isolated';
  const mounts: Array<{ path: string; args: string[] }> = [];
  for (const path of spec.writable) {
    const absolute = resolve(path);
    if (!existsSync(absolute)) {
      throw new ExecutionError(
        'sandbox-path-missing',
        `sandbox writable path ${absolute} does not exist; create it before running the command`,
      );
    }
    const real = realpathSync(absolute);
    mounts.push({ path: real, args: ['--bind', real, real] });
  }
  const readOnly = [...(spec.readOnly ?? []), ...(view === 'isolated' ? toolchainFolders(env, spec.hidden) : [])];
  for (const path of readOnly) {
    const absolute = resolve(path);
    if (!existsSync(absolute)) continue;
    const real = realpathSync(absolute);
    if (mounts.some((mount) => mount.path === real)) continue;
    mounts.push({ path: real, args: ['--ro-bind', real, real] });
  }
  for (const path of spec.hidden) {
    const absolute = resolve(path);
    if (!existsSync(absolute)) continue;
    const real = realpathSync(absolute);
    if (mounts.some((mount) => mount.path === real && mount.args[0] === '--bind')) {
      throw new ExecutionError(
        'conflicting-sandbox-paths',
        `sandbox path ${real} is both writable and hidden; list it in only one of them`,
      );
    }
    // A tmpfs can only cover a folder; a file is covered by /dev/null, which reads as empty.
    const args = statSync(real).isDirectory() ? ['--tmpfs', real] : ['--dev-bind', '/dev/null', real];
    mounts.push({ path: real, args });
  }
  mounts.sort((a, b) => depth(a.path) - depth(b.path));
  const egress = spec.egress === undefined || spec.egress === null ? null : egressBinding(spec.egress, argv);
  if (egress !== null && view !== 'isolated')
    throw new ExecutionError(
      'egress-with-network',
      "sandbox egress is set for the host view, which has the host's network: an allow-list there would bind nothing; use the isolated view",
    );
  return [
    '--die-with-parent',
    '--new-session',
    ...(view === 'isolated' ? isolatedBase() : hostBase()),
    ...mounts.flatMap((mount) => mount.args),
    ...(egress?.binds ?? []),
    '--chdir',
    cwd,
    '--',
    ...(egress?.argv ?? argv),
  ];
}

/** Nothing of the host but the system folders, a fresh /dev, /proc and /tmp, and no network. */
function isolatedBase(): string[] {
  const args = ['--unshare-all', '--cap-drop', 'ALL'];
  for (const folder of SYSTEM_FOLDERS) {
    const found = lstatOrNull(folder);
    if (found === null) continue;
    // Merged /usr: /bin and /lib are links into it, and stay links.
    if (found.isSymbolicLink()) args.push('--symlink', readlinkSync(folder), folder);
    else if (found.isDirectory()) args.push('--ro-bind', folder, folder);
  }
  // Before the binds, so writable paths under the host's /tmp are bound into the fresh one.
  return [...args, '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
}

/** The host as the user has it, network included, in new pid, IPC and UTS namespaces with a /proc of their own. */
function hostBase(): string[] {
  return [
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--cap-drop',
    'ALL',
    '--bind',
    '/',
    '/',
    '--dev-bind',
    '/dev',
    '/dev',
    '--proc',
    '/proc',
  ];
}

function lstatOrNull(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

function depth(path: string): number {
  return path === sep ? 0 : path.split(sep).length - 1;
}
