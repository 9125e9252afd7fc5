// Freezing semver-lite (cargo test, libtest text) from the simulator's live world.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freezeFix } from '../../src/freeze/index.js';
import type { BuiltRepo } from '@abp/github-sim/world/live/build';
import {
  buildRepos,
  freezeInput,
  knownFix,
  RECIPES,
  repoNamed,
  reportIds,
  runnerListedIds,
  suiteIdsAt,
} from './live-repos.js';

let root: string;
let semverLite: BuiltRepo;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-freeze-rust-'));
  semverLite = repoNamed(await buildRepos(root), 'semver-lite');
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('freezing semver-lite with cargo test', () => {
  it(
    'a known fix freezes to the spec FAIL_TO_PASS and the rest of the suite as PASS_TO_PASS',
    { timeout: 180_000 },
    async () => {
      const fix = knownFix(semverLite, 4);
      const outcome = await freezeFix(freezeInput(semverLite, 4, fix.baseOid, { kind: 'patch', patch: fix.patch }), {
        workDir: join(root, 'work'),
      });
      if (outcome.status !== 'frozen')
        throw new Error(`expected a frozen fix, got ${outcome.reason}: ${outcome.detail}`);
      const failToPass = reportIds('cargo-test', fix.failToPass);
      expect(outcome.failToPass).toEqual(failToPass);
      const suite = await suiteIdsAt(semverLite, fix.baseOid, fix.patch, join(root, 'oracle'));
      expect(outcome.passToPass).toEqual(suite.filter((id) => !failToPass.includes(id)));
      // The published ids are exactly what `cargo test -- --list` prints, under the targets cargo names.
      expect((await runnerListedIds('cargo-test', join(root, 'oracle')))?.sort()).toEqual(
        [...outcome.failToPass, ...outcome.passToPass].sort(),
      );
      expect(outcome.flaky).toEqual([]);
      expect(outcome.heldOutFiles.map((file) => file.path)).toEqual(['tests/version.rs']);
      expect(outcome.split.codePatch).toContain('diff --git a/src/lib.rs b/src/lib.rs');
      // The new test lives in the integration target tests/version.rs: only that binary needs to run.
      expect(outcome.commands).toEqual({
        failToPass: [`${RECIPES['cargo-test'].test} --test version`],
        passToPass: [RECIPES['cargo-test'].test],
      });
      for (const run of outcome.runs)
        expect([run.state, run.index, run.problem, run.counts.total]).toEqual([
          run.state,
          run.index,
          null,
          suite.length,
        ]);
    },
  );
});
