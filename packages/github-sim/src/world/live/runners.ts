// The real test runners of live-world repositories, run offline, and readers of their
// machine-readable reports. Test ids follow each runner's own naming:
// - node-test (`node --test`, JUnit XML): describe names and the test name joined by ' > '
//   ("slugify > transliterates accented letters");
// - vitest (JUnit XML): the file, then vitest's own name, describe names and the test joined by ' > '
//   ("test/anchor.test.js > anchorsOf > numbers repeated headings");
// - pytest (JUnit XML): pytest's node id, file path then function ("tests/test_merge.py::test_x");
// - go-test (`go test -json`): import path, '::', test name ("github.com/o/m::TestX");
// - cargo-test (libtest text): the target's source path, '::', libtest's name ("tests/version.rs::x").

import { readFile, rm, stat } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { runBounded } from '@abp/grader/execution';

export type LiveRunnerId = 'node-test' | 'vitest' | 'pytest' | 'go-test' | 'cargo-test';
export type TestStatus = 'pass' | 'fail' | 'error' | 'skip';

export interface TestResult {
  id: string;
  status: TestStatus;
}

export interface LiveRunner {
  id: LiveRunnerId;
  ecosystem: 'node' | 'python' | 'go' | 'rust';
  /** The command as the repository's CI runs it, for display and for recipes. */
  command: string;
  report: 'junit-xml' | 'go-test-json' | 'cargo-test-text';
  /** Where the runner writes its report in the checkout, or null when the report is its output. */
  reportFile: string | null;
  /** Whether a path belongs to the test part of a patch (the freeze's split rule for this ecosystem). */
  isTestPath: (path: string) => boolean;
}

const REPORT = 'test-report.xml';

export const LIVE_RUNNERS: Readonly<Record<LiveRunnerId, LiveRunner>> = {
  'node-test': {
    id: 'node-test',
    ecosystem: 'node',
    command: `node --test --test-reporter=junit --test-reporter-destination=${REPORT}`,
    report: 'junit-xml',
    reportFile: REPORT,
    isTestPath: (path) => path.startsWith('test/') || /\.test\.[cm]?js$/.test(path),
  },
  vitest: {
    id: 'vitest',
    ecosystem: 'node',
    command: `npx --no-install vitest run --reporter=junit --outputFile=${REPORT}`,
    report: 'junit-xml',
    reportFile: REPORT,
    isTestPath: (path) => path.startsWith('test/') || /\.test\.[cm]?js$/.test(path),
  },
  pytest: {
    id: 'pytest',
    ecosystem: 'python',
    command: `python3 -m pytest -q -p no:cacheprovider --junitxml=${REPORT}`,
    report: 'junit-xml',
    reportFile: REPORT,
    isTestPath: (path) => path.startsWith('tests/') || /(^|\/)test_[^/]*\.py$/.test(path),
  },
  'go-test': {
    id: 'go-test',
    ecosystem: 'go',
    command: 'go test -json -count=1 ./...',
    report: 'go-test-json',
    reportFile: null,
    isTestPath: (path) => path.endsWith('_test.go'),
  },
  'cargo-test': {
    id: 'cargo-test',
    ecosystem: 'rust',
    // libtest names each binary only on stderr ("Running tests/x.rs"), so both streams are read as one.
    command: 'cargo test --offline --no-fail-fast 2>&1',
    report: 'cargo-test-text',
    reportFile: null,
    isTestPath: (path) => path.startsWith('tests/'),
  },
};

/** This process's environment without `NODE_OPTIONS`, so a parent's loaders (vitest's, tsx's) do not leak into the repository's own Node. */
function hostEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_OPTIONS;
  delete env.NODE_TEST_CONTEXT;
  return env;
}

/**
 * The environment every run gets: no network for package managers, UTC, a fixed hash seed, no
 * bytecode or cache files left in the checkout.
 */
