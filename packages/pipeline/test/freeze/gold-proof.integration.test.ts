// The freeze proves each task with the grader's own trials before signing it: a suite with a test failing in both
// states and a flaky test in the FAIL_TO_PASS file still freezes (the golden patch resolves three times, the empty patch
// never); a golden patch that needs a runner setting the grader puts back is rejected (golden-fails-verification), and
// so is a golden patch that deletes a test file, and a bundle whose held-out tests pass with no change at all
// (empty-patch-resolves). Nothing of a rejected task is stored or signed. The repository is built here, a small pytest project, and frozen on the host's toolchains.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { git as runGit, gitIdentityEnvironment } from '@abp/grader/execution';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { githubTaskId } from '@abp/protocol/schemas/abp-task';
import { parseExpectedResults } from '@abp/protocol/bundle/expected-results';
import { unpackBundle } from '@abp/grader/bundle';
import { buildBundle } from '../../src/freeze/bundle/build.js';
import { proveWithGold } from '../../src/freeze/gold.js';
import { BundleStore } from '../../src/freeze/bundle/store.js';
import {
  freezeTask,
  type PublishedTask,
  type TaskFreezeInput,
  type TaskFreezeOutcome,
} from '../../src/freeze/index.js';
import { createSigningKey } from '../../src/signing/keys.js';
import { createSigner } from '../../src/signing/signer.js';

let root: string;
let store: BundleStore;
let noisy: PublishedTask;

const RECIPE = {
  runner: 'pytest',
  ecosystem: 'python',
  install: 'python3 -m pytest --version',
  test: 'python3 -m pytest -q -p no:cacheprovider --junitxml=test-report.xml',
  report: 'junit-xml',
} as const;

const BUGGY = 'def add(a, b):\n    return a - b\n';
const FIXED = 'def add(a, b):\n    return a + b\n';
const PYPROJECT = '[project]\nname = "calc"\nversion = "0.1.0"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n';
const ADD_TEST = 'from calc.ops import add\n\n\ndef test_add_positive():\n    assert add(2, 3) == 5\n';
// Leftover state in the checkout, a real source of flakiness: each run of a checkout counts itself, odd runs fail.
const FLAKY_TEST = `import pathlib


def test_counts_runs():
    counter = pathlib.Path(".run-count")
    runs = int(counter.read_text()) + 1 if counter.exists() else 1
    counter.write_text(str(runs))
    assert runs % 2 == 0
`;

const git = async (cwd: string, args: string[]): Promise<string> =>
  (
    await runGit(args, {
      cwd,
      env: gitIdentityEnvironment({ identity: { name: 'gold', email: 'gold@abp.invalid' }, at: 1_780_000_000 }),
    })
  ).stdout
    .toString('utf8')
    .trim();

/** Writes (or, for null, deletes) the files and commits them; returns the commit. */
async function commitFiles(dir: string, files: Record<string, string | null>, message: string): Promise<string> {
  for (const [path, text] of Object.entries(files)) {
    if (text === null) await rm(join(dir, path));
    else {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), text);
    }
  }
  await git(dir, ['add', '-A']);
  await git(dir, ['commit', '-q', '-m', message]);
  return git(dir, ['rev-parse', 'HEAD']);
}

/** A repository at its base, and the fix on top of it: returns both commits. */
async function scenario(
  name: string,
  base: Record<string, string>,
  fix: Record<string, string | null>,
): Promise<{ gitDir: string; base: string; fix: string }> {
  const gitDir = join(root, name);
  await mkdir(gitDir, { recursive: true });
  await git(gitDir, ['init', '-q', '-b', 'main']);
  const baseCommit = await commitFiles(
    gitDir,
    { 'calc/__init__.py': '', 'pyproject.toml': PYPROJECT, ...base },
    'base',
  );
  const fixCommit = await commitFiles(gitDir, fix, 'fix add');
  return { gitDir, base: baseCommit, fix: fixCommit };
}

