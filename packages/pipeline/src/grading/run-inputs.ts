// A run's inputs as the workers that grade it receive them: the config file, the adapters file's folder (what {repo}
// names), each task folder and each task's environment, packed into deterministic archives in the run store and named
// by digest in one small reference. A worker unpacks a reference once, whole or not at all, into its own data
// directory; its copy then gives the run's fingerprint or the trial is refused (trial-apart.ts).
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { canonicalJson } from '@abp/protocol/schemas/canonical-json';
import { sha256Hex } from '@abp/protocol/bundle/digest';
import { readTar, writeTar, type TarEntry } from '@abp/protocol/bundle/tar';
import { loadRunInputs } from '@abp/grader/config';
import { EnvironmentStore } from '@abp/grader/environments';
import { StackError } from '../worker/errors.js';
import type { RunStore } from '../run-store/store.js';
import { getEnvironment, putEnvironment, type CarriedEnvironment } from '../run-store/environments.js';

/** What a worker needs to rebuild the inputs, every part by its digest in the run store. */
export interface RunInputsRef {
  config: { name: string; digest: string };
  /** The adapters file's folder as an archive, and the file's path inside it. */
  adapters: { file: string; folder: string };
  tasks: Array<{ id: string; digest: string }>;
  /** Each task environment: its image (manifest) digest and every blob it is made of. */
  environments: CarriedEnvironment[];
}

/** Bounds what one folder may add to the store: an adapters folder holding a whole checkout is a mistake to name. */
const MAX_FOLDER_BYTES = 512 * 1024 * 1024;

/** The digest that names a reference, and so a worker's unpacked copy of it. */
export function refDigest(ref: RunInputsRef): string {
  return `sha256:${sha256Hex(Buffer.from(canonicalJson(ref)))}`;
}

/**
 * The regular files under `root`, symbolic links followed (a task's repository or an engine may be linked in), with
 * the folders in `skip` left out. A folder reached twice through links is read once.
 */
async function folderEntries(root: string, skip: ReadonlySet<string>, label: string): Promise<TarEntry[]> {
  const entries: TarEntry[] = [];
  const seen = new Set<string>();
  let total = 0;
  const walk = async (dir: string, prefix: string): Promise<void> => {
    const real = await realpath(dir);
    if (seen.has(real) || skip.has(real)) return;
    seen.add(real);
    for (const name of (await readdir(dir)).sort()) {
      const path = join(dir, name);
      const info = await stat(path).catch(() => null);
      // A dangling link carries nothing a worker could use.
      if (info === null) continue;
      const inside = prefix === '' ? name : `${prefix}/${name}`;
      if (info.isDirectory()) {
        await walk(path, inside);
        continue;
      }
      if (!info.isFile()) continue;
      total += info.size;
      if (total > MAX_FOLDER_BYTES)
        throw new StackError(
          'invalid-setting',
          `${label} holds more than ${MAX_FOLDER_BYTES / 1024 / 1024} MiB: workers receive it whole, so keep the adapters file in a folder holding only what its engines need (install engines on each worker instead)`,
        );
      entries.push({ path: inside, content: await readFile(path), executable: (info.mode & 0o111) !== 0 });
    }
  };
  await walk(root, '');
  return entries;
}

async function realOrNull(path: string): Promise<string | null> {
  return realpath(path).catch(() => null);
}

/**
 * Packs the inputs of a run into `store`. `hidden` are this machine's results, data directory and caches: left out of
 * the adapters folder, as are the tasks folder and any `.git` there.
 */
export async function packRunInputs(
  store: RunStore,
  paths: { config: string; adapters: string; tasks: string },
  taskIds: readonly string[],
  hidden: readonly string[],
  environmentStore: string,
): Promise<RunInputsRef> {
  const adaptersDir = dirname(paths.adapters);
  const skip = new Set(
    (await Promise.all([paths.tasks, join(adaptersDir, '.git'), ...hidden].map(realOrNull))).filter(
      (path): path is string => path !== null,
    ),
  );
  const adapterEntries = await folderEntries(adaptersDir, skip, `the adapters folder ${adaptersDir}`);
  const adapters = {
    file: relative(adaptersDir, paths.adapters).split(sep).join('/'),
    folder: await store.put(writeTar(adapterEntries, adaptersDir)),
  };
  const tasks: RunInputsRef['tasks'] = [];
  for (const id of [...taskIds].sort()) {
    const dir = join(paths.tasks, id);
    const entries = await folderEntries(dir, new Set(), `task folder ${dir}`);
    tasks.push({ id, digest: await store.put(writeTar(entries, dir)) });
  }
  const config = { name: basename(paths.config), digest: await store.put(await readFile(paths.config)) };
  return { config, adapters, tasks, environments: await packEnvironments(store, paths, environmentStore) };
}

