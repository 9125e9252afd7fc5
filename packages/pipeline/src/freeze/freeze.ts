// Owns one freeze from start to verdict: a merged fix becomes FAIL_TO_PASS / PASS_TO_PASS from
// repeated real runs of the repository's suite before and after it, with the split patch, the
// held-out test files, the verification commands and the golden size, or a rejection saying why.

import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { maxTimeoutMs } from '@abp/grader/execution';
import type { EnvironmentBuild, EnvironmentStore } from '@abp/grader/environments';
import { classifyRuns, type FlakyTest } from './classify.js';
import { verificationCommands } from './commands.js';
import { freezeEnvironment } from './environment.js';
import { FreezeError } from './errors.js';
import { buildStateTrees, openFix } from './fix-trees.js';
import { parseFreezeInput, type FreezeInput } from './inputs.js';
import { measureFix, readHeldOutFiles, splitFix, type RecordedFile } from './split.js';
import { scratchPrefix } from './scratch.js';
import { runSuites, type RunRecord, type SuiteFailure } from './suite-runs.js';
import type { GoldRejection } from './gold.js';

export interface FreezeOptions {
  /** A folder the freeze may write in: it makes (and removes) its own subfolder there, and keeps Go's build cache in go-build/. */
  workDir: string;
  /** Go's build cache, when it should live elsewhere than workDir/go-build (shared by many freezes; safe to share). */
  goBuildCache?: string;
  /** Runs of the suite per state; at least 3 (spec: each state at least three times). Default 3. */
  runs?: number;
  /** Runs at once, each in its own checkout. Default 2. */
  concurrency?: number;
  /** Bound on each install and test run. Default 900. */
  runTimeoutSeconds?: number;
  /** true: require bubblewrap; false: run unconfined; absent: bubblewrap where it works. */
  sandbox?: boolean;
  /**
   * Build the task's environment in this store and run every suite inside it (no network, the toolchain and
   * dependencies of the image); without it the suites run on the host's toolchains.
   */
  environments?: EnvironmentStore;
}

export type RejectionReason =
  | 'fix-does-not-apply'
  | 'environment-build-failed'
  | 'regression'
  | 'tests-already-pass'
  | 'no-fail-to-pass'
  | SuiteFailure
  | GoldRejection;

export interface FrozenFix {
  status: 'frozen';
  failToPass: string[];
  passToPass: string[];
  flaky: FlakyTest[];
  /** Ids named by only some runs of a state: reported here, never published in the held-out part. */
  volatile: string[];
  split: { codePatch: string; testPatch: string; recorded: RecordedFile[] };
  /** Every file the test part adds or changes, at the after state: the held-out tests. */
  heldOutFiles: Array<{ path: string; content: Buffer }>;
  /** abp-task/v1 verification commands. */
  commands: { failToPass: string[]; passToPass: string[] };
  golden: { diffBytesNormalized: number; filesTouched: number; patch: string };
  runs: RunRecord[];
  /** The environment every run used; null when the suites ran on the host's toolchains. */
  environment: EnvironmentBuild | null;
}

export interface RejectedFix {
  status: 'rejected';
  reason: RejectionReason;
  detail: string;
  regressions: string[];
  runs: RunRecord[];
}

export type FreezeOutcome = FrozenFix | RejectedFix;

const DEFAULTS = { runs: 3, concurrency: 2, runTimeoutSeconds: 900 };
const MIN_RUNS = 3;

export async function freezeFix(input: FreezeInput, options: FreezeOptions): Promise<FreezeOutcome> {
  const fix = parseFreezeInput(input);
  const settings = checkOptions(options);
  const workDir = resolve(options.workDir);
  await mkdir(workDir, { recursive: true });
  const root = await mkdtemp(join(workDir, scratchPrefix('freeze')));
  try {
    const source = await openFix(fix, join(root, 'scratch.git'));
    const split = splitFix(source.patch, fix.pathRules);
    const trees = await buildStateTrees(source, { test: split.testPatch, code: split.codePatch });
    if (!trees.applied) return rejected('fix-does-not-apply', trees.detail, [], []);
    const [measure, heldOutFiles] = await Promise.all([
      measureFix(source, split, trees.after, fix.pathRules),
      readHeldOutFiles(source, split, trees.after),
    ]);
    let environment: EnvironmentBuild | null = null;
    if (options.environments !== undefined) {
      const built = await freezeEnvironment({
        source,
        tree: trees.before,
        recipe: fix.recipe,
        dir: join(root, 'environment'),
        store: options.environments,
        timeoutMs: settings.runTimeoutSeconds * 1000,
      });
      if (!built.built) return rejected('environment-build-failed', built.detail, [], []);
      environment = built.build;
    }
    const suites = await runSuites({
      source,
      trees: { before: trees.before, after: trees.after },
      recipe: fix.recipe,
      root,
      goCache: options.goBuildCache ?? join(workDir, 'go-build'),
      runs: settings.runs,
      concurrency: settings.concurrency,
      runTimeoutMs: settings.runTimeoutSeconds * 1000,
      sandbox: options.sandbox,
      environment:
        environment === null || options.environments === undefined
          ? null
          : { store: options.environments, digest: environment.digest },
    });
    if (!suites.ran) return rejected(suites.reason, suites.detail, [], suites.runs);
    const classified = classifyRuns(suites.results.before, suites.results.after);
    if (classified.rejection !== null)
      return rejected(classified.rejection.reason, classified.rejection.detail, classified.regressions, suites.runs);
    return {
      status: 'frozen',
      failToPass: classified.failToPass,
      passToPass: classified.passToPass,
      flaky: classified.flaky,
      volatile: classified.volatile,
      split: { codePatch: split.codePatch, testPatch: split.testPatch, recorded: measure.recorded },
      heldOutFiles,
      commands: verificationCommands({ test: fix.recipe.test, failToPass: classified.failToPass, heldOutFiles }),
      golden: { ...measure.golden, patch: source.patch },
      runs: suites.runs,
      environment,
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

function rejected(reason: RejectionReason, detail: string, regressions: string[], runs: RunRecord[]): RejectedFix {
  return { status: 'rejected', reason, detail, regressions, runs };
}

function checkOptions(options: FreezeOptions): typeof DEFAULTS {
  const settings = {
    runs: options.runs ?? DEFAULTS.runs,
    concurrency: options.concurrency ?? DEFAULTS.concurrency,
    runTimeoutSeconds: options.runTimeoutSeconds ?? DEFAULTS.runTimeoutSeconds,
  };
  const problems = [
    options.workDir === '' && 'workDir is empty; give a folder the freeze may write in, e.g. os.tmpdir()',
    !(Number.isSafeInteger(settings.runs) && settings.runs >= MIN_RUNS) &&
      `runs must be an integer of at least ${MIN_RUNS} (a flaky test needs repeated runs to show); got ${settings.runs}`,
    !(Number.isSafeInteger(settings.concurrency) && settings.concurrency >= 1) &&
      `concurrency must be a positive integer; got ${settings.concurrency}`,
    !(settings.runTimeoutSeconds > 0 && settings.runTimeoutSeconds * 1000 <= maxTimeoutMs) &&
      `runTimeoutSeconds must be above 0 and at most ${maxTimeoutMs / 1000}; got ${settings.runTimeoutSeconds}`,
  ].filter((problem) => problem !== false);
  if (problems.length > 0) throw new FreezeError('invalid-options', `freeze options: ${problems.join('; ')}`);
  return settings;
}
