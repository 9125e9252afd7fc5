// Owns the abp-task/v1 verification commands of a frozen task: the recipe's test command narrowed to
// the FAIL_TO_PASS tests where the runner can be told which tests to run (their files, packages or targets, as
// the runner-native ids name them: docs/test-ids.md), and the full command for
// PASS_TO_PASS. Commands are one-line strings parseCommandLine splits without a shell. The expected
// test ids travel with the held-out part, so a command may run more tests than its set names.

import { parseCommandLine } from '@abp/grader/verification';
import { OPTIONS_WITH_VALUE, planRunner, positionals } from '@abp/grader/verification';

export interface VerificationCommands {
  failToPass: string[];
  passToPass: string[];
}

interface NarrowInput {
  argv: readonly string[];
  failToPass: readonly string[];
  heldOutFiles: ReadonlyArray<{ path: string; content: Buffer }>;
}

export function verificationCommands(input: {
  test: string;
  failToPass: readonly string[];
  heldOutFiles: ReadonlyArray<{ path: string; content: Buffer }>;
}): VerificationCommands {
  const { env, argv } = parseCommandLine(input.test);
  const narrow = { argv, failToPass: input.failToPass, heldOutFiles: input.heldOutFiles };
  let narrowed: string[] | null;
  // The plan is only read for the runner's name; the report folder it would use does not matter.
  switch (planRunner(argv, '/abp-report').runner) {
    case 'pytest':
      narrowed = narrowPytest(narrow);
      break;
    case 'node-test':
      narrowed = narrowNodeTest(narrow);
      break;
    case 'go-test':
      narrowed = narrowGoTest(narrow);
      break;
    case 'cargo-test':
      narrowed = narrowCargoTest(narrow);
      break;
    case 'vitest':
      narrowed = narrowJestLike(narrow, ' > ');
      break;
    case 'jest':
      narrowed = narrowJestLike(narrow, ' › ');
      break;
    case 'node-tap':
      narrowed = narrowNodeTap(narrow);
      break;
    case 'jasmine':
      narrowed = narrowJasmine(narrow);
      break;
    case 'bun-test':
      narrowed = narrowBunTest(narrow);
      break;
    case 'mocha':
    case 'maven-surefire':
    case 'ava':
    case 'tape':
    case 'qunit':
    case 'ctest':
    case 'lab':
    case 'plain':
      // Not narrowed: Surefire's -Dtest wants class names that junit ids do not reliably give; mocha's --grep matches
      // titles, not the file-and-title ids its xunit report gives; CTest's ids name no source file, and every test
      // runs from one build anyway. tape's and QUnit's ids name no file, and ava names
      // files relative to the folder all the files it runs share, or not at all for one file: narrowed, the same test
      // would get another id. lab's ids are titles alone.
      narrowed = null;
      break;
  }
  if (narrowed === null) {
    // One full run yields both result sets; listing it under passToPass too would repeat it.
    return { failToPass: [input.test], passToPass: [] };
  }
  // The program is quoted if it holds "=": unquoted, it would read as one more NAME=value word.
  const [program = '', ...args] = narrowed;
  const words = [
    ...Object.entries(env).map(([name, value]) => `${name}=${quoteWord(value)}`),
    quoteWord(program, program.includes('=')),
    ...args.map((arg) => quoteWord(arg)),
  ];
  return { failToPass: [words.join(' ')], passToPass: [input.test] };
}