export function runnerEnv(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  return {
    ...hostEnv(),
    TZ: 'UTC',
    LC_ALL: 'C.UTF-8',
    NO_COLOR: '1',
    PYTHONHASHSEED: '0',
    PYTHONDONTWRITEBYTECODE: '1',
    GOTOOLCHAIN: 'local',
    GOPROXY: 'off',
    GOFLAGS: '',
    CARGO_NET_OFFLINE: 'true',
    CARGO_TERM_COLOR: 'never',
    ...extra,
  };
}

export interface SuiteRun {
  runner: LiveRunnerId;
  exitCode: number;
  results: TestResult[];
  /** Combined output, for diagnosing a run. */
  output: string;
}

/** Runs a checkout's whole test suite with its real runner and reads the per-test outcomes. */
export async function runTests(
  runner: LiveRunnerId,
  cwd: string,
  options: { env?: Readonly<Record<string, string>>; timeoutMs?: number } = {},
): Promise<SuiteRun> {
  const recipe = LIVE_RUNNERS[runner];
  if (recipe.reportFile !== null) await rm(join(cwd, recipe.reportFile), { force: true });
  const [command, ...args] =
    runner === 'node-test'
      ? [process.execPath, ...recipe.command.split(' ').slice(1)]
      : runner === 'cargo-test'
        ? ['sh', '-c', `exec ${recipe.command}`]
        : recipe.command.split(' ');
  const env = runnerEnv(options.env);
  // A repository whose CI installed into a virtualenv runs its suite with that virtualenv's python3.
  const venv = join(cwd, VENV, 'bin');
  if (await exists(venv)) env.PATH = `${venv}${delimiter}${env.PATH ?? ''}`;
  const { exitCode, output } = await run(command ?? 'false', args, cwd, env, options.timeoutMs ?? 120_000);
  let results: TestResult[];
  switch (recipe.report) {
    case 'junit-xml': {
      const xml = await readFile(join(cwd, recipe.reportFile ?? REPORT), 'utf8').catch(() => '');
      results = parseJunit(xml, runner === 'pytest' ? pytestId : nodeTestId);
      break;
    }
    case 'go-test-json':
      results = parseGoTestJson(output);
      break;
    case 'cargo-test-text':
      results = parseCargoTest(output);
      break;
  }
  return { runner, exitCode, results, output };
}

/** The virtualenv a Python repository's CI installs into, inside the checkout (kept out of git by its .gitignore). */
export const VENV = '.venv';

const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );

/**
 * Runs a repository's install step in its checkout as its CI does: with the network and the host's own registry
 * configuration (the simulator's CI stands in for GitHub's hosted runners, which reach the registries).
 */
export async function installDependencies(install: string, cwd: string, timeoutMs = 600_000): Promise<void> {
  const { exitCode, output } = await run('sh', ['-c', install], cwd, hostEnv(), timeoutMs);
  // Both ends of the output: npm states the cause first and prints its usage after it.
  const shown = output.length > 3_000 ? `${output.slice(0, 1_500)}\n…\n${output.slice(-1_500)}` : output;
  if (exitCode !== 0) throw new Error(`${install} failed in ${cwd} (exit ${exitCode}): ${shown}`);
}

/** A repository's suite is the repository's code: it runs as a bounded command, its whole process group ended after. */
async function run(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ exitCode: number; output: string }> {
  const defined = Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  const result = await runBounded({
    argv: [command, ...args],
    cwd,
    env: defined,
    timeoutMs,
    maxOutputBytes: 64 * 1024 * 1024,
  });
  if (result.spawnError) throw new Error(`${command} could not be started in ${cwd}: ${result.spawnError.message}`);
  return {
    exitCode: result.exitCode ?? (result.signal ? 128 : 1),
    output: Buffer.concat([result.stdout, result.stderr]).toString('utf8'),
  };
}

// ---- report readers -------------------------------------------------------------------------

function decodeXml(value: string): string {
  return value.replace(/&(lt|gt|amp|quot|apos|#x[0-9a-fA-F]+|#[0-9]+);/g, (_, entity: string) => {
    switch (entity) {
      case 'lt':
        return '<';
      case 'gt':
        return '>';
      case 'amp':
        return '&';
      case 'quot':
        return '"';
      case 'apos':
        return "'";
      default:
        return String.fromCodePoint(
          entity.startsWith('#x') ? Number.parseInt(entity.slice(2), 16) : Number.parseInt(entity.slice(1), 10),
        );
    }
  });
}

