// Which suite a repository has: every ecosystem whose manifest the tree holds is a candidate, and the one with the
// most test files wins (a Ruby gem with a package.json for a few assets is Ruby; a Rust crate with a JavaScript
// demo is Rust), ties going to the earlier ecosystem in ECOSYSTEMS. Pure over the tree.
import type { RepoTree } from './repo-tree.js';
import { detectCpp, detectPhp, detectRuby } from './elsewhere.js';
import { detectGo } from './go.js';
import { detectJvm } from './jvm.js';
import { detectNode } from './node.js';
import { detectPython, isTestRequirements } from './python.js';
import { detectRust } from './rust.js';
import type { EcosystemDetector, SuiteCandidate } from './suite.js';

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

/** Whether detection reads the text of `path`: a manifest by its name, or a test requirements file near the root. */
export function isReadManifest(path: string): boolean {
  return MANIFEST_NAMES.includes(path.slice(path.lastIndexOf('/') + 1)) || isTestRequirements(path);
}