/** A word parseCommandLine reads back unchanged. */
function quoteWord(word: string, always = false): string {
  if (!always && /^[A-Za-z0-9_@%+,./:=-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

// ---- pytest: the held-out files holding the tests ----

function narrowPytest({ argv, failToPass, heldOutFiles }: NarrowInput): string[] | null {
  const start = argv[1] === '-m' ? 3 : 1;
  if (hasPositional(argv.slice(start), OPTIONS_WITH_VALUE.pytest)) return null;
  // Node ids start with the test's file. Whole files rather than the ids: a parameter may hold what pytest's own
  // argument parsing splits on, and the expected ids are judged one by one anyway.
  const files = leadingFiles(failToPass, '::', heldOutFiles);
  return files === null ? null : [...argv, ...files];
}

// ---- node --test: the held-out files that define the tests ----

function narrowNodeTest({ argv, failToPass, heldOutFiles }: NarrowInput): string[] | null {
  if (hasPositional(argv.slice(1), OPTIONS_WITH_VALUE['node-test'])) return null;
  const files = new Set<string>();
  for (const id of failToPass) {
    // Newer Node reporters prefix the file ("test/a.test.js::suite › name"); Node 20 names only suites and test.
    const separator = id.indexOf('::');
    if (separator !== -1 && heldOutFiles.some((file) => file.path === id.slice(0, separator))) {
      files.add(id.slice(0, separator));
      continue;
    }
    const title = id.split(' › ').pop() ?? id;
    const literals = ["'", '"', '`'].map((quote) => `${quote}${title}${quote}`);
    const holding = heldOutFiles.filter(
      (file) => /\.[cm]?[jt]sx?$/.test(file.path) && literals.some((literal) => file.content.includes(literal)),
    );
    if (holding.length === 0) return null;
    for (const file of holding) files.add(file.path);
  }
  return [...argv, ...sorted(files)];
}

// ---- vitest and jest: the held-out files the ids begin with ----

function narrowJestLike({ argv, failToPass, heldOutFiles }: NarrowInput, separator: string): string[] | null {
  const bin = argv.findIndex((arg) => /(^|\/)(jest|vitest)$/.test(arg));
  const after = argv.slice(bin + 1).filter((arg, index) => !(index === 0 && arg === 'run'));
  if (bin === -1 || hasPositional(after, OPTIONS_WITH_VALUE['jest-like'])) return null;
  const files = leadingFiles(failToPass, separator, heldOutFiles);
  return files === null ? null : [...argv, ...files];
}

// ---- node-tap: the held-out files the ids begin with ----

function narrowNodeTap({ argv, failToPass, heldOutFiles }: NarrowInput): string[] | null {
  const bin = argv.findIndex((arg) => /(^|\/)tap$/.test(arg));
  // node-tap 18 and later take a `run` subcommand before the files.
  const after = argv.slice(bin + 1).filter((arg, index) => !(index === 0 && arg === 'run'));
  if (bin === -1 || hasPositional(after, OPTIONS_WITH_VALUE['node-tap'])) return null;
  // Ids are "<file as given to tap> > <subtest> > …": each file is node-tap's top-level subtest, named by its path.
  const files = leadingFiles(failToPass, ' > ', heldOutFiles);
  return files === null ? null : [...argv, ...files];
}

// ---- jasmine and bun test: the held-out files the ids begin with ----

function narrowJasmine({ argv, failToPass, heldOutFiles }: NarrowInput): string[] | null {
  const bin = argv.findIndex((arg) => /(^|\/)jasmine$/.test(arg));
  // jasmine's options take their values after `=`: any other word already names the files to run.
  if (bin === -1 || hasPositional(argv.slice(bin + 1), OPTIONS_WITH_VALUE.jasmine)) return null;
  const files = leadingFiles(failToPass, ' > ', heldOutFiles);
  return files === null ? null : [...argv, ...files];
}

function narrowBunTest({ argv, failToPass, heldOutFiles }: NarrowInput): string[] | null {
  const at = argv.indexOf('test');
  if (at === -1 || hasPositional(argv.slice(at + 1), OPTIONS_WITH_VALUE['bun-test'])) return null;
  const files = leadingFiles(failToPass, ' > ', heldOutFiles);
  // bun takes a bare word as a filter on paths (`a.test.ts` runs `lib/a.test.ts` too); `./` makes it the file.
  return files === null ? null : [...argv, ...files.map((file) => `./${file}`)];
}

// ---- go test: -run with the top-level test names ----

const GO_TEST_NAME = /^(?:Test|Example|Fuzz)(?![a-z])/;

function narrowGoTest({ argv, failToPass }: NarrowInput): string[] | null {
  if (argv.some((arg) => /^--?run(=|$)/.test(arg) || arg === '-args')) return null;
  const names = new Set<string>();
  for (const id of failToPass) {
    // Ids are "<import path>::<Test>[/<subtest>…]": -run takes the top-level function.
    const separator = id.indexOf('::');
    const name = separator === -1 ? undefined : id.slice(separator + 2).split('/', 1)[0];
    if (name === undefined || !GO_TEST_NAME.test(name)) return null;
    names.add(name);
  }
  return [...argv.slice(0, 2), '-run', `^(${sorted(names).join('|')})$`, ...argv.slice(2)];
}

// ---- cargo test: --test with the integration test targets that define the tests ----

const CARGO_TARGET_OPTIONS = /^--(?:test|tests|lib|bin|bins|example|examples|bench|benches|doc|all-targets)(?:=|$)/;

function narrowCargoTest({ argv, failToPass }: NarrowInput): string[] | null {
  const separator = argv.indexOf('--');
  const cargoArgs = separator === -1 ? argv : argv.slice(0, separator);
  if (cargoArgs.some((arg) => CARGO_TARGET_OPTIONS.test(arg))) return null;
  const targets = new Set<string>();
  for (const id of failToPass) {
    // Ids are "<target source>::<libtest name>"; only the root's tests/<name>.rs are targets --test can name.
    const target = /^tests\/([^/]+?)(?:\.rs|\/main\.rs)::/.exec(id)?.[1];
    if (target === undefined) return null;
    targets.add(target);
  }
  const targetArgs = sorted(targets).flatMap((target) => ['--test', target]);
  return separator === -1 ? [...argv, ...targetArgs] : [...cargoArgs, ...targetArgs, ...argv.slice(separator)];
}

// ---- shared ----

/** The held-out files the ids begin with (before `separator`), sorted; null when an id begins with none of them. */
function leadingFiles(
  ids: readonly string[],
  separator: string,
  heldOutFiles: NarrowInput['heldOutFiles'],
): string[] | null {
  const files = new Set<string>();
  for (const id of ids) {
    const file = id.split(separator, 1)[0] ?? id;
    if (!heldOutFiles.some((held) => held.path === file)) return null;
    files.add(file);
  }
  return sorted(files);
}

/** Whether `args` hold a word that is neither an option nor an option's value (a path or a test filter). */
function sorted(values: Iterable<string>): string[] {
  return [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

function hasPositional(args: readonly string[], optionsWithValue: ReadonlySet<string>): boolean {
  return positionals(args, optionsWithValue).length > 0;
}
