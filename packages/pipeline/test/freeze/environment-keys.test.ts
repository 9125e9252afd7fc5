// Which files of a checkout key the freeze's environment cache: an install that reads a file the key leaves out would be
// reused, stale, at the next commit that changed it.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dependencyFiles } from '../../src/freeze/environment.js';

let checkout: string;
beforeAll(async () => {
  checkout = await mkdtemp(join(tmpdir(), 'abp-environment-keys-'));
  for (const path of [
    'pyproject.toml',
    'poetry.lock',
    'tox.ini',
    'ci/needs.txt',
    'ci/pins.txt',
    'requirements-dev.txt',
    'src/app.py',
  ]) {
    await mkdir(dirname(join(checkout, path)), { recursive: true });
    await writeFile(join(checkout, path), path);
  }
});
afterAll(async () => {
  await rm(checkout, { recursive: true, force: true });
});

describe('dependencyFiles', () => {
  it('keys a Python environment on its manifests, its lock and every file an install step names, wherever it lies', async () => {
    const files = await dependencyFiles(checkout, 'python', [
      "python -m pip install -e '.[test]'",
      'python -m pip install -r ci/needs.txt -c ./ci/pins.txt',
    ]);
    expect(Object.keys(files)).toEqual([
      'ci/needs.txt',
      'ci/pins.txt',
      'poetry.lock',
      'pyproject.toml',
      'requirements-dev.txt',
    ]);
    expect(files['ci/needs.txt']).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('keys on every file where the install copies the project itself', async () => {
    const files = await dependencyFiles(checkout, 'python', ['python -m pip install .']);
    expect(Object.keys(files)).toContain('src/app.py');
  });
});
