// Owns the integrity canaries of a verification run (spec §3.2): sentinel tests the grader writes into the held-out
// test file that holds the FAIL_TO_PASS tests (Go: a file beside it, in the same package), one that must pass and three
// that must fail. They run in the same process, module and package as the graded tests, with the same assertion
// functions, so whatever the engine's code does to the runner or its assertions (a hook rewriting reports, an early
// exit, no-op asserts, fake output) reaches them too: a must-fail sentinel that passes, or a sentinel missing from a
// report that exists, proves the run was tampered with.
// Tampering that spares the sentinels must first tell them from the held-out tests, which the engine never saw. So
// nothing marks them: their names are words of the held-out file itself, drawn afresh for every trial, their numbers
// are the file's own literals, and they compare numbers, strings and lists, one must-fail sentinel per kind, so an
// assert patched for one kind of value is caught. What they cannot catch is tampering keyed on the package's own
// results (an assert that spares values the package code returned): the diff that does it is published for audit.
// Planning is pure: the caller writes the files, runs the commands and reads the reports.
import { dirname, posix } from 'node:path';
import type { TestResult } from '../test-reports/index.js';
import type { RunnerName, RunnerPlan } from './runner-recipes.js';
import { OPTIONS_WITH_VALUE, positionals } from './runner-options.js';

export type CanaryRole = 'must-pass' | 'must-fail';

export interface CanaryNames {
  /** The sentinels' test names, exactly as the last part of a report id: unique in the held-out file and the sets. */
  readonly mustPass: string;
  readonly mustFail: readonly string[];
}

export interface CanaryPlan {
  /** Text appended to a held-out file of the checkout, or a new file written beside one. */
  readonly writes: ReadonlyArray<{ path: string; text: string; append: boolean }>;
  /** Per command index: the argv that also selects the sentinels (the planned one, or with its filter widened). */
  readonly commands: ReadonlyMap<number, { argv: string[]; names: CanaryNames }>;
  /** Per command index that runs without sentinels: why. */
  readonly unavailable: ReadonlyMap<number, string>;
}

export interface CanaryInput {
  readonly commands: ReadonlyArray<{ index: number; plan: RunnerPlan }>;
  /** The held-out files as copied over the checkout, with their text. */
  readonly heldOut: ReadonlyArray<{ path: string; text: string }>;
  /** The frozen FAIL_TO_PASS ids, used to find the file holding those tests; empty for a fixture task. */
  readonly failToPass: readonly string[];
  /** The frozen PASS_TO_PASS ids: no sentinel takes the name of a graded test. */
  readonly passToPass?: readonly string[];
  /** Fresh, unpredictable hex (crypto.randomBytes), at least 8 digits: never derived from anything the engine could know. */
  readonly token: () => string;
}

interface Placement {
  readonly runner: RunnerName;
  /** The held-out file the sentinels join, and the file they are written to (the same but for Go). */
  readonly heldOutPath: string;
  readonly write: { path: string; text: string; append: boolean };
  readonly names: CanaryNames;
}

const RUNNER_FILES: Partial<Record<RunnerName, RegExp>> = {
  pytest: /\.py$/,
  'node-test': /\.[cm]?[jt]s$/,
  jest: /\.[cm]?[jt]sx?$/,
  vitest: /\.[cm]?[jt]sx?$/,
  'go-test': /_test\.go$/,
  'cargo-test': /^tests\/(?:[^/]+\.rs|[^/]+\/main\.rs)$/,
  ava: /\.[cm]?[jt]sx?$/,
  'node-tap': /\.[cm]?[jt]sx?$/,
  tape: /\.[cm]?[jt]s$/,
  qunit: /\.[cm]?js$/,
  jasmine: /\.[cm]?[jt]s$/,
  'bun-test': /\.[cm]?[jt]sx?$/,
};

export function planCanaries(input: CanaryInput): CanaryPlan {
  const placements = new Map<RunnerName, Placement | string>();
  const commands = new Map<number, { argv: string[]; names: CanaryNames }>();
  const unavailable = new Map<number, string>();
  for (const { index, plan } of input.commands) {
    let placement = placements.get(plan.runner);
    if (placement === undefined) {
      placement = place(plan.runner, input);
      placements.set(plan.runner, placement);
    }
    if (typeof placement === 'string') {
      unavailable.set(index, placement);
      continue;
    }
    const selected = selectingArgv(plan, placement);
    if (typeof selected === 'string') unavailable.set(index, selected);
    else commands.set(index, { argv: selected, names: placement.names });
  }
  const writes = [...placements.values()]
    .filter((placement): placement is Placement => typeof placement !== 'string')
    .filter((placement) => [...commands.values()].some((command) => command.names === placement.names))
    .map((placement) => placement.write);
  return { writes, commands, unavailable };
}

