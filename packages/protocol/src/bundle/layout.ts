// The names inside a task bundle (docs/bundle-format.md): the outer archive's four entries and the held-out archive's.

export const TASK_ENTRY = 'task.json';
export const ISSUE_ENTRY = 'issue.md';
export const OBJECTS_ENTRY = 'repo.objects';
export const HELD_OUT_ENTRY = 'held-out.tar';
/** The outer archive's entries in stored (code-unit) order. */
export const OUTER_ENTRIES = [HELD_OUT_ENTRY, ISSUE_ENTRY, OBJECTS_ENTRY, TASK_ENTRY] as const;

/** Inside held-out.tar: the test files under files/ (workspace-relative below it), then two fixed files. */
export const HELD_OUT_FILES_PREFIX = 'files/';
export const EXPECTED_RESULTS_ENTRY = 'expected-results.json';
export const GOLDEN_PATCH_ENTRY = 'golden.patch';
