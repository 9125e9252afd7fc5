// What a machine needs before it runs a run's trials: each task's checked repository cache and verified environment,
// the folders no engine may see, and the context every trial reads. `abp run` prepares it once for its own trials; a
// worker grading trials of a run started elsewhere (`abp run --on temporal`) prepares it for the task it was given.
import { realpath } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { AbpRun } from '@abp/protocol/schemas/abp-run';
import type { RunInputs } from '../config/load-run-inputs.js';
import type { PriceTable } from '../prices/index.js';
import { cacheDigest, prepareFixtureRepo, prepareTaskRepo, type TaskRepo } from '../workspace/index.js';
import { checkEnvironmentFits, EnvironmentError, EnvironmentStore, filesAtCommit } from '../environments/index.js';
import type { PreflightResult, TaskEnvironment, TrialContext } from './trial.js';

/**
 * The root file system of every task's environment, each blob checked against its digest first: a task whose image is
 * absent (environment-missing, layer-missing), altered (layer-tampered) or built from other dependency files than the
 * task's repository holds at its base commit (environment-mismatch) stops the run before any trial. A task that
 * names an image without a digest ran its freeze on the host's toolchains and is graded there.
 */
async function prepareEnvironments(
  inputs: RunInputs,
  repos: ReadonlyMap<string, TaskRepo>,
  storeRoot: string,
): Promise<Map<string, TaskEnvironment | null>> {
  const store = new EnvironmentStore(storeRoot);
  const environments = new Map<string, TaskEnvironment | null>();
  for (const task of inputs.tasks) {
    const { image } = task.manifest.environment;
    const at = image.lastIndexOf('@sha256:');
    if (at === -1) {
      environments.set(task.manifest.id, null);
      continue;
    }
    const digest = image.slice(at + 1);
    const taskId = task.manifest.id;
    try {
      const verified = await store.verify(digest);
      const repo = repos.get(taskId);
      if (repo !== undefined)
        await checkEnvironmentFits(
          { taskId, digest, config: verified.config },
          filesAtCommit(repo.gitDir, repo.baseCommit),
        );
      environments.set(taskId, { digest, rootfs: await store.rootfs(digest), config: verified.config });
    } catch (error) {
      if (error instanceof EnvironmentError && !error.message.startsWith(`task ${taskId}`))
        throw new EnvironmentError(error.code, `task ${taskId}: ${error.message}`, { cause: error });
      throw error;
    }
  }
  return environments;
}

/** Each task's checked repository cache, and what the run must say of caches that failed the check and were rebuilt. */
async function prepareRepos(
  inputs: RunInputs,
  cacheDir: string,
  /** Whether engines run in namespaces, where none can write the cache: then its bytes need no second reading. */
  namespaces: boolean,
): Promise<{ repos: Map<string, TaskRepo>; digests: Map<string, string>; warnings: string[] }> {
  const repos = new Map<string, TaskRepo>();
  const digests = new Map<string, string>();
  const warnings: string[] = [];
  for (const task of inputs.tasks) {
    const repo =
      task.source.kind === 'fixture'
        ? await prepareFixtureRepo({ fixtureDir: task.source.dir, cacheDir })
        : await prepareTaskRepo({ source: task.source.gitDir, baseCommit: task.source.baseCommit, cacheDir });
    if (repo.rebuilt !== undefined)
      warnings.push(
        `the repository cache of task ${task.manifest.id} (${repo.gitDir}) failed its check (${repo.rebuilt}) and was built again from the task folder: something wrote to it since an earlier run`,
      );
    repos.set(task.manifest.id, repo);
    if (!namespaces) digests.set(task.manifest.id, await cacheDigest(repo));
  }
  return { repos, digests, warnings };
}

/**
 * What no engine may see, under either policy: task folders (and the real paths behind symlinked task parts), the
 * results, the data directory and environment store (bundles, freeze mirrors with the future history), the repository
 * cache (each trial gets its own task's base back, read-only) and the work root (the other trials' folders).
 */
export async function hiddenFromEngines(inputs: RunInputs, output: string, own: readonly string[]): Promise<string[]> {
  const paths = new Set([inputs.paths.tasks, output, ...own]);
  for (const task of inputs.tasks) {
    for (const part of [join(task.visibleDir, 'repo'), join(task.dir, 'held-out')]) {
      const real = await realpath(part).catch(() => null);
      if (real !== null) paths.add(real);
    }
  }
  return [...paths];
}

export interface TrialHostOptions {
  run: AbpRun & { id: string };
  /** Where trial records and receipts are written. */
  runDir: string;
  /** The trials' own folders (workspaces, verification checkouts); hidden from every engine. */
  workRoot: string;
  /** Folders no engine may see besides the task folders: the results, data directory, stores and caches. */
  hiddenPaths: string[];
  namespaces: boolean;
  cacheDir: string;
  environmentStore: string;
  prices: PriceTable;
  hostEnv: Readonly<Record<string, string | undefined>>;
  preflight: ReadonlyMap<string, PreflightResult>;
  runUnsupported: boolean;
  keepWorkspaces: boolean;
  decisive: boolean;
  now: () => Date;
  /** Only these tasks' repositories and environments are prepared (a worker grading one trial); default all. */
  only?: ReadonlySet<string>;
}

/** The prepared parts of the tasks a host grades: checked repository caches and verified environments. */
export interface TaskParts {
  repos: Map<string, TaskRepo>;
  cacheDigests: Map<string, string>;
  environments: Map<string, TaskEnvironment | null>;
  /** What the run must say of repository caches rebuilt on the way. */
  warnings: string[];
}

/** Checks each chosen task's repository cache and verifies its environment: the slow part of preparing a host. */
export async function prepareTaskParts(
  inputs: RunInputs,
  options: Pick<TrialHostOptions, 'cacheDir' | 'namespaces' | 'environmentStore' | 'only'>,
): Promise<TaskParts> {
  const selected = options.only;
  const chosen: RunInputs =
    selected === undefined
      ? inputs
      : { ...inputs, tasks: inputs.tasks.filter((task) => selected.has(task.manifest.id)) };
  const { repos, digests, warnings } = await prepareRepos(chosen, options.cacheDir, options.namespaces);
  const environments = await prepareEnvironments(chosen, repos, options.environmentStore);
  return { repos, cacheDigests: digests, environments, warnings };
}

/**
 * The context trials of `inputs` run in, and what the run must say of repository caches rebuilt on the way. `parts`
 * are the tasks' prepared parts when the caller already has them (a worker grading many trials of one run).
 */
export async function prepareTrialHost(
  inputs: RunInputs,
  options: TrialHostOptions,
  parts?: TaskParts,
): Promise<{ context: TrialContext; warnings: string[] }> {
  const { repos, cacheDigests, environments, warnings } = parts ?? (await prepareTaskParts(inputs, options));
  const context: TrialContext = {
    run: options.run,
    runDir: options.runDir,
    workRoot: options.workRoot,
    policy: inputs.adapters.executionPolicy,
    adapterOf: inputs.adapterOf,
    tasks: new Map(inputs.tasks.map((task) => [task.manifest.id, task])),
    repos,
    cacheDigests,
    environments,
    preflight: options.preflight,
    prices: options.prices,
    hostEnv: options.hostEnv,
    adaptersDir: dirname(inputs.paths.adapters),
    hiddenPaths: options.hiddenPaths,
    namespaces: options.namespaces,
    runUnsupported: options.runUnsupported,
    keepWorkspaces: options.keepWorkspaces,
    decisive: options.decisive,
    now: options.now,
  };
  return { context, warnings };
}
