// Owns where an engine's process runs and what it is told. Every engine runs in namespaces of its own, killed whole when
// it ends: on the host under the sandboxed policy in bubblewrap's default-deny view (the system folders and toolchains,
// its trial folders, its program), under trusted-local in bubblewrap's view of the whole host with the grader's folders
// hidden (the one exception: where bubblewrap cannot run, a trusted-local engine is a plain process group, and its
// trial says so). For a task frozen with an environment it runs inside that environment under either policy, so the
// toolchain and dependencies it finds when it runs the tests are the ones its verification uses: the workspace at
// /work/repo with the install's folders, its state, output and /tmp bound writable, the base repository's objects and
// the adapter's program folders bound read-only, and nothing else of the host. A trusted-local engine keeps the host's
// network; a sandboxed one has none but its egress proxy, where its adapter lists hosts (engine-egress.ts).
import { existsSync, realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Adapter, ExecutionPolicy } from '@abp/protocol/schemas/abp-adapters';
import { reducedEnvironment, type SandboxSpec } from '../execution/index.js';
import { CHECKOUT, ENGINE_ROOT, offlineVariables, WORK_FOLDERS, type EnvironmentRun } from '../environments/index.js';
import type { ImageConfig } from '../environments/index.js';
import { GraderConfigError } from '../config/errors.js';

/** A trial's own host folders. */
export interface TrialFolders {
  workspace: string;
  state: string;
  tmp: string;
  out: string;
}

export interface EngineImage {
  digest: string;
  rootfs: string;
  config: ImageConfig;
}

/** The paths an engine is handed (input file, placeholders), as it sees them. */
export interface SeenPaths {
  workspace: string;
  state: string;
  out: string;
}

export interface EnginePlacement {
  seen: SeenPaths;
  cwd: string;
  env: Record<string, string>;
  sandbox: SandboxSpec | null;
  environment: EnvironmentRun | null;
  /** An argument or a variable's value as the engine must be given it: a path under a program folder moves with it. */
  translate: (value: string) => string;
}

/** The adapter's program paths with {repo} expanded, the adapters file's folder first: they must all exist. */
export function programPaths(adapter: Adapter, adaptersDir: string): string[] {
  const paths = adapter.program.map((path) => resolve(path.replace(/^\{repo\}/, adaptersDir)));
  return [...new Set([resolve(adaptersDir), ...paths])];
}

/**
 * Refuses program paths that are missing, or, under the sandboxed policy, that the sandbox hides (task folders,
 * results, the data directory): listing one would either fail every trial or hand a sandboxed engine held-out material.
 * A trusted-local adapter may list one (the bundled reference engine reads golden patches from the task folders): it is
 * then bound read-only for that engine, in the open in its adapters file.
 */
export function checkProgramPaths(input: {
  adaptersFile: string;
  adapters: readonly Adapter[];
  policy: ExecutionPolicy;
  hiddenPaths: readonly string[];
}): void {
  const adaptersDir = resolve(input.adaptersFile, '..');
  const hidden = input.hiddenPaths.filter(existsSync).map((path) => realpathSync(path));
  input.adapters.forEach((adapter, index) => {
    adapter.program.forEach((declared, at) => {
      const field = `${input.adaptersFile}: adapters[${index}].program[${at}]`;
      const path = resolve(declared.replace(/^\{repo\}/, adaptersDir));
      if (path === '/')
        throw new GraderConfigError(
          'invalid-program-path',
          `${field} names /, the whole file system; list the folders the engine's program is installed in`,
        );
      if (!existsSync(path))
        throw new GraderConfigError(
          'missing-program-path',
          `${field} names ${path}, which does not exist; list the folders the engine's program is installed in`,
        );
      const real = realpathSync(path);
      const inside = hidden.find((folder) => real === folder || real.startsWith(`${folder}/`));
      if (input.policy === 'sandboxed' && inside !== undefined)
        throw new GraderConfigError(
          'hidden-program-path',
          `${field} names ${path}, inside ${inside}, which the sandboxed policy hides from engines (task folders and results); install the engine elsewhere, or copy what it reads out of the task folders`,
        );
    });
  });
}

/** The hidden paths that exist and lie inside a program path, by their real paths, each a folder or a file. */
function hiddenUnder(
  programs: readonly string[],
  hiddenPaths: readonly string[],
): Array<{ path: string; folder: boolean }> {
  const found: Array<{ path: string; folder: boolean }> = [];
  for (const hidden of hiddenPaths) {
    if (!existsSync(hidden)) continue;
    const real = realpathSync(hidden);
    for (const program of programs) {
      const base = existsSync(program) ? realpathSync(program) : program;
      if (!real.startsWith(`${base}/`)) continue;
      // Where the engine sees it: under the program path as listed, which may differ from its real path.
      found.push({ path: `${program}${real.slice(base.length)}`, folder: statSync(real).isDirectory() });
    }
  }
  return found;
}

function translator(programs: readonly string[]): (value: string) => string {
  // Longest first, so a path inside two listed folders moves with the deeper one (the result is the same either way).
  const sorted = [...programs].sort((a, b) => b.length - a.length);
  return (value) => {
    const owner = sorted.find((path) => value === path || value.startsWith(`${path}/`));
    return owner === undefined ? value : `${ENGINE_ROOT}${value}`;
  };
}

/** The paths the adapter lists itself (not the implicit {repo}), which a trusted-local engine may see though hidden. */
function declaredPrograms(adapter: Adapter, adaptersDir: string): string[] {
  return adapter.program.map((path) => resolve(path.replace(/^\{repo\}/, adaptersDir)));
}

