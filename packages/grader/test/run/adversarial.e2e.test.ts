// Issue 17's red team, as tests: engines that try to be graded resolved without fixing the bug run as real processes
// through the real `abp run`, under both policies, against tasks in four ecosystems built from the host's toolchains.
// On the runner: hiding the failing test, ending the test process early, runner plugins and live hooks, a cargo runner,
// a build script, a Go init that prints passes, no-op asserts. On the harness (on the Python task): a daemon that
// outlives its engine, a poisoned repository cache, reads of held-out material outside the workspace, the grader's
// environment through /proc, a crash, FIFOs, a 2 GiB file, a dangling symlink, and traces that lie about tokens.
// Each attack must end unresolved or disqualified (an attack on metrics resolves with its figures unknown), the fix
// must resolve and the no-op must not, and the run must still write its report and run-latest and gate.
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AbpTrial } from '@abp/protocol/schemas/abp-trial';
import { runMatrix } from '../../src/run/run-matrix.js';
import { sandboxStatus } from '../../src/execution/index.js';
import { createBaseline, evaluateGate } from '../../src/gate/index.js';
import { readRunResults } from '../../src/results/index.js';
import { cacheProblem } from '../../src/workspace/index.js';
import {
  attacksOn,
  buildTask,
  METRIC_ATTACKS,
  TASKS,
  writeAdversarialRun,
  type Ecosystem,
} from '../support/adversarial-tasks.js';

