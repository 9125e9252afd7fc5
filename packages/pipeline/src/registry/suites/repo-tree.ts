// A repository's files as test-suite detection sees them: every path of the tree, and the text of the few manifest
// files it asks for. Detection is pure over this: the same tree gives the same suite, whoever reads it (a freeze from a
// checkout, a rotation from GitHub, the coverage bench from its corpus).

export interface RepoTree {
  /** Every file path of the tree, `/`-separated, relative to the root. */
  readonly paths: readonly string[];
  /** The text of a manifest at `path`, or undefined when there is none (or it was not read). */
  text(path: string): string | undefined;
}

/** Folders whose files are someone else's (installed, vendored, generated) and never the repository's own suite. */
const FOREIGN = /(^|\/)(node_modules|vendor|third[_-]party|bower_components|\.git|dist|build|target|out)\//;

export function isOwnPath(path: string): boolean {
  return !FOREIGN.test(path);
}

/** Inputs of tests rather than tests: a linter's sample files, a compiler's test programs, recorded data. */
const TEST_DATA = /(^|\/)(__)?(fixtures?|testdata|test-data|resources|snapshots|__snapshots__|data|samples)(__)?\//;

/** A path of the repository's own that may be a test of its suite (not installed, vendored, or a test's input). */
export function isOwnTestPath(path: string): boolean {
  return isOwnPath(path) && !TEST_DATA.test(path);
}

/** The folder of a path, '' for the root. */
export function folderOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash);
}

/** `folder/name`, or `name` at the root. */
export function joinPath(folder: string, name: string): string {
  return folder === '' ? name : `${folder}/${name}`;
}

/** Paths named `name` anywhere in the repository's own files, shallowest first, then by path. */
export function manifestsNamed(tree: RepoTree, name: string): string[] {
  return tree.paths
    .filter((path) => (path === name || path.endsWith(`/${name}`)) && isOwnPath(path))
    .sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : a > b ? 1 : 0));
}

/** A manifest parsed as JSON, or null when absent or unreadable (npm cannot read it either). */
export function jsonManifest(tree: RepoTree, path: string): Record<string, unknown> | null {
  const text = tree.text(path);
  if (text === undefined) return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** A field of a parsed JSON object as a record of strings (scripts, dependencies); empty when absent. */
export function stringRecord(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    ),
  );
}
