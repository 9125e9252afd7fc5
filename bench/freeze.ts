// What a freeze costs against one plain run of the same repository's whole test suite, measured in the same run:
// three runs in each of two states are six suite runs when they run one after another (target ≤ 6.5×), fewer where
// the two states' checkouts overlap on the cores; how much the gold proof (the grader's own trials of the golden and the
// empty patch) adds to the freeze without it (target: under 50% more); and what building the bundle and signing add.
// Repositories: the simulator's live world (node --test, pytest, go test, cargo test), each with a known fix.
//   node bin/run-ts.js bench/freeze.ts
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BundleStore } from '@abp/pipeline/freeze/bundle/store';
import { freezeTask, type TaskFreezeInput } from '@abp/pipeline/freeze/index';
import { runBounded } from '@abp/grader/execution';
import { parseCommandLine } from '@abp/grader/verification';
import type { RunnerRecipe } from '@abp/pipeline/registry/criteria/schema';
import { githubTaskId } from '@abp/protocol/schemas/abp-task';
import { createSigningKey } from '@abp/pipeline/signing/keys';
import { createSigner } from '@abp/pipeline/signing/signer';
import { buildLiveRepos } from '@abp/github-sim/world/live/build';
import { git as runGit, gitIdentityEnvironment, hostPathEnvironment, runProgram } from '@abp/grader/execution';

// The recipes the freeze suites use: the simulator CI's commands without shell syntax, the flaky test pinned.
const RECIPES: Record<string, RunnerRecipe> = {
  textkit: {
    runner: 'node-test',
    ecosystem: 'node',
    install: 'node --version',
    test: 'node --test --test-reporter=junit --test-reporter-destination=test-report.xml',
    report: 'junit-xml',
  },
  rangeset: {
    runner: 'pytest',
    ecosystem: 'python',
    install: 'python3 -m pytest --version',
    test: 'RANGESET_TEST_SEED=1 python3 -m pytest -q -p no:cacheprovider --junitxml=test-report.xml',
    report: 'junit-xml',
  },
  durafmt: {
    runner: 'go-test',
    ecosystem: 'go',
    install: 'go mod download',
    test: 'go test -json -count=1 ./...',
    report: 'go-test-json',
  },
  'semver-lite': {
    runner: 'cargo-test',
    ecosystem: 'rust',
    install: 'cargo fetch',
    test: 'cargo test --offline --no-fail-fast',
    report: 'cargo-test-text',
  },
};

/**
 * A repository whose suite takes about a second and a half (eight test files of CPU work), so the suite, not the fixed
 * cost of a checkout, dominates as it does in real projects; with a bug in sum() and its fix as a patch.
 */
