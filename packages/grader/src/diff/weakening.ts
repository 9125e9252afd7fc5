// Owns the test-weakening check (spec §4.5): a run that deletes, renames away, empties or
// disarms an existing test is disqualified rather than rewarded with a smaller diff.

import { classifyPath, type PathRules } from './paths.js';
import type { FileChange } from './patch.js';

export interface WeakeningFinding {
  path: string;
  reason: 'deleted-test-file' | 'renamed-test-file' | 'removed-assertion' | 'added-skip-marker' | 'emptied-test-file';
  line?: string;
}

type Language = 'python' | 'javascript' | 'go' | 'rust' | 'jvm' | 'ruby';

const LANGUAGE_BY_EXTENSION: Readonly<Record<string, Language>> = {
  py: 'python',
  js: 'javascript',
  jsx: 'javascript',
  ts: 'javascript',
  tsx: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  mts: 'javascript',
  cts: 'javascript',
  go: 'go',
  rs: 'rust',
  java: 'jvm',
  kt: 'jvm',
  rb: 'ruby',
};

interface WeakeningPattern {
  readonly language: Language;
  /** 'assertion': removing a matching line weakens; 'skip': adding one weakens. */
  readonly kind: 'assertion' | 'skip';
  readonly pattern: RegExp;
  /** Also checked in code files, for languages whose unit tests live beside the code. */
  readonly inSource?: true;
}

