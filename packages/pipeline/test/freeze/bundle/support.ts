// A real repository for the bundle tests: base is a signed merge commit with an executable file in its tree, and
// history runs past base (a future fix carrying a unique marker, reachable from a branch and a tag); plus bundle inputs.
import { randomUUID } from 'node:crypto';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BundleInput } from '../../../src/freeze/bundle/build.js';
import type { GitObject } from '@abp/grader/bundle';
import { BundleError } from '@abp/protocol/bundle/errors';
import { OBJECT_STREAM_HEADER } from '@abp/grader/bundle';
import type { AbpTask } from '@abp/protocol/schemas/abp-task';
import { git, writeFiles } from '../../../../grader/test/workspace/support.js';

export { git } from '../../../../grader/test/workspace/support.js';

export interface HistoryRepo {
  dir: string;
  baseCommit: string;
  futureCommit: string;
  marker: string;
}

/** A fake but well-formed signature header: the bundle must keep commit bytes exactly, signature included. */
const SIGNATURE =
  'gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEEabpabpabpabpabp\n =abcd\n -----END PGP SIGNATURE-----\n';

export async function createHistoryRepo(dir: string): Promise<HistoryRepo> {
  const marker = `ABP-FUTURE-FIX-${randomUUID()}`;
  await git(join(dir, '..'), 'init', '--quiet', '--initial-branch', 'main', dir);
  await writeFiles(dir, {
    'README.md': '# demo\n',
    'src/lib.js': 'export const answer = 41;\n',
    'scripts/run.sh': '#!/bin/sh\nnode --test\n',
    'tests/lib.test.js': '// lib\n',
  });
  await chmod(join(dir, 'scripts/run.sh'), 0o755);
  await git(dir, 'add', '--all');
  await git(dir, 'commit', '--quiet', '-m', 'initial');
  await git(dir, 'checkout', '--quiet', '-b', 'feature');
  await writeFiles(dir, { 'src/feature.js': 'export const feature = true;\n' });
  await git(dir, 'add', '--all');
  await git(dir, 'commit', '--quiet', '-m', 'feature');
  await git(dir, 'checkout', '--quiet', 'main');
  await writeFiles(dir, { 'README.md': '# demo\n\nRun the tests.\n' });
  await git(dir, 'commit', '--quiet', '--all', '-m', 'docs');
  await git(dir, 'merge', '--quiet', '--no-ff', '-m', 'merge feature', 'feature');

  // Base is the merge commit again, with a signature header added.
  const raw = await git(dir, 'cat-file', 'commit', 'HEAD');
  const headerEnd = raw.indexOf('\n\n');
  const signed = `${raw.slice(0, headerEnd + 1)}${SIGNATURE}${raw.slice(headerEnd + 1)}`;
  await writeFile(join(dir, '.git', 'signed-commit.txt'), signed);
  const baseCommit = (
    await git(dir, 'hash-object', '-t', 'commit', '-w', join(dir, '.git', 'signed-commit.txt'))
  ).trim();
  await git(dir, 'update-ref', 'refs/heads/main', baseCommit);

  await writeFiles(dir, {
    'src/lib.js': `export const answer = 42; // ${marker}\n`,
    'tests/fix.test.js': `// ${marker}\n`,
  });
  await git(dir, 'add', '--all');
  await git(dir, 'commit', '--quiet', '-m', `fix: ${marker}`);
  const futureCommit = (await git(dir, 'rev-parse', 'HEAD')).trim();
  await git(dir, 'tag', '--annotate', 'v1-fix', '-m', marker);
  await git(dir, 'branch', 'fix-branch');
  return { dir, baseCommit, futureCommit, marker };
}

/** The object stream format, written out by hand: an auditor's re-implementation. */
export function serializeObjects(objects: readonly GitObject[]): Buffer {
  return Buffer.concat([
    Buffer.from(OBJECT_STREAM_HEADER),
    ...objects.flatMap((object) => [
      Buffer.from(`${object.oid} ${object.type} ${object.content.length}\n`),
      object.content,
      Buffer.from('\n'),
    ]),
  ]);
}

export function taskManifest(baseCommit: string): AbpTask {
  return {
    schema: 'abp-task/v1',
    id: 'gh-abp-bundle-demo-7',
    source: {
      kind: 'github-issue',
      repo: 'abp/bundle-demo',
      issue: 7,
      baseCommit,
      sourcedAt: '2026-10-01T12:00:00Z',
      registryVersion: 'abp-registry/2026Q4',
      drawSeed: 7,
    },
    prompt: 'answer is 41 but must be 42.',
    environment: { image: 'node:20', setup: [] },
    verification: {
      kind: 'commands',
      failToPass: ['node --test tests/fix.test.js'],
      passToPass: ['node --test tests/lib.test.js'],
      timeoutSeconds: 120,
      heldOut: true,
    },
    golden: {
      diffBytesNormalized: 40,
      filesTouched: 1,
      trace: 'traces/golden.abp-trace.jsonl',
      mergedPr: 'https://github.com/abp/bundle-demo/pull/8',
    },
    cutoffsVerified: ['abp/demo-model:2026-01'],
  };
}

export function bundleInput(repo: { dir: string; baseCommit: string }): BundleInput {
  return {
    manifest: taskManifest(repo.baseCommit),
    issueText: '# answer is wrong\n\nIt says 41; it must say 42. — ünïcödé reporter\n',
    gitDir: repo.dir,
    baseCommit: repo.baseCommit,
    heldOut: {
      files: [
        {
          path: 'tests/fix.test.js',
          content: Buffer.from("import { answer } from '../src/lib.js';\nif (answer !== 42) throw new Error('no');\n"),
        },
        { path: 'tests/data/fixture.bin', content: Buffer.from([0, 1, 2, 255]) },
      ],
      expected: {
        schema: 'abp-expected-results/v1',
        runner: 'node-test',
        reportFormat: 'junit-xml',
        failToPass: ['tests/fix.test.js::answer is 42', 'tests/fix.test.js::answer is a number'],
        passToPass: ['tests/lib.test.js::loads'],
        flaky: [
          {
            id: 'tests/lib.test.js::timing',
            outcomes: { before: ['pass', 'fail', 'pass'], after: ['pass', 'pass', 'fail'] },
          },
        ],
        commands: { failToPass: ['node --test tests/fix.test.js'], passToPass: ['node --test tests/lib.test.js'] },
      },
      goldenPatch:
        'diff --git a/src/lib.js b/src/lib.js\n--- a/src/lib.js\n+++ b/src/lib.js\n@@ -1 +1 @@\n-export const answer = 41;\n+export const answer = 42;\n',
    },
  };
}

export async function codeOf(work: Promise<unknown>): Promise<string> {
  return work.then(
    () => 'no error',
    (error: unknown) => (error instanceof BundleError ? error.code : `not a BundleError: ${String(error)}`),
  );
}
