// The live world's repositories under their real test runners (node --test, vitest, pytest, go test,
// cargo test), after the install step their CI runs for those that need third-party packages, offline: every suite passes at HEAD, every known fix's new tests fail before it and
// pass after it, the fix that breaks a test really breaks it, and the planted flaky test flips
// with its seeded environment value.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimRepo } from '../../src/world/model.js';
import { applyPatch, checkout } from '../../src/world/live/ci.js';
import { LIVE_REPO_SPECS } from '../../src/world/live/repos/catalog.js';
import type { SuiteRun, TestStatus } from '../../src/world/live/runners.js';
import { installDependencies, runTests } from '../../src/world/live/runners.js';
import type { LiveWorld } from '../../src/world/live/world.js';
import { createLiveWorld, flakyTests, knownFixes } from '../../src/world/live/world.js';

const run = promisify(execFile);
// Suites run five at a time on two cores, some after installing from the registries (pip builds in isolation, Go and
// cargo compile their dependencies): minutes, not the default seconds.
const SUITE_TIMEOUT_MS = 300_000;

let root: string;
let world: LiveWorld;
let checkouts = 0;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'abp-live-suites-'));
  world = await createLiveWorld({ seed: 7, dir: join(root, 'world') });
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function upstream(name: string): SimRepo {
  const repo = Array.from({ length: world.repoCount() }, (_, index) => world.repoAt(index) as SimRepo).find(
    (candidate) => !candidate.isFork && candidate.name === name,
  );
  if (!repo) throw new Error(`no repository ${name}`);
  return repo;
}

/** Flaky tests pinned to their passing value, so only the fix under test decides outcomes. */
function stableEnv(): Record<string, string> {
  return Object.fromEntries(flakyTests(world).map((flaky) => [flaky.env, flaky.passingValue]));
}

async function suiteAt(
  repo: SimRepo,
  commit: string,
  patch?: { text: string; only?: readonly string[] },
  env = stableEnv(),
): Promise<SuiteRun> {
  const dir = join(root, `checkout-${checkouts++}`);
  await checkout(world, repo, commit, dir);
  // What the repository's CI installs first, from the registries: its virtualenv, node_modules, modules or crates.
  const install = world.installOf(repo);
  if (install !== undefined) await installDependencies(install, dir);
  if (patch) await applyPatch(dir, patch.text, patch.only);
  const runner = world.runnerOf(repo);
  if (!runner) throw new Error(`no runner for ${repo.name}`);
  return runTests(runner, dir, { env });
}

function outcomes(suite: SuiteRun): Map<string, TestStatus> {
  return new Map(suite.results.map((result) => [result.id, result.status]));
}

describe.concurrent('live repositories under their real runners', () => {
  for (const spec of LIVE_REPO_SPECS) {
    it(
      `${spec.name}: the whole suite passes at HEAD with ${spec.runner}`,
      async () => {
        const repo = upstream(spec.name);
        const suite = await suiteAt(repo, repo.headOid);
        expect(suite.exitCode, suite.output).toBe(0);
        expect(suite.results.length).toBeGreaterThanOrEqual(4);
        expect(suite.results.filter((result) => result.status !== 'pass')).toEqual([]);
      },
      SUITE_TIMEOUT_MS,
    );

    for (const issue of spec.issues.filter((candidate) => candidate.fix)) {
      it(
        `${spec.name}#${issue.number}: the fix's new tests fail before it and pass after it`,
        async () => {
          const repo = upstream(spec.name);
          const fix = knownFixes(world).find(
            (candidate) => candidate.repo === `${repo.owner}/${repo.name}` && candidate.issue === issue.number,
          );
          if (!fix) throw new Error('missing known fix');
          expect(fix.baseOid).toBe(repo.headOid);
          expect(fix.testFiles.length).toBeGreaterThan(0);
          // Before: base plus the test part only, as the freeze runs it; after: the whole patch.
          const [before, after] = await Promise.all([
            suiteAt(repo, fix.baseOid, { text: fix.patch, only: fix.testFiles }),
            suiteAt(repo, fix.baseOid, { text: fix.patch }),
          ]);
          const was = outcomes(before);
          const is = outcomes(after);
          for (const id of fix.failToPass) {
            expect(was.get(id), `${id} before`).toBe('fail');
            expect(is.get(id), `${id} after`).toBe('pass');
          }
          for (const id of fix.breaks) {
            expect(was.get(id), `${id} before`).toBe('pass');
            expect(is.get(id), `${id} after`).toBe('fail');
          }
          // Everything else passes on both sides: PASS_TO_PASS.
          const others = [...was.keys()].filter((id) => !fix.failToPass.includes(id) && !fix.breaks.includes(id));
          expect(others.length).toBeGreaterThan(0);
          for (const id of others) expect([id, was.get(id), is.get(id)]).toEqual([id, 'pass', 'pass']);
          expect(after.exitCode === 0, after.output).toBe(fix.breaks.length === 0);
        },
        SUITE_TIMEOUT_MS,
      );
    }
  }

  it('the rangeset fix for #3 breaks an existing test, so its suite goes red', () => {
    const fix = knownFixes(world).find((candidate) => candidate.breaks.length > 0);
    expect(fix?.repo).toBe('tobias-pyrite/rangeset');
    expect(fix?.breaks).toEqual(['tests/test_merge.py::test_merge_keeps_adjacent_ranges_apart']);
  });

  it('the planted flaky test passes or fails with its seeded environment value', async () => {
    const [flaky] = flakyTests(world);
    if (!flaky) throw new Error('no flaky test planted');
    const repo = upstream('rangeset');
    const [passing, failing] = await Promise.all([
      suiteAt(repo, repo.headOid, undefined, { [flaky.env]: flaky.passingValue }),
      suiteAt(repo, repo.headOid, undefined, { [flaky.env]: flaky.failingValue }),
    ]);
    expect(outcomes(passing).get(flaky.test)).toBe('pass');
    expect(outcomes(failing).get(flaky.test)).toBe('fail');
    // Only the flaky test differs between the two runs.
    expect(failing.results.filter((result) => result.status !== 'pass').map((result) => result.id)).toEqual([
      flaky.test,
    ]);
    // Unset, the test draws from os.urandom: the same draw over many seeds fails about half the time.
    const { stdout } = await run('python3', [
      '-c',
      'import random\nfails = 0\nfor seed in range(400):\n    r = random.Random(str(seed))\n    a, b = r.randint(0, 50), r.randint(0, 50)\n    fails += a > b\nprint(fails / 400)\n',
    ]);
    const failureRate = Number(stdout.trim());
    expect(failureRate).toBeGreaterThan(0.3);
    expect(failureRate).toBeLessThan(0.7);
  });
});
