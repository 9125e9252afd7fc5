// Owns splitting an agent's patch into its test part and everything else, so the grader can
// apply the code part alone (held-out tests replace the agent's) and publish both as receipts.

import { classifyChange, type PathKind, type PathRules } from './paths.js';
import { parsePatch, type FileChange } from './patch.js';

export interface SplitPatch {
  /** Sections of code, lockfile and generated files, in patch order; applies on the base by itself. */
  code: string;
  /** Sections of test files (either path of a rename a test), in patch order; applies on the base by itself. */
  test: string;
  changes: Array<FileChange & { kind: PathKind }>;
}

export function splitPatch(text: string, rules?: PathRules): SplitPatch {
  const changes = parsePatch(text).map((change) => ({ ...change, kind: classifyChange(change, rules) }));
  // Each section names its own paths (PATCH_GIT_ARGS detects no copies), so any subset applies.
  const sectionsOf = (test: boolean): string =>
    changes
      .filter((change) => (change.kind === 'test') === test)
      .map((change) => change.text)
      .join('');
  return { code: sectionsOf(false), test: sectionsOf(true), changes };
}
