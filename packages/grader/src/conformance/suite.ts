// The conformance suite's inputs, built fresh in a folder: three tasks (a node github-issue task whose repository still
// holds the future fix, its tag and its reflog; a pytest github-issue task; and a fixture task graded by deterministic
// assertions), the bundled engines plus adversarial ones and the red team's attackers, and the run configuration that
// pits them against each other under the real `abp run`.
import { createHash } from 'node:crypto';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { packageRoot } from '../package-root.js';
import { git as runGit, gitIdentityEnvironment } from '../execution/git.js';
import { ATTACK_NAMES, ATTACKS, type Attack } from './attacks.js';
import { ConformanceError } from './errors.js';
import { localAdapter, ORACLE_MODEL } from '../engines/oracle-run.js';

/** The model the bundled engines declare: the suite's engines are abp's own too. */
export const CONFORMANCE_MODEL = ORACLE_MODEL;
export const FUTURE_FIX_MARKER = 'ABP-FUTURE-FIX';
export const SLUG_TASK = 'gh-abp-conformance-slug-1';
export const GREETING_TASK = 'fixture-greeting';
export const CALC_TASK = 'gh-abp-conformance-calc-1';
export const SUITE_TASKS = [SLUG_TASK, GREETING_TASK, CALC_TASK] as const;
export type SuiteTask = (typeof SUITE_TASKS)[number];
export const SECRET_VARIABLE = 'ABP_CONFORMANCE_SECRET';

/** Engines of the suite: what each one is there to prove. */
export const conformanceEngines = {
  reference: 'applies the verified fix: verification must resolve it',
  noop: 'changes nothing: must stay unresolved',
  scripted: 'a fan-out engine on two models: its trace must carry subagent and per-call model attribution',
  planter:
    'plants verification files and echoes a secret: the verdict must not move and no receipt may hold the secret',
  liar: 'its run.end envelope under-reports tokens: it must be flagged',
  deleter: 'deletes an existing test: must be disqualified',
  'history-reader': 'searches git history for the fix: must find nothing',
  ghost: 'cannot be invoked: must be an engine-error, excluded from comparison',
  ...ATTACKS,
} as const;
export type ConformanceEngine = keyof typeof conformanceEngines;

/** Each task's verified fix as whole files, for the attackers that apply or plant the real fix. */
export const FIXED_SOURCES: Record<SuiteTask, Record<string, string>> = {
  [SLUG_TASK]: {
    'src/slug.js': `// ${FUTURE_FIX_MARKER}: collapse runs of separators and trim them at the ends (issue #1)\nexport function slugify(text) {\n  return text.toLowerCase().trim().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');\n}\n`,
  },
  [GREETING_TASK]: { 'greet.js': "console.log('Hello, ABP!');\n" },
  [CALC_TASK]: { 'calc/ops.py': 'def add(a, b):\n    return a + b\n' },
};

const files = (root: string, entries: Record<string, string>) =>
  Promise.all(
    Object.entries(entries).map(async ([path, text]) => {
      await mkdir(dirname(join(root, path)), { recursive: true });
      await writeFile(join(root, path), text);
    }),
  );

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

// Fixed identity and dates: the suite builds the same commits, so the same task digests, on every machine.
const CONFORMANCE_IDENTITY = { name: 'ABP Conformance', email: 'conformance@abp.invalid' };

async function git(cwd: string, args: string[], date = '2026-10-01T12:00:00Z'): Promise<string> {
  const at = Date.parse(date) / 1000;
  const { stdout } = await runGit(args, { cwd, env: gitIdentityEnvironment({ identity: CONFORMANCE_IDENTITY, at }) });
  return stdout.toString('utf8').trim();
}

const slugTest = (tests: string) =>
  `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { slugify } from '../src/slug.js';\n\n${tests}`;

