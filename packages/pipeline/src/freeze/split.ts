// Owns what a freeze learns from the fix's patch alone: its code and test parts (grader/diff rules plus
// the repository's overrides), the lockfiles, generated files and docs it touches, its normalized size
// (spec §4.5, the same function the grader ranks agents with) and the held-out test files.

import {
  normalizedDiffSize,
  PatchError,
  splitPatch,
  type FileChange,
  type PathKind,
  type PathRules,
} from '@abp/grader/diff';
import { FreezeError } from './errors.js';
import { readBlob, type FixSource } from './fix-trees.js';

export interface FixSplit {
  codePatch: string;
  testPatch: string;
  changes: Array<FileChange & { kind: PathKind }>;
}

export interface RecordedFile {
  path: string;
  kind: 'lockfile' | 'generated' | 'docs';
}

export interface FixMeasure {
  /** Lockfiles, generated files and docs (changelogs, readmes): kept in the patch, left out of the size. */
  recorded: RecordedFile[];
  golden: { diffBytesNormalized: number; filesTouched: number };
}

export function splitFix(patch: string, rules: PathRules | undefined): FixSplit {
  try {
    const split = splitPatch(patch, rules);
    return { codePatch: split.code, testPatch: split.test, changes: split.changes };
  } catch (error) {
    if (!(error instanceof PatchError)) throw error;
    throw new FreezeError(
      'unreadable-patch',
      `the fix is not readable as \`git diff\` output (${error.code}): ${error.message}; give the output of git diff --binary <base> <fix>`,
      { cause: error },
    );
  }
}

/** Sizes the fix between base and the after tree; test files are counted apart and do not enter the golden size. */
export async function measureFix(
  source: FixSource,
  split: FixSplit,
  afterTree: string,
  rules: PathRules | undefined,
): Promise<FixMeasure> {
  const size = await normalizedDiffSize({
    changes: split.changes,
    before: (path) => readBlob(source, source.baseCommit, path),
    after: (path) => readBlob(source, afterTree, path),
    ...(rules === undefined ? {} : { rules }),
  });
  // perFile, not the split's kinds: a file whose base version carries a generator header is generated too.
  const recorded = size.perFile
    .filter(
      (file): file is typeof file & RecordedFile =>
        file.kind === 'lockfile' || file.kind === 'generated' || file.kind === 'docs',
    )
    .map(({ path, kind }) => ({ path, kind }));
  return { recorded, golden: { diffBytesNormalized: size.codeBytes, filesTouched: size.filesTouched } };
}

/** Every file the test part adds or changes, as it reads in the after tree, sorted by path. */
export async function readHeldOutFiles(
  source: FixSource,
  split: FixSplit,
  afterTree: string,
): Promise<Array<{ path: string; content: Buffer }>> {
  const paths = split.changes
    .filter((change) => change.kind === 'test' && change.status !== 'deleted')
    .map((change) => change.path)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const files: Array<{ path: string; content: Buffer }> = [];
  for (const path of paths) {
    const content = await readBlob(source, afterTree, path);
    // A submodule entry in the test part has no blob: nothing a consumer could copy over.
    if (content !== null) files.push({ path, content });
  }
  return files;
}