async function freeze(
  name: string,
  repo: { gitDir: string; base: string; fix: string },
  into = store,
): Promise<TaskFreezeOutcome> {
  const input: TaskFreezeInput = {
    taskId: githubTaskId(`abp/${name}`, 1),
    repo: `abp/${name}`,
    gitDir: repo.gitDir,
    baseCommit: repo.base,
    fix: { kind: 'commit', commit: repo.fix },
    recipe: RECIPE,
    issue: { number: 1, title: 'add subtracts', body: 'add(2, 3) returns -1.' },
    mergedPr: `https://github.com/abp/${name}/pull/2`,
    sourcedAt: '2026-06-01T00:00:00Z',
    registryVersion: 'abp-registry/2026Q2',
    drawSeed: 7,
  };
  return freezeTask(input, {
    workDir: join(root, 'work'),
    store: into,
    signer: await createSigner({ keyDir: join(root, 'keys') }),
    timeoutSeconds: 120,
  });
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-gold-'));
  store = new BundleStore(join(root, 'bundles'));
  await createSigningKey(join(root, 'keys'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('the gold proof before signing', () => {
  it('freezes a suite with a test failing in both states and a flaky test in the FAIL_TO_PASS file', async () => {
    const repo = await scenario(
      'calc-noisy',
      {
        'calc/ops.py': BUGGY,
        'tests/test_basic.py': 'from calc.ops import add\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n',
        // An optional dependency the machine lacks: fails before and after the fix alike.
        'tests/test_optional.py':
          'def test_optional_speedups():\n    import calc_speedups_not_installed  # noqa: F401\n',
        // Parametrized with the time: a new id every run, never published.
        'tests/test_stamp.py':
          'import time\n\nimport pytest\n\n\n@pytest.mark.parametrize("stamp", [time.time_ns()])\ndef test_stamp(stamp):\n    assert stamp > 0\n',
      },
      { 'calc/ops.py': FIXED, 'tests/test_add.py': `${ADD_TEST}\n\n${FLAKY_TEST}` },
    );
    const outcome = await freeze('calc-noisy', repo);
    if (outcome.status !== 'frozen') throw new Error(`${outcome.reason}: ${outcome.detail}`);
    expect(outcome.failToPass).toEqual(['tests/test_add.py::test_add_positive']);
    expect(outcome.flaky).toEqual(['tests/test_add.py::test_counts_runs']);
    expect(outcome.passToPass).toEqual(['tests/test_basic.py::test_zero']);
    expect(outcome.volatile).toHaveLength(6);
    expect(outcome.volatile.every((id) => id.startsWith('tests/test_stamp.py::test_stamp['))).toBe(true);
    noisy = outcome;
    // The grader's own trials: the golden patch resolved in each, the empty patch in none.
    expect(outcome.gold).toEqual({ trials: 3 });
    expect(outcome.timings.goldMs).toBeGreaterThan(0);
  });

  it('rejects a golden patch that needs a runner setting the grader puts back, naming the tests', async () => {
    // The fix registers the marker its new test uses; the grader restores pytest's section, so the test cannot run.
    const strict = PYPROJECT.replace('testpaths = ["tests"]', 'testpaths = ["tests"]\naddopts = "--strict-markers"');
    const repo = await scenario(
      'calc-marker',
      { 'calc/ops.py': BUGGY, 'pyproject.toml': strict },
      {
        'calc/ops.py': FIXED,
        'pyproject.toml': strict.replace('--strict-markers"', '--strict-markers"\nmarkers = ["arithmetic: sums"]'),
        'tests/test_add.py': `import pytest\n\n${ADD_TEST.replace('def test_add_positive', '@pytest.mark.arithmetic\ndef test_add_positive')}`,
      },
    );
    const before = await readdir(store.root).catch(() => []);
    const outcome = await freeze('calc-marker', repo);
    expect(outcome).toMatchObject({ status: 'rejected', reason: 'golden-fails-verification' });
    if (outcome.status !== 'rejected') return;
    expect(outcome.detail).toMatch(/did not resolve 3 of 3 trials/);
    expect(outcome.detail).toContain('tests/test_add.py::test_add_positive');
    // Nothing of it was stored or signed.
    expect(await readdir(store.root).catch(() => [])).toEqual(before);
  });

  it('rejects a golden patch that deletes a test file, which disqualifies any engine that does it', async () => {
    const repo = await scenario(
      'calc-deletes',
      {
        'calc/ops.py': BUGGY,
        'tests/test_basic.py': 'from calc.ops import add\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n',
        'tests/test_legacy.py': 'def test_legacy():\n    assert True\n',
      },
      { 'calc/ops.py': FIXED, 'tests/test_legacy.py': null, 'tests/test_add.py': ADD_TEST },
    );
    const outcome = await freeze('calc-deletes', repo);
    expect(outcome).toMatchObject({ status: 'rejected', reason: 'golden-fails-verification' });
    if (outcome.status === 'rejected') expect(outcome.detail).toContain('deleted-test-file');
  });

  it('freezes the same inputs again, in another store, to the same bundle: the run-specific ids leave no trace', async () => {
    const again = await freeze(
      'calc-noisy',
      {
        gitDir: join(root, 'calc-noisy'),
        base: await git(join(root, 'calc-noisy'), ['rev-parse', 'HEAD~1']),
        fix: await git(join(root, 'calc-noisy'), ['rev-parse', 'HEAD']),
      },
      new BundleStore(join(root, 'bundles-again')),
    );
    if (again.status !== 'frozen') throw new Error(`${again.reason}: ${again.detail}`);
    expect(again.volatile).toHaveLength(6);
    expect(again.volatile).not.toEqual(noisy.volatile);
    expect([again.digest, again.heldOutDigest]).toEqual([noisy.digest, noisy.heldOutDigest]);
  });

  it('rejects a bundle whose held-out tests pass with no change at all', async () => {
    // The first task's bundle, rebuilt with a held-out test that already passes at the base under the same id: the
    // proof runs the grader's trials on the bundle itself, whatever the classification claimed.
    const frozen = noisy;
    const unpacked = join(root, 'unpacked');
    await unpackBundle(frozen.archivePath, { taskDir: unpacked });
    const expected = parseExpectedResults(
      JSON.parse(await readFile(join(unpacked, 'held-out', 'expected-results.json'), 'utf8')),
      'expected-results.json',
    );
    const weak = await buildBundle({
      manifest: frozen.manifest,
      issueText: 'add subtracts\n',
      gitDir: join(root, 'calc-noisy'),
      baseCommit: frozen.manifest.source.kind === 'github-issue' ? frozen.manifest.source.baseCommit : '',
      heldOut: {
        files: [
          {
            path: 'tests/test_add.py',
            content: Buffer.from('from calc.ops import add\n\n\ndef test_add_positive():\n    assert add(0, 0) == 0\n'),
          },
        ],
        expected,
        goldenPatch: await readFile(join(unpacked, 'held-out', 'golden.patch'), 'utf8'),
      },
    });
    const proof = await proveWithGold({
      archive: weak.archive,
      taskId: frozen.taskId,
      workDir: join(root, 'work'),
      trials: 3,
      timeoutSeconds: 120,
    });
    expect(proof).toMatchObject({ proven: false, reason: 'empty-patch-resolves' });
    if (!proof.proven) expect(proof.detail).toMatch(/the empty patch resolved 3 of 3 trials/);
  });
});
