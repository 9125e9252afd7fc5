// Owns the one result model every report parser produces, and the rules that make a
// parsed report deterministic: ids unique, tests sorted, durations and messages bounded.

export type TestStatus = 'pass' | 'fail' | 'error' | 'skip';

export interface TestResult {
  /**
   * The test as its runner names it (docs/test-ids.md): pytest's node id, go `<import path>::TestName/sub`,
   * cargo `<target source>::<module>::test`, jest `file › titles`, vitest `file > titles`, JUnit `classname::name`,
   * TAP the description its runner prints (node-tap's subtests `file > parent > test`), tape the test's name, jasmine
   * `file > suites > spec`, lab its title (suites and test joined by a space).
   */
  readonly id: string;
  readonly status: TestStatus;
  readonly durationMs: number | null;
  readonly message?: string;
}

/**
 * `tap`: one point per test (ava, node-tap, QUnit); `tape-tap`: tape's, where points are assertions under `# name`;
 * `runner-json`: the document abp's own reporters write for jasmine and lab (runner-reporters.ts).
 */
export const REPORT_FORMATS = [
  'junit-xml',
  'go-test-json',
  'jest-json',
  'vitest-json',
  'libtest',
  'tap',
  'tape-tap',
  'runner-json',
] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

export interface ParsedReport {
  readonly format: ReportFormat;
  /** Sorted by id in code-unit order; ids are unique. */
  readonly tests: readonly TestResult[];
}

export interface ParseOptions {
  /**
   * The checkout the tests ran in. Jest and Vitest JSON (and newer Node junit) name files by
   * absolute path; paths under rootDir become relative so ids survive a different temp dir.
   */
  readonly rootDir?: string;
  /** What the command wrote to stderr: cargo names each test binary there, before libtest's block on stdout. */
  readonly stderr?: string;
}

// Stack traces can run to megabytes; the verdict needs the gist, the receipts keep the rest.
const MAX_MESSAGE_CHARS = 4000;

export function testResult(id: string, status: TestStatus, durationMs: number | null, message?: string): TestResult {
  const trimmed = message?.trim() ?? '';
  if (trimmed === '') return { id, status, durationMs };
  const bounded = trimmed.length > MAX_MESSAGE_CHARS ? `${trimmed.slice(0, MAX_MESSAGE_CHARS)}…` : trimmed;
  return { id, status, durationMs, message: bounded };
}

/** Seconds (junit `time`, go `Elapsed`) to milliseconds, rounded to the microsecond to drop float noise. */
export function secondsToMs(seconds: number): number {
  return Math.round(seconds * 1e6) / 1e3;
}

/** Milliseconds rounded to the microsecond (Jest and Vitest report fractional ms with float noise). */
export function roundMs(ms: number): number {
  return Math.round(ms * 1e3) / 1e3;
}

export function relativeToRoot(value: string, rootDir: string | undefined): string {
  if (rootDir === undefined || rootDir === '') return value;
  const root = rootDir.replace(/[\\/]+$/, '');
  if (value.startsWith(`${root}/`) || value.startsWith(`${root}\\`)) {
    return value.slice(root.length + 1).replaceAll('\\', '/');
  }
  return value;
}

/**
 * Makes ids unique and sorts by id. A repeated id (the same test run twice, or two files
 * with the same test names where the format does not name the file) keeps its first
 * occurrence as is and numbers the later ones ` #2`, ` #3` in input order.
 */
export function finalizeTests(results: readonly TestResult[]): TestResult[] {
  const taken = new Set<string>();
  // The next number to try for each repeated id: counting from 2 every time is quadratic in a title repeated 10^5 times.
  const nextNumber = new Map<string, number>();
  const unique = results.map((result) => {
    let id = result.id;
    if (taken.has(id)) {
      let n = nextNumber.get(result.id) ?? 2;
      while (taken.has(`${result.id} #${n}`)) n += 1;
      id = `${result.id} #${n}`;
      nextNumber.set(result.id, n + 1);
    }
    taken.add(id);
    return id === result.id ? result : { ...result, id };
  });
  return unique.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