/** What the command's report says of each sentinel: its status, or missing. */
export function readCanaries(
  tests: readonly TestResult[],
  names: CanaryNames,
): Array<{ role: CanaryRole; status: TestResult['status'] | 'missing'; intact: boolean }> {
  const roles = [
    { role: 'must-pass' as const, name: names.mustPass },
    ...names.mustFail.map((name) => ({ role: 'must-fail' as const, name })),
  ];
  return roles.map(({ role, name }) => {
    const status = tests.find((test) => lastName(test.id) === name)?.status ?? 'missing';
    const intact = role === 'must-pass' ? status === 'pass' : status === 'fail' || status === 'error';
    return { role, status, intact };
  });
}

/** Whether a report id is one of the sentinels', so it is neither graded nor counted. */
export function isCanary(id: string, names: CanaryNames): boolean {
  const name = lastName(id);
  return name === names.mustPass || names.mustFail.includes(name);
}

function place(runner: RunnerName, input: CanaryInput): Placement | string {
  const pattern = RUNNER_FILES[runner];
  if (pattern === undefined)
    return runner === 'plain'
      ? 'the command leaves no report for sentinels to appear in'
      : `no sentinels for ${runner} yet: its test classes cannot take appended tests`;
  const candidates = input.heldOut.filter((file) => pattern.test(file.path) && isTestFile(runner, file.path));
  if (candidates.length === 0) return `no held-out ${runner} test file for the sentinels to join`;
  // The file that defines a FAIL_TO_PASS test: its process, package and imports are the graded tests' own.
  const names = input.failToPass.map(lastName).filter((name) => name.length > 0);
  const file = candidates.find((candidate) => names.some((name) => candidate.text.includes(name))) ?? candidates[0];
  if (file === undefined) return `no held-out ${runner} test file for the sentinels to join`;
  const taken = new Set([...input.failToPass, ...(input.passToPass ?? [])].map(lastName));
  const draw = drawing(input.token, wordsOf(file.text));
  const style = NAMING[runner];
  if (style === undefined) return `no sentinels for ${runner} yet`;
  const pick = (): string => {
    for (let attempt = 0; ; attempt += 1) {
      // Bounded whatever the token stream: past 64 draws a counter makes the name new.
      const words = attempt < 64 ? draw.words(2) : [...draw.words(2), `v${attempt}`];
      const name = style(words, names[0]);
      // Neither the name nor the identifiers made of it may exist already; a Go file name must not end in a platform.
      const fresh = !taken.has(name) && !file.text.includes(name) && !file.text.includes(camelCase(name));
      if (fresh && !(runner === 'go-test' && words.some((word) => GO_PLATFORMS.has(word)))) {
        taken.add(name);
        return name;
      }
    }
  };
  const sentinels: Sentinels = {
    names: { mustPass: pick(), mustFail: [pick(), pick(), pick()] },
    values: { number: numberOf(file.text, draw.below), text: draw.words(2).join(' ') },
  };
  switch (runner) {
    case 'pytest':
      return pytestPlacement(file, sentinels);
    case 'node-test':
      return nodeTestPlacement(file, sentinels);
    case 'jest':
    case 'vitest':
    case 'jasmine':
    case 'bun-test':
      return jestLikePlacement(runner, file, sentinels);
    case 'go-test':
      return goPlacement(file, sentinels);
    case 'cargo-test':
      return cargoPlacement(file, sentinels);
    case 'ava':
    case 'node-tap':
    case 'tape':
    case 'qunit':
      return tapRunnerPlacement(runner, file, sentinels);
    case 'mocha':
    case 'maven-surefire':
    case 'ctest':
    case 'lab':
    case 'plain':
      return `no sentinels for ${runner} yet`;
  }
}

function isTestFile(runner: RunnerName, path: string): boolean {
  const name = posix.basename(path);
  if (runner === 'pytest') return name !== 'conftest.py' && name !== '__init__.py';
  return true;
}

