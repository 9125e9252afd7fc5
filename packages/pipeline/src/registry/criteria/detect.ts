// Runner detection from a repository's files by the criteria's rules, and what those rules need discovery to read:
// which folders to list and which files' text to fetch. Pure: the same paths and texts give the same recipe.
import type { CandidateFacts } from './facts.js';
import type { Condition, CriteriaDocument, RunnerRecipe, SimpleCondition } from './schema.js';

/** The file the `npm-*` conditions read. */
export const NPM_MANIFEST = 'package.json';

export interface RunnerDetection {
  /** The first ecosystem whose detect conditions hold, or null. */
  ecosystem: string | null;
  /** The first of its runners whose conditions hold, or null. */
  recipe: RunnerRecipe | null;
}

type RepoFiles = Pick<CandidateFacts, 'paths' | 'texts'>;

function conditionsOf(document: CriteriaDocument): SimpleCondition[] {
  const all: Condition[] = document.ecosystems.flatMap((rule) => [
    ...rule.detect,
    ...rule.runners.flatMap((runner) => runner.when),
  ]);
  return all.flatMap((condition) => (condition.kind === 'any' ? condition.of : [condition]));
}

/** Folders whose entries discovery lists besides the root's: every folder a path pattern looks inside. Sorted. */
export function listedFolders(document: CriteriaDocument): string[] {
  const folders = new Set<string>();
  for (const condition of conditionsOf(document)) {
    if (condition.kind !== 'path') continue;
    for (const pattern of condition.anyOf) {
      const slash = pattern.replace(/\/$/, '').lastIndexOf('/');
      if (slash > 0) folders.add(pattern.slice(0, slash));
    }
  }
  return [...folders].sort();
}

/** Files whose text discovery fetches: those `text` conditions search, and package.json for `npm-*` ones. Sorted. */
export function readFiles(document: CriteriaDocument): string[] {
  const files = new Set<string>();
  for (const condition of conditionsOf(document)) {
    if (condition.kind === 'text') files.add(condition.path);
    if (condition.kind === 'npm-script' || condition.kind === 'npm-dev-dependency') files.add(NPM_MANIFEST);
  }
  return [...files].sort();
}

function patternRegExp(pattern: string): RegExp {
  return new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
}

interface NpmManifest {
  scripts: Record<string, unknown>;
  devDependencies: Record<string, unknown>;
}

function npmManifest(text: string | undefined): NpmManifest | null {
  if (text === undefined) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // A package.json npm cannot read runs no tests.
    return null;
  }
  const record = (field: unknown): Record<string, unknown> =>
    typeof field === 'object' && field !== null ? (field as Record<string, unknown>) : {};
  const manifest = record(value);
  return { scripts: record(manifest['scripts']), devDependencies: record(manifest['devDependencies']) };
}

function holds(condition: Condition, files: RepoFiles, manifest: NpmManifest | null): boolean {
  switch (condition.kind) {
    case 'path': {
      const patterns = condition.anyOf.map(patternRegExp);
      return files.paths.some((path) => patterns.some((pattern) => pattern.test(path)));
    }
    case 'text':
      return files.texts[condition.path]?.includes(condition.contains) ?? false;
    case 'npm-script': {
      const script = manifest?.scripts[condition.script];
      return (
        typeof script === 'string' &&
        (condition.containing === undefined || script.includes(condition.containing)) &&
        (condition.notContaining === undefined || !script.includes(condition.notContaining))
      );
    }
    case 'npm-dev-dependency':
      return manifest?.devDependencies[condition.name] !== undefined;
    case 'any':
      return condition.of.some((inner) => holds(inner, files, manifest));
  }
}

export function detectRunner(files: RepoFiles, document: CriteriaDocument): RunnerDetection {
  const manifest = npmManifest(files.texts[NPM_MANIFEST]);
  const all = (conditions: readonly Condition[]): boolean =>
    conditions.every((condition) => holds(condition, files, manifest));
  const rule = document.ecosystems.find((candidate) => all(candidate.detect));
  if (rule === undefined) return { ecosystem: null, recipe: null };
  const runner = rule.runners.find((candidate) => all(candidate.when));
  if (runner === undefined) return { ecosystem: rule.ecosystem, recipe: null };
  return {
    ecosystem: rule.ecosystem,
    recipe: {
      runner: runner.runner,
      ecosystem: rule.ecosystem,
      install: runner.install,
      test: runner.test,
      report: runner.report,
    },
  };
}

/** Whether a label name is a bug label: its trimmed name matches a pattern, ignoring case. */
export function bugLabelMatcher(document: CriteriaDocument): (name: string) => boolean {
  const patterns = document.bugLabelPatterns.map((source) => new RegExp(source, 'i'));
  return (name) => patterns.some((pattern) => pattern.test(name.trim()));
}
