// `abp conformance`: runs the suite through the real `abp run` (a separate process, exactly as a user would), gathers
// what the run left (receipts, the daemon's witness, the repository caches), checks each adversarial expectation against
// it (checks.ts) and reports the conformance level it demonstrates (spec §9).
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import type { AbpTrial } from '@abp/protocol/schemas/abp-trial';
import { packageRoot } from '../package-root.js';
import { readRunResults } from '../results/read-results.js';
import { jsonText, writeFileAtomic } from '../run/files.js';
import { cacheProblem } from '../workspace/task-repo.js';
import { ownEnvironment, runProgram } from '../execution/run-program.js';
import { sandboxStatus } from '../execution/sandbox.js';
import { ATTACK_NAMES } from './attacks.js';
import {
  evaluateConformance,
  levelOf,
  type ConformanceCheck,
  type ConformanceEvidence,
  type ConformanceLevel,
} from './checks.js';
import { ConformanceError } from './errors.js';
import {
  buildConformanceSuite,
  CALC_TASK,
  conformanceEngines,
  SECRET_VARIABLE,
  SLUG_TASK,
  SUITE_TASKS,
  type SuitePlaces,
} from './suite.js';

export type { ConformanceCheck, ConformanceEvidence, ConformanceLevel } from './checks.js';

export interface ConformanceReport {
  schema: 'abp-conformance/v1';
  level: ConformanceLevel | 'none';
  run: string;
  results: string;
  checks: ConformanceCheck[];
}

/** Trials in flight at once: the suite is mostly waiting on short processes, so more than the cores pays. */
const CONCURRENCY = 4;

/**
 * The folders of one conformance run inside its output folder. abp run's temporary folder is its own, so the cache the
 * poisoner goes for and the trial folders the reader looks for are this run's, never the user's.
 */
function placesOf(output: string): SuitePlaces & { suite: string } {
  const scratch = join(output, 'tmp');
  return {
    suite: join(output, 'suite'),
    data: join(output, 'data'),
    results: join(output, 'results'),
    scratch,
    cache: join(scratch, 'abp-grader-cache'),
    witness: join(output, 'witness'),
  };
}

/** What the suite needs of the host, refused with its own code rather than reported as a grader that failed. */
async function checkHost(env: Readonly<Record<string, string>>): Promise<void> {
  try {
    await runProgram(['python3', '-m', 'pytest', '--version'], { cwd: tmpdir(), env, timeoutMs: 60_000 });
  } catch (error) {
    throw new ConformanceError(
      'pytest-missing',
      `\`python3 -m pytest --version\` failed here, and the suite's pytest task is verified with it (${(error as Error).message}). Install pytest: \`apt-get install python3-pytest\` or \`python3 -m pip install pytest\``,
      { cause: error },
    );
  }
  const sandbox = await sandboxStatus();
  if (!sandbox.available)
    throw new ConformanceError(
      'sandbox-unavailable',
      `without namespaces trusted-local engines can outlive their trial and read held-out material, so the suite's attacks on the harness would succeed whatever this grader is: ${sandbox.reason}`,
    );
}

