import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBundle, type BuiltBundle, type BundleInput } from '../../../src/freeze/bundle/build.js';
import { readTar } from '@abp/protocol/bundle/tar';
import { bundleInput, codeOf, createHistoryRepo, git, type HistoryRepo } from './support.js';

const run = promisify(execFile);

let root = '';
let repo: HistoryRepo;
let input: BundleInput;
let built: BuiltBundle;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-bundle-build-'));
  repo = await createHistoryRepo(join(root, 'source'));
  input = bundleInput(repo);
  built = await buildBundle(input);
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** `input` changed by `change`, on a deep copy so no case leaks into another. */
function variant(change: (copy: BundleInput) => void): BundleInput {
  const copy = structuredClone(input);
  copy.heldOut.files = input.heldOut.files.map((file) => ({ path: file.path, content: Buffer.from(file.content) }));
  change(copy);
  return copy;
}

/** The same JSON value with every object's keys in reverse insertion order. */
function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([key, item]) => [key, reverseKeys(item)]),
  );
}

describe('buildBundle', () => {
  it('lays out task.json, issue.md, repo.objects and a separable held-out.tar, addressed by sha256', async () => {
    const outer = readTar(built.archive, 'bundle');
    expect(outer.map((entry) => entry.path)).toEqual(['held-out.tar', 'issue.md', 'repo.objects', 'task.json']);
    const heldOut = readTar(outer[0]?.content ?? Buffer.alloc(0), 'held-out');
    expect(heldOut.map((entry) => entry.path)).toEqual([
      'expected-results.json',
      'files/tests/data/fixture.bin',
      'files/tests/fix.test.js',
      'golden.patch',
    ]);
    expect(built.entries).toBe(outer.length + heldOut.length);
    expect(built.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(built.heldOutDigest).not.toBe(built.digest);
    const expected = JSON.parse(heldOut[0]?.content.toString() ?? '') as { failToPass: string[] };
    expect(expected.failToPass).toEqual(
      ['tests/fix.test.js::answer is 42', 'tests/fix.test.js::answer is a number'].sort(),
    );
    const path = join(root, 'gnu-list.tar');
    await writeFile(path, built.archive);
    expect((await run('tar', ['--list', '--file', path])).stdout).toBe(
      'held-out.tar\nissue.md\nrepo.objects\ntask.json\n',
    );
  });

  it('carries no byte of what came after base', () => {
    expect(built.archive.includes(repo.marker)).toBe(false);
    expect(built.archive.includes(repo.futureCommit)).toBe(false);
  });

  it('gives the same digest when built again, from a fresh clone and from inputs listed in another order', async () => {
    expect((await buildBundle(input)).digest).toBe(built.digest);
    const clone = join(root, 'fresh-clone');
    await git(root, 'clone', '--quiet', '--no-local', repo.dir, clone);
    expect((await buildBundle({ ...input, gitDir: clone })).archive.equals(built.archive)).toBe(true);
    const reordered = variant((copy) => {
      copy.heldOut.files.reverse();
      copy.heldOut.expected.failToPass.reverse();
      copy.manifest = reverseKeys(copy.manifest) as typeof copy.manifest;
    });
    expect((await buildBundle(reordered)).digest).toBe(built.digest);
  });

  it('gives another digest when any one input changes by one byte', async () => {
    const changes: Record<string, (copy: BundleInput) => void> = {
      prompt: (copy) => void (copy.manifest.prompt += '!'),
      issue: (copy) => void (copy.issueText = copy.issueText.replace('41', '40')),
      'held-out file': (copy) => void ((copy.heldOut.files[1]?.content ?? Buffer.alloc(1))[0] = 9),
      'held-out path': (copy) => void (copy.heldOut.files[0] && (copy.heldOut.files[0].path = 'tests/fix.test.mjs')),
      'expected results': (copy) => void copy.heldOut.expected.passToPass.push('tests/lib.test.js::more'),
      'golden patch': (copy) => void (copy.heldOut.goldenPatch += '\n'),
    };
    const digests = new Set([built.digest]);
    for (const [name, change] of Object.entries(changes)) {
      const changed = await buildBundle(variant(change));
      expect(digests.has(changed.digest), name).toBe(false);
      digests.add(changed.digest);
    }
    // Another base: the parent of base, with the manifest pinned to it.
    const parent = (await git(repo.dir, 'rev-parse', `${repo.baseCommit}^1`)).trim();
    const otherBase = await buildBundle({
      ...variant((copy) => void (copy.manifest.source.baseCommit = parent)),
      baseCommit: parent,
    });
    expect(digests.has(otherBase.digest)).toBe(false);
    // Only the held-out archive changes its own digest.
    expect((await buildBundle(variant(changes.prompt ?? (() => undefined)))).heldOutDigest).toBe(built.heldOutDigest);
    expect((await buildBundle(variant(changes['golden patch'] ?? (() => undefined)))).heldOutDigest).not.toBe(
      built.heldOutDigest,
    );
  });

  it('refuses an invalid manifest, a base other than the manifest pins, bad expected results and an unsafe held-out path', async () => {
    expect(await codeOf(buildBundle(variant((copy) => void (copy.manifest.verification.failToPass = []))))).toBe(
      'invalid-manifest',
    );
    const parent = (await git(repo.dir, 'rev-parse', `${repo.baseCommit}^1`)).trim();
    expect(await codeOf(buildBundle({ ...input, baseCommit: parent }))).toBe('inconsistent-input');
    expect(
      await codeOf(
        buildBundle(variant((copy) => void copy.heldOut.expected.passToPass.push('tests/fix.test.js::answer is 42'))),
      ),
    ).toBe('invalid-expected-results');
    expect(
      await codeOf(
        buildBundle(
          variant(
            (copy) =>
              void copy.heldOut.expected.flaky.push({
                id: 'tests/lib.test.js::loads',
                outcomes: { before: ['pass'], after: ['fail'] },
              }),
          ),
        ),
      ),
    ).toBe('invalid-expected-results');
    expect(
      await codeOf(
        buildBundle(
          variant((copy) => void copy.heldOut.files.push({ path: '../escape.js', content: Buffer.from('x') })),
        ),
      ),
    ).toBe('unsafe-path');
  });

  it('names the offending field of the expected results', async () => {
    const error = await buildBundle(variant((copy) => void (copy.heldOut.expected.failToPass = []))).catch(
      (caught: unknown) => caught,
    );
    expect((error as Error).message).toMatch(/failToPass/);
  });
});
