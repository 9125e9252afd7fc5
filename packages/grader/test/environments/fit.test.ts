// An environment fits a task when the dependency files its image records are in the task's repository with the same
// contents; a signed manifest naming another repository's environment, or one built from other lockfiles, is refused.
import { describe, expect, it } from 'vitest';
import { codeOf } from './environment-error.js';
import { fileDigest } from '../../src/environments/build.js';
import { checkEnvironmentFits, recordedDependencyFiles } from '../../src/environments/fit.js';
import { LABELS } from '../../src/environments/runtime.js';
import { EnvironmentError } from '../../src/environments/errors.js';
import type { ImageConfig } from '../../src/environments/store.js';

const lock = '{"lockfileVersion":3,"packages":{"node_modules/vitest":{"version":"3.2.4"}}}\n';
const manifest = '{"name":"textkit","devDependencies":{"vitest":"3.2.4"}}\n';

function config(labels: Record<string, string>): ImageConfig {
  return {
    architecture: 'amd64',
    os: 'linux',
    config: { Env: [], WorkingDir: '/work/repo', Labels: labels },
    rootfs: { type: 'layers', diff_ids: [] },
  };
}

const built = config({
  [LABELS.dependencyFiles]: JSON.stringify({
    'package-lock.json': fileDigest(lock),
    'package.json': fileDigest(manifest),
  }),
});
const repoOf =
  (files: Record<string, string>) =>
  (path: string): Promise<Buffer | null> =>
    Promise.resolve(path in files ? Buffer.from(files[path] ?? '') : null);
const what = { taskId: 'gh-mira-quill-textkit-3', digest: `sha256:${'a'.repeat(64)}`, config: built };

describe('checkEnvironmentFits', () => {
  it('accepts the repository the environment was built from', async () => {
    await expect(
      checkEnvironmentFits(what, repoOf({ 'package.json': manifest, 'package-lock.json': lock })),
    ).resolves.toBeUndefined();
  });

  it('refuses a repository whose lockfile differs, naming the file and both digests', async () => {
    const other = lock.replace('3.2.4', '3.2.3');
    const error = await checkEnvironmentFits(
      what,
      repoOf({ 'package.json': manifest, 'package-lock.json': other }),
    ).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(EnvironmentError);
    expect((error as EnvironmentError).code).toBe('environment-mismatch');
    expect(String(error)).toContain(`package-lock.json ${fileDigest(lock)}`);
    expect(String(error)).toContain(`has ${fileDigest(other)}`);
  });

  it('refuses a repository that lacks a recorded file', async () => {
    expect(await codeOf(checkEnvironmentFits(what, repoOf({ 'package.json': manifest })))).toBe('environment-mismatch');
  });

  it('reads the recorded files, and treats an image that records none as one built before images recorded them', async () => {
    expect(recordedDependencyFiles(built)).toEqual({
      'package-lock.json': fileDigest(lock),
      'package.json': fileDigest(manifest),
    });
    expect(recordedDependencyFiles(config({}))).toBeNull();
    await expect(checkEnvironmentFits({ ...what, config: config({}) }, repoOf({}))).resolves.toBeUndefined();
    expect(
      await codeOf(checkEnvironmentFits({ ...what, config: config({ [LABELS.dependencyFiles]: '[1]' }) }, repoOf({}))),
    ).toBe('invalid-image');
  });
});