async function buildSlugTask(tasksDir: string): Promise<void> {
  const taskDir = join(tasksDir, SLUG_TASK);
  const repo = join(taskDir, 'repo');
  await mkdir(repo, { recursive: true });
  await git(repo, ['init', '-q', '-b', 'main']);
  await files(repo, {
    'package.json': json({ name: 'conformance-slug', private: true, type: 'module' }),
    'src/slug.js':
      "export function slugify(text) {\n  return text.toLowerCase().trim().replace(/[^a-z0-9]/g, '-');\n}\n",
    'test/slug-basic.test.js': slugTest(
      "test('lowercases words', () => {\n  assert.equal(slugify('Hello'), 'hello');\n});\n\ntest('replaces spaces', () => {\n  assert.equal(slugify('a b'), 'a-b');\n});\n",
    ),
  });
  await git(repo, ['add', '-A']);
  await git(repo, ['commit', '-q', '-m', 'slugify: first version']);
  const base = await git(repo, ['rev-parse', 'HEAD']);
  // The future: the maintainer-merged fix, tagged, with a test only the held-out bundle may bring back.
  await files(repo, {
    ...FIXED_SOURCES[SLUG_TASK],
    'test/slug-dashes.test.js': slugTest(
      "test('collapses runs of separators', () => {\n  assert.equal(slugify('a  --  b'), 'a-b');\n});\n\ntest('trims separators at the ends', () => {\n  assert.equal(slugify(' -a- '), 'a');\n});\n",
    ),
  });
  await git(repo, ['add', '-A'], '2026-10-02T12:00:00Z');
  await git(repo, ['commit', '-q', '-m', `Fix #1: collapse separators (${FUTURE_FIX_MARKER})`], '2026-10-02T12:00:00Z');
  await git(repo, ['tag', 'v1.1.0']);
  await git(repo, ['branch', 'fix-1']);
  const golden = `${await git(repo, ['diff', '--full-index', base, 'HEAD', '--', 'src/slug.js'])}\n`;
  const heldOut = await git(repo, ['show', 'HEAD:test/slug-dashes.test.js']);
  await files(taskDir, {
    'held-out/golden.patch': golden,
    'held-out/files/test/slug-dashes.test.js': `${heldOut}\n`,
    'held-out/expected-results.json': json({
      schema: 'abp-expected-results/v1',
      runner: 'node-test',
      reportFormat: 'junit-xml',
      failToPass: ['collapses runs of separators', 'trims separators at the ends'],
      passToPass: ['lowercases words', 'replaces spaces'],
      flaky: [],
      commands: {
        failToPass: ['node --test test/slug-dashes.test.js'],
        passToPass: ['node --test test/slug-basic.test.js'],
      },
    }),
    'task.json': json({
      schema: 'abp-task/v1',
      id: SLUG_TASK,
      source: {
        kind: 'github-issue',
        repo: 'abp/conformance-slug',
        issue: 1,
        baseCommit: base,
        sourcedAt: '2026-10-01T12:00:00Z',
        registryVersion: 'abp-registry/2026Q4',
        drawSeed: 1,
      },
      prompt:
        'slugify("a  --  b") returns "a-----b" instead of "a-b", and separators at the ends are kept. Make slugify collapse runs of separators into one dash and trim dashes at both ends.',
      environment: { image: 'node:20', setup: [] },
      verification: {
        kind: 'commands',
        failToPass: ['node --test test/slug-dashes.test.js'],
        passToPass: ['node --test test/slug-basic.test.js'],
        timeoutSeconds: 120,
        heldOut: true,
      },
      golden: {
        diffBytesNormalized: 180,
        filesTouched: 1,
        mergedPr: 'https://github.com/abp/conformance-slug/pull/2',
      },
      requires: ['edit-files'],
      cutoffsVerified: ['abp/demo-model:2026-01'],
    }),
  });
}

