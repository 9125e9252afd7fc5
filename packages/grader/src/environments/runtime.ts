// Owns running a command inside an environment with bubblewrap: the image's unpacked root file system read-only as /,
// a fresh /dev, /proc and /tmp, /work as a tmpfs holding what the caller binds there (the checkout at /work/repo, its
// reports, its home), the folders the install left in the checkout bound back read-only, and no network: the install
// step's one way out is an egress proxy's socket, and only a trusted-local engine keeps the host's network. Nothing of
// the host is visible but what is bound.
import { existsSync, realpathSync } from 'node:fs';
import { lstat, readlink } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { egressBinding } from '../execution/egress-binding.js';
import { EnvironmentError } from './errors.js';
import type { ImageConfig } from './store.js';

/** Where the checkout is inside every environment, whatever host folder holds it. */
export const CHECKOUT = '/work/repo';
/** Writable in the install step only; its contents become the environment's last layer. */
export const ENV_PREFIX = '/opt/abp/env';
/** The folders a run binds under /work, the same in every run, so no command or report names a host path. */
export const WORK_FOLDERS = {
  reports: '/work/reports',
  home: '/work/home',
  target: '/work/target',
  goCache: '/work/cache/go-build',
  /** An engine's own folders: its state (and HOME), where it writes its trace, and its base repository's objects. */
  state: '/work/state',
  out: '/work/out',
  baseGit: '/work/base.git',
} as const;
/**
 * Where an engine's program folders appear inside an environment: each host path P at ENGINE_ROOT + P. Not at P itself,
 * because the image is mounted read-only and has no mount point for most host paths (and binding the host's /usr/bin/x
 * over the image's would hide the environment's toolchain).
 */
export const ENGINE_ROOT = '/run/abp/engine';
export const LABELS = {
  checkoutMounts: 'org.abp.checkout-mounts',
  scratchMounts: 'org.abp.scratch-mounts',
  toolchainPrefix: 'org.abp.toolchain.',
  dependencyFiles: 'org.abp.dependency-files',
} as const;

export interface Mount {
  /** A host path. */
  readonly source: string;
  /** Absolute, under /work, /tmp or /run (fresh tmpfs folders), or a path the image already has. */
  readonly target: string;
  readonly writable?: boolean;
}

export interface EnvironmentRun {
  /** The unpacked root file system (EnvironmentStore.rootfs). */
  readonly rootfs: string;
  readonly config: ImageConfig;
  /** The host folder bound at /work/repo; null for a command that needs no checkout. */
  readonly checkout: string | null;
  readonly mounts: readonly Mount[];
  /** The host's network and resolver (a trusted-local engine); every other run has none. */
  readonly network: boolean;
  /**
   * In-environment paths under a mount that are replaced by something empty (a tmpfs, or /dev/null for a file): what
   * the sandboxed policy hides from engines where it lies inside a folder bound for them.
   */
  readonly covered?: ReadonlyArray<{ readonly target: string; readonly folder: boolean }>;
  /**
   * Without the network, the Unix socket of an egress proxy (execution/egress-proxy.ts) that is the command's one way
   * out: bound in, with the relay that serves it on the namespace's loopback wrapped around the command.
   */
  readonly egress?: string | null;
}

/** The paths the install left in the checkout (node_modules, an egg-info), recorded in the image. */
export function checkoutMounts(config: ImageConfig): { bound: string[]; scratch: string[] } {
  const list = (label: string): string[] => {
    const value = config.config.Labels[label];
    if (value === undefined || value === '') return [];
    const parsed = JSON.parse(value) as unknown;
    if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === 'string' && safeRelative(item)))
      throw new EnvironmentError('invalid-image', `the image's label ${label} is not a list of relative paths`);
    return parsed as string[];
  };
  return { bound: list(LABELS.checkoutMounts), scratch: list(LABELS.scratchMounts) };
}

function safeRelative(path: string): boolean {
  return (
    path !== '' &&
    !path.startsWith('/') &&
    path.split('/').every((part) => part !== '' && part !== '.' && part !== '..')
  );
}

/** The image's variables, overlaid by the caller's (HOME, TMPDIR, the run's own settings). */
export function environmentVariables(
  config: ImageConfig,
  own: Readonly<Record<string, string>>,
): Record<string, string> {
  const base: Record<string, string> = {};
  for (const entry of config.config.Env) {
    const equals = entry.indexOf('=');
    if (equals > 0) base[entry.slice(0, equals)] = entry.slice(equals + 1);
  }
  return { ...base, ...own };
}

/**
 * What every suite run and verification is pinned to, on the host or in an environment: CI mode, no colour, a fixed
 * hash seed, no bytecode, no test-result cache, no module proxy or toolchain switch, cargo offline, and the run's own
 * build caches. `goFlags` are flags the image already sets, kept in front.
 */
export function pinnedVariables(
  folders: { goCache: string; cargoTarget: string },
  goFlags?: string,
): Record<string, string> {
  return {
    CI: 'true',
    NO_COLOR: '1',
    PYTHONHASHSEED: '0',
    PYTHONDONTWRITEBYTECODE: '1',
    GOFLAGS: goFlags === undefined ? '-count=1' : `${goFlags} -count=1`,
    GOPROXY: 'off',
    GOTOOLCHAIN: 'local',
    GOCACHE: folders.goCache,
    CARGO_NET_OFFLINE: 'true',
    CARGO_TERM_COLOR: 'never',
    CARGO_TARGET_DIR: folders.cargoTarget,
  };
}

