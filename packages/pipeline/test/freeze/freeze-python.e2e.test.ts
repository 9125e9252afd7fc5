// Freezing rangeset (pytest, JUnit XML) from the simulator's live world: a known fix, the known fix that
// breaks an existing test (a regression), and the planted flaky round-trip test made to flip for real.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freezeFix, type FreezeOutcome, type FrozenFix } from '../../src/freeze/index.js';
import type { BuiltRepo } from '@abp/github-sim/world/live/build';
import {
  buildRepos,
  cloneAt,
  commitAll,
  freezeInput,
  knownFix,
  RECIPES,
  repoNamed,
  reportId,
  reportIds,
  runnerListedIds,
  suiteIdsAt,
} from './live-repos.js';

let root: string;
let rangeset: BuiltRepo;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-freeze-python-'));
  rangeset = repoNamed(await buildRepos(root), 'rangeset');
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function frozen(outcome: FreezeOutcome): FrozenFix {
  if (outcome.status !== 'frozen') throw new Error(`expected a frozen fix, got ${outcome.reason}: ${outcome.detail}`);
  return outcome;
}

describe('freezing rangeset with pytest', () => {
  it('a known fix freezes to the spec FAIL_TO_PASS and the rest of the suite as PASS_TO_PASS', async () => {
    const fix = knownFix(rangeset, 4);
    const outcome = frozen(
      await freezeFix(freezeInput(rangeset, 4, fix.baseOid, { kind: 'patch', patch: fix.patch }), {
        workDir: join(root, 'work'),
      }),
    );
    const failToPass = reportIds('pytest', fix.failToPass);
    expect(outcome.failToPass).toEqual(failToPass);
    const suite = await suiteIdsAt(rangeset, fix.baseOid, fix.patch, join(root, 'oracle-4'));
    expect(outcome.passToPass).toEqual(suite.filter((id) => !failToPass.includes(id)));
    // The published ids are exactly the node ids `pytest --collect-only -q` prints.
    expect((await runnerListedIds('pytest', join(root, 'oracle-4')))?.sort()).toEqual(
      [...outcome.failToPass, ...outcome.passToPass].sort(),
    );
    expect(outcome.flaky).toEqual([]);
    expect(outcome.heldOutFiles.map((file) => file.path)).toEqual(['tests/test_parse.py']);
    expect(outcome.commands).toEqual({
      failToPass: [`${RECIPES.pytest.test} tests/test_parse.py`],
      passToPass: [RECIPES.pytest.test],
    });
  });

  it('rejects the fix that breaks an existing test as a regression', async () => {
    const fix = knownFix(rangeset, 3);
    const outcome = await freezeFix(freezeInput(rangeset, 3, fix.baseOid, { kind: 'patch', patch: fix.patch }), {
      workDir: join(root, 'work'),
    });
    expect(outcome).toMatchObject({
      status: 'rejected',
      reason: 'regression',
      regressions: reportIds('pytest', fix.breaks),
    });
    expect(outcome.runs).toHaveLength(6);
  });

  it('quarantines the planted flaky test, which fails on every odd run of a checkout', async () => {
    const fix = knownFix(rangeset, 4);
    const [flaky] = rangeset.flaky;
    if (flaky === undefined) throw new Error('rangeset has no planted flaky test');
    // Leftover state, a real source of flakiness: each run counts itself in a file the previous run
    // left in the checkout, and odd runs draw the seed under which the round-trip test fails.
    const conftest = `import os
import pathlib

_counter = pathlib.Path(".run-count")
_runs = int(_counter.read_text()) + 1 if _counter.exists() else 1
_counter.write_text(str(_runs))
os.environ[${JSON.stringify(flaky.env)}] = ${JSON.stringify(flaky.failingValue)} if _runs % 2 == 1 else ${JSON.stringify(flaky.passingValue)}
`;
    const clone = join(root, 'clone-flaky');
    await cloneAt(rangeset, fix.baseOid, clone, fix.patch);
    const commit = await commitAll(clone, { 'tests/conftest.py': conftest }, 'parse_ranges: accept negative bounds');
    const outcome = frozen(
      await freezeFix(freezeInput(rangeset, 4, fix.baseOid, { kind: 'commit', commit }, clone), {
        workDir: join(root, 'work'),
      }),
    );

    const flakyId = reportId('pytest', flaky.test);
    expect(outcome.flaky).toEqual([
      { id: flakyId, outcomes: { before: ['fail', 'pass', 'fail'], after: ['fail', 'pass', 'fail'] } },
    ]);
    expect(outcome.failToPass).toEqual(reportIds('pytest', fix.failToPass));
    const suite = await suiteIdsAt(rangeset, fix.baseOid, fix.patch, join(root, 'oracle-flaky'));
    expect(outcome.passToPass).toEqual(suite.filter((id) => id !== flakyId && !outcome.failToPass.includes(id)));
    expect(outcome.heldOutFiles.map((file) => file.path)).toEqual(['tests/conftest.py', 'tests/test_parse.py']);
  });

  it('never reads a report an earlier run left behind: a run killed before writing its own stops the freeze', async () => {
    const fix = knownFix(rangeset, 4);
    const dies = `import os
import pathlib
import signal


def test_dies_on_its_second_run():
    marker = pathlib.Path(".ran-once")
    if marker.exists():
        os.kill(os.getpid(), signal.SIGKILL)
    marker.write_text("")
`;
    const clone = join(root, 'clone-dies');
    await cloneAt(rangeset, fix.baseOid, clone, fix.patch);
    const commit = await commitAll(clone, { 'tests/test_dies.py': dies }, 'parse_ranges: accept negative bounds');
    const outcome = await freezeFix(freezeInput(rangeset, 4, fix.baseOid, { kind: 'commit', commit }, clone), {
      workDir: join(root, 'work'),
    });
    expect(outcome).toMatchObject({ status: 'rejected', reason: 'suite-did-not-run' });
    const killed = outcome.runs.filter((run) => run.problem !== null);
    expect(killed.length).toBeGreaterThan(0);
    for (const run of killed) {
      // Killed by a signal: null unconfined, 128 + 9 as bubblewrap reports its child's death.
      expect([run.index, run.counts.total, run.exitCode === null || run.exitCode === 137]).toEqual([1, 0, true]);
    }
  });
});