async function buildGreetingTask(tasksDir: string): Promise<void> {
  const taskDir = join(tasksDir, GREETING_TASK);
  const fixed = FIXED_SOURCES[GREETING_TASK]['greet.js'] ?? '';
  const packageJson = json({ name: 'greeting', private: true, type: 'module' });
  await files(taskDir, {
    'workspace/greet.js': "console.log('Hello, world!');\n",
    'workspace/package.json': packageJson,
    'held-out/files/test/greet.test.js':
      "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { execFileSync } from 'node:child_process';\n\ntest('greets ABP', () => {\n  assert.equal(execFileSync(process.execPath, ['greet.js'], { encoding: 'utf8' }), 'Hello, ABP!\\n');\n});\n",
    'held-out/golden.patch': `diff --git a/greet.js b/greet.js\n--- a/greet.js\n+++ b/greet.js\n@@ -1 +1 @@\n-console.log('Hello, world!');\n+${fixed}`,
    'held-out/assertions.json': json({
      schema: 'abp-assertions/v1',
      assertions: [
        { kind: 'file-present', path: 'greet.js' },
        { kind: 'file-absent', path: 'greet.ts' },
        { kind: 'file-content', path: 'greet.js', equals: fixed },
        {
          kind: 'file-hash',
          path: 'package.json',
          sha256: `sha256:${createHash('sha256').update(packageJson).digest('hex')}`,
        },
        { kind: 'command', argv: ['node', 'greet.js'], exitCode: 0, stdoutEquals: 'Hello, ABP!\n' },
      ],
    }),
    'task.json': json({
      schema: 'abp-task/v1',
      id: GREETING_TASK,
      source: { kind: 'fixture', fixture: 'workspace' },
      prompt: 'greet.js must print exactly "Hello, ABP!" followed by a newline.',
      environment: { image: 'node:20', setup: [] },
      verification: {
        kind: 'commands',
        failToPass: ['node --test test/greet.test.js'],
        passToPass: [],
        timeoutSeconds: 60,
        heldOut: true,
      },
      cutoffsVerified: [],
    }),
  });
}

export const CALC_PYPROJECT =
  '[project]\nname = "calc"\nversion = "0.1.0"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n';

/** The pytest task: add() subtracts; the held-out test asks for the sum. The runner attacks on pytest aim here. */
async function buildCalcTask(tasksDir: string): Promise<void> {
  const taskDir = join(tasksDir, CALC_TASK);
  const repo = join(taskDir, 'repo');
  await mkdir(repo, { recursive: true });
  await git(repo, ['init', '-q', '-b', 'main']);
  await files(repo, {
    'calc/__init__.py': '',
    'calc/ops.py': 'def add(a, b):\n    return a - b\n',
    'tests/test_basic.py': 'from calc.ops import add\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n',
    'pyproject.toml': CALC_PYPROJECT,
  });
  await git(repo, ['add', '-A']);
  await git(repo, ['commit', '-q', '-m', 'calc: add']);
  const base = await git(repo, ['rev-parse', 'HEAD']);
  // The verified fix, taken as a patch and undone: the repository holds base and nothing newer.
  await files(repo, FIXED_SOURCES[CALC_TASK]);
  const golden = `${await git(repo, ['diff', '--full-index'])}\n`;
  await git(repo, ['checkout', '--', '.']);
  const failToPass = ['python3 -m pytest tests/test_add.py'];
  const passToPass = ['python3 -m pytest tests/test_basic.py'];
  await files(taskDir, {
    'held-out/golden.patch': golden,
    'held-out/files/tests/test_add.py':
      'from calc.ops import add\n\n\ndef test_add_positive():\n    assert add(2, 3) == 5\n',
    'held-out/expected-results.json': json({
      schema: 'abp-expected-results/v1',
      runner: 'pytest',
      reportFormat: 'junit-xml',
      failToPass: ['tests/test_add.py::test_add_positive'],
      passToPass: ['tests/test_basic.py::test_zero'],
      flaky: [],
      commands: { failToPass, passToPass },
    }),
    'task.json': json({
      schema: 'abp-task/v1',
      id: CALC_TASK,
      source: {
        kind: 'github-issue',
        repo: 'abp/conformance-calc',
        issue: 1,
        baseCommit: base,
        sourcedAt: '2026-10-01T12:00:00Z',
        registryVersion: 'abp-registry/2026Q4',
        drawSeed: 1,
      },
      prompt: 'add(2, 3) returns -1 instead of 5. Make add return the sum of its arguments.',
      environment: { image: 'python:3', setup: [] },
      verification: { kind: 'commands', failToPass, passToPass, timeoutSeconds: 120, heldOut: true },
      golden: {
        diffBytesNormalized: 1,
        filesTouched: 1,
        mergedPr: 'https://github.com/abp/conformance-calc/pull/2',
      },
      requires: ['edit-files'],
      cutoffsVerified: ['abp/demo-model:2026-01'],
    }),
  });
}

