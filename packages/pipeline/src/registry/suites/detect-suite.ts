// Which suite a repository has: every ecosystem whose manifest the tree holds is a candidate, and the one with the
// most test files wins (a Ruby gem with a package.json for a few assets is Ruby; a Rust crate with a JavaScript
// demo is Rust), ties going to the earlier ecosystem in ECOSYSTEMS. Pure over the tree.
import type { RepoTree } from './repo-tree.js';
import { detectCpp } from './cpp.js';
import { detectPhp, detectRuby } from './elsewhere.js';
import { detectGo } from './go.js';
import { detectJvm } from './jvm.js';
import { detectNode } from './node.js';
import { detectPython, isTestRequirements } from './python.js';
import { detectRust, isCrateRoot } from './rust.js';
import { notRunnable, type EcosystemDetector, type SuiteCandidate } from './suite.js';

const DETECTORS: readonly EcosystemDetector[] = [
  detectNode,
  detectPython,
  detectGo,
  detectRust,
  detectJvm,
  detectCpp,
  detectRuby,
  detectPhp,
];

/** The repository's suite, or null when no ecosystem's manifest is in the tree. */
export function detectSuite(tree: RepoTree): SuiteCandidate | null {
  let best: SuiteCandidate | null = null;
  for (const detect of DETECTORS) {
    const candidate = detect(tree);
    if (candidate !== null && (best === null || candidate.testFiles > best.testFiles)) best = candidate;
  }
  // A manifest and a runner without a single test file is a project that could have tests, not a suite.
  if (best !== null && best.recipe !== null && best.testFiles === 0)
    return notRunnable(best, `no ${best.ecosystem} test files in the tree`);
  return best;
}

/** File names whose text detection reads, wherever they are: what a reader of the tree fetches for it. */
export const MANIFEST_NAMES: readonly string[] = [
  'package.json',
  '.yarnrc.yml',
  'pyproject.toml',
  'setup.cfg',
  'tox.ini',
  'Cargo.toml',
  'CMakeLists.txt',
  'composer.json',
];

/**
 * Whether detection reads the text of `path`: a manifest by its name, a test requirements file near the root, or a
 * Rust crate's root source.
 */
export function isReadManifest(path: string): boolean {
  return (
    MANIFEST_NAMES.includes(path.slice(path.lastIndexOf('/') + 1)) || isTestRequirements(path) || isCrateRoot(path)
  );
}

/** Manifests read for detection at most: a monorepo's package.json files, shallowest first. */
export const MAX_MANIFESTS = 300;
/** A manifest larger than this is not read: no real one comes near it, and the reader must not hold a hostile blob. */
export const MAX_MANIFEST_BYTES = 1 << 20;

/**
 * The files whose text detection reads, of a tree listed with sizes: manifests by name, no larger than
 * MAX_MANIFEST_BYTES, the shallowest MAX_MANIFESTS of them (then by path), so every reader reads the same ones.
 */
export function manifestsToRead(files: ReadonlyArray<{ path: string; size: number }>): string[] {
  return files
    .filter((file) => isReadManifest(file.path) && file.size <= MAX_MANIFEST_BYTES)
    .map((file) => file.path)
    .sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, MAX_MANIFESTS);
}
