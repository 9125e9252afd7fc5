// Validation of a freeze's input and options, and of the fix's patch, before any checkout or run.
import { describe, expect, it } from 'vitest';
import { FreezeError, freezeFix, parseFreezeInput, splitFix, type FreezeInput } from '../../src/freeze/index.js';

const valid: FreezeInput = {
  taskId: 'gh-mira-quill-textkit-3',
  repo: 'mira-quill/textkit',
  gitDir: '/srv/mirrors/mira-quill/textkit.git',
  baseCommit: '05320e2e25f314fdc6112dcc45d967df114842eb',
  fix: { kind: 'commit', commit: '8d6e30958b13abc6eb878aacf4ba5f43690345a3' },
  recipe: {
    runner: 'node-test',
    ecosystem: 'node',
    install: 'node --version',
    test: 'node --test',
    report: 'junit-xml',
  },
};

function codeOf(action: () => unknown): string | null {
  try {
    action();
    return null;
  } catch (error) {
    if (error instanceof FreezeError) return error.code;
    throw error;
  }
}

describe('parseFreezeInput', () => {
  it('accepts a valid input and keeps the path rules it was given', () => {
    expect(parseFreezeInput(valid)).toEqual(valid);
    const withRules = { ...valid, pathRules: { test: ['fixtures/'], generated: ['dist/**'] } };
    expect(parseFreezeInput(withRules)).toEqual(withRules);
  });

  it.each([
    ['a task id that is not gh-<owner>-<name>-<issue>', { taskId: 'textkit-3' }],
    ['a task id naming another repository', { taskId: 'gh-someone-else-3' }],
    ['a repository that is not owner/name', { repo: 'textkit' }],
    ['an abbreviated base commit', { baseCommit: '05320e2' }],
    ['an empty patch', { fix: { kind: 'patch', patch: '' } }],
    ['an unknown fix kind', { fix: { kind: 'branch', branch: 'main' } }],
    ['a recipe with shell syntax', { recipe: { ...valid.recipe, test: 'node --test 2>&1' } }],
    ['a recipe install with shell syntax', { recipe: { ...valid.recipe, install: 'npm ci && npm run build' } }],
    [
      'a recipe missing its report',
      { recipe: { runner: 'node-test', ecosystem: 'node', install: 'true', test: 'node --test' } },
    ],
    ['a field the input does not have', { branch: 'main' }],
    ['path rules with an empty glob', { pathRules: { test: [''] } }],
  ])('rejects %s as invalid-input', (_, change) => {
    expect(codeOf(() => parseFreezeInput({ ...valid, ...change }))).toBe('invalid-input');
  });

  it('rejects a test command whose runner leaves no per-test report', () => {
    expect(codeOf(() => parseFreezeInput({ ...valid, recipe: { ...valid.recipe, test: 'npm test' } }))).toBe(
      'unsupported-runner',
    );
  });
});

describe('freeze options', () => {
  it.each([
    ['fewer than three runs', { runs: 2 }],
    ['a fractional run count', { runs: 3.5 }],
    ['no concurrency', { concurrency: 0 }],
    ['a zero timeout', { runTimeoutSeconds: 0 }],
    ['a timeout above the harness cap', { runTimeoutSeconds: 3600 }],
    ['an empty work folder', { workDir: '' }],
  ])('rejects %s before touching any repository', async (_, change) => {
    const outcome = freezeFix(valid, { workDir: '/nonexistent-abp-work', ...change });
    await expect(outcome).rejects.toThrow(FreezeError);
    await expect(outcome).rejects.toMatchObject({ code: 'invalid-options' });
  });
});

describe('splitFix', () => {
  it('splits a fix into its code and test parts by path', () => {
    const patch = [
      'diff --git a/src/a.js b/src/a.js\n--- a/src/a.js\n+++ b/src/a.js\n@@ -1 +1 @@\n-old\n+new\n',
      'diff --git a/test/a.test.js b/test/a.test.js\n--- a/test/a.test.js\n+++ b/test/a.test.js\n@@ -1 +1 @@\n-old\n+new\n',
      'diff --git a/package-lock.json b/package-lock.json\n--- a/package-lock.json\n+++ b/package-lock.json\n@@ -1 +1 @@\n-1\n+2\n',
    ];
    const split = splitFix(patch.join(''), undefined);
    expect(split.testPatch).toBe(patch[1]);
    expect(split.codePatch).toBe(`${patch[0] ?? ''}${patch[2] ?? ''}`);
    expect(split.changes.map((change) => [change.path, change.kind])).toEqual([
      ['src/a.js', 'code'],
      ['test/a.test.js', 'test'],
      ['package-lock.json', 'lockfile'],
    ]);
    expect(splitFix(patch.join(''), { test: ['src/'] }).codePatch).toBe(patch[2]);
  });

  it('keeps changelogs and docs in the code part: applied with the fix, never held out', () => {
    const patch = [
      'diff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\n@@ -1 +1 @@\n-old\n+new\n',
      'diff --git a/CHANGELOG.rst b/CHANGELOG.rst\n--- a/CHANGELOG.rst\n+++ b/CHANGELOG.rst\n@@ -1 +1 @@\n-1.0\n+1.1\n',
      'diff --git a/docs/usage.rst b/docs/usage.rst\n--- a/docs/usage.rst\n+++ b/docs/usage.rst\n@@ -1 +1 @@\n-a\n+b\n',
    ];
    const split = splitFix(patch.join(''), undefined);
    expect(split.testPatch).toBe('');
    expect(split.codePatch).toBe(patch.join(''));
    expect(split.changes.map((change) => change.kind)).toEqual(['code', 'docs', 'docs']);
  });

  it('refuses text that is not git diff output', () => {
    expect(codeOf(() => splitFix('this is not a patch\n', undefined))).toBe('unreadable-patch');
  });
});