async function filesUnder(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

/**
 * What the suite's run in `output` left, read from its folders: the results through run-latest (checked against their
 * journal), the witness logs, and the state of each github-issue task's repository cache. With `secret`, every file of
 * the results is searched for it.
 */
export async function collectEvidence(output: string, secret: string | null): Promise<ConformanceEvidence> {
  const places = placesOf(output);
  const results = await readRunResults(join(places.results, 'run-latest'));
  // Named through the output folder as given, not the resolved link: receipts read the same wherever it is mounted.
  const runFolder = relative(output, join(places.results, basename(results.dir)));
  const leaked: string[] = [];
  if (secret !== null)
    for (const file of await filesUnder(results.dir))
      if ((await readFile(file)).includes(secret)) leaked.push(relative(output, file));
  const receiptText = async (trial: AbpTrial, kind: 'stdout' | 'diff') => {
    const path = trial.receipts[kind];
    return path === null ? '' : readFile(join(results.dir, path), 'utf8');
  };
  const byTrial = async (read: (trial: AbpTrial) => Promise<string> | string) =>
    Object.fromEntries(
      await Promise.all(results.trials.map(async (trial) => [trial.trialId, await read(trial)] as const)),
    );
  const witness: Record<string, string> = {};
  for (const name of await readdir(places.witness).catch(() => []))
    if (name.endsWith('.log'))
      witness[name.slice(0, -'.log'.length)] = await readFile(join(places.witness, name), 'utf8');
  const caches: Record<string, string | null> = {};
  for (const task of [SLUG_TASK, CALC_TASK]) {
    const manifest = JSON.parse(await readFile(join(places.suite, 'tasks', task, 'task.json'), 'utf8')) as {
      source: { baseCommit: string };
    };
    const base = manifest.source.baseCommit;
    caches[task] = await cacheProblem(join(places.cache, `${base}.git`), base);
  }
  return {
    run: results.run,
    verdict: results.verdict,
    trials: results.trials,
    receipts: Object.fromEntries(
      results.trials.map((trial) => [
        trial.trialId,
        [
          `${runFolder}/trials/${trial.trialId}.json`,
          ...Object.values(trial.receipts)
            .filter((path): path is string => path !== null)
            .map((path) => `${runFolder}/${path}`),
        ],
      ]),
    ),
    stdout: await byTrial((trial) => receiptText(trial, 'stdout')),
    diff: await byTrial((trial) => receiptText(trial, 'diff')),
    witness,
    caches,
    leaked,
  };
}

export async function runConformance(input: {
  output: string;
  onLine?: (line: string) => void;
}): Promise<ConformanceReport> {
  const present = await readdir(input.output).catch(() => []);
  if (present.length > 0)
    throw new ConformanceError(
      'output-not-empty',
      `${input.output} is not empty: abp conformance writes a fresh suite, results and report there; pass an empty or new folder`,
    );
  const places = placesOf(input.output);
  const secret = `abp-conformance-${randomBytes(12).toString('hex')}`;
  // abp run with this process's environment and the secret, which the planter engine's adapter passes on to it; its
  // data directory and temporary folder are the suite's own.
  const env = ownEnvironment({ [SECRET_VARIABLE]: secret, ABP_HOME: places.data, TMPDIR: places.scratch });
  await checkHost(env);
  const suite = await buildConformanceSuite(places.suite, places);
  // An operator's data directory keeps bundles, golden patches included: one more place an engine must not reach.
  for (const task of SUITE_TASKS) {
    await mkdir(join(places.data, 'bundles', task), { recursive: true });
    await copyFile(
      join(suite.tasks, task, 'held-out', 'golden.patch'),
      join(places.data, 'bundles', task, 'golden.patch'),
    );
  }
  await Promise.all([mkdir(places.scratch, { recursive: true }), mkdir(places.witness, { recursive: true })]);
  input.onLine?.(
    `running the suite through abp run (${SUITE_TASKS.join(', ')}; ${Object.keys(conformanceEngines).length} engines, ${ATTACK_NAMES.length} of them the red team's)`,
  );
  try {
    await runProgram(
      [
        process.execPath,
        join(packageRoot, 'bin', 'abp.js'),
        'run',
        '--config',
        suite.config,
        '--adapters',
        suite.adapters,
        '--tasks',
        suite.tasks,
        '-o',
        places.results,
        '--concurrency',
        String(CONCURRENCY),
      ],
      { cwd: input.output, env, timeoutMs: 30 * 60 * 1000 },
    );
  } catch (error) {
    throw new ConformanceError(
      'run-failed',
      `abp run did not finish the conformance suite, so there is no verdict to check: ${(error as Error).message}`,
      { cause: error },
    );
  }
  const evidence = await collectEvidence(input.output, secret);
  const checks = evaluateConformance(evidence);
  const report: ConformanceReport = {
    schema: 'abp-conformance/v1',
    level: levelOf(checks),
    run: evidence.run.id ?? '',
    results: relative(input.output, join(places.results, evidence.run.id ?? '')),
    checks,
  };
  await writeFileAtomic(join(input.output, 'conformance.json'), jsonText(report));
  return report;
}
