// Owns the freeze's environment: the image the repository's suite runs in, built from the before tree with the
// recipe's install step (or reused from an earlier task of the same repository whose dependency files were the same),
// or the reason it could not be built, which rejects the freeze as `environment-build-failed`.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  buildEnvironment,
  EnvironmentError,
  fileDigest,
  requestedToolchain,
  TOOLCHAIN_FILES,
  type Ecosystem,
  type EnvironmentBuild,
  type EnvironmentStore,
} from '@abp/grader/environments';
import { parseCommandLine } from '@abp/grader/verification';
import { installSteps, type RunnerRecipe } from '../registry/criteria/schema.js';
import { checkOutTree, type FixSource } from './fix-trees.js';

const ECOSYSTEMS: readonly Ecosystem[] = ['python', 'node', 'go', 'rust', 'jvm', 'cpp'];

// The files an install reads: when none of them changes, the next task of the repository reuses the environment.
// Node's include every workspace's package.json and the lockfile and configuration of each package manager.
const DEPENDENCY_FILES: Readonly<Record<Ecosystem, RegExp>> = {
  python:
    /^(pyproject\.toml|setup\.py|setup\.cfg|uv\.lock|poetry\.lock|pdm\.lock|Pipfile\.lock|([^/]+\/)?[^/]*requirements[^/]*\.txt|requirements\/[^/]+\.txt|constraints[^/]*\.txt|MANIFEST\.in)$/,
  node: /^((?:(?!node_modules\/)[^/]+\/)*package\.json|package-lock\.json|npm-shrinkwrap\.json|pnpm-lock\.yaml|pnpm-workspace\.yaml|yarn\.lock|\.yarnrc(\.yml)?|\.yarn\/releases\/[^/]+|bun\.lockb?|\.npmrc|\.nvmrc)$/,
  go: /^(go\.mod|go\.sum)$/,
  rust: /^(Cargo\.toml|Cargo\.lock|rust-toolchain(\.toml)?)$/,
  jvm: /^(pom\.xml|build\.gradle(\.kts)?|settings\.gradle(\.kts)?|gradle\.properties)$/,
  // The install only configures (its build folder is not kept): CMake's own files are what it reads.
  cpp: /^(.+\/)?(CMakeLists\.txt|[^/]+\.cmake|CMakePresets\.json)$/,
};

/** Whether a pip step copies the project itself into the environment (`pip install .`), rather than installing it editable or installing named packages. */
function copiesProject(step: string): boolean {
  const words = parseCommandLine(step).argv;
  if (!words.includes('pip') || !words.includes('install')) return false;
  return words.some(
    (word, index) =>
      /^\.(\[[^\]]*\])?$|^\.\//.test(word) &&
      !['-e', '--editable', '-r', '--requirement', '-c', '--constraint'].includes(words[index - 1] ?? ''),
  );
}

/** The requirement and constraint files an install step names (`pip install -r ci/needs.txt`), wherever they are. */
function filesNamed(step: string): string[] {
  const words = parseCommandLine(step).argv;
  return words.flatMap((word, index) => {
    const joined = /^(?:-r|-c|--requirement=|--constraint=)(.+)$/.exec(word)?.[1];
    const next = ['-r', '-c', '--requirement', '--constraint'].includes(word) ? words[index + 1] : undefined;
    const path = joined ?? next;
    return path === undefined ? [] : [path.replace(/^(\.\/)+/, '')];
  });
}

export type FreezeEnvironment = { built: true; build: EnvironmentBuild } | { built: false; detail: string };

/** Which files of the checkout key the environment's cache: the dependency files, or every file for an install that copies the project itself. */
export async function dependencyFiles(
  checkout: string,
  ecosystem: Ecosystem,
  install: readonly string[],
): Promise<Record<string, string>> {
  // `pip install .` copies the project into the virtualenv: an environment reused at another commit would test old code.
  const wholeTree = ecosystem === 'python' && install.some(copiesProject);
  const named = new Set(install.flatMap(filesNamed));
  const entries = await readdir(checkout, { recursive: true, withFileTypes: true });
  const files: Record<string, string> = {};
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name).slice(checkout.length + 1);
    if (path.startsWith('.git/') || path.includes('node_modules/')) continue;
    if (wholeTree || DEPENDENCY_FILES[ecosystem].test(path) || named.has(path))
      files[path] = fileDigest(await readFile(join(checkout, path)));
  }
  return Object.fromEntries(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1)));
}

export async function freezeEnvironment(input: {
  source: FixSource;
  tree: string;
  recipe: RunnerRecipe;
  /** A fresh folder of the freeze's own. */
  dir: string;
  store: EnvironmentStore;
  timeoutMs: number;
}): Promise<FreezeEnvironment> {
  const ecosystem = ECOSYSTEMS.find((name) => name === input.recipe.ecosystem);
  if (ecosystem === undefined)
    return {
      built: false,
      detail: `the recipe's ecosystem ${JSON.stringify(input.recipe.ecosystem)} has no environment builder (${ECOSYSTEMS.join(', ')})`,
    };
  await checkOutTree(input.source, input.tree, input.dir);
  const texts: Record<string, string> = {};
  for (const name of TOOLCHAIN_FILES) {
    const text = await readFile(join(input.dir, name), 'utf8').catch(() => null);
    if (text !== null) texts[name] = text;
  }
  try {
    const build = await buildEnvironment({
      store: input.store,
      checkout: input.dir,
      timeoutMs: input.timeoutMs,
      request: {
        ecosystem,
        toolchain: input.recipe.toolchain ?? requestedToolchain(ecosystem, texts),
        install: installSteps(input.recipe),
        runner: input.recipe.runner,
        dependencyFiles: await dependencyFiles(input.dir, ecosystem, installSteps(input.recipe)),
        ...(input.recipe.base === undefined ? {} : { base: input.recipe.base }),
      },
    });
    return { built: true, build };
  } catch (error) {
    if (
      error instanceof EnvironmentError &&
      ['environment-build-failed', 'toolchain-unavailable', 'base-build-failed'].includes(error.code)
    )
      return { built: false, detail: `${error.code}: ${error.message}` };
    throw error;
  }
}
