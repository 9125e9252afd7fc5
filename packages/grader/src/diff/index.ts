// grader/diff: the agent's patch read, classified, split, checked for test weakening and
// measured (spec §4.5). One entry point for the grader and the freeze; this file only re-exports.

export { PatchError, type PatchErrorCode } from './errors.js';
export { PATCH_GIT_ARGS, parsePatch, type FileChange } from './patch.js';
export { classifyChange, classifyPath, isGeneratedContent, type PathKind, type PathRules } from './paths.js';
export { splitPatch, type SplitPatch } from './split.js';
export { findTestWeakening, type WeakeningFinding } from './weakening.js';
export { normalizedDiffSize, type DiffSize, type DiffSizeInput } from './normalized-size.js';
export { DIFF_SIZE_RULES } from './diff-size-rules.js';
