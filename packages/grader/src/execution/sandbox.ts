// Owns the bubblewrap sandbox around a command: whether bwrap works on this machine, and the
// bwrap arguments for a read-only host with a few writable and a few hidden paths, and no network.

import { existsSync, realpathSync, statSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { ExecutionError } from './errors.js';
import { resolveExecutable } from './executable.js';
import { hostPathEnvironment, runProgram } from './run-program.js';

export interface SandboxSpec {
  /** Bound read-write at the same path; each must exist (HOME and TMPDIR of the command belong here). */
  readonly writable: readonly string[];
  /** Replaced by something empty (held-out material, the results folder); absent ones are skipped. */
  readonly hidden: readonly string[];
  /** Bound read-only again though they live under the fresh /tmp (an adapter's own folder); absent ones are skipped. */
  readonly readOnly?: readonly string[];
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
    // Namespaces can be forbidden (containers, sysctls) even where bwrap is installed: try one.
    await runProgram([bwrap, ...sandboxArgv({ writable: [], hidden: [] }, ['true'], '/')], call);
    return { available: true, bwrap, version };
  } catch (error) {
    const detail = (error as Error).message;
    return {
      available: false,
      reason: `${bwrap} cannot create a sandbox on this machine: ${detail}; unprivileged user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone=1, or run as root)`,
    };
  }
}

/**
 * The arguments to pass to bwrap (not including the bwrap binary itself) to run `argv` in `cwd`.
 *
 * Mounts are applied parent before child, so the deeper path wins where two overlap:
 * - a writable path inside a hidden one is bound back into the empty hidden folder, so a trial
 *   can write its own workspace under the results folder without seeing the other trials;
 * - a hidden path inside a writable one stays hidden; writes there land in a throwaway tmpfs.
 * The whole host is read-only and capabilities are dropped, so even root cannot remount it.
 * --new-session puts the command outside the caller's process group: on timeout bwrap itself
 * takes the SIGTERM and dies, and --die-with-parent then SIGKILLs everything inside at once.
 */
export function sandboxArgv(spec: SandboxSpec, argv: readonly string[], cwd: string): string[] {
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
  for (const path of spec.readOnly ?? []) {
    const absolute = resolve(path);
    if (!existsSync(absolute)) continue;
    const real = realpathSync(absolute);
    mounts.push({ path: real, args: ['--ro-bind', real, real] });
  }
  for (const path of spec.hidden) {
    const absolute = resolve(path);
    if (!existsSync(absolute)) continue;
    const real = realpathSync(absolute);
    if (mounts.some((mount) => mount.path === real)) {
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
  return [
    '--die-with-parent',
    '--new-session',
    '--unshare-all',
    '--cap-drop',
    'ALL',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    // Before the binds, so writable paths under the host's /tmp are bound into the fresh one.
    '--tmpfs',
    '/tmp',
    ...mounts.flatMap((mount) => mount.args),
    '--chdir',
    cwd,
    '--',
    ...argv,
  ];
}

function depth(path: string): number {
  return path === sep ? 0 : path.split(sep).length - 1;
}