export interface ConformanceSuite {
  dir: string;
  config: string;
  adapters: string;
  tasks: string;
}

/**
 * Where the run the suite is made for keeps what engines must not reach, named to the attackers so they aim at the real
 * places: the data directory (ABP_HOME), the results folder, the temporary folder holding the trial folders and the
 * repository cache; and a witness folder, which no engine is kept from, where the surviving daemon says how long it lived.
 */
export interface SuitePlaces {
  data: string;
  results: string;
  scratch: string;
  cache: string;
  witness: string;
}

const isAttack = (engine: ConformanceEngine): engine is Attack => (ATTACK_NAMES as string[]).includes(engine);

function engineCommand(engine: ConformanceEngine, tasksDir: string, places: SuitePlaces | undefined): string[] {
  if (engine === 'ghost') return ['/nonexistent/abp-ghost-engine', '--input', '{inputFile}'];
  if (isAttack(engine)) {
    const targets = places
      ? (['data', 'results', 'scratch', 'cache', 'witness'] as const).flatMap((place) => [`--${place}`, places[place]])
      : [];
    const script = join(packageRoot, 'dist', 'conformance', 'engines', 'attacker.js');
    return [process.execPath, script, '--input', '{inputFile}', '--attack', engine, '--tasks', tasksDir, ...targets];
  }
  const script = ['reference', 'noop', 'scripted'].includes(engine)
    ? join(packageRoot, 'dist', 'engines', `${engine}.js`)
    : join(packageRoot, 'dist', 'conformance', 'engines', `${engine}.js`);
  return [process.execPath, script, '--input', '{inputFile}', '--tasks', tasksDir];
}

/** Writes the suite into `dir` (which must be empty or absent) and returns the paths `abp run` takes. */
export async function buildConformanceSuite(dir: string, places?: SuitePlaces): Promise<ConformanceSuite> {
  const present = await readdir(dir).catch(() => []);
  if (present.length > 0)
    throw new ConformanceError(
      'output-not-empty',
      `${dir} is not empty: the conformance suite is built fresh; pass an empty or new folder`,
    );
  const tasks = join(dir, 'tasks');
  await mkdir(tasks, { recursive: true });
  await Promise.all([buildSlugTask(tasks), buildGreetingTask(tasks), buildCalcTask(tasks)]);

  const engines = Object.keys(conformanceEngines) as ConformanceEngine[];
  const adapters = join(dir, 'abp-adapters.json');
  await writeFile(
    adapters,
    json({
      schema: 'abp-adapters/v1',
      executionPolicy: 'trusted-local',
      adapters: engines.map((engine) =>
        localAdapter({
          engine,
          command: engineCommand(engine, tasks, places),
          // The oracle reads each task's golden patch: the one engine whose adapter shows it the task folders.
          ...(engine === 'reference' ? { program: [tasks] } : {}),
          allow: engine === 'planter' ? [SECRET_VARIABLE] : [],
          timeoutSeconds: 120,
        }),
      ),
    }),
  );
  const config = join(dir, 'abp-run.json');
  await writeFile(
    config,
    json({
      schema: 'abp-run/v1',
      engines: engines.map((engine) => ({ name: engine, version: '1.0.0' })),
      model: CONFORMANCE_MODEL,
      budgetUsd: 5,
      timeoutSeconds: 120,
      trials: 1,
      ordering: 'abba',
      seed: 20261130,
      tasks: [...SUITE_TASKS],
    }),
  );
  return { dir, config, adapters, tasks };
}
