// A freeze in the task's environment: a Python repository whose suite needs a package from PyPI and pytest, neither
// taken from the host, frozen with the detected recipe to the FAIL_TO_PASS its fix adds; the same inputs frozen again
// reuse the same environment; an install that no registry can satisfy rejects the freeze as environment-build-failed.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnvironmentStore } from '@abp/grader/environments';
import { freezeFix, recipeFor, type FreezeInput, type PublishedTask } from '../../src/freeze/index.js';
import { gradeBundledEngines } from '../support/bundled-engines.js';
import { freezeWithCli } from '../support/frozen-task.js';
import { sharedEnvironmentStore } from '../../../../test-support/toolchain-caches.js';

const execFileAsync = promisify(execFile);
const store = new EnvironmentStore(sharedEnvironmentStore);
let root: string;

const identity = {
  GIT_AUTHOR_NAME: 'abp test',
  GIT_AUTHOR_EMAIL: 'test@abp.invalid',
  GIT_COMMITTER_NAME: 'abp test',
  GIT_COMMITTER_EMAIL: 'test@abp.invalid',
  GIT_AUTHOR_DATE: '2026-06-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2026-06-01T00:00:00Z',
};

async function gitIn(dir: string, ...args: string[]): Promise<string> {
  const { stdout } = await execFileAsync('git', args, { cwd: dir, env: { ...process.env, ...identity } });
  return stdout.trim();
}

async function commit(dir: string, files: Record<string, string>, message: string): Promise<string> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  await gitIn(dir, 'add', '-A');
  await gitIn(dir, 'commit', '-q', '-m', message);
  return gitIn(dir, 'rev-parse', 'HEAD');
}

const pyproject = (dependency: string) => `[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "slugs"
version = "0.1.0"
requires-python = ">=3.9"
dependencies = ["${dependency}"]

[tool.pytest.ini_options]
testpaths = ["tests"]
`;

async function repository(name: string, dependency: string): Promise<{ dir: string; base: string; fix: string }> {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  await gitIn(dir, 'init', '-q', '-b', 'main');
  const base = await commit(
    dir,
    {
      'pyproject.toml': pyproject(dependency),
      'src/slugs/__init__.py': 'import six\n\n\ndef slug(text):\n    return six.ensure_str(text).lower()\n',
      'tests/test_slug.py': 'from slugs import slug\n\n\ndef test_lower():\n    assert slug("AB") == "ab"\n',
    },
    'slugs',
  );
  const fix = await commit(
    dir,
    {
      'src/slugs/__init__.py':
        'import six\n\n\ndef slug(text):\n    return "-".join(six.ensure_str(text).lower().split())\n',
      'tests/test_slug.py':
        'from slugs import slug\n\n\ndef test_lower():\n    assert slug("AB") == "ab"\n\n\ndef test_spaces():\n    assert slug("a b") == "a-b"\n',
    },
    'slug joins words with dashes',
  );
  return { dir, base, fix };
}

