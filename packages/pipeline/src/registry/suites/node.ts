// JavaScript and TypeScript suites: the package manager the repository declares (packageManager, else its lockfile),
// the runner its test script calls (followed through `npm run x`, wrappers such as cross-env, c8 and nyc, and into the
// workspaces when the root script fans out), else the runner its manifests depend on; and the freeze's recipe for the
// runners it reads per test (jest and vitest by their JSON, mocha by its xunit report, node:test by its junit, ava,
// node-tap, tape and QUnit by the TAP they print, jasmine and lab by abp's own reporter, bun test by its junit).
import {
  folderOf,
  isOwnTestPath,
  joinPath,
  jsonManifest,
  manifestsNamed,
  stringRecord,
  type RepoTree,
} from './repo-tree.js';
import { commandLine, scriptCommands } from './script-words.js';
import { notRunnable, runnable, type SuiteCandidate } from './suite.js';

/** Binaries of test runners, by the runner they are. */
const RUNNER_BINARIES: Readonly<Record<string, string>> = {
  jest: 'jest',
  'react-scripts': 'jest',
  vitest: 'vitest',
  mocha: 'mocha',
  _mocha: 'mocha',
  ava: 'ava',
  tap: 'tap',
  tape: 'tape',
  jasmine: 'jasmine',
  qunit: 'qunit',
  karma: 'karma',
  uvu: 'uvu',
  playwright: 'playwright',
  // node:test suites run through borp, which passes node's own test runner its files.
  borp: 'node-test',
  lab: 'lab',
};

/** Programs that run other scripts by name: npm-run-all's `run-s unit lint`, with `test:*` globs. */
const SCRIPT_RUNNERS = new Set(['run-s', 'run-p', 'npm-run-all']);

/** Dependencies that name a runner, in the order one is preferred when the scripts do not say. */
const RUNNER_PACKAGES: ReadonlyArray<[string, string]> = [
  ['vitest', 'vitest'],
  ['jest', 'jest'],
  ['mocha', 'mocha'],
  ['ava', 'ava'],
  ['tap', 'tap'],
  ['tape', 'tape'],
  ['jasmine', 'jasmine'],
  ['qunit', 'qunit'],
  ['karma', 'karma'],
  ['uvu', 'uvu'],
];

/** Programs that run the next words as the command (their own options first). */
const WRAPPERS = new Set(['cross-env', 'cross-env-shell', 'c8', 'nyc', 'dotenv', 'env', 'npx', 'bunx', 'tsx', 'time']);

/** How the freeze reads each runner per test; runners not here are found but not runnable yet. */
const READERS: Readonly<Record<string, 'jest-json' | 'junit-xml' | 'tap' | 'abp-runner-json'>> = {
  jest: 'jest-json',
  vitest: 'jest-json',
  mocha: 'junit-xml',
  'node-test': 'junit-xml',
  ava: 'tap',
  tap: 'tap',
  tape: 'tap',
  qunit: 'tap',
  jasmine: 'abp-runner-json',
  lab: 'abp-runner-json',
  // bun itself comes into the environment beside Node (requestedToolchain sees the repository run it).
  'bun-test': 'junit-xml',
};

const TEST_FILE =
  /(^|\/)(__tests__|tests?|spec)\/.*\.[cm]?[jt]sx?$|\.(test|spec)\.[cm]?[jt]sx?$|(^|\/)test\.[cm]?[jt]s$/;

interface Invocation {
  runner: string;
  /** The runner's own arguments as the script gives them. */
  args: string[];
}

export function detectNode(tree: RepoTree): SuiteCandidate | null {
  const manifests = manifestsNamed(tree, 'package.json');
  const rootManifest = manifests[0];
  if (rootManifest === undefined) return null;
  const root = folderOf(rootManifest);
  const manifest = jsonManifest(tree, rootManifest) ?? {};
  const testFiles = tree.paths.filter((path) => isOwnTestPath(path) && TEST_FILE.test(path)).length;
  const packageManager = packageManagerOf(tree, root, manifest);

  const scripts = stringRecord(manifest['scripts']);
  const invocation =
    fromScript(scripts, 'test', 0) ??
    fromWorkspaces(tree, manifests.slice(1)) ??
    fromDependencies([manifest, ...manifests.slice(1).map((path) => jsonManifest(tree, path) ?? {})]);
  const base = {
    ecosystem: 'node' as const,
    packageManager: packageManager.name,
    runners: invocation === null ? [] : [invocation.runner],
    testFiles,
  };
  if (invocation === null) return notRunnable(base, 'no test runner in the test script or the dependencies');
  const report = READERS[invocation.runner];
  if (report === undefined) return notRunnable(base, `${invocation.runner} has no per-test reader in the freeze yet`);
  if (packageManager.install === null) return notRunnable(base, packageManager.why);
  const declared = [manifest, ...manifests.slice(1).map((path) => jsonManifest(tree, path) ?? {})];
  return runnable(base, { install: packageManager.install, test: testCommand(invocation, declared), report });
}