async function slowSuiteRepo(dir: string): Promise<{ baseOid: string; patch: string }> {
  const identity = gitIdentityEnvironment({
    identity: { name: 'bench', email: 'bench@example.org' },
    at: Date.parse('2026-01-01T00:00:00Z') / 1000,
  });
  const git = async (...args: string[]) => ({
    stdout: (await runGit(['-C', dir, ...args], { cwd: dir, env: identity })).stdout.toString('utf8'),
  });
  await mkdir(join(dir, 'test'), { recursive: true });
  await runGit(['init', '--quiet', '--initial-branch=main', dir], { cwd: dir });
  await writeFile(join(dir, 'sum.js'), 'exports.sum = (xs) => xs.reduce((a, b) => a + b, 1);\n');
  const work = (n: number) =>
    `const test = require('node:test');\nconst { createHash } = require('node:crypto');\ntest('work ${n}', () => {\n  let h = 'seed';\n  for (let i = 0; i < 120000; i++) h = createHash('sha256').update(h).digest('hex');\n});\n`;
  for (let n = 1; n <= 8; n++) await writeFile(join(dir, 'test', `work-${n}.test.js`), work(n));
  await git('add', '-A');
  await git('commit', '--quiet', '-m', 'base');
  const baseOid = (await git('rev-parse', 'HEAD')).stdout.trim();
  await writeFile(join(dir, 'sum.js'), 'exports.sum = (xs) => xs.reduce((a, b) => a + b, 0);\n');
  await writeFile(
    join(dir, 'test', 'sum.test.js'),
    "const test = require('node:test');\nconst assert = require('node:assert');\nconst { sum } = require('../sum.js');\ntest('sums from zero', () => assert.strictEqual(sum([1, 2]), 3));\n",
  );
  await git('add', '-A');
  const patch = (await git('diff', '--cached', 'HEAD')).stdout;
  await git('reset', '--quiet', '--hard', baseOid);
  return { baseOid, patch };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'abp-bench-freeze-'));
  try {
    const world = await buildLiveRepos({ seed32: 7, now: Date.UTC(2026, 5, 1) / 1000, dir: join(root, 'world') });
    const store = new BundleStore(join(root, 'bundles'));
    await createSigningKey(join(root, 'keys'));
    const signer = await createSigner({ keyDir: join(root, 'keys') });
    console.log(
      'repository    plain run   freeze seq (×plain)   freeze ‖2 (×plain)   bundle+store   sign    gold proof (+% of the freeze without it)',
    );
    const slow = join(root, 'slow-suite');
    const slowFix = await slowSuiteRepo(slow);
    const cases = [
      ...world.repos.flatMap((built) => {
        const fix = built.fixes.find((candidate) => candidate.breaks.length === 0);
        const recipe = RECIPES[built.repo.name];
        return fix === undefined || recipe === undefined
          ? []
          : [
              {
                name: built.repo.name,
                repo: `${built.repo.owner}/${built.repo.name}`,
                gitDir: built.upstreamPath,
                recipe,
                fix,
              },
            ];
      }),
      {
        name: 'slow-suite',
        repo: 'bench/slow-suite',
        gitDir: slow,
        recipe: RECIPES.textkit as RunnerRecipe,
        fix: {
          issue: 1,
          title: 'sum() starts from one',
          body: 'sum([1, 2]) returns 4.',
          baseOid: slowFix.baseOid,
          patch: slowFix.patch,
        },
      },
    ];
    const goldShares: number[] = [];
    for (const { name, repo, gitDir, recipe, fix } of cases) {
      // Baseline: one plain run of the whole suite at the base, in a checkout warmed by one untimed run (as the freeze's are by install).
      const checkout = join(root, `plain-${name}`);
      await mkdir(checkout, { recursive: true });
      const archive = await runGit(['-C', gitDir, 'archive', fix.baseOid], { cwd: gitDir });
      await runProgram(['tar', '-x', '-C', checkout], {
        cwd: checkout,
        env: hostPathEnvironment(),
        input: archive.stdout,
      });
      const line = parseCommandLine(recipe.test);
      const env = {
        ...line.env,
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? root,
        TZ: 'UTC',
        GOFLAGS: '-count=1',
        GOPROXY: 'off',
        CARGO_NET_OFFLINE: 'true',
        GOCACHE: join(root, 'go-build'),
      };
      const plain = async () => {
        const started = performance.now();
        await runBounded({ argv: line.argv, cwd: checkout, env, timeoutMs: 600_000, maxOutputBytes: 1 << 20 });
        return performance.now() - started;
      };
      await plain();
      const plainMs = Math.min(await plain(), await plain());
      const input = (runs: number): TaskFreezeInput => ({
        taskId: githubTaskId(repo, fix.issue),
        repo,
        gitDir,
        baseCommit: fix.baseOid,
        fix: { kind: 'patch', patch: fix.patch },
        recipe,
        issue: { number: fix.issue, title: fix.title, body: fix.body },
        mergedPr: `https://github.com/${repo}/pull/${100 + fix.issue + runs}`,
        sourcedAt: '2026-06-01T00:00:00Z',
        registryVersion: 'abp-registry/2026Q2',
        drawSeed: 424242,
      });
      // One untimed freeze first, as the plain run is warmed: toolchain caches (Go's build cache) are kept between freezes.
      const workDir = join(root, `work-${name}`);
      await freezeTask(input(0), { workDir, runs: 3, concurrency: 2, store, signer });
      const timed = async (concurrency: number) => {
        const started = performance.now();
        const outcome = await freezeTask(input(concurrency), { workDir, runs: 3, concurrency, store, signer });
        const totalMs = performance.now() - started;
        if (outcome.status !== 'frozen')
          throw new Error(`${repo}#${fix.issue} was rejected: ${outcome.reason} ${outcome.detail}`);
        return { totalMs, ...outcome.timings };
      };
      const sequential = await timed(1);
      const parallel = await timed(2);
      console.log(
        `${name.padEnd(13)} ${seconds(plainMs).padStart(9)}   ${seconds(sequential.totalMs).padStart(8)} (×${(sequential.totalMs / plainMs).toFixed(1)})`.padEnd(
          56,
        ) +
          `${seconds(parallel.totalMs).padStart(8)} (×${(parallel.totalMs / plainMs).toFixed(1)})`.padEnd(21) +
          `${String(parallel.bundleMs).padStart(6)} ms   ${String(parallel.signMs).padStart(4)} ms` +
          `   ${seconds(parallel.goldMs).padStart(8)} (+${((100 * parallel.goldMs) / (parallel.totalMs - parallel.goldMs)).toFixed(0)}%)`,
      );
      goldShares.push(parallel.goldMs / (parallel.totalMs - parallel.goldMs));
    }
    const median = [...goldShares].sort((a, b) => a - b)[Math.floor(goldShares.length / 2)] ?? 0;
    console.log(
      `gold proof: median +${(median * 100).toFixed(0)}% over the freeze without it (target: under +50%)${median < 0.5 ? '' : '  MISSED'}`,
    );
    console.log(
      'plain run: the faster of two timed runs of the whole suite at base after one warm-up; freeze: 3 runs per state, two states, plus install per checkout, the gold proof (3 grader trials of the golden patch, 3 of the empty one), bundle, store and sign',
    );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

await main();
