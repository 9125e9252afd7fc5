// The golden size a freeze records for a merged fix (spec §4.5), measured on real commits: a changelog entry, a readme
// line and a page of docs beside the fix leave its size as the fix alone gives it, with the grader's own rule.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildStateTrees, openFix } from '../../src/freeze/fix-trees.js';
import type { FreezeInput } from '../../src/freeze/inputs.js';
import { measureFix, splitFix, type FixMeasure } from '../../src/freeze/split.js';

const run = promisify(execFile);

let root: string;
let repo: string;
let base: string;
let withDocs: string;
let codeOnly: string;

async function git(...args: string[]): Promise<string> {
  return (await run('git', args, { cwd: repo })).stdout.trim();
}

async function write(files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(repo, path)), { recursive: true });
    await writeFile(join(repo, path), text);
  }
}

async function commit(message: string): Promise<string> {
  await git('add', '-A');
  await git('-c', 'user.name=abp', '-c', 'user.email=abp@example.org', 'commit', '-q', '-m', message);
  return git('rev-parse', 'HEAD');
}

const fix = {
  'src/order.js': 'export function order(items) {\n  return [...items].sort((a, b) => a - b);\n}\n',
  'test/order.test.js': "import { order } from '../src/order.js';\norder([2, 1]);\n",
};

/** What the freeze measures of base..commit: split, both state trees built, sized. */
async function measure(commitId: string, scratch: string): Promise<FixMeasure> {
  const input: FreezeInput = {
    taskId: 'gh-acme-widgets-7',
    repo: 'acme/widgets',
    gitDir: repo,
    baseCommit: base,
    fix: { kind: 'commit', commit: commitId },
    // Never run here: only the patch and the trees are read.
    recipe: {
      runner: 'node-test',
      ecosystem: 'node',
      install: 'node --version',
      test: 'node --test',
      report: 'junit-xml',
    },
  };
  const source = await openFix(input, join(root, scratch));
  const split = splitFix(source.patch, undefined);
  const trees = await buildStateTrees(source, { test: split.testPatch, code: split.codePatch });
  if (!trees.applied) throw new Error(`the fix does not apply: ${trees.detail}`);
  return measureFix(source, split, trees.after, undefined);
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-measure-fix-'));
  repo = join(root, 'repo');
  await mkdir(repo);
  await git('init', '-q', '-b', 'main');
  await write({
    'src/order.js': 'export function order(items) {\n  return items;\n}\n',
    'CHANGELOG.rst': 'Changelog\n=========\n\n1.0\n---\n\n- First release.\n',
    'README.md': '# widgets\n',
    'docs/order.md': '# order\n\nReturns the items.\n',
  });
  base = await commit('base');
  await write(fix);
  codeOnly = await commit('fix alone');
  await git('checkout', '-q', base);
  await write({
    ...fix,
    'CHANGELOG.rst': 'Changelog\n=========\n\n1.1\n---\n\n- order() sorts its items.\n\n1.0\n---\n\n- First release.\n',
    'README.md': '# widgets\n\n`order()` sorts numbers ascending.\n',
    'docs/order.md': '# order\n\nReturns the items sorted ascending, as a new array.\n',
  });
  withDocs = await commit('fix with its changelog, readme and docs');
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

describe('measureFix', () => {
  it('leaves changelogs, readmes and docs out of the golden size and records them apart', async () => {
    const alone = await measure(codeOnly, 'scratch-alone.git');
    const documented = await measure(withDocs, 'scratch-documented.git');
    expect(alone.golden.diffBytesNormalized).toBeGreaterThan(0);
    expect(documented.golden).toEqual(alone.golden);
    expect(documented.golden.filesTouched).toBe(1);
    expect(documented.recorded).toEqual([
      { path: 'CHANGELOG.rst', kind: 'docs' },
      { path: 'README.md', kind: 'docs' },
      { path: 'docs/order.md', kind: 'docs' },
    ]);
    expect(alone.recorded).toEqual([]);
  });
});