const within = (path: string, folder: string) => path === folder || path.startsWith(`${folder}/`);

/** What stays hidden from this engine: all of it, but what a trusted-local adapter lists as its own program. */
function hiddenFor(
  adapter: Adapter,
  adaptersDir: string,
  policy: ExecutionPolicy,
  hidden: readonly string[],
): string[] {
  if (policy === 'sandboxed') return [...hidden];
  const declared = declaredPrograms(adapter, adaptersDir);
  return hidden.filter((path) => !declared.some((program) => within(path, program)));
}

/**
 * The sandbox of an engine run on the host: bubblewrap's isolated view under sandboxed (the program folders bound in),
 * its host view under trusted-local (program folders under a hidden one bound back), or null where bubblewrap cannot run
 * (trusted-local only: the run refuses sandboxed there).
 */
export function hostEngineSandbox(input: {
  adapter: Adapter;
  adaptersDir: string;
  policy: ExecutionPolicy;
  /** Whether bubblewrap works here (sandboxStatus). */
  namespaces: boolean;
  hiddenPaths: readonly string[];
  writable: readonly string[];
  /** Bound read-only besides the program folders: the task's base repository. */
  readOnly: readonly string[];
  /** Under sandboxed, the socket of the engine's egress proxy (engine-egress.ts): its one way out. */
  egress?: string | null;
}): SandboxSpec | null {
  if (input.policy === 'trusted-local' && !input.namespaces) return null;
  const programs = programPaths(input.adapter, input.adaptersDir);
  const hidden = hiddenFor(input.adapter, input.adaptersDir, input.policy, input.hiddenPaths);
  if (input.policy === 'sandboxed')
    return {
      view: 'isolated',
      writable: input.writable,
      hidden,
      readOnly: [...programs, ...input.readOnly],
      egress: input.egress ?? null,
    };
  const covered = programs.filter((program) => hidden.some((folder) => within(program, folder)));
  return { view: 'host', writable: input.writable, hidden, readOnly: [...covered, ...input.readOnly] };
}

export function placeEngine(input: {
  adapter: Adapter;
  adaptersDir: string;
  policy: ExecutionPolicy;
  /** Whether bubblewrap works here: without it a trusted-local engine on the host is a plain process group. */
  namespaces: boolean;
  hostEnv: Readonly<Record<string, string | undefined>>;
  folders: TrialFolders;
  /** The task's base repository (its cache), read by the engine's git through alternates. */
  gitDir: string;
  hiddenPaths: readonly string[];
  image: EngineImage | null;
  /** Under sandboxed, the socket of the engine's egress proxy (engine-egress.ts); null: no network at all. */
  egress: string | null;
}): EnginePlacement {
  const { adapter, folders } = input;
  const programs = programPaths(adapter, input.adaptersDir);
  if (input.image === null) {
    const env = reducedEnvironment({
      hostEnv: input.hostEnv,
      allow: adapter.env.allow,
      set: adapter.env.set,
      home: folders.state,
      tmp: folders.tmp,
    }).env;
    return {
      seen: { workspace: folders.workspace, state: folders.state, out: folders.out },
      cwd: folders.workspace,
      env,
      sandbox: hostEngineSandbox({
        adapter,
        adaptersDir: input.adaptersDir,
        policy: input.policy,
        namespaces: input.namespaces,
        hiddenPaths: input.hiddenPaths,
        writable: [folders.workspace, folders.state, folders.tmp, folders.out],
        readOnly: [input.gitDir],
        egress: input.egress,
      }),
      environment: null,
      translate: (value) => value,
    };
  }
  const translate = translator(programs);
  // A folder bound for the engine may hold what is hidden (the results beside the adapters file, say): covered there
  // as the host sandbox covers it, under either policy.
  const covered = hiddenUnder(programs, hiddenFor(adapter, input.adaptersDir, input.policy, input.hiddenPaths)).map(
    ({ path, folder }) => ({ target: `${ENGINE_ROOT}${path}`, folder }),
  );
  const set = Object.fromEntries(Object.entries(adapter.env.set).map(([name, value]) => [name, translate(value)]));
  const reduced = reducedEnvironment({
    hostEnv: input.hostEnv,
    allow: adapter.env.allow,
    set,
    home: WORK_FOLDERS.state,
    tmp: '/tmp',
  }).env;
  // The host's PATH names host folders: inside, the image's is the one that finds the environment's programs.
  delete reduced['PATH'];
  const image = offlineVariables(input.image.config, {
    home: WORK_FOLDERS.state,
    goCache: `${WORK_FOLDERS.state}/.cache/go-build`,
    cargoTarget: `${WORK_FOLDERS.state}/target`,
  });
  return {
    seen: { workspace: CHECKOUT, state: WORK_FOLDERS.state, out: WORK_FOLDERS.out },
    cwd: CHECKOUT,
    // The image's PATH: `npm test` or `go test` from the engine finds the environment's toolchain, not the host's.
    env: { ...image, ...reduced },
    sandbox: null,
    environment: {
      rootfs: input.image.rootfs,
      config: input.image.config,
      checkout: folders.workspace,
      mounts: [
        { source: folders.state, target: WORK_FOLDERS.state, writable: true },
        { source: folders.out, target: WORK_FOLDERS.out, writable: true },
        { source: folders.tmp, target: '/tmp', writable: true },
        { source: input.gitDir, target: WORK_FOLDERS.baseGit },
        ...programs.map((path) => ({ source: path, target: `${ENGINE_ROOT}${path}` })),
      ],
      covered,
      network: input.policy === 'trusted-local',
      egress: input.policy === 'sandboxed' ? input.egress : null,
    },
    translate,
  };
}
