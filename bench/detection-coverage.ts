// How much of a corpus of popular repositories abp's test-suite detection covers, by ecosystem, against the hand-written
// truth of what each repository's own CI runs: the share detected (an ecosystem and a runner found), detected correctly
// (the runner CI runs, and the package manager it declares), and runnable with per-test results (correct, and the
// freeze can install, run and read that runner here, and the suite needs nothing beyond its toolchain and the
// registries). The baseline, in the same run: the same detection given only the root folder's files, what a reader of
// the root listing alone (discovery before it listed whole trees) sees. The corpus is file listings and manifests only (scripts/capture-detection-corpus.sh), never source code.
//   node bin/run-ts.js bench/detection-coverage.ts [--list]
import { detectSuite } from '@abp/pipeline/registry/suites/detect-suite';
import { CORPUS_DIR, isTruthRunner, loadCorpus } from '../test-support/detection-corpus.js';

const list = process.argv.includes('--list');
const targetRunnable = 0.8;

interface Tally {
  repos: number;
  withTests: number;
  detected: number;
  correct: number;
  runnable: number;
  baselineDetected: number;
  baselineCorrect: number;
}

const entries = loadCorpus();
const byEcosystem = new Map<string, Tally>();
const misses: string[] = [];
const started = performance.now();
for (const { repo, truth, tree } of entries) {
  const tally = byEcosystem.get(truth.ecosystem) ?? {
    repos: 0,
    withTests: 0,
    detected: 0,
    correct: 0,
    runnable: 0,
    baselineDetected: 0,
    baselineCorrect: 0,
  };
  byEcosystem.set(truth.ecosystem, tally);
  tally.repos += 1;
  if (!truth.hasTests) continue;
  tally.withTests += 1;

  const suite = detectSuite(tree);
  const detected = suite !== null && suite.runners.length > 0;
  const correct =
    detected &&
    suite.ecosystem === truth.ecosystem &&
    isTruthRunner(suite.runners[0], truth) &&
    suite.packageManager === truth.packageManager;
  const runnable = correct && suite.recipe !== null && truth.needs.length === 0;
  if (detected) tally.detected += 1;
  if (correct) tally.correct += 1;
  if (runnable) tally.runnable += 1;
  if (!runnable)
    misses.push(
      `${repo}: truth ${truth.ecosystem}/${truth.packageManager}/${truth.runners.join('+')}${truth.needs.length > 0 ? ` needs ${truth.needs.join(',')}` : ''}; found ${suite === null ? 'nothing' : `${suite.ecosystem}/${suite.packageManager}/${suite.runners.join('+') || '-'}${suite.unsupported === null ? '' : ` (${suite.unsupported})`}`}`,
    );

  // The baseline: the root folder's files alone.
  const baseline = detectSuite({
    paths: tree.paths.filter((path) => !path.includes('/')),
    text: (path) => tree.text(path),
  });
  if (baseline !== null && baseline.runners.length > 0) tally.baselineDetected += 1;
  if (
    baseline !== null &&
    baseline.ecosystem === truth.ecosystem &&
    isTruthRunner(baseline.runners[0], truth) &&
    baseline.packageManager === truth.packageManager
  )
    tally.baselineCorrect += 1;
}
const elapsedMs = performance.now() - started;

const share = (part: number, whole: number) =>
  whole === 0 ? '   -' : `${Math.round((100 * part) / whole)}%`.padStart(4);
console.log(`detection coverage over ${entries.length} repositories (${CORPUS_DIR})`);
console.log('ecosystem  repos  tests  detected  correct  runnable   root only: detected  correct');
const total: Tally = {
  repos: 0,
  withTests: 0,
  detected: 0,
  correct: 0,
  runnable: 0,
  baselineDetected: 0,
  baselineCorrect: 0,
};
for (const [ecosystem, tally] of [...byEcosystem].sort()) {
  for (const key of Object.keys(total) as Array<keyof Tally>) total[key] += tally[key];
  console.log(
    `${ecosystem.padEnd(9)} ${String(tally.repos).padStart(6)} ${String(tally.withTests).padStart(6)}      ${share(tally.detected, tally.withTests)}     ${share(tally.correct, tally.withTests)}      ${share(tally.runnable, tally.withTests)}               ${share(tally.baselineDetected, tally.withTests)}     ${share(tally.baselineCorrect, tally.withTests)}`,
  );
}
console.log(
  `${'all'.padEnd(9)} ${String(total.repos).padStart(6)} ${String(total.withTests).padStart(6)}      ${share(total.detected, total.withTests)}     ${share(total.correct, total.withTests)}      ${share(total.runnable, total.withTests)}               ${share(total.baselineDetected, total.withTests)}     ${share(total.baselineCorrect, total.withTests)}`,
);
console.log(
  `runnable: ${total.runnable} of ${total.withTests} with tests (target ${targetRunnable * 100}%): ${total.runnable >= targetRunnable * total.withTests ? 'met' : 'NOT met'}; correct vs the root only: ${(total.correct / Math.max(1, total.baselineCorrect)).toFixed(2)}×; ${(elapsedMs / Math.max(1, entries.length)).toFixed(1)} ms a repository`,
);
if (list) for (const miss of misses) console.log(`  not runnable: ${miss}`);