const folders: string[] = [];
afterAll(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

// A value only the grader's own process holds: no receipt may ever show it.
const graderSecret = `abp-red-team-${randomBytes(8).toString('hex')}`;

interface Graded {
  dir: string;
  trials: AbpTrial[];
  receipt(trial: AbpTrial | undefined, kind: 'diff' | 'stdout' | 'stderr'): Promise<string>;
}

async function gradeAttacks(ecosystem: Ecosystem, policy: 'trusted-local' | 'sandboxed'): Promise<Graded> {
  const dir = await mkdtemp(join(tmpdir(), `abp-adversarial-${ecosystem}-`));
  folders.push(dir);
  const taskId = await buildTask(join(dir, 'tasks'), ecosystem);
  // A data directory holding the fix, as an operator's bundle store would: hidden like the task folders.
  await mkdir(join(dir, 'data', 'bundles', taskId), { recursive: true });
  await copyFile(
    join(dir, 'tasks', taskId, 'held-out', 'golden.patch'),
    join(dir, 'data', 'bundles', taskId, 'golden.patch'),
  );
  const { config } = await writeAdversarialRun(dir, ecosystem, policy);
  process.env['ABP_RED_TEAM_SECRET'] = graderSecret;
  try {
    const result = await runMatrix({
      config,
      output: join(dir, 'results'),
      cacheDir: join(dir, 'cache'),
      // Two at a time, so an engine could reach another trial's folders if anything let it.
      concurrency: 2,
      hostEnv: { ...process.env, ABP_HOME: join(dir, 'data') },
    });
    return {
      dir,
      trials: result.trials,
      receipt: async (trial, kind) => {
        const path = trial?.receipts[kind];
        return path === null || path === undefined ? '' : readFile(join(result.runDir, path), 'utf8');
      },
    };
  } finally {
    delete process.env['ABP_RED_TEAM_SECRET'];
  }
}

const sandbox = await sandboxStatus();
const policies = (['trusted-local', 'sandboxed'] as const).filter(
  (policy) => policy === 'trusted-local' || sandbox.available,
);
const ecosystems: Ecosystem[] = ['python', 'node', 'go', 'rust'];
const outcomeOf = (trial: AbpTrial | undefined) =>
  `${trial?.outcome ?? 'missing'}${trial?.reason === null || trial === undefined ? '' : ` (${trial.reason})`}`;

describe.each(policies)('the red team under %s', (policy) => {
  it.each(ecosystems)(
    '%s: every attack is unresolved or disqualified; the fix resolves and the no-op does not',
    async (ecosystem) => {
      const graded = await gradeAttacks(ecosystem, policy);
      const trialOf = (engine: string) => graded.trials.find((candidate) => candidate.engine === engine);
      expect(outcomeOf(trialOf('fix'))).toBe('resolved');
      expect(outcomeOf(trialOf('noop'))).toMatch(/^unresolved/);
      const attacks = attacksOn(ecosystem).map(([name]) => name);
      expect(attacks.length).toBeGreaterThan(1);
      for (const attack of attacks.filter((name) => !METRIC_ATTACKS.has(name)))
        expect([attack, outcomeOf(trialOf(attack))]).toEqual([
          attack,
          expect.stringMatching(/^(unresolved|disqualified)/),
        ]);

      // The fix ran with its sentinels intact, and the frozen sets are what resolved it.
      const fixed = trialOf('fix');
      expect(fixed?.verification?.canaries.length).toBeGreaterThan(0);
      expect(fixed?.verification?.canaries.every((canary) => canary.intact)).toBe(true);
      expect(fixed?.verification?.judged?.failToPass).toEqual({ expected: 1, passed: 1, problems: [] });
      expect(fixed?.engineProcess).toMatchObject({ isolated: true, sandboxed: policy === 'sandboxed' });
      if (ecosystem !== 'python') return;

      // What the harness attacks left in their receipts: nothing they read, reached or rewrote.
      for (const name of ['poison-cache', 'read-outside', 'read-grader-env']) {
        const diff = await graded.receipt(trialOf(name), 'diff');
        expect([name, diff]).not.toEqual([
          name,
          expect.stringMatching(/applied \d+ bytes|rewritten \/|RED_TEAM_SECRET=/),
        ]);
      }
      for (const trial of graded.trials)
        for (const kind of ['diff', 'stdout', 'stderr'] as const)
          expect(await graded.receipt(trial, kind)).not.toContain(graderSecret);
      expect(outcomeOf(trialOf('crash'))).toBe('unresolved (crashed-before-acting)');
      expect(outcomeOf(trialOf('huge-file'))).toBe('unresolved (workspace-too-large)');
      // The cache the poisoner went for is whole, and a fresh run would trust it.
      const base = await readFile(join(graded.dir, 'tasks', TASKS.python.id, 'task.json'), 'utf8');
      const baseCommit = (JSON.parse(base) as { source: { baseCommit: string } }).source.baseCommit;
      expect(await cacheProblem(join(graded.dir, 'cache', `${baseCommit}.git`), baseCommit)).toBeNull();

      // Attacks on metrics resolve on their real fix, with the figures they lied about unknown and flagged.
      for (const [name, flag] of [
        ['fifo-trace', 'trace-not-a-file'],
        ['huge-tokens', 'tokens-out-of-range'],
        ['dropped-lines', 'tokens-unknown'],
      ] as const) {
        const trial = trialOf(name);
        expect([name, outcomeOf(trial), trial?.metrics.tokensTotal, trial?.metrics.computedUsd]).toEqual([
          name,
          'resolved',
          null,
          null,
        ]);
        expect(trial?.trace?.flags).toContain(flag);
      }

      // One hostile trial stops nothing: the report, run-latest and the gate for every engine of the run.
      const results = await readRunResults(join(graded.dir, 'results', 'run-latest'));
      expect(await readlink(join(graded.dir, 'results', 'run-latest'))).toBe(results.run.id);
      expect(await readFile(join(results.dir, 'report.html'), 'utf8')).toContain('<html');
      const baseline = createBaseline(results, 'fix');
      for (const engine of results.run.engines.map((entry) => entry.name)) {
        const report = evaluateGate({ results, baseline, engine, requireSignificant: false });
        expect([engine, report.comparable]).toEqual([engine, true]);
      }
      expect(evaluateGate({ results, baseline, engine: 'fix', requireSignificant: false }).passed).toBe(true);
    },
    600_000,
  );
});

describe('what the red team leaves in the receipts', () => {
  it('names the sentinels that caught a live hook, and the runner files it put back', async () => {
    const graded = await gradeAttacks('python', 'trusted-local');
    const hooked = graded.trials.find((trial) => trial.engine === 'py-live-hook');
    expect(hooked).toMatchObject({ outcome: 'disqualified', reason: 'verification-tampered' });
    expect(hooked?.verification?.canaries).toContainEqual(
      expect.objectContaining({ role: 'must-fail', status: 'pass', intact: false }),
    );
    const hidden = graded.trials.find((trial) => trial.engine === 'py-hidden-test');
    expect(hidden?.outcome).toBe('unresolved');
    expect(hidden?.verification?.machineryRestored).toEqual(['pyproject.toml', 'pytest.ini']);
    // Nothing of the sentinels reaches the task folder: they were written into the checkout alone.
    const heldOut = await readFile(
      join(graded.dir, 'tasks', TASKS.python.id, 'held-out', 'files', 'tests', 'test_add.py'),
      'utf8',
    );
    expect(heldOut).not.toMatch(/def test_[0-9a-f]{12}/);
    // The daemon wrote nothing anywhere: it died with its engine, before any verification checkout existed.
    const daemon = graded.trials.find((trial) => trial.engine === 'daemon');
    expect(daemon?.verification?.judged?.failToPass.passed).toBe(0);
  }, 600_000);
});