function attributes(source: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of source.matchAll(/([A-Za-z_][\w:.-]*)\s*=\s*"([^"]*)"/g))
    found.set(match[1] ?? '', decodeXml(match[2] ?? ''));
  return found;
}

/** How a JUnit testcase becomes an id: from the enclosing testsuite names, its classname and its name. */
export type JunitIdOf = (suites: readonly string[], classname: string, name: string) => string;

export const nodeTestId: JunitIdOf = (suites, _classname, name) => [...suites, name].join(' > ');

/** pytest writes `tests/test_x.py::test_y` as classname `tests.test_x`, name `test_y` (module-level tests). */
export const pytestId: JunitIdOf = (_suites, classname, name) => `${classname.replace(/\./g, '/')}.py::${name}`;

/**
 * Reads JUnit XML as node's junit reporter and pytest write it. Suites nest (node writes one per
 * describe); pytest's single root suite named "pytest" is not part of any id.
 */
export function parseJunit(xml: string, idOf: JunitIdOf): TestResult[] {
  const results: TestResult[] = [];
  const suites: string[] = [];
  let open: { id: string; status: TestStatus } | null = null;
  for (const match of xml.matchAll(/<(\/?)(testsuite|testcase|failure|error|skipped)\b([^>]*?)(\/?)>/g)) {
    const [, closing, tag, rest = '', selfClosing] = match;
    if (tag === 'testsuite') {
      if (closing) suites.pop();
      else if (!selfClosing) {
        const name = attributes(rest).get('name') ?? '';
        suites.push(name);
      }
    } else if (tag === 'testcase') {
      if (closing) {
        if (open) results.push(open);
        open = null;
      } else {
        const found = attributes(rest);
        const named = suites.filter((suite, index) => !(index === 0 && suite === 'pytest'));
        const testcase = {
          id: idOf(named, found.get('classname') ?? '', found.get('name') ?? ''),
          status: 'pass' as TestStatus,
        };
        if (selfClosing) results.push(testcase);
        else open = testcase;
      }
    } else if (open && !closing) {
      open.status = tag === 'skipped' ? 'skip' : tag === 'error' ? 'error' : 'fail';
    }
  }
  return results;
}

/** Reads `go test -json` output: the last pass/fail/skip action of each test of each package. */
export function parseGoTestJson(output: string): TestResult[] {
  const outcomes = new Map<string, TestStatus>();
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    let event: { Action?: string; Package?: string; Test?: string };
    try {
      event = JSON.parse(line) as typeof event;
    } catch {
      continue;
    }
    if (event.Test === undefined || event.Package === undefined) continue;
    const status: TestStatus | null =
      event.Action === 'pass' ? 'pass' : event.Action === 'fail' ? 'fail' : event.Action === 'skip' ? 'skip' : null;
    if (status !== null) outcomes.set(`${event.Package}::${event.Test}`, status);
  }
  return [...outcomes].map(([id, status]) => ({ id, status }));
}

/** Reads libtest's text output with cargo's "Running <path>" and "Doc-tests <crate>" headers. */
export function parseCargoTest(output: string): TestResult[] {
  const results: TestResult[] = [];
  let target = 'unknown';
  for (const line of output.split('\n')) {
    const running = /^\s*Running (?:unittests )?(\S+)/.exec(line);
    if (running) {
      target = running[1] ?? 'unknown';
      continue;
    }
    const doc = /^\s*Doc-tests (\S+)/.exec(line);
    if (doc) {
      target = `doc-tests/${doc[1] ?? ''}`;
      continue;
    }
    const test = /^test (.+?) \.\.\. (ok|FAILED|ignored)\b/.exec(line);
    if (test)
      results.push({
        id: `${target}::${test[1] ?? ''}`,
        status: test[2] === 'ok' ? 'pass' : test[2] === 'FAILED' ? 'fail' : 'skip',
      });
  }
  return results;
}