const WEAKENING_PATTERNS: readonly WeakeningPattern[] = [
  // pytest's bare assert statement.
  { language: 'python', kind: 'assertion', pattern: /^\s*assert\b/ },
  // unittest's assertion methods (assertEqual, assertRaises...) and self.fail.
  { language: 'python', kind: 'assertion', pattern: /\bself\.(?:assert[A-Z]\w*|fail)\(/ },
  // pytest's expected exceptions and warnings.
  { language: 'python', kind: 'assertion', pattern: /\bpytest\.(?:raises|warns)\(/ },
  // A test function or test class definition.
  { language: 'python', kind: 'assertion', pattern: /^\s*(?:async\s+)?def test\w*\(|^\s*class Test\w*/ },
  // pytest skip and xfail markers.
  { language: 'python', kind: 'skip', pattern: /@pytest\.mark\.(?:skip|skipif|xfail)\b/ },
  // Imperative pytest skips.
  { language: 'python', kind: 'skip', pattern: /\bpytest\.(?:skip|xfail|importorskip)\(/ },
  // unittest skips.
  {
    language: 'python',
    kind: 'skip',
    pattern: /@unittest\.(?:skip|skipIf|skipUnless|expectedFailure)\b|\bself\.skipTest\(/,
  },

  // Jest/Vitest expect(...) and expect.assertions(...).
  { language: 'javascript', kind: 'assertion', pattern: /\bexpect(?:\.\w+)?\(/ },
  // node:assert and chai's assert style.
  { language: 'javascript', kind: 'assertion', pattern: /\bassert(?:\.\w+)*\(/ },
  // chai's should style.
  { language: 'javascript', kind: 'assertion', pattern: /\.should\b/ },
  // A test or suite definition: it(, test(, describe(, and their .each forms.
  { language: 'javascript', kind: 'assertion', pattern: /(?<![\w.$])(?:it|test|describe)(?:\.each)?\s*\(/ },
  // Skipping, focusing (which skips the rest), todo and expected-failure modifiers.
  {
    language: 'javascript',
    kind: 'skip',
    pattern: /(?<![\w.$])(?:it|test|describe|suite|context)\.(?:skip\w*|only|todo|fails|runIf)\b/,
  },
  // Jasmine/Jest x- (skip) and f- (focus) prefixes.
  { language: 'javascript', kind: 'skip', pattern: /(?<![\w.$])(?:xit|xtest|xdescribe|fit|ftest|fdescribe)\s*\(/ },
  // Skipping from inside a test: mocha's this.skip(), Vitest's ctx.skip(), node:test's t.skip().
  { language: 'javascript', kind: 'skip', pattern: /\b(?:this|ctx|context|t)\.skip\(/ },

  // Failing a Go test.
  { language: 'go', kind: 'assertion', pattern: /\bt\.(?:Error|Errorf|Fatal|Fatalf|Fail|FailNow)\(/ },
  // testify's assert and require.
  { language: 'go', kind: 'assertion', pattern: /\b(?:assert|require)\.[A-Z]\w*\(/ },
  // Test, fuzz and example functions, and subtests.
  { language: 'go', kind: 'assertion', pattern: /^func (?:Test|Fuzz|Example)\w*\(|\bt\.Run\(/ },
  // Skipping a Go test.
  { language: 'go', kind: 'skip', pattern: /\bt\.(?:Skip|Skipf|SkipNow)\(/ },

  // Rust's assertion macros, in test files (in code they are invariants, not tests).
  { language: 'rust', kind: 'assertion', pattern: /\b(?:debug_)?assert(?:_eq|_ne|_matches)?!/ },
  // #[test], #[tokio::test] and the like; unit tests live in src/, so code files are checked too.
  { language: 'rust', kind: 'assertion', pattern: /#\[(?:\w+::)*test\b/, inSource: true },
  // #[ignore] skips a test, also in src/.
  { language: 'rust', kind: 'skip', pattern: /#\[ignore\b/, inSource: true },

  // JUnit, AssertJ and Hamcrest assertions (assertEquals, assertThat...) and fail(.
  { language: 'jvm', kind: 'assertion', pattern: /\b(?:assert\w*|fail)\s*\(/ },
  // Mockito verifications.
  { language: 'jvm', kind: 'assertion', pattern: /\bverify\s*\(/ },
  // JUnit test definitions.
  { language: 'jvm', kind: 'assertion', pattern: /@(?:Test|ParameterizedTest|RepeatedTest|TestFactory)\b/ },
  // JUnit 5 @Disabled (and @DisabledOnOs...) and JUnit 4 @Ignore.
  { language: 'jvm', kind: 'skip', pattern: /@(?:Disabled|Ignore)\w*\b/ },
  // A failed assumption aborts the test as skipped.
  { language: 'jvm', kind: 'skip', pattern: /\bassume\w*\s*\(/ },

  // RSpec expectations.
  { language: 'ruby', kind: 'assertion', pattern: /\bexpect\s*[({]/ },
  // Minitest assertions and the should/must/wont expectation styles.
  { language: 'ruby', kind: 'assertion', pattern: /\bassert(?:_\w+)?\b|\.(?:should|must_\w+|wont_\w+)\b/ },
  // RSpec examples and minitest test methods.
  {
    language: 'ruby',
    kind: 'assertion',
    pattern: /^\s*(?:it|specify|example|scenario|test)(?:\s+['"]|\s*\(|\s+do\b|\s*\{)|^\s*def test_/,
  },
  // RSpec x- (skip) and f- (focus) prefixes.
  {
    language: 'ruby',
    kind: 'skip',
    pattern: /^\s*(?:xit|xspecify|xexample|xscenario|xdescribe|xcontext|fit|fdescribe|fcontext)\b/,
  },
  // skip and pending statements, and skip:/pending:/focus: metadata.
  { language: 'ruby', kind: 'skip', pattern: /^\s*(?:skip|pending)\b|\b(?:skip|pending|focus):|:focus\b/ },
];

export function findTestWeakening(changes: readonly FileChange[], rules?: PathRules): WeakeningFinding[] {
  const findings: WeakeningFinding[] = [];
  for (const change of changes) {
    const oldPath = change.oldPath ?? change.path;
    const wasTest = change.status !== 'added' && classifyPath(oldPath, rules) === 'test';
    if (wasTest && change.status === 'deleted') {
      findings.push({ path: oldPath, reason: 'deleted-test-file' });
      continue;
    }
    if (wasTest && change.status === 'renamed') findings.push({ path: oldPath, reason: 'renamed-test-file' });
    if (wasTest && isEmptied(change)) {
      findings.push({ path: oldPath, reason: 'emptied-test-file' });
      continue;
    }
    if (change.status === 'added' || change.binary) continue;
    const language = LANGUAGE_BY_EXTENSION[extensionOf(oldPath)];
    const patterns = WEAKENING_PATTERNS.filter(
      (entry) => entry.language === language && (wasTest || entry.inSource === true),
    );
    findings.push(...lineFindings(change, oldPath, patterns));
  }
  return findings;
}

function lineFindings(change: FileChange, path: string, patterns: readonly WeakeningPattern[]): WeakeningFinding[] {
  if (patterns.length === 0) return [];
  // A line removed here and added back elsewhere (moved, re-indented) neither weakens nor adds a skip.
  const added = new Set(change.addedLines.map((line) => line.trim()));
  const removed = new Set(change.removedLines.map((line) => line.trim()));
  const matches = (kind: WeakeningPattern['kind'], line: string): boolean =>
    patterns.some((entry) => entry.kind === kind && entry.pattern.test(line));
  return [
    ...change.removedLines
      .filter((line) => !added.has(line.trim()) && matches('assertion', line))
      .map((line) => ({ path, reason: 'removed-assertion' as const, line })),
    ...change.addedLines
      .filter((line) => !removed.has(line.trim()) && matches('skip', line))
      .map((line) => ({ path, reason: 'added-skip-marker' as const, line })),
  ];
}

/**
 * Nothing but blank lines is left: one hunk from the first line to the end of the file, in which
 * every line that survives or is added is blank. With git's three lines of context
 * (PATCH_GIT_ARGS), a hunk ends at the end of the file when it has fewer than three trailing
 * context lines. Anything less certain falls to the line checks, which flag it all the same.
 */
function isEmptied(change: FileChange): boolean {
  if (change.binary || change.removedLines.length === 0) return false;
  const lines = change.text.replace(/\n$/, '').split('\n');
  const hunkStart = lines.findIndex((line) => line.startsWith('@@'));
  const header = /^@@ -(\d+)/.exec(lines[hunkStart] ?? '');
  if (header === null || Number(header[1]) > 1) return false;
  const body = lines.slice(hunkStart + 1).filter((line) => !line.startsWith('\\'));
  if (body.some((line) => line.startsWith('@@'))) return false;
  const kept = body.filter((line) => !line.startsWith('-'));
  if (kept.some((line) => line.slice(1).trim() !== '')) return false;
  let trailingContext = 0;
  while (trailingContext < body.length && !/^[-+]/.test(body[body.length - 1 - trailingContext] ?? ''))
    trailingContext += 1;
  return trailingContext < 3;
}

function extensionOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot + 1);
}
