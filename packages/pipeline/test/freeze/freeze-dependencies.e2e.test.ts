// The live world's repositories whose tests need third-party packages (vitest and dedent through `npm ci` and the
// committed lockfile; more-itertools and pytest from PyPI; go-cmp through the module proxy; the itoa crate), each fix
// frozen with the recipe the criteria detect, no hand-written recipe, in an environment built from the registries: to
// the FAIL_TO_PASS its known fix adds and the rest of the suite as PASS_TO_PASS, with the toolchain the repository
// names (Node 22 from npm for mdanchor's `engines`, which the host's Node 20 is not).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnvironmentStore } from '@abp/grader/environments';
import type { BuiltRepo } from '@abp/github-sim/world/live/build';
import { freezeFix, recipeFor } from '../../src/freeze/index.js';
import { buildRepos, knownFix, reportIds, repoNamed, runnerListedIds, suiteIdsAt } from './live-repos.js';
import { sharedEnvironmentStore } from '../../../../test-support/toolchain-caches.js';

const store = new EnvironmentStore(sharedEnvironmentStore);
let root: string;
let repos: BuiltRepo[];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-freeze-deps-'));
  repos = await buildRepos(root);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const CASES = [
  { name: 'mdanchor', runner: 'vitest', install: ['npm ci --no-audit --no-fund'], toolchain: ['node', /^v?22\./] },
  {
    name: 'batchkit',
    runner: 'pytest',
    // The project's test extra, and pytest itself.
    install: ["python -m pip install -e '.[test]'", 'python -m pip install pytest'],
    toolchain: ['pytest', /^\d+\./],
  },
  { name: 'wordwrap', runner: 'go-test', install: ['go mod download'], toolchain: ['go', /^1\.21\./] },
  { name: 'tallyho', runner: 'cargo-test', install: ['cargo fetch'], toolchain: ['rustc', /^1\./] },
] as const;

describe('live repositories with third-party dependencies, frozen in their environments', () => {
  for (const { name, runner, install, toolchain } of CASES) {
    it(`${name}: the detected ${runner} recipe freezes its fix to the expected test sets`, async () => {
      const repo = repoNamed(repos, name);
      const fix = knownFix(repo, 3);
      const fullName = `${repo.repo.owner}/${repo.repo.name}`;
      const recipe = await recipeFor({ repo: fullName, gitDir: repo.upstreamPath, base: fix.baseOid, entry: null });
      expect(recipe).toMatchObject({ runner, install });
      const outcome = await freezeFix(
        {
          taskId: `gh-${repo.repo.owner}-${repo.repo.name}-3`,
          repo: fullName,
          gitDir: repo.upstreamPath,
          baseCommit: fix.baseOid,
          fix: { kind: 'patch', patch: fix.patch },
          recipe,
        },
        { workDir: join(root, `work-${name}`), environments: store },
      );
      if (outcome.status !== 'frozen') throw new Error(`${name} was rejected ${outcome.reason}: ${outcome.detail}`);
      expect(outcome.failToPass).toEqual(reportIds(repo.runner, fix.failToPass));
      // PASS_TO_PASS is every other test of the fixed suite, as the simulator's own runner (on the host, after its
      // CI's install) names them: an oracle independent of the freeze.
      const after = await suiteIdsAt(repo, fix.baseOid, fix.patch, join(root, `oracle-${name}`));
      expect(outcome.passToPass).toEqual(after.filter((id) => !outcome.failToPass.includes(id)));
      expect(outcome.passToPass.length).toBeGreaterThanOrEqual(3);
      // Published ids are the runner's own: each FAIL_TO_PASS id is one the runner itself lists for the fixed tree.
      const listed = await runnerListedIds(repo.runner, join(root, `oracle-${name}`));
      expect(listed).toEqual(expect.arrayContaining(outcome.failToPass));
      expect(outcome.flaky).toEqual([]);
      const [tool, version] = toolchain;
      expect(outcome.environment?.toolchains[tool], JSON.stringify(outcome.environment?.toolchains)).toMatch(version);
    }, 900_000);
  }
});