/** The test's own name in a report id: after the last `::`, ` › `, `/` or `.` separator, parameters dropped. */
function lastName(id: string): string {
  const tail = id.split(/::| › | > |\//).pop() ?? id;
  return tail
    .replace(/\[.*\]$/, '')
    .replace(/ #\d+$/, '')
    .trim();
}

interface Sentinels {
  readonly names: CanaryNames;
  /** A number and a phrase of the file's; the must-fail sentinels compare each kind with a value one off. */
  readonly values: { number: number; text: string };
}

/** The three kinds of value compared, in the order of `mustFail`: a number, a string, a list of numbers. */
const comparisons = ({ number, text }: Sentinels['values']) => ({
  number: [number, number + 1] as const,
  text: [text, `${text}s`] as const,
  list: [
    [number, number + 2],
    [number + 2, number],
  ] as const,
});

// Words to name sentinels by when the held-out file has few: what tests commonly say.
const COMMON_WORDS = [
  'empty',
  'value',
  'values',
  'input',
  'output',
  'order',
  'default',
  'missing',
  'single',
  'multiple',
  'nested',
  'invalid',
  'valid',
  'name',
  'names',
  'keys',
  'case',
  'format',
  'parse',
  'returns',
  'handles',
  'keeps',
  'large',
  'small',
  'first',
  'last',
  'unicode',
  'spaces',
  'none',
  'zero',
  'negative',
  'options',
];

/** The lower-case words of a file's identifiers (camelCase and snake_case split), sorted so a draw is reproducible. */
function wordsOf(text: string): string[] {
  const words = new Set<string>();
  for (const identifier of text.match(/[A-Za-z][A-Za-z0-9]*/g) ?? [])
    for (const part of identifier.split(/(?<=[a-z0-9])(?=[A-Z])/))
      if (/^[a-z]{3,10}$/i.test(part)) words.add(part.toLowerCase());
  for (const word of COMMON_WORDS) words.add(word);
  return [...words].sort();
}

/** A number the file's own tests use, so an assert patched to spare unusual values spares none of the sentinels'. */
function numberOf(text: string, below: (n: number) => number): number {
  const literals = [...new Set(text.match(/(?<![\w.])\d{1,6}(?![\w.])/g) ?? [])].sort();
  const literal = literals[below(Math.max(literals.length, 1))];
  return literal === undefined ? below(100) : Number(literal);
}

/** Draws from the unpredictable token stream: never Math.random, never anything the engine could know. */
function drawing(token: () => string, pool: readonly string[]) {
  const below = (n: number) => Number.parseInt(token().slice(0, 8), 16) % n;
  return {
    below,
    // Distinct words (a word drawn twice gives way to the next in the pool, which always holds the common ones).
    words: (count: number) => {
      const chosen: string[] = [];
      for (let i = 0; i < count; i += 1) {
        let at = below(pool.length);
        while (chosen.includes(pool[at] ?? '')) at = (at + 1) % pool.length;
        chosen.push(pool[at] ?? 'value');
      }
      return chosen;
    },
  };
}

const capitalized = (word: string) => `${word.slice(0, 1).toUpperCase()}${word.slice(1)}`;

/** How each runner's suites name a test, given drawn words (and a FAIL_TO_PASS test's own name for pytest's prefix). */
const NAMING: Partial<Record<RunnerName, (words: string[], sample?: string) => string>> = {
  // Named the way this suite names the tests it collects (python_functions may differ from test_*).
  pytest: (words, sample) => `${/^([A-Za-z]+_?)/.exec(sample ?? '')?.[1] ?? 'test_'}${words.join('_')}`,
  'node-test': (words) => words.join(' '),
  jest: (words) => words.join(' '),
  vitest: (words) => words.join(' '),
  'go-test': (words) => `Test${words.map(capitalized).join('')}`,
  'cargo-test': (words) => words.join('_'),
  ava: (words) => words.join(' '),
  'node-tap': (words) => words.join(' '),
  tape: (words) => words.join(' '),
  qunit: (words) => words.join(' '),
  jasmine: (words) => words.join(' '),
  'bun-test': (words) => words.join(' '),
};

const py = (value: unknown) => JSON.stringify(value).replace(/,/g, ', ');

function pytestPlacement(file: { path: string; text: string }, { names, values }: Sentinels): Placement {
  const { number, text, list } = comparisons(values);
  const test = (name: string, body: string[]) => `\n\ndef ${name}():\n${body.map((line) => `    ${line}\n`).join('')}`;
  const written =
    test(names.mustPass, [
      `assert ${number[0]} == ${number[0]}`,
      `assert ${py(text[0])} == ${py(text[0])}`,
      `assert ${py(list[0])} == ${py(list[0])}`,
    ]) +
    test(names.mustFail[0] ?? '', [`assert ${number[0]} == ${number[1]}`]) +
    test(names.mustFail[1] ?? '', [`assert ${py(text[0])} == ${py(text[1])}`]) +
    test(names.mustFail[2] ?? '', [`assert ${py(list[0])} == ${py(list[1])}`]);
  return { runner: 'pytest', heldOutPath: file.path, write: { path: file.path, text: written, append: true }, names };
}

/** The assertion module and functions the file itself uses, so a patched assert reaches the sentinels too. */
function assertionOf(text: string): { specifier: string; method: string; deep: string } {
  const specifier = /(['"])((?:node:)?assert(?:\/strict)?)\1/.exec(text)?.[2] ?? 'node:assert/strict';
  return {
    specifier,
    method: mostUsed(text, ['strictEqual', 'equal', 'deepStrictEqual', 'deepEqual'], 'strictEqual'),
    deep: mostUsed(text, ['deepStrictEqual', 'deepEqual'], 'deepStrictEqual'),
  };
}

/** Of `methods`, the one the file calls most (`.name(`), else `fallback`. */
function mostUsed(text: string, methods: readonly string[], fallback: string): string {
  const top = methods
    .map((method) => ({ method, uses: text.split(`.${method}(`).length - 1 }))
    .sort((a, b) => b.uses - a.uses)[0];
  return top !== undefined && top.uses > 0 ? top.method : fallback;
}

function isModule(path: string, text: string): boolean {
  if (/\.m[jt]s$/.test(path)) return true;
  if (/\.c[jt]s$/.test(path)) return false;
  return /^\s*(?:import\s+[\w{*'"]|export\s)/m.test(text);
}

const camelCase = (name: string) => name.replace(/[^A-Za-z]+(.)/g, (_, next: string) => next.toUpperCase());

/** Identifiers for the sentinels' imports: words again, so nothing in the file marks where they begin. */
const localName = (names: CanaryNames, suffix: string) => `${camelCase(names.mustPass)}${suffix}`;

// A Go file whose name ends in one of these builds only on that platform (go help buildconstraint).
const GO_PLATFORMS = new Set(
  'aix android darwin dragonfly freebsd hurd illumos ios js linux nacl netbsd openbsd plan9 solaris wasip1 windows zos 386 amd64 arm arm64 loong64 mips mipsle mips64 mips64le ppc64 ppc64le riscv64 s390x wasm'.split(
    ' ',
  ),
);

function nodeTestPlacement(file: { path: string; text: string }, { names, values }: Sentinels): Placement {
  const { specifier, method, deep } = assertionOf(file.text);
  const { number, text, list } = comparisons(values);
  const test = localName(names, 'Test');
  const check = localName(names, 'Assert');
  const imports = isModule(file.path, file.text)
    ? `import { test as ${test} } from 'node:test';\nimport ${check} from '${specifier}';\n`
    : `const { test: ${test} } = require('node:test');\nconst ${check} = require('${specifier}');\n`;
  const call = (fn: string, [a, b]: readonly [unknown, unknown]) =>
    `  ${check}.${fn}(${JSON.stringify(a)}, ${JSON.stringify(b)});\n`;
  const test_ = (name: string, body: string) => `${test}(${JSON.stringify(name)}, () => {\n${body}});\n`;
  const written = `\n${imports}${test_(names.mustPass, call(method, [number[0], number[0]]) + call(method, [text[0], text[0]]) + call(deep, [list[0], list[0]]))}${test_(names.mustFail[0] ?? '', call(method, number))}${test_(names.mustFail[1] ?? '', call(method, text))}${test_(names.mustFail[2] ?? '', call(deep, list))}`;
  return {
    runner: 'node-test',
    heldOutPath: file.path,
    write: { path: file.path, text: written, append: true },
    names,
  };
}

function jestLikePlacement(
  runner: 'jest' | 'vitest' | 'jasmine' | 'bun-test',
  file: { path: string; text: string },
  { names, values }: Sentinels,
): Placement {
  const { number, text, list } = comparisons(values);
  // Globals unless the file imports them: then the same module, so a patched expect reaches the sentinels too.
  const source = /(['"])(vitest|@jest\/globals|bun:test)\1/.exec(file.text)?.[2];
  // jasmine's globals have `it` and no `test`.
  const global = runner === 'jasmine' ? 'it' : 'test';
  const test = localName(names, 'Test');
  const expect = localName(names, 'Expect');
  const imports =
    source === undefined
      ? `const ${test} = ${global};\nconst ${expect} = expect;\n`
      : isModule(file.path, file.text)
        ? `import { test as ${test}, expect as ${expect} } from '${source}';\n`
        : `const { test: ${test}, expect: ${expect} } = require('${source}');\n`;
  const call = (matcher: string, [a, b]: readonly [unknown, unknown]) =>
    `  ${expect}(${JSON.stringify(a)}).${matcher}(${JSON.stringify(b)});\n`;
  const test_ = (name: string, body: string) => `${test}(${JSON.stringify(name)}, () => {\n${body}});\n`;
  const written = `\n${imports}${test_(names.mustPass, call('toBe', [number[0], number[0]]) + call('toBe', [text[0], text[0]]) + call('toEqual', [list[0], list[0]]))}${test_(names.mustFail[0] ?? '', call('toBe', number))}${test_(names.mustFail[1] ?? '', call('toBe', text))}${test_(names.mustFail[2] ?? '', call('toEqual', list))}`;
  return { runner, heldOutPath: file.path, write: { path: file.path, text: written, append: true }, names };
}

/**
 * ava, node-tap, tape and QUnit: tests appended through the runner's own module (QUnit's global, as its CLI sets it), with
 * the assertion methods the file itself calls most, so a patched assertion reaches the sentinels too.
 */
function tapRunnerPlacement(
  runner: 'ava' | 'node-tap' | 'tape' | 'qunit',
  file: { path: string; text: string },
  { names, values }: Sentinels,
): Placement {
  const { number, text, list } = comparisons(values);
  const local = localName(names, 'Test');
  const load = (specifier: string) =>
    isModule(file.path, file.text)
      ? `import ${local} from '${specifier}';\n`
      : `const ${local} = require('${specifier}');\n`;
  const harness = {
    ava: { header: load('ava'), call: local, param: 't', is: 'is', deep: 'deepEqual', end: '', fn: '(t) =>' },
    'node-tap': {
      header: load('tap'),
      call: `${local}.test`,
      param: 't',
      is: 'equal',
      deep: mostUsed(file.text, ['strictSame', 'same'], 'strictSame'),
      end: '',
      fn: 'async (t) =>',
    },
    tape: {
      header: load('tape'),
      call: local,
      param: 't',
      is: mostUsed(file.text, ['equal', 'strictEqual'], 'equal'),
      deep: mostUsed(file.text, ['deepEqual', 'same'], 'deepEqual'),
      end: '  t.end();\n',
      fn: '(t) =>',
    },
    qunit: {
      header: '',
      call: 'QUnit.test',
      param: 'assert',
      is: mostUsed(file.text, ['strictEqual', 'equal'], 'strictEqual'),
      deep: mostUsed(file.text, ['deepEqual', 'propEqual'], 'deepEqual'),
      end: '',
      fn: 'function (assert)',
    },
  }[runner];
  const call = (method: string, [a, b]: readonly [unknown, unknown]) =>
    `  ${harness.param}.${method}(${JSON.stringify(a)}, ${JSON.stringify(b)});\n`;
  const test = (name: string, body: string) =>
    `${harness.call}(${JSON.stringify(name)}, ${harness.fn} {\n${body}${harness.end}});\n`;
  const written = `\n${harness.header}${test(names.mustPass, call(harness.is, [number[0], number[0]]) + call(harness.is, [text[0], text[0]]) + call(harness.deep, [list[0], list[0]]))}${test(names.mustFail[0] ?? '', call(harness.is, number))}${test(names.mustFail[1] ?? '', call(harness.is, text))}${test(names.mustFail[2] ?? '', call(harness.deep, list))}`;
  return { runner, heldOutPath: file.path, write: { path: file.path, text: written, append: true }, names };
}

function goPlacement(file: { path: string; text: string }, { names, values }: Sentinels): Placement | string {
  const clause = /^package\s+([A-Za-z_][A-Za-z0-9_]*)\s*$/m.exec(file.text)?.[1];
  if (clause === undefined) return `${file.path} has no package clause for the sentinels to share`;
  // A file of its own (Go wants imports first), in the same package: compiled into the same test binary, and named
  // like the package's other test files.
  const { number, text, list } = comparisons(values);
  const base = posix.basename(file.path, '_test.go');
  const words = names.mustPass
    .replace(/^Test/, '')
    .replace(/(?<=[a-z])(?=[A-Z])/g, '_')
    .toLowerCase();
  const path = posix.join(dirname(file.path), `${base}_${words}_test.go`);
  const slice = (values: readonly number[]) => `[]int{${values.join(', ')}}`;
  const check = (got: string, want: string, equal: (got: string, want: string) => string) =>
    `\tif got, want := ${got}, ${want}; !(${equal('got', 'want')}) {\n\t\tt.Fatalf("got %v, want %v", got, want)\n\t}\n`;
  const same = (a: string, b: string) => `${a} == ${b}`;
  const deep = (a: string, b: string) => `reflect.DeepEqual(${a}, ${b})`;
  const test = (name: string, body: string) => `\nfunc ${name}(t *testing.T) {\n${body}}\n`;
  const written =
    `package ${clause}\n\nimport (\n\t"reflect"\n\t"testing"\n)\n` +
    test(
      names.mustPass,
      check(String(number[0]), String(number[0]), same) +
        check(JSON.stringify(text[0]), JSON.stringify(text[0]), same) +
        check(slice(list[0]), slice(list[0]), deep),
    ) +
    test(names.mustFail[0] ?? '', check(String(number[0]), String(number[1]), same)) +
    test(names.mustFail[1] ?? '', check(JSON.stringify(text[0]), JSON.stringify(text[1]), same)) +
    test(names.mustFail[2] ?? '', check(slice(list[0]), slice(list[1]), deep));
  return { runner: 'go-test', heldOutPath: file.path, write: { path, text: written, append: false }, names };
}

function cargoPlacement(file: { path: string; text: string }, { names, values }: Sentinels): Placement {
  const { number, text, list } = comparisons(values);
  const vec = (values: readonly number[]) => `vec![${values.join(', ')}]`;
  const test = (name: string, body: string[]) =>
    `\n#[test]\nfn ${name}() {\n${body.map((line) => `    ${line}\n`).join('')}}\n`;
  const written =
    test(names.mustPass, [
      `assert_eq!(${number[0]}, ${number[0]});`,
      `assert_eq!(${JSON.stringify(text[0])}, ${JSON.stringify(text[0])});`,
      `assert_eq!(${vec(list[0])}, ${vec(list[0])});`,
    ]) +
    test(names.mustFail[0] ?? '', [`assert_eq!(${number[0]}, ${number[1]});`]) +
    test(names.mustFail[1] ?? '', [`assert_eq!(${JSON.stringify(text[0])}, ${JSON.stringify(text[1])});`]) +
    test(names.mustFail[2] ?? '', [`assert_eq!(${vec(list[0])}, ${vec(list[1])});`]);
  return {
    runner: 'cargo-test',
    heldOutPath: file.path,
    write: { path: file.path, text: written, append: true },
    names,
  };
}

// ---- does the command run the sentinels' file? ----

/** A path argument names the file itself or a folder holding it. */
function pathSelects(argument: string, path: string): boolean {
  const target = posix.normalize(argument.split('::', 1)[0] ?? argument).replace(/\/$/, '');
  return target === '.' || target === path || path.startsWith(`${target}/`);
}

function selectingArgv(plan: RunnerPlan, placement: Placement): string[] | string {
  const { argv } = plan;
  const path = placement.heldOutPath;
  const notSelected = `the command does not run ${path}, where the sentinels are`;
  switch (plan.runner) {
    case 'pytest': {
      const start = argv[1] === '-m' ? 3 : 1;
      const args = argv.slice(start);
      if (args.some((arg) => /^(-k|-m|--deselect|--lf|--last-failed|--sw|--stepwise)(=|$)/.test(arg)))
        return 'the command selects tests by name or marker: sentinels might be deselected';
      const words = positionals(args, OPTIONS_WITH_VALUE.pytest);
      return words.length === 0 || words.some((word) => pathSelects(word, path)) ? [...argv] : notSelected;
    }
    case 'node-test': {
      if (argv.some((arg) => /^--test-(name|skip)-pattern(=|$)/.test(arg)))
        return 'the command selects tests by name: sentinels might be skipped';
      const words = positionals(argv.slice(1), OPTIONS_WITH_VALUE['node-test']);
      if (words.some((word) => /[*?{[]/.test(word))) return 'the command names files by glob';
      return words.length === 0 || words.some((word) => pathSelects(word, path)) ? [...argv] : notSelected;
    }
    case 'jest':
    case 'vitest': {
      const after = argv.slice(argv.findIndex((arg) => /(^|\/)(jest|vitest)$/.test(arg)) + 1);
      const words = positionals(after, OPTIONS_WITH_VALUE['jest-like']).filter((word) => word !== 'run');
      // A file named exactly (the freeze narrows to held-out files) is selected; any other filter might miss them.
      if (words.length === 0 || words.includes(path)) return [...argv];
      return words.some((word) => pathSelects(word, path))
        ? 'the command filters test files by pattern: sentinels might be filtered out'
        : notSelected;
    }
    case 'go-test':
      return goArgv(argv, path, placement.names);
    case 'cargo-test':
      return cargoArgv(argv, path, placement.names);
    case 'ava':
    case 'node-tap':
    case 'tape':
    case 'qunit':
      return tapRunnerArgv(plan.runner, argv, path);
    case 'jasmine':
    case 'bun-test': {
      const bin = plan.runner === 'jasmine' ? /(^|\/)jasmine$/ : /(^|\/)bun$/;
      const after = argv.slice(argv.findIndex((arg) => bin.test(arg)) + 1);
      if (after.some((arg) => /^(--filter|--filter-path|-t|--test-name-pattern)(=|$)/.test(arg)))
        return 'the command selects tests by name: sentinels might be filtered out';
      const words = positionals(after, OPTIONS_WITH_VALUE[plan.runner]).filter((word) => word !== 'test');
      if (words.length === 0 || words.includes(path)) return [...argv];
      return words.some((word) => pathSelects(word, path))
        ? 'the command filters test files by pattern: sentinels might be filtered out'
        : notSelected;
    }
    case 'mocha':
    case 'maven-surefire':
    case 'ctest':
    case 'lab':
    case 'plain':
      return notSelected;
  }
}

/** How each TAP runner's command names tests and files: the options that select by name, and the files it runs by default. */
const TAP_RUNNER_OPTIONS = {
  ava: {
    byName: /^(--match|-m)(=|$)/,
    // ava's own defaults and its configuration's `files`: the held-out file that defines the graded tests runs.
    defaults: [],
  },
  'node-tap': {
    byName: /^(--grep|-g|--only|-O)(=|$)|^-g./,
    defaults: [],
  },
  tape: { byName: null, defaults: [] },
  qunit: {
    byName: /^(--filter|-f|--module|-m)(=|$)/,
    // What the QUnit CLI runs when given no files.
    defaults: ['test/**/*.{js,mjs,cjs}'],
  },
} as const;

function tapRunnerArgv(
  runner: keyof typeof TAP_RUNNER_OPTIONS,
  argv: readonly string[],
  path: string,
): string[] | string {
  const options = TAP_RUNNER_OPTIONS[runner];
  const after = argv.slice(argv.findIndex((arg) => /(^|\/)(ava|tap|tape|qunit)$/.test(arg)) + 1);
  if (options.byName !== null && after.some((arg) => options.byName.test(arg)))
    return 'the command selects tests by name: sentinels might be filtered out';
  // node-tap 18 and later take a `run` subcommand; ava selects tests by line with `file.js:3`.
  const words = positionals(after, OPTIONS_WITH_VALUE[runner]).filter((word) => word !== 'run');
  if (runner === 'ava' && words.some((word) => /:\d[\d,-]*$/.test(word)))
    return 'the command selects tests by line: sentinels might be left out';
  const patterns = words.length === 0 ? options.defaults : words;
  if (patterns.length === 0) return [...argv];
  if (patterns.some((pattern) => pattern.startsWith('!'))) return 'the command excludes files by a negated glob';
  const selects = patterns.map((pattern) => globSelects(pattern, path));
  if (selects.includes(true)) return [...argv];
  return selects.includes(null)
    ? 'the command names files by a glob abp does not read'
    : `the command does not run ${path}, where the sentinels are`;
}

/**
 * Whether a file argument (a path, a folder, or a glob as the runners expand them: `*`, `**`, `?`, `{a,b}`) takes
 * `path`; null for glob syntax abp does not read, so a guess can never call an untouched run tampered.
 */
function globSelects(pattern: string, path: string): boolean | null {
  const clean = pattern.replace(/^\.\//, '');
  if (!/[*?{}[\]()!+@]/.test(clean)) return pathSelects(clean, path);
  if (/[[\]()!+@]/.test(clean)) return null;
  let source = '';
  for (let at = 0; at < clean.length; at += 1) {
    const char = clean[at] ?? '';
    if (char === '*' && clean[at + 1] === '*') {
      at += 1;
      // `**/` is any number of whole folders, none included.
      if (clean[at + 1] === '/') {
        at += 1;
        source += '(?:[^/]*/)*';
      } else source += '.*';
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else if (char === '{') {
      const close = clean.indexOf('}', at);
      const choices = close === -1 ? '' : clean.slice(at + 1, close);
      if (close === -1 || /[{*?]/.test(choices)) return null;
      source += `(?:${choices.split(',').map(escapeRegExp).join('|')})`;
      at = close;
    } else if (char === '}') return null;
    else source += escapeRegExp(char);
  }
  return new RegExp(`^${source}$`).test(path);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function goArgv(argv: readonly string[], path: string, names: CanaryNames): string[] | string {
  const args = argv.slice(2);
  const stop = args.indexOf('-args');
  const own = stop === -1 ? args : args.slice(0, stop);
  const dir = posix.dirname(path);
  const patterns = positionals(own, OPTIONS_WITH_VALUE['go-test']);
  const selects = (pattern: string) => {
    const clean = posix.normalize(pattern);
    if (clean === './...' || clean === '...') return true;
    if (clean.endsWith('/...')) {
      const root = posix.normalize(clean.slice(0, -4));
      return root === '.' || dir === root || dir.startsWith(`${root}/`);
    }
    return clean === dir || (clean === '.' && dir === '.');
  };
  if (!(patterns.length === 0 ? dir === '.' : patterns.some(selects)))
    return `the command does not test the package of ${path}`;
  const at = argv.findIndex((arg) => arg === '-run' || arg === '--run' || /^--?run=/.test(arg));
  if (at === -1) return [...argv];
  const inline = /^--?run=(.*)$/s.exec(argv[at] ?? '');
  const filter = inline?.[1] ?? argv[at + 1] ?? '';
  // -run splits its pattern at slashes into one pattern per subtest level; widening one with a slash is not sound.
  if (filter.includes('/')) return 'the command selects subtests by pattern';
  const widened = `(${filter})|^(${[names.mustPass, ...names.mustFail].join('|')})$`;
  const result = [...argv];
  if (inline) result[at] = `-run=${widened}`;
  else result[at + 1] = widened;
  return result;
}

function cargoArgv(argv: readonly string[], path: string, names: CanaryNames): string[] | string {
  const separator = argv.indexOf('--');
  const cargoArgs = separator === -1 ? argv : argv.slice(0, separator);
  const harness = separator === -1 ? [] : argv.slice(separator + 1);
  const target = /^tests\/([^/]+)(?:\.rs|\/main\.rs)$/.exec(path)?.[1] ?? '';
  const named: string[] = [];
  let onlyOthers = false;
  for (let i = 0; i < cargoArgs.length; i += 1) {
    const arg = cargoArgs[i] ?? '';
    if (arg === '--test') named.push(cargoArgs[(i += 1)] ?? '');
    else if (arg.startsWith('--test=')) named.push(arg.slice('--test='.length));
    else if (/^--(lib|bins?|doc|examples?|benches|bench)(=|$)/.test(arg)) onlyOthers = true;
  }
  const allTests = cargoArgs.some((arg) => arg === '--tests' || arg === '--all-targets');
  const runsTarget = named.includes(target) || allTests || (named.length === 0 && !onlyOthers);
  if (!runsTarget) return `the command does not build the test target of ${path}`;
  const filters = positionals(
    harness.filter((arg) => !arg.startsWith('--format')),
    OPTIONS_WITH_VALUE['cargo-test-harness'],
  );
  if (harness.includes('--skip')) return 'the command skips tests by name';
  // libtest runs a test matching any filter word: the sentinels' names join the task's own filters.
  if (filters.length === 0) return [...argv];
  return [...argv, names.mustPass, ...names.mustFail];
}
