// What the grader costs per trial, against a baseline measured in the same run, interleaved: a
// plain `git worktree add` of the same commit. Two measurements: (b) the git isolation alone (a
// scrubbed workspace, diff capture through the private git dir, a verification checkout with the
// patch and held-out files, checkout and capture overlapping as in a trial), and (c) a whole
// trial through the real `abp run` code (runMatrix), read from the trial's own
// timing.harnessOverheadMs: everything except the engine's and the verification commands' time. The trial is judged
// as every trial is (issue 17): its frozen test ids, sentinel tests beside the held-out one, and a runner file the
// engine wrote put back. What those two cost is measured beside it, each against the same step without it: (d) the
// patch applied with its runner file put back against the patch applied plainly, and (e) the sentinels planned,
// written and run with the held-out test against the held-out test run alone; their sum is set against (f), a whole
// trial's grading time (everything but the engine), as the share of it that is new (target: under 20 %).
// The repository has 400 commits of incompressible content (> 50 MB of history) over 3,000 files.
//   node bin/run-ts.js bench/grader-overhead.ts [rounds]
// Everything lives under os.tmpdir(); TMPDIR=/dev/shm takes the disk out and leaves git's CPU cost.
import { spawn } from 'node:child_process';
import { createCipheriv, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { appendFile, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { median, quantileOfSorted } from '@abp/grader/stats';
import { runMatrix } from '@abp/grader/run';
import {
  applyForVerification,
  captureDiff,
  checkOutForVerification,
  createTrialWorkspace,
  prepareTaskRepo,
} from '@abp/grader/workspace';
import { git as runGit, gitEnvironment, hostPathEnvironment, runProgram } from '@abp/grader/execution';
import { machineryRule, planCanaries, planRunner } from '@abp/grader/verification';

const rounds = Math.max(15, Number(process.argv[2] ?? 15));
const historyVersion = 'v1';
const files = 3_000;
const commits = 400;
const filesPerCommit = 30;
/** Base sits 40 commits before the tip, so the source also holds a "future" the cache must drop. */
const baseIndex = 360;
const minimumHistoryBytes = 50 * 1024 ** 2;
const overheadTargetMs = 300;
const ratioTarget = 2;
const integrityTarget = 0.2;

const gitEnv = gitEnvironment();
const git = async (args: string[], cwd: string) => (await runGit(args, { cwd })).stdout.toString('utf8').trim();

function pathOf(index: number): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `packages/pkg-${pad(index % 40)}/src/module-${pad((index >> 3) % 25)}/file-${index}.ts`;
}

/** Deterministic incompressible-ish text: an AES-CTR keystream in base64, 76-column lines. */
function textSource(): (bytes: number) => string {
  const keystream = createCipheriv('aes-256-ctr', Buffer.alloc(32, 7), Buffer.alloc(16, 0));
  return (bytes) => {
    const raw = keystream.update(Buffer.alloc(Math.ceil((bytes * 3) / 4))).toString('base64');
    return `${raw.replace(/.{76}/g, '$&\n')}\n`;
  };
}

/** Writes the history with one `git fast-import`; returns the base commit. */
async function buildHistory(gitDir: string): Promise<string> {
  await git(['init', '--quiet', '--bare', gitDir], tmpdir());
  const importer = spawn('git', ['fast-import', '--quiet'], {
    cwd: gitDir,
    env: gitEnv,
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  const write = async (chunk: string) => {
    if (!importer.stdin.write(chunk)) await once(importer.stdin, 'drain');
  };
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  const text = textSource();
  let state = 1;
  const nextFile = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state % files;
  };
  for (let commit = 1; commit <= commits; commit++) {
    await write(
      `commit refs/heads/main\nmark :${commit}\ncommitter Bench <bench@example.invalid> ${1_700_000_000 + commit * 3_600} +0000\n${data(`change ${commit}`)}`,
    );
    if (commit > 1) await write(`from :${commit - 1}\n`);
    const touched =
      commit === 1
        ? Array.from({ length: files }, (_, index) => index)
        : Array.from({ length: filesPerCommit }, nextFile);
    for (const index of touched)
      await write(`M 100644 inline ${pathOf(index)}\n${data(text(1_000 + ((index * 7_919) % 11_000)))}`);
    await write('\n');
  }
  importer.stdin.end();
  const [code] = (await once(importer, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`git fast-import exited ${String(code)}`);
  return git(['rev-parse', `main~${commits - baseIndex}`], gitDir);
}

/** The history repository, built once per machine (and history version) and reused. */
async function historyRepository(): Promise<{ source: string; baseCommit: string }> {
  const home = join(tmpdir(), `abp-bench-history-${historyVersion}`);
  const source = join(home, 'source.git');
  const readBase = async () => ({ source, baseCommit: (await readFile(join(home, 'base'), 'utf8')).trim() });
  if (
    await stat(home).then(
      () => true,
      () => false,
    )
  )
    return readBase();
  const building = await mkdtemp(join(tmpdir(), `abp-bench-history-${historyVersion}-build-`));
  const started = performance.now();
  await writeFile(join(building, 'base'), `${await buildHistory(join(building, 'source.git'))}\n`);
  await rename(building, home).catch(async () => rm(building, { recursive: true, force: true }));
  console.log(`built the history repository in ${((performance.now() - started) / 1000).toFixed(1)} s: ${home}`);
  return readBase();
}

async function directoryBytes(dir: string): Promise<number> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const sizes = await Promise.all(
    entries
      .filter((entry) => entry.isFile())
      .map(async (entry) => (await stat(join(entry.parentPath, entry.name))).size),
  );
  return sizes.reduce((sum, size) => sum + size, 0);
}

const timed = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
  const started = performance.now();
  const value = await work();
  return [value, performance.now() - started];
};

const { source, baseCommit } = await historyRepository();
const scratch = await mkdtemp(join(tmpdir(), 'abp-bench-overhead-'));
const historyBytes = await directoryBytes(join(source, 'objects'));
const [repo, prepareMs] = await timed(() => prepareTaskRepo({ source, baseCommit, cacheDir: join(scratch, 'cache') }));
const [, preparedMs] = await timed(() => prepareTaskRepo({ source, baseCommit, cacheDir: join(scratch, 'cache') }));
const cacheBytes = await directoryBytes(join(repo.gitDir, 'objects'));

const overlayDir = join(scratch, 'held-out');
for (const [path, text] of [
  ['packages/pkg-00/test/fix.test.ts', 'held-out test\n'],
  [pathOf(1), 'held-out version of a tracked file\n'],
] as const) {
  await mkdir(dirname(join(overlayDir, path)), { recursive: true });
  await writeFile(join(overlayDir, path), text);
}

const samples = {
  worktree: [] as number[],
  harness: [] as number[],
  create: [] as number[],
  capture: [] as number[],
  verify: [] as number[],
  trial: [] as number[],
  restore: [] as number[],
  sentinels: [] as number[],
  grading: [] as number[],
};
let treeFiles = 0;
let treeBytes = 0;

async function worktreeRound(round: number): Promise<void> {
  const dir = join(scratch, `worktree-${round}`);
  const [, ms] = await timed(() => git(['worktree', 'add', '--quiet', '--detach', dir, baseCommit], source));
  samples.worktree.push(ms);
  if (round === 0) {
    treeFiles = (await git(['ls-files'], dir)).split('\n').length;
    treeBytes = (await directoryBytes(dir)) - (await stat(join(dir, '.git'))).size;
  }
  await git(['worktree', 'remove', '--force', dir], source);
}

async function harnessRound(round: number): Promise<void> {
  const trialRoot = join(scratch, `trial-${round}`);
  await mkdir(trialRoot);
  const [trial, createMs] = await timed(() => createTrialWorkspace(repo, trialRoot));
  // The agent's work, not timed: one edit and one new file.
  await appendFile(join(trial.workspace, pathOf(0)), '// fixed\n');
  await writeFile(join(trial.workspace, 'packages', 'pkg-00', 'src', 'fix.ts'), 'export const fixed = true;\n');
  // As in a trial: the verification checkout is written while the diff is captured.
  const [[checkout, patch], captureMs] = await timed(() =>
    Promise.all([checkOutForVerification(repo, join(trialRoot, 'verify')), captureDiff(repo, trial)]),
  );
  const [verification, verifyMs] = await timed(() => applyForVerification(checkout, { patch, overlayDir }));
  if (!verification.applied || !patch.includes('fix.ts'))
    throw new Error(`round ${round}: the patch did not round-trip: ${verification.applyError ?? patch}`);
  samples.create.push(createMs);
  samples.capture.push(captureMs);
  samples.verify.push(verifyMs);
  samples.harness.push(createMs + captureMs + verifyMs);
  await rm(trialRoot, { recursive: true, force: true });
}

const heldOutTest = 'packages/pkg-00/test/fix.test.mjs';
const heldOutText =
  "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\ntest('module 0 is fixed', () => assert.equal(1, 1));\n";

/** Runs `node --test` on the held-out test in `dir`, as verification would, and returns its wall time. */
async function nodeTest(argv: readonly string[], dir: string): Promise<number> {
  const [, ms] = await timed(() =>
    runProgram([process.execPath, ...argv.slice(1)], { cwd: dir, env: hostPathEnvironment(), allowExit: [1] }),
  );
  return ms;
}

async function integrityRound(round: number): Promise<void> {
  const trialRoot = join(scratch, `integrity-${round}`);
  await mkdir(trialRoot);
  const trial = await createTrialWorkspace(repo, trialRoot);
  // The engine's work: one edit, and a runner file that must not reach verification.
  await appendFile(join(trial.workspace, pathOf(0)), '// fixed\n');
  await writeFile(join(trial.workspace, 'pytest.ini'), '[pytest]\naddopts = -p planted\n');
  const patch = await captureDiff(repo, trial);
  const plain = await checkOutForVerification(repo, join(trialRoot, 'plain'));
  const guarded = await checkOutForVerification(repo, join(trialRoot, 'guarded'));
  // (d) Alternating which goes first, so the page cache favours neither.
  const applyPlain = () => timed(() => applyForVerification(plain, { patch, overlayDir }));
  const applyGuarded = () =>
    timed(() =>
      applyForVerification(guarded, {
        patch,
        overlayDir,
        guarded: {
          paths: ['pytest.ini'],
          restore: (path, before, after) =>
            after === null ? before : (machineryRule(path)?.restore(before, after) ?? before),
        },
      }),
    );
  let plainMs: number;
  let guardedRun: Awaited<ReturnType<typeof applyGuarded>>;
  if (round % 2 === 0) {
    [, plainMs] = await applyPlain();
    guardedRun = await applyGuarded();
  } else {
    guardedRun = await applyGuarded();
    [, plainMs] = await applyPlain();
  }
  const [restored, guardedMs] = guardedRun;
  if (restored.restored.join() !== 'pytest.ini') throw new Error(`round ${round}: pytest.ini was not put back`);
  samples.restore.push(guardedMs - plainMs);
  // (e) The held-out test alone, and with its sentinels planned, written and selected.
  for (const dir of [plain.dir, guarded.dir]) {
    await mkdir(join(dir, dirname(heldOutTest)), { recursive: true });
    await writeFile(join(dir, heldOutTest), heldOutText);
  }
  const plan = planRunner(['node', '--test', heldOutTest], join(trialRoot, 'reports'));
  await mkdir(join(trialRoot, 'reports'));
  const [canaries, planMs] = await timed(async () => {
    const planned = planCanaries({
      commands: [{ index: 0, plan }],
      heldOut: [{ path: heldOutTest, text: heldOutText }],
      failToPass: ['module 0 is fixed'],
      token: () => randomBytes(6).toString('hex'),
    });
    for (const write of planned.writes) await appendFile(join(guarded.dir, write.path), write.text);
    return planned;
  });
  const withSentinels = canaries.commands.get(0)?.argv;
  if (withSentinels === undefined) throw new Error(`round ${round}: no sentinels for node --test`);
  let alone: number;
  let together: number;
  if (round % 2 === 0) {
    alone = await nodeTest(plan.argv, plain.dir);
    together = await nodeTest(withSentinels, guarded.dir);
  } else {
    together = await nodeTest(withSentinels, guarded.dir);
    alone = await nodeTest(plan.argv, plain.dir);
  }
  samples.sentinels.push(planMs + together - alone);
  await rm(trialRoot, { recursive: true, force: true });
}

// A whole trial through runMatrix: a task folder over the same repository, an engine that edits one
// file and reports one model call, and a verification command that costs nothing of its own.
const trialSetup = join(scratch, 'trial-setup');
const engineScript = join(trialSetup, 'engine.mjs');
async function writeTrialSetup(): Promise<void> {
  const taskDir = join(trialSetup, 'tasks', 'gh-bench-history-1');
  await mkdir(join(taskDir, 'held-out', 'files', 'packages', 'pkg-00', 'test'), { recursive: true });
  await symlink(source, join(taskDir, 'repo'));
  await writeFile(
    join(taskDir, 'held-out', 'files', 'packages', 'pkg-00', 'test', 'fix.test.mjs'),
    "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\ntest('module 0 is fixed', () => assert.equal(1, 1));\n",
  );
  await writeFile(
    join(taskDir, 'held-out', 'expected-results.json'),
    JSON.stringify({
      schema: 'abp-expected-results/v1',
      runner: 'node-test',
      reportFormat: 'junit-xml',
      failToPass: ['module 0 is fixed'],
      passToPass: [],
      flaky: [],
      commands: { failToPass: ['node --test packages/pkg-00/test/fix.test.mjs'], passToPass: [] },
    }),
  );
  const task = {
    schema: 'abp-task/v1',
    id: 'gh-bench-history-1',
    source: {
      kind: 'github-issue',
      repo: 'bench/history',
      issue: 1,
      baseCommit,
      sourcedAt: '2026-10-01T00:00:00Z',
      registryVersion: 'abp-registry/2026Q4',
      drawSeed: 1,
    },
    prompt: 'Mark module 0 as fixed.',
    environment: { image: 'node:20', setup: [] },
    verification: {
      kind: 'commands',
      failToPass: ['node --test packages/pkg-00/test/fix.test.mjs'],
      passToPass: [],
      timeoutSeconds: 60,
      heldOut: true,
    },
    golden: {
      diffBytesNormalized: 10,
      filesTouched: 1,
      trace: 'traces/golden.abp-trace.jsonl',
      mergedPr: 'https://github.com/bench/history/pull/2',
    },
    cutoffsVerified: ['abp/demo-model:2026-01'],
  };
  await writeFile(join(taskDir, 'task.json'), JSON.stringify(task));
  await writeFile(
    engineScript,
    [
      "import { appendFileSync, readFileSync } from 'node:fs';",
      'const input = JSON.parse(readFileSync(process.argv[2], "utf8"));',
      "if (input.preflight) { console.log('OK'); process.exit(0); }",
      'const t = new Date().toISOString();',
      'const tokens = { input: 100, output: 10, cacheRead: 0, cacheWrite: 0 };',
      "const lines = [{ t, seq: 1, kind: 'run.start', engine: 'bench/1', model: input.model, task: input.task, config: {} }, { t, seq: 2, kind: 'model.call', tokens }, { t, seq: 3, kind: 'run.end', outcome: 'unresolved', wallClockMs: 1, tokens }];",
      "appendFileSync(input.traceFile, lines.map((line) => JSON.stringify(line)).join('\\n') + '\\n');",
      `appendFileSync(input.workspace + '/${pathOf(0)}', '// fixed\\n');`,
      // A runner file the grader puts back before verification.
      "appendFileSync(input.workspace + '/pytest.ini', '[pytest]\\naddopts = -q\\n');",
    ].join('\n'),
  );
  await writeFile(
    join(trialSetup, 'abp-adapters.json'),
    JSON.stringify({
      schema: 'abp-adapters/v1',
      executionPolicy: 'trusted-local',
      adapters: [
        {
          engine: 'bench',
          command: [process.execPath, engineScript, '{inputFile}'],
          metadata: { model: 'abp/demo-model' },
          preflight: { prompt: 'Reply with exactly: OK', sentinel: 'OK' },
        },
      ],
    }),
  );
  await writeFile(
    join(trialSetup, 'abp-run.json'),
    JSON.stringify({
      schema: 'abp-run/v1',
      engines: [{ name: 'bench', version: '1' }],
      model: 'abp/demo-model',
      budgetUsd: 1,
      timeoutSeconds: 60,
      trials: 1,
      ordering: 'abba',
      seed: 1,
      tasks: ['gh-bench-history-1'],
    }),
  );
}

async function trialRound(round: number): Promise<void> {
  const result = await runMatrix({
    config: join(trialSetup, 'abp-run.json'),
    output: join(scratch, `results-${round}`),
    cacheDir: join(scratch, 'cache'),
  });
  const [trial] = result.trials;
  if (!trial || trial.outcome !== 'resolved')
    throw new Error(`round ${round}: the bench trial ended ${trial?.outcome ?? 'missing'} (${trial?.detail ?? ''})`);
  samples.trial.push(trial.timing.harnessOverheadMs);
  // (f) Everything a trial costs but the engine: the grader's own work and the verification commands.
  const span = Date.parse(trial.timing.finishedAt) - Date.parse(trial.timing.startedAt);
  samples.grading.push(span - (trial.engineProcess?.durationMs ?? 0));
  await rm(join(scratch, `results-${round}`), { recursive: true, force: true });
}

// Interleaved, with the order alternating, so drift in machine load hits both sides alike.
try {
  await writeTrialSetup();
  for (let round = 0; round < rounds; round++) {
    const order =
      round % 2 === 0
        ? [worktreeRound, harnessRound, trialRound, integrityRound]
        : [integrityRound, trialRound, harnessRound, worktreeRound];
    for (const step of order) await step(round);
  }
} finally {
  await rm(scratch, { recursive: true, force: true });
}

const mib = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
const p90 = (values: number[]) => quantileOfSorted(Float64Array.from(values).sort(), 0.9);
const row = (name: string, values: number[]) =>
  `${name.padEnd(34)} ${median(values).toFixed(0).padStart(7)} ${p90(values).toFixed(0).padStart(7)}`;
console.log(
  `history: ${mib(historyBytes)} of objects, ${commits} commits; base ${baseCommit.slice(0, 12)} (${commits - baseIndex} commits before the tip): ${treeFiles.toLocaleString('en-US')} files, ${mib(treeBytes)} checked out`,
);
console.log(
  `prepareTaskRepo (once per task):   ${prepareMs.toFixed(0)} ms cold, ${preparedMs.toFixed(0)} ms when cached; cache ${mib(cacheBytes)}`,
);
console.log(`\nper trial, ${rounds} interleaved rounds    median ms  p90 ms`);
console.log(row('(a) git worktree add --detach', samples.worktree));
console.log(row('(b) harness, total', samples.harness));
console.log(row('    createTrialWorkspace', samples.create));
console.log(row('    checkout + captureDiff, overlapped', samples.capture));
console.log(row('    apply patch + held-out files', samples.verify));
console.log(row('(c) whole trial, harness overhead', samples.trial));
const ratio = median(samples.harness) / median(samples.worktree);
const trialRatio = median(samples.trial) / median(samples.worktree);
console.log(`\nratio b/a (medians): ${ratio.toFixed(2)}x   ratio c/a: ${trialRatio.toFixed(2)}x`);
console.log(`target c/a <= ${ratioTarget}x:   ${trialRatio <= ratioTarget ? 'met' : 'MISSED'}`);
console.log(`target c < ${overheadTargetMs} ms:   ${median(samples.trial) < overheadTargetMs ? 'met' : 'MISSED'}`);
console.log(row('(d) runner files put back, added', samples.restore));
console.log(row('(e) sentinels planned and run, added', samples.sentinels));
console.log(row('(f) whole trial, all but the engine', samples.grading));
const added =
  (median(samples.restore) + median(samples.sentinels)) /
  (median(samples.grading) - median(samples.restore) - median(samples.sentinels));
console.log(
  `\nsentinels and restored runner files add ${(added * 100).toFixed(1)} % to a trial's grading (d+e against f-d-e)`,
);
console.log(`target under ${integrityTarget * 100} %:   ${added < integrityTarget ? 'met' : 'MISSED'}`);
if (historyBytes < minimumHistoryBytes) {
  console.error(`the history repository holds only ${mib(historyBytes)}; delete ${source} and rerun`);
  process.exitCode = 1;
}