async function input(repo: { dir: string; base: string; fix: string }, name: string): Promise<FreezeInput> {
  const recipe = await recipeFor({
    repo: `abp-test/${name}`,
    gitDir: join(repo.dir, '.git'),
    base: repo.base,
    entry: null,
  });
  return {
    taskId: `gh-abp-test-${name}-1`,
    repo: `abp-test/${name}`,
    gitDir: repo.dir,
    baseCommit: repo.base,
    fix: { kind: 'commit', commit: repo.fix },
    recipe,
  };
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-freeze-env-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('a freeze in the task environment', () => {
  it('freezes a repository that needs PyPI with the detected recipe, and again to the same environment', async () => {
    const repo = await repository('slugs', 'six==1.16.0');
    const fix = await input(repo, 'slugs');
    expect(fix.recipe).toMatchObject({
      runner: 'pytest',
      ecosystem: 'python',
      install: ['python -m pip install -e .', 'python -m pip install pytest'],
    });
    const outcome = await freezeFix(fix, { workDir: join(root, 'work'), environments: store });
    if (outcome.status !== 'frozen') throw new Error(`expected a frozen fix, got ${outcome.reason}: ${outcome.detail}`);
    expect(outcome.failToPass).toEqual(['tests/test_slug.py::test_spaces']);
    expect(outcome.passToPass).toEqual(['tests/test_slug.py::test_lower']);
    expect(outcome.environment?.toolchains['python']).toMatch(/^3\.11\./);
    const again = await freezeFix(fix, { workDir: join(root, 'work'), environments: store });
    if (again.status !== 'frozen') throw new Error(`expected a frozen fix, got ${again.reason}: ${again.detail}`);
    expect(again.environment).toMatchObject({ digest: outcome.environment?.digest, cached: true });
    expect(again.failToPass).toEqual(outcome.failToPass);
  }, 900_000);

  it('rejects the freeze as environment-build-failed, with the build log, when the install cannot be satisfied', async () => {
    const repo = await repository('missing-dep', 'abp-no-such-package-anywhere==9.9.9');
    const outcome = await freezeFix(await input(repo, 'missing-dep'), {
      workDir: join(root, 'work'),
      environments: store,
    });
    expect(outcome).toMatchObject({ status: 'rejected', reason: 'environment-build-failed', runs: [] });
    if (outcome.status === 'rejected') expect(outcome.detail).toContain('abp-no-such-package-anywhere');
  }, 900_000);
});

describe('a task graded in its environment', () => {
  let task: PublishedTask;
  let tasksDir: string;

  beforeAll(async () => {
    const repo = await repository('graded', 'six==1.16.0');
    ({ task, tasksDir } = await freezeWithCli({
      root,
      repo: 'abp-test/graded',
      gitDir: repo.dir,
      base: repo.base,
      fix: repo.fix,
      issue: { number: 1, title: 'slug joins words', body: 'a b → a-b' },
      pr: 'https://github.com/abp-test/graded/pull/2',
    }));
  }, 900_000);

  const grade = async (environments: string, output: string) => {
    const dir = join(root, output);
    await mkdir(dir, { recursive: true });
    return gradeBundledEngines({ dir, tasksDir, taskIds: [task.taskId], environments });
  };

  it('names the environment by digest in the manifest, with the install in the image', () => {
    expect(task.manifest.environment.image).toMatch(/^abp-env\/abp-test-graded@sha256:[0-9a-f]{64}$/);
    expect(task.manifest.environment.setup).toEqual([]);
  });

  it('grades the reference engine resolved and the no-op unresolved, verification running in the environment', async () => {
    const outcome = await grade(sharedEnvironmentStore, 'results');
    const byEngine = Object.fromEntries(outcome.trials.map((trial) => [trial.engine, trial]));
    const shown = (engine: string) => JSON.stringify({ ...byEngine[engine], timing: undefined });
    expect(byEngine['reference']?.outcome, shown('reference')).toBe('resolved');
    expect(byEngine['noop']?.outcome).toBe('unresolved');
    const log = await readFile(join(outcome.runDir, byEngine['reference']?.receipts.verificationLog ?? ''), 'utf8');
    expect(log).toContain('runner pytest');
    // A witness that it was the environment: on the host the src-layout package was never installed, so the same
    // held-out test cannot even import it there.
    const onHost = await execFileAsync('python3', ['-I', '-c', 'import slugs'], { cwd: '/' }).then(
      () => 'imported',
      () => 'not importable',
    );
    expect(onHost).toBe('not importable');
  }, 900_000);

  it('refuses to grade when the environment is absent, or when one of its layers was altered', async () => {
    const empty = join(root, 'empty-store');
    await mkdir(empty);
    await expect(grade(empty, 'results-missing')).rejects.toMatchObject({ code: 'environment-missing' });
    // A copy of the store with the install layer changed by one byte.
    const copy = join(root, 'tampered-store');
    await mkdir(copy);
    await execFileAsync('cp', ['-a', join(sharedEnvironmentStore, 'blobs'), join(copy, 'blobs')]);
    const tampered = new EnvironmentStore(copy);
    const digest = task.manifest.environment.image.slice(task.manifest.environment.image.indexOf('@') + 1);
    const layer = (await tampered.readImage(digest)).manifest.layers.at(-1)?.digest ?? '';
    const bytes = await readFile(tampered.blobPath(layer));
    bytes[bytes.length - 2000] = (bytes[bytes.length - 2000] ?? 0) ^ 1;
    await writeFile(tampered.blobPath(layer), bytes);
    await expect(grade(copy, 'results-tampered')).rejects.toMatchObject({ code: 'layer-tampered' });
  }, 900_000);
});
