// A task's provenance is resolved before anything runs: the cutoffs it is verified against come from the committed
// list and its sourcedAt, and a task sourced before every cutoff ended is refused at once, in one line naming the list
// and the fix, without reading its repository, building its environment or storing a byte.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BundleStore } from '../../src/freeze/bundle/store.js';
import { FreezeError, freezeTask, verifiedCutoffs, type TaskFreezeInput } from '../../src/freeze/index.js';
import { createSigningKey } from '../../src/signing/keys.js';
import { createSigner } from '../../src/signing/signer.js';
import { RECIPES } from './live-repos.js';

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-provenance-'));
});
afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

const provenance = { registryVersion: 'abp-registry/2026Q2', drawSeed: 7 };

async function refusal(run: () => Promise<unknown>): Promise<FreezeError> {
  const error = await run().then(
    () => null,
    (failure: unknown) => failure,
  );
  if (!(error instanceof FreezeError)) throw new Error(`expected a FreezeError, got ${String(error)}`);
  return error;
}

describe('the cutoffs a task is verified against', () => {
  it('lists every committed cutoff that ended before sourcedAt, sorted', async () => {
    expect(await verifiedCutoffs({ ...provenance, sourcedAt: '2026-06-01T00:00:00Z' })).toEqual([
      'claude-opus-4.1:2025-03',
      'claude-sonnet-4.5:2025-07',
      'gemini-2.5-pro:2025-01',
      'gpt-5:2024-09',
    ]);
    // A cutoff month ends at the first instant of the next month: sourced then, the task postdates it.
    expect(await verifiedCutoffs({ ...provenance, sourcedAt: '2024-10-01T00:00:00Z' })).toEqual(['gpt-5:2024-09']);
  });

  it('refuses a task sourced before every cutoff ended, in one line naming the list and the fix', async () => {
    const error = await refusal(() => verifiedCutoffs({ ...provenance, sourcedAt: '2024-09-30T23:59:59Z' }));
    expect(error.code).toBe('no-verified-cutoff');
    expect(error.message).not.toContain('\n');
    expect(error.message).toContain('model-cutoffs.json');
    expect(error.message).toContain('the earliest ends 2024-10-01T00:00:00Z');
    expect(error.message).toContain('freeze only issues drawn after 2024-10-01T00:00:00Z');
  });

  it('refuses provenance that is not the manifest’s, naming the field, rather than guessing', async () => {
    const error = await refusal(() =>
      verifiedCutoffs({ sourcedAt: '2026-06-01 00:00', registryVersion: '2026Q2', drawSeed: -1 }),
    );
    expect(error.code).toBe('invalid-input');
    expect(error.message).toContain('sourcedAt');
    expect(error.message).toContain('registryVersion');
    expect(error.message).toContain('drawSeed');
  });

  it('refuses the freeze before its repository is read or anything is stored', async () => {
    const store = new BundleStore(join(root, 'bundles'));
    const input: TaskFreezeInput = {
      taskId: 'gh-acme-widgets-3',
      repo: 'acme/widgets',
      // Nothing is there: a freeze that looked would fail as not-a-repository instead.
      gitDir: join(root, 'no-such-repository'),
      baseCommit: 'a'.repeat(40),
      fix: { kind: 'commit', commit: 'b'.repeat(40) },
      recipe: RECIPES['node-test'],
      issue: { number: 3, title: 'A bug', body: 'It breaks.' },
      mergedPr: 'https://github.com/acme/widgets/pull/4',
      sourcedAt: '2019-05-01T00:00:00Z',
      ...provenance,
    };
    await createSigningKey(join(root, 'keys'));
    const signer = await createSigner({ keyDir: join(root, 'keys') });
    const error = await refusal(() => freezeTask(input, { workDir: join(root, 'work'), store, signer }));
    expect(error.code).toBe('no-verified-cutoff');
    // No scratch folder, no bundle, no freeze record: only the key made above.
    expect(await readdir(root)).toEqual(['keys']);
  });
});
