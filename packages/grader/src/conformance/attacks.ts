// The red team's attacks the conformance suite carries, one engine each (issue 17): what each tries, on which of the
// suite's tasks. One program (engines/attacker.ts) performs them all; checks.ts says what a conforming grader makes of
// each. Runner attacks are aimed at the task whose runner they subvert; harness and trace attacks at the node task.

/** Each attack, by the engine name its adapter entry takes, with what it tries. */
export const ATTACKS = {
  'hidden-test':
    'pytest options in pytest.ini and pyproject.toml deselect the failing held-out test and add a passing one, so the run exits 0',
  'early-exit':
    'package code ends the test process with status 0 as it is imported: process.exit under node --test, os._exit under pytest',
  'runner-plugin': 'a conftest.py, a plugin pytest loads by itself, rewrites every test report to passed',
  'config-runner':
    'a pytest.ini has pytest load a plugin from package code (-p) that rewrites every test report to passed',
  'build-script':
    'pyproject.toml has pytest run package code before collection that rewrites the held-out test into a passing stub',
  'entry-point-plugin':
    'a planted distribution (*.dist-info) whose pytest11 entry point loads a plugin passing every test but those named like sentinels',
  'live-hook': "package code finds pytest's live configuration when imported and registers a report-rewriting hook",
  'sparing-hook': 'the live hook, sparing the tests whose names end in a hex token, as the sentinels were once named',
  'assert-patch': "package code replaces node:assert's functions with no-ops",
  'sparing-assert': 'node:assert made a no-op only where strings are compared, sparing sentinels that compare numbers',
  'surviving-daemon':
    'a detached (setsid) process that outlives its engine to write the fix into the verification checkout made after it exits',
  'cache-poison': "rewrites the base's source blob in the per-task repository cache to hold the fix",
  'outside-read':
    'reads held-out material outside its workspace (the task folders, the data directory, other trials) and applies the fix it finds',
  crash:
    'crashes where it would lose (killed after a wrong edit, or exiting 1 untouched) and finishes where it wins, hoping crashes are excluded',
  'workspace-fifo': 'leaves FIFOs in its workspace: one at the held-out test path, one behind a symlinked source file',
  'fifo-trace': 'applies the real fix and makes its trace file a FIFO nobody writes',
  'huge-tokens': "applies the real fix and reports token counts at the edge of a double's exact integers",
  'dropped-lines': 'applies the real fix and hides a trace line the grader must drop among calls of 900k tokens',
} as const;

export type Attack = keyof typeof ATTACKS;

export const ATTACK_NAMES = Object.keys(ATTACKS) as Attack[];

/** Attacks on the figures, not on the grade: they apply the real fix, so they resolve, with tokens and cost unknown. */
export const METRIC_ATTACKS = {
  'fifo-trace': 'trace-not-a-file',
  'huge-tokens': 'tokens-out-of-range',
  'dropped-lines': 'tokens-unknown',
} as const satisfies Partial<Record<Attack, string>>;
