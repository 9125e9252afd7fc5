import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRunInputs } from '../../src/config/load-run-inputs.js';
import { graderPackageRoots, runFingerprint, runIdOf, sourceTreeDigest } from '../../src/run/fingerprint.js';
import { buildRunFixture, GREETING_TASK, type RunFixture } from '../support/run-fixture.js';

let built: RunFixture;
beforeAll(async () => {
  built = await buildRunFixture({ adapters: [{ engine: 'fixer', script: 'fix' }], tasks: [GREETING_TASK] });
});
afterAll(() => built.cleanup());

const fingerprint = async (options = { runUnsupported: false }, source = 'sha256:source') =>
  runFingerprint(await loadRunInputs({ config: built.config }), options, source);
const edit = async (path: string, change: (value: Record<string, unknown>) => void) => {
  const value = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  change(value);
  await writeFile(path, JSON.stringify(value));
};

describe('the run fingerprint', () => {
  it('is stable for the same inputs and names the run', async () => {
    const first = await fingerprint();
    expect(await fingerprint()).toBe(first);
    expect(runIdOf(first)).toMatch(/^run-[0-9a-f]{12}$/);
  });

  it('changes with the source tree, the options, the config, the adapters and the tasks', async () => {
    const seen = new Set([await fingerprint()]);
    seen.add(await fingerprint(undefined, 'sha256:other-source'));
    seen.add(await fingerprint({ runUnsupported: true }));
    await edit(built.config, (config) => (config.seed = 43));
    seen.add(await fingerprint());
    await edit(
      built.adapters,
      (file) => ((file.adapters as Array<{ timeoutSeconds: number }>)[0]!.timeoutSeconds = 61),
    );
    seen.add(await fingerprint());
    await writeFile(
      join(built.tasks, GREETING_TASK, 'held-out', 'files', 'test', 'extra.test.js'),
      '// another held-out file\n',
    );
    seen.add(await fingerprint());
    expect(seen.size).toBe(6);
  });
});

describe('the source tree digest', () => {
  let copy = '';
  afterAll(() => rm(copy, { recursive: true, force: true }));

  it('is the same for a copy of the packages without git metadata, and changes with a built file', async () => {
    copy = await mkdtemp(join(tmpdir(), 'abp-source-copy-'));
    const roots = graderPackageRoots();
    const copies: Record<string, string> = {};
    for (const [name, root] of Object.entries(roots)) {
      copies[name] = join(copy, name);
      for (const folder of ['bin', 'data', 'dist'])
        await cp(join(root, folder), join(copies[name], folder), { recursive: true }).catch(() => undefined);
    }
    expect(await sourceTreeDigest(copies)).toBe(await sourceTreeDigest());
    await writeFile(join(copy, '@abp/grader', 'dist', 'run', 'verdict.js'), '// changed\n');
    expect(await sourceTreeDigest(copies)).not.toBe(await sourceTreeDigest());
  });
});
