// Freezing durafmt (go test -json) from the simulator's live world. The freeze's Go build cache starts
// cold here, so the first runs compile the standard library: this suite is the slowest of the four.
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
import { sharedGoBuildCache } from '../../../../test-support/toolchain-caches.js';

let root: string;
let durafmt: BuiltRepo;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-freeze-go-'));
  durafmt = repoNamed(await buildRepos(root), 'durafmt');
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('freezing durafmt with go test', () => {
  it(
    'a known fix freezes to the spec FAIL_TO_PASS and the rest of the suite as PASS_TO_PASS',
    { timeout: 240_000 },
    async () => {
      const fix = knownFix(durafmt, 3);
      const outcome = await freezeFix(freezeInput(durafmt, 3, fix.baseOid, { kind: 'patch', patch: fix.patch }), {
        workDir: join(root, 'work'),
        goBuildCache: sharedGoBuildCache,
      });
      if (outcome.status !== 'frozen')
        throw new Error(`expected a frozen fix, got ${outcome.reason}: ${outcome.detail}`);
      const failToPass = reportIds('go-test', fix.failToPass);
      expect(outcome.failToPass).toEqual(failToPass);
      const suite = await suiteIdsAt(durafmt, fix.baseOid, fix.patch, join(root, 'oracle'));
      expect(outcome.passToPass).toEqual(suite.filter((id) => !failToPass.includes(id)));
      // go test -list names top-level tests: every one is a published id, the FAIL_TO_PASS ones among them.
      const listed = await runnerListedIds('go-test', join(root, 'oracle'));
      expect(suite).toEqual(expect.arrayContaining(listed ?? ['no listing']));
      expect(listed).toEqual(expect.arrayContaining(failToPass));
      expect(outcome.flaky).toEqual([]);
      expect(outcome.heldOutFiles.map((file) => file.path)).toEqual(['durafmt_test.go']);
      // gofmt canonicalizes both sides before the bytes are counted.
      expect(outcome.golden).toMatchObject({ filesTouched: 1, diffBytesNormalized: expect.any(Number) as number });
      expect(outcome.commands).toEqual({
        failToPass: ["go test -run '^(TestFormatNegative)$' -json -count=1 ./..."],
        passToPass: [RECIPES['go-test'].test],
      });
    },
  );
});