/** The variables of an offline run in the environment: the image's, pinned, with the run's own home and /tmp. */
export function offlineVariables(
  config: ImageConfig,
  folders: { home: string; goCache: string; cargoTarget: string },
): Record<string, string> {
  const image = environmentVariables(config, {});
  return { ...image, HOME: folders.home, TMPDIR: '/tmp', ...pinnedVariables(folders, image['GOFLAGS']) };
}

/** bwrap's arguments (without bwrap itself) to run `argv` in `cwd` (an in-environment path) inside `run`. */
export function environmentArgv(run: EnvironmentRun, argv: readonly string[], cwd: string): string[] {
  for (const mount of run.mounts) {
    if (!posix.isAbsolute(mount.target) || mount.target.split('/').includes('..'))
      throw new EnvironmentError(
        'invalid-environment-spec',
        `mount target ${JSON.stringify(mount.target)} must be an absolute path without ".."`,
      );
  }
  const { bound, scratch } = checkoutMounts(run.config);
  const args = [
    '--die-with-parent',
    '--new-session',
    '--unshare-all',
    ...(run.network ? ['--share-net'] : []),
    '--cap-drop',
    'ALL',
    '--ro-bind',
    run.rootfs,
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
    '--tmpfs',
    '/work',
    '--tmpfs',
    '/run',
  ];
  if (run.checkout !== null) {
    args.push('--bind', run.checkout, CHECKOUT);
    for (const path of bound)
      args.push('--ro-bind', join(run.rootfs, ENV_PREFIX, 'checkout', path), `${CHECKOUT}/${path}`);
    for (const path of scratch) args.push('--tmpfs', `${CHECKOUT}/${path}`);
  }
  // Parents before children, so a deeper mount lands inside the one above it, and a covered path over its folder.
  const operations = [
    ...run.mounts.map((mount) => ({
      target: mount.target,
      args: [mount.writable === true ? '--bind' : '--ro-bind', mount.source, mount.target],
    })),
    ...(run.covered ?? []).map((cover) => ({
      target: cover.target,
      args: cover.folder ? ['--tmpfs', cover.target] : ['--ro-bind', '/dev/null', cover.target],
    })),
  ];
  const depth = (target: string) => target.split('/').length;
  for (const operation of operations.sort((a, b) => depth(a.target) - depth(b.target))) args.push(...operation.args);
  // A trusted-local engine reaches its model by name: the host's resolver replaces the image's empty one.
  if (run.network)
    for (const file of ['/etc/resolv.conf', '/etc/hosts'])
      if (existsSync(file)) args.push('--ro-bind', realpathSync(file), file);
  if (run.egress !== undefined && run.egress !== null && !run.network) {
    const egress = egressBinding(run.egress, argv);
    args.push(...egress.binds, '--chdir', cwd, '--', ...egress.argv);
    return args;
  }
  args.push('--chdir', cwd, '--', ...argv);
  return args;
}

function mountTargets(run: EnvironmentRun): string[] {
  return [...run.mounts.map((mount) => mount.target), ...(run.checkout === null ? [] : [CHECKOUT])];
}

/** The host path behind an in-environment path: the deepest mount that holds it, else the root file system. */
function hostPathOf(run: EnvironmentRun, inside: string): string {
  const binds: Array<{ target: string; source: string }> = run.mounts.map((mount) => ({
    target: mount.target,
    source: mount.source,
  }));
  if (run.checkout !== null) {
    binds.push({ target: CHECKOUT, source: run.checkout });
    for (const path of checkoutMounts(run.config).bound)
      binds.push({ target: `${CHECKOUT}/${path}`, source: join(run.rootfs, ENV_PREFIX, 'checkout', path) });
  }
  const holder = binds
    .filter((bind) => inside === bind.target || inside.startsWith(`${bind.target}/`))
    .sort((a, b) => b.target.length - a.target.length)[0];
  return holder === undefined ? join(run.rootfs, inside) : join(holder.source, inside.slice(holder.target.length));
}

/**
 * Finds `program` the way execvp would inside the environment (relative names from `cwd`), following links as they
 * resolve inside it: bwrap reports a missing program only as "execvp … exit 1", which reads like the command failing.
 */
export async function findInEnvironment(
  run: EnvironmentRun,
  program: string,
  path: string | undefined,
  cwd: string,
): Promise<string | null> {
  const candidates = program.includes('/')
    ? [posix.resolve(cwd, program)]
    : (path ?? '')
        .split(':')
        .filter((dir) => posix.isAbsolute(dir))
        .map((dir) => posix.join(dir, program));
  for (const candidate of candidates) if (await resolveInside(run, candidate, 0)) return candidate;
  return null;
}

async function resolveInside(run: EnvironmentRun, path: string, hops: number): Promise<boolean> {
  if (hops > 40) return false;
  const parts = posix.normalize(path).split('/').filter(Boolean);
  let at = '/';
  for (const [index, part] of parts.entries()) {
    const next = posix.join(at, part);
    // A folder bwrap makes to hold a deeper mount (/run/abp/engine for the engine's programs) is not in the image.
    if (index < parts.length - 1 && mountTargets(run).some((target) => target.startsWith(`${next}/`))) {
      at = next;
      continue;
    }
    const host = hostPathOf(run, next);
    const info = await lstat(host).catch(() => null);
    if (info === null) return false;
    if (info.isSymbolicLink()) {
      const target = await readlink(host);
      const rest = parts.slice(index + 1).join('/');
      const base = posix.isAbsolute(target) ? target : posix.join(at, target);
      return resolveInside(run, rest === '' ? base : posix.join(base, rest), hops + 1);
    }
    if (index === parts.length - 1) return info.isFile() && (info.mode & 0o111) !== 0;
    if (!info.isDirectory()) return false;
    at = next;
  }
  return false;
}