interface PackageManager {
  name: string;
  install: string[] | null;
  why: string;
}

/** `packageManager` first (corepack's field), else the lockfile at the root; a repository without one uses npm. */
function packageManagerOf(tree: RepoTree, root: string, manifest: Record<string, unknown>): PackageManager {
  const present = (name: string) => tree.paths.includes(joinPath(root, name));
  const declared = typeof manifest['packageManager'] === 'string' ? manifest['packageManager'] : '';
  const [declaredName = '', declaredVersion = ''] = declared.split('+')[0]?.split('@') ?? [];
  const major = Number(declaredVersion.split('.')[0]);
  const name =
    declaredName === 'yarn'
      ? major >= 2
        ? 'yarn-berry'
        : 'yarn-classic'
      : ['npm', 'pnpm', 'bun'].includes(declaredName)
        ? declaredName
        : present('pnpm-lock.yaml')
          ? 'pnpm'
          : present('yarn.lock')
            ? present('.yarnrc.yml')
              ? 'yarn-berry'
              : 'yarn-classic'
            : present('bun.lockb') || present('bun.lock')
              ? 'bun'
              : 'npm';
  const pinned = (tool: string, fallback: string) =>
    declaredName === tool.split('@')[0] && declaredVersion !== ''
      ? `${tool}@${declaredVersion}`
      : `${tool}@${fallback}`;
  switch (name) {
    case 'npm':
      return {
        name,
        install: [
          present('package-lock.json') || present('npm-shrinkwrap.json')
            ? 'npm ci --no-audit --no-fund'
            : 'npm install --no-audit --no-fund',
        ],
        why: '',
      };
    // The other managers come from the npm registry itself, pinned to the version the repository declares.
    case 'pnpm':
      return { name, install: [`npx --yes ${pinned('pnpm', '9')} install --frozen-lockfile`], why: '' };
    case 'yarn-classic':
      return { name, install: [`npx --yes ${pinned('yarn', '1.22.22')} install --frozen-lockfile`], why: '' };
    case 'yarn-berry': {
      const yarnrc = tree.text(joinPath(root, '.yarnrc.yml')) ?? '';
      // Yarn 2+ defaults to Plug'n'Play, which keeps no node_modules: the runner would not be where the test runs it.
      if (!/^nodeLinker:\s*["']?node-modules\b/m.test(yarnrc))
        return {
          name,
          install: null,
          why: "Yarn Plug'n'Play keeps no node_modules/.bin, where the freeze runs the runner (set nodeLinker: node-modules)",
        };
      const yarnPath = /^yarnPath:\s*["']?([^"'\s]+)/m.exec(yarnrc)?.[1];
      if (yarnPath !== undefined) return { name, install: [`node ${yarnPath} install --immutable`], why: '' };
      return {
        name,
        install: [`npx --yes @yarnpkg/cli-dist@${declaredVersion || '4'} install --immutable`],
        why: '',
      };
    }
    default:
      return { name, install: [`npx --yes ${pinned('bun', '1')} install --frozen-lockfile`], why: '' };
  }
}

/** The runner a script calls, following `npm run x` and the like into other scripts. */
function fromScript(scripts: Record<string, string>, name: string, depth: number): Invocation | null {
  const script = scripts[name];
  if (script === undefined || depth > 4 || /no test specified/.test(script)) return null;
  for (const argv of scriptCommands(script)) {
    const found = invocationOf(argv, scripts, depth);
    if (found !== null) return found;
  }
  return null;
}

function invocationOf(argv: readonly string[], scripts: Record<string, string>, depth: number): Invocation | null {
  let at = 0;
  // Wrappers and their options: `cross-env CI=1 c8 --reporter=lcov mocha …`.
  while (at < argv.length) {
    const word = argv[at] ?? '';
    const program = word.slice(word.lastIndexOf('/') + 1);
    if (WRAPPERS.has(program) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(word) || (at > 0 && word.startsWith('-'))) at += 1;
    else break;
  }
  const word = argv[at] ?? '';
  const program = word.slice(word.lastIndexOf('/') + 1).replace(/\.[cm]?js$/, '');
  const rest = argv.slice(at + 1);
  if (SCRIPT_RUNNERS.has(program)) {
    for (const pattern of rest.filter((arg) => !arg.startsWith('-'))) {
      const glob = new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
      for (const name of Object.keys(scripts).filter((candidate) => glob.test(candidate))) {
        const found = name === 'test' ? null : fromScript(scripts, name, depth + 1);
        if (found !== null) return found;
      }
    }
    return null;
  }
  // Another script: `npm run unit`, `npm test`, `pnpm unit`, `yarn run unit`.
  // `bun test` is bun's own runner, not the script named test (that is `bun run test`).
  if (program === 'bun' && rest[0] === 'test') return { runner: 'bun-test', args: rest.slice(1) };
  if (['npm', 'pnpm', 'yarn', 'bun'].includes(program)) {
    // `npm run -s unit -- --grep x`: the script is the first word after run that is not an option; what follows `--`
    // goes to the runner that script calls.
    const named = rest[0] === 'run' || rest[0] === 'run-script' ? rest.slice(1) : rest;
    const target = named.find((word) => !word.startsWith('-'));
    const passed = named.includes('--') ? named.slice(named.indexOf('--') + 1) : [];
    if (target === 'test' || target === 't') return depth === 0 ? null : fromScript(scripts, 'test', depth + 1);
    if (target !== undefined && scripts[target] !== undefined) {
      const found = fromScript(scripts, target, depth + 1);
      return found === null ? null : { ...found, args: [...found.args, ...passed] };
    }
    const binary = RUNNER_BINARIES[target ?? ''];
    if (target !== undefined && ['exec', 'dlx'].includes(target) && RUNNER_BINARIES[rest[1] ?? ''] !== undefined)
      return { runner: RUNNER_BINARIES[rest[1] ?? ''] ?? '', args: rest.slice(2) };
    return binary === undefined ? null : { runner: binary, args: rest.slice(1) };
  }
  if (program === 'node') {
    if (rest.includes('--test')) return { runner: 'node-test', args: rest };
    // `node node_modules/.bin/jest …` or `node ./node_modules/mocha/bin/mocha.js …`.
    const script = rest.findIndex((candidate) => !candidate.startsWith('-'));
    const name = (rest[script] ?? '').split('/').find((segment) => RUNNER_BINARIES[segment.replace(/\.[cm]?js$/, '')]);
    if (name !== undefined)
      return { runner: RUNNER_BINARIES[name.replace(/\.[cm]?js$/, '')] ?? '', args: rest.slice(script + 1) };
    return null;
  }
  // borp's options are its own (coverage, concurrency): node's runner finds the same test files by its defaults.
  if (program === 'borp') return { runner: 'node-test', args: ['--test'] };
  const runner = RUNNER_BINARIES[program];
  return runner === undefined ? null : { runner, args: rest };
}

/** A root script that runs each workspace's tests: the runner most workspaces' test scripts call. */
function fromWorkspaces(tree: RepoTree, manifests: readonly string[]): Invocation | null {
  const counts = new Map<string, { count: number; invocation: Invocation }>();
  for (const path of manifests) {
    const found = fromScript(stringRecord(jsonManifest(tree, path)?.['scripts']), 'test', 0);
    if (found === null) continue;
    const entry = counts.get(found.runner) ?? { count: 0, invocation: { runner: found.runner, args: [] } };
    counts.set(found.runner, { ...entry, count: entry.count + 1 });
  }
  return [...counts.values()].sort((a, b) => b.count - a.count)[0]?.invocation ?? null;
}

/** The major version a dependency range names (`^16.3.0`, `~15`, `16.x`), or null (`*`, `latest`, a URL). */
function declaredMajor(manifests: ReadonlyArray<Record<string, unknown>>, name: string): number | null {
  for (const manifest of manifests) {
    const range =
      stringRecord(manifest['devDependencies'])[name] ?? stringRecord(manifest['dependencies'])[name] ?? undefined;
    const major = range === undefined ? undefined : /^\s*[~^=v]*\s*(\d+)/.exec(range)?.[1];
    if (major !== undefined) return Number(major);
  }
  return null;
}

function fromDependencies(manifests: ReadonlyArray<Record<string, unknown>>): Invocation | null {
  for (const [dependency, runner] of RUNNER_PACKAGES)
    for (const manifest of manifests)
      if (
        stringRecord(manifest['devDependencies'])[dependency] !== undefined ||
        stringRecord(manifest['dependencies'])[dependency] !== undefined
      )
        return { runner, args: [] };
  return null;
}

/** The runner called directly from the installed binaries, with the script's own arguments minus watch and coverage. */
function testCommand(invocation: Invocation, manifests: ReadonlyArray<Record<string, unknown>>): string {
  const args = invocation.args.filter((arg) => !/^--(watch|watchAll|coverage|ui)$/.test(arg));
  switch (invocation.runner) {
    case 'tap': {
      // node-tap 15 and 16 check for full coverage by default and fail a run whose tests all passed; 18 and later
      // reject --no-coverage, and the grader turns their coverage off through TAP_DISABLE_COVERAGE instead.
      const major = declaredMajor(manifests, 'tap');
      const coverageSaid = args.some((arg) => /^-?-(no-)?cov(erage)?$/.test(arg));
      const noCoverage = major !== null && major < 18 && !coverageSaid ? ['--no-coverage'] : [];
      return commandLine(['node_modules/.bin/tap', ...noCoverage, ...args]);
    }
    case 'node-test':
      return commandLine(['node', ...args]);
    case 'bun-test':
      return commandLine(['bun', 'test', ...args]);
    case 'vitest':
      return commandLine([
        'node_modules/.bin/vitest',
        ...(args[0] === 'run' ? args : ['run', ...args.filter((arg) => arg !== 'watch')]),
      ]);
    default:
      return commandLine([`node_modules/.bin/${invocation.runner}`, ...args]);
  }
}
