// Owns which of each runner's options take their value as the next word, so that every reader of a test command (the
// grader's plans, the sentinels' placement, the freeze's narrowing) tells the files a command names from option values
// the same way. An option missing here would make its value read as a file; one listed wrongly would hide a file.

const PYTEST = [
  ...['-p', '-k', '-m', '-o', '-c', '-W', '-n', '-r'],
  ...['--rootdir', '--basetemp', '--junitxml', '--deselect', '--ignore', '--ignore-glob', '--confcutdir'],
  ...['--maxfail', '--tb', '--durations', '--import-mode'],
];
const NODE = [
  ...['-r', '--require', '--import', '--loader', '--experimental-loader', '-C', '--conditions'],
  ...['--test-name-pattern', '--test-skip-pattern', '--test-reporter', '--test-reporter-destination'],
  ...['--test-concurrency', '--test-timeout'],
];
const GO = [
  ...['-run', '-skip', '-count', '-timeout', '-tags', '-p', '-parallel', '-bench', '-benchtime', '-cpu'],
  ...['-coverprofile', '-coverpkg', '-covermode', '-o', '-mod', '-ldflags', '-gcflags'],
];
const JEST_LIKE = ['-c', '--config', '--reporter', '--outputFile', '--project', '--root'];
const NODE_TAP = [
  ...['--reporter', '-R', '--reporter-arg', '-r', '--reporter-file', '-f', '--timeout', '-t', '--jobs', '-j'],
  ...['--grep', '-g', '--output-file', '-o', '--output-dir', '-d', '--save', '-s', '--node-arg', '--test-env'],
  ...['--plugin', '--include', '--exclude', '--before', '--after', '--coverage-map', '-M', '--coverage-report'],
];

/** By runner (jest and vitest share theirs; jasmine's options all take their values after `=`). */
export const OPTIONS_WITH_VALUE = {
  pytest: new Set(PYTEST),
  'node-test': new Set(NODE),
  'go-test': new Set(GO),
  'jest-like': new Set(JEST_LIKE),
  'node-tap': new Set(NODE_TAP),
  'bun-test': new Set(['--timeout', '--preload', '--rerun-each', '-t', '--test-name-pattern']),
  ava: new Set(['--match', '-m', '--concurrency', '-c', '--timeout', '-T', '--node-arguments', '--config']),
  tape: new Set(['--require', '-r', '--ignore', '-i']),
  qunit: new Set(['--reporter', '-r', '--require', '--seed', '--filter', '-f', '--module', '-m']),
  jasmine: new Set<string>(),
  'cargo-test-harness': new Set(['--skip', '--test-threads', '--color', '-Z']),
} as const satisfies Record<string, ReadonlySet<string>>;

/** The words of `args` that are neither options nor option values: after `--`, every word. */
export function positionals(args: readonly string[], withValue: ReadonlySet<string>): string[] {
  const found: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] ?? '';
    if (arg === '--') {
      found.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-')) found.push(arg);
    else if (withValue.has(arg)) i += 1;
  }
  return found;
}
