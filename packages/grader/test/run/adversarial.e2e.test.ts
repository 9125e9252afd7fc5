// Issue 17's red team, as tests: engines that try to be graded resolved without fixing the bug (hiding the failing
// test, ending the test process early, runner plugins and live hooks, a cargo runner, a build script, a Go init that
// prints passes, no-op asserts) run as real processes through the real `abp run`, under both policies, against tasks
// in four ecosystems built from the host's toolchains. Each attack must end unresolved or disqualified, the fix must
// resolve and the no-op must not.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AbpTrial } from '@abp/protocol/schemas/abp-trial';
import { runMatrix } from '../../src/run/run-matrix.js';
import { sandboxStatus } from '../../src/execution/index.js';
import { ATTACKS, buildTask, writeAdversarialRun, type Ecosystem } from '../support/adversarial-tasks.js';

const folders: string[] = [];
afterAll(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

async function gradeAttacks(ecosystem: Ecosystem, policy: 'trusted-local' | 'sandboxed'): Promise<AbpTrial[]> {
  const dir = await mkdtemp(join(tmpdir(), `abp-adversarial-${ecosystem}-`));
  folders.push(dir);
  await buildTask(join(dir, 'tasks'), ecosystem);
  const { config } = await writeAdversarialRun(dir, ecosystem, policy);
  const result = await runMatrix({ config, output: join(dir, 'results'), cacheDir: join(dir, 'cache') });
  return result.trials;
}

const sandbox = await sandboxStatus();
const policies = (['trusted-local', 'sandboxed'] as const).filter(
  (policy) => policy === 'trusted-local' || sandbox.available,
);
const ecosystems: Ecosystem[] = ['python', 'node', 'go', 'rust'];

describe.each(policies)('the red team under %s', (policy) => {
  it.each(ecosystems)(
    '%s: every attack is unresolved or disqualified; the fix resolves and the no-op does not',
    async (ecosystem) => {
      const trials = await gradeAttacks(ecosystem, policy);
      const outcome = (engine: string) => {
        const trial = trials.find((candidate) => candidate.engine === engine);
        return `${trial?.outcome ?? 'missing'}${trial?.reason === null || trial === undefined ? '' : ` (${trial.reason})`}`;
      };
      expect(outcome('fix')).toBe('resolved');
      expect(outcome('noop')).toMatch(/^unresolved/);
      const attacks = Object.entries(ATTACKS)
        .filter(([, attack]) => attack.ecosystem === ecosystem)
        .map(([name]) => name);
      expect(attacks.length).toBeGreaterThan(0);
      for (const attack of attacks)
        expect([attack, outcome(attack)]).toEqual([attack, expect.stringMatching(/^(unresolved|disqualified)/)]);

      // The fix ran with its sentinels intact, and the frozen sets are what resolved it.
      const fixed = trials.find((trial) => trial.engine === 'fix');
      expect(fixed?.verification?.canaries.length).toBeGreaterThan(0);
      expect(fixed?.verification?.canaries.every((canary) => canary.intact)).toBe(true);
      expect(fixed?.verification?.judged?.failToPass).toEqual({ expected: 1, passed: 1, problems: [] });
    },
    300_000,
  );
});

describe('what the red team leaves in the receipts', () => {
  it('names the sentinels that caught a live hook, and the runner files it put back', async () => {
    const trials = await gradeAttacks('python', 'trusted-local');
    const hooked = trials.find((trial) => trial.engine === 'py-live-hook');
    expect(hooked).toMatchObject({ outcome: 'disqualified', reason: 'verification-tampered' });
    expect(hooked?.verification?.canaries).toContainEqual(
      expect.objectContaining({ role: 'must-fail', status: 'pass', intact: false }),
    );
    const hidden = trials.find((trial) => trial.engine === 'py-hidden-test');
    expect(hidden?.outcome).toBe('unresolved');
    expect(hidden?.verification?.machineryRestored).toEqual(['pyproject.toml', 'pytest.ini']);
    // Nothing of the sentinels reaches the task folder: they were written into the checkout alone.
    const heldOut = await readFile(
      join(
        folders[folders.length - 1] ?? '',
        'tasks',
        'gh-abp-adv-python-1',
        'held-out',
        'files',
        'tests',
        'test_add.py',
      ),
      'utf8',
    );
    expect(heldOut).not.toMatch(/def test_[0-9a-f]{12}/);
  }, 300_000);
});