/** Each task image's blobs in the store; a task graded on the host names none. */
async function packEnvironments(
  store: RunStore,
  paths: { config: string; adapters: string; tasks: string },
  environmentStore: string,
): Promise<RunInputsRef['environments']> {
  const inputs = await loadRunInputs(paths);
  const images = new Set<string>();
  for (const task of inputs.tasks) {
    const { image } = task.manifest.environment;
    const at = image.lastIndexOf('@sha256:');
    if (at !== -1) images.add(image.slice(at + 1));
  }
  const environments = new EnvironmentStore(environmentStore);
  const packed: RunInputsRef['environments'] = [];
  // Checked whole here first: a damaged image fails the run on this machine, not on every worker.
  for (const image of [...images].sort()) packed.push(await putEnvironment(store, environments, image));
  return packed;
}

async function writeEntries(root: string, entries: ReadonlyArray<Required<TarEntry>>): Promise<void> {
  for (const entry of entries) {
    const path = join(root, ...entry.path.split('/'));
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, entry.content, { mode: entry.executable ? 0o755 : 0o644 });
  }
}

/** This worker's copy of a run's inputs, as paths `abp run` reads. */
export interface UnpackedInputs {
  root: string;
  paths: { config: string; adapters: string; tasks: string };
}

function pathsUnder(root: string, ref: RunInputsRef): UnpackedInputs {
  return {
    root,
    paths: {
      config: join(root, 'config', ref.config.name),
      adapters: join(root, 'adapters', ...ref.adapters.file.split('/')),
      tasks: join(root, 'tasks'),
    },
  };
}

/**
 * Unpacks `ref` under `<into>/<ref digest>` unless a copy is already there: built in a folder of its own and renamed
 * into place, so a copy is whole or absent, and two trials unpacking at once both end with the same one. Environments
 * go into this machine's environment store, and must import to the digest the task names.
 */
export async function unpackRunInputs(
  store: RunStore,
  ref: RunInputsRef,
  into: string,
  environmentStore: string,
): Promise<UnpackedInputs> {
  const root = join(into, refDigest(ref).slice('sha256:'.length));
  const unpacked = pathsUnder(root, ref);
  await unpackEnvironments(store, ref, environmentStore);
  if (
    await lstat(root).then(
      () => true,
      () => false,
    )
  )
    return unpacked;
  const building = `${root}.${process.pid}-${randomBytes(4).toString('hex')}.partial`;
  try {
    const staged = pathsUnder(building, ref);
    await mkdir(dirname(staged.paths.config), { recursive: true });
    await writeFile(staged.paths.config, await store.get(ref.config.digest));
    await writeEntries(join(building, 'adapters'), readTar(await store.get(ref.adapters.folder), 'adapters folder'));
    await mkdir(staged.paths.tasks, { recursive: true });
    for (const task of ref.tasks) {
      if (!/^[A-Za-z0-9._-]+$/.test(task.id) || task.id === '.' || task.id === '..')
        throw new StackError('invalid-setting', `run inputs name the task "${task.id}", which is not a folder name`);
      await writeEntries(join(staged.paths.tasks, task.id), readTar(await store.get(task.digest), `task ${task.id}`));
    }
    await rename(building, root).catch((error: NodeJS.ErrnoException) => {
      // Another trial of this run put its copy in place first: the same bytes, so that one is kept.
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
    });
  } finally {
    await rm(building, { recursive: true, force: true });
  }
  return unpacked;
}

/** Each task environment into this machine's environment store, verified whole. */
async function unpackEnvironments(store: RunStore, ref: RunInputsRef, environmentStore: string): Promise<void> {
  if (ref.environments.length === 0) return;
  const environments = new EnvironmentStore(environmentStore);
  for (const carried of ref.environments) await getEnvironment(store, environments, carried);
}

/** The folder a worker keeps run input copies in, under its data directory. */
export function inputCopiesDir(home: string): string {
  return resolve(home, 'grading', 'inputs');
}
