// A frozen task as the grader consumes it: a folder holding the abp-task/v1 manifest, the agent-visible repository
// or fixture, and the held-out material kept away from the agent until it exits (spec §3.2). Layout:
//   task.json                     abp-task/v1
//   repo/                         git repository holding source.baseCommit (github-issue; history past base is scrubbed per trial)
//   <source.fixture>/             the fixture's files (fixture tasks)
//   held-out/files/**             files copied over the verification checkout (the tests the verified fix added)
//   held-out/expected-results.json the frozen FAIL_TO_PASS and PASS_TO_PASS test ids, abp-expected-results/v1 (required
//                                 for a github-issue task: the grader judges these ids, not the commands' exit codes)
//   held-out/assertions.json      deterministic assertions, abp-assertions/v1 (optional)
//   held-out/golden.patch         the verified fix (optional; only the bundled reference engine reads it)
// or as `abp pull` unpacks a bundle, the agent-visible part apart from the held-out part:
//   task/task.json, task/repo/, task/provenance.json    what the agent may see, with where it was pulled from
//   held-out/…                                          as above
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { MAX_PROCESS_SECONDS } from '@abp/protocol/schemas/abp-adapters';
import { taskSchema, type AbpTask } from '@abp/protocol/schemas/abp-task';
import { canonicalJson } from '@abp/protocol/schemas/canonical-json';
import { compareCodeUnits } from '@abp/protocol/schemas/primitives';
import { formatIssues } from '@abp/protocol/schemas/issues';
import { expectedResultsSchema } from '@abp/protocol/bundle/expected-results';
import { BoundedReadError, readBoundedFile } from '@abp/protocol/files/bounded-read';
import { MAX_DOCUMENT_BYTES } from '../input-limits.js';
import { GraderConfigError } from './errors.js';
import { parseCommandLine } from '../verification/command-line.js';
import { assertionsSchema, type FixtureAssertion } from '../verification/assertions.js';

export interface TaskDirectory {
  dir: string;
  /** The folder holding task.json and the repository: `dir`, or `dir/task` for a pulled task. */
  visibleDir: string;
  manifest: AbpTask;
  /** sha256 over the manifest, the base commit and every held-out and fixture file: what a trial was graded against. */
  digest: string;
  source: { kind: 'repo'; gitDir: string; baseCommit: string } | { kind: 'fixture'; dir: string };
  heldOutFilesDir: string | null;
  /** Workspace-relative paths of the held-out files, sorted. */
  heldOutPaths: string[];
  assertions: FixtureAssertion[];
  goldenPatch: string | null;
  /** The test ids a resolved trial must show passing; null only for a fixture task, judged by its whole reports. */
  expected: ExpectedTests | null;
}

export interface ExpectedTests {
  failToPass: readonly string[];
  passToPass: readonly string[];
  /** Quarantined at the freeze: never graded either way. */
  flaky: readonly string[];
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** Every regular file under `root`, as sorted POSIX-relative paths. */
export async function listFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort(compareCodeUnits);
}

async function digestFiles(root: string, paths: readonly string[]): Promise<Array<[string, string]>> {
  return Promise.all(
    paths.map(
      async (path) =>
        [
          path,
          createHash('sha256')
            .update(await readFile(join(root, path)))
            .digest('hex'),
        ] as [string, string],
    ),
  );
}

async function readJsonFile(path: string): Promise<unknown> {
  const text = (
    await readBoundedFile(path, { maxBytes: MAX_DOCUMENT_BYTES, what: 'a JSON document' }).catch((error: unknown) => {
      // Absent stays the configuration's own missing-file; a special or oversized file keeps its bounded-read code.
      if (error instanceof BoundedReadError && error.code === 'unreadable')
        throw new GraderConfigError('missing-file', error.message, { cause: error });
      throw error;
    })
  ).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new GraderConfigError(
      'invalid-json',
      `${path}: not valid JSON (${(error as Error).message}); fix the syntax`,
    );
  }
}

/**
 * The grader runs commands without a shell and every process for at most 30 minutes: a command it cannot split into an
 * argument array, or a timeout it would cut short, is refused before any engine runs rather than after.
 */
function checkCommands(manifestPath: string, manifest: AbpTask): void {
  const fields = [
    ...manifest.environment.setup.map((line, index) => [`environment.setup[${index}]`, line] as const),
    ...manifest.verification.failToPass.map((line, index) => [`verification.failToPass[${index}]`, line] as const),
    ...manifest.verification.passToPass.map((line, index) => [`verification.passToPass[${index}]`, line] as const),
  ];
  for (const [field, line] of fields) {
    try {
      parseCommandLine(line);
    } catch (error) {
      throw new GraderConfigError('invalid-task', `${manifestPath}: ${field}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  if (manifest.verification.timeoutSeconds > MAX_PROCESS_SECONDS) {
    throw new GraderConfigError(
      'invalid-task',
      `${manifestPath}: verification.timeoutSeconds is ${manifest.verification.timeoutSeconds}, but the grader stops every process after ${MAX_PROCESS_SECONDS} s; lower it or split the suite`,
    );
  }
}

/** The folder `abp pull` unpacks the agent-visible part into, beside held-out/. */
export const PULLED_VISIBLE_DIR = 'task';

export async function loadTaskDirectory(dir: string): Promise<TaskDirectory> {
  const pulled = !(await exists(join(dir, 'task.json'))) && (await exists(join(dir, PULLED_VISIBLE_DIR, 'task.json')));
  const visibleDir = pulled ? join(dir, PULLED_VISIBLE_DIR) : dir;
  const manifestPath = join(visibleDir, 'task.json');
  const parsed = taskSchema.safeParse(await readJsonFile(manifestPath));
  if (!parsed.success)
    throw new GraderConfigError(
      'invalid-task',
      `${manifestPath} is not a valid abp-task/v1 manifest:\n${formatIssues(parsed.error.issues)}`,
    );
  const manifest = parsed.data;
  checkCommands(manifestPath, manifest);

  let source: TaskDirectory['source'];
  let fixtureFiles: Array<[string, string]> = [];
  if (manifest.source.kind === 'fixture') {
    const fixtureDir = join(visibleDir, manifest.source.fixture);
    if (!(await exists(fixtureDir)))
      throw new GraderConfigError(
        'invalid-task',
        `${manifestPath}: source.fixture names "${manifest.source.fixture}", which does not exist in ${visibleDir}`,
      );
    source = { kind: 'fixture', dir: fixtureDir };
    fixtureFiles = await digestFiles(fixtureDir, await listFiles(fixtureDir));
  } else {
    const gitDir = join(visibleDir, 'repo');
    if (!(await exists(gitDir)))
      throw new GraderConfigError(
        'invalid-task',
        `${visibleDir}: a github-issue task needs its repository in repo/ (a git repository holding ${manifest.source.baseCommit})`,
      );
    source = { kind: 'repo', gitDir, baseCommit: manifest.source.baseCommit };
  }

  const heldOutFilesDir = join(dir, 'held-out', 'files');
  const hasHeldOutFiles = await exists(heldOutFilesDir);
  const heldOutPaths = hasHeldOutFiles ? await listFiles(heldOutFilesDir) : [];
  const heldOutFiles = hasHeldOutFiles ? await digestFiles(heldOutFilesDir, heldOutPaths) : [];

  const assertionsPath = join(dir, 'held-out', 'assertions.json');
  let assertions: FixtureAssertion[] = [];
  if (await exists(assertionsPath)) {
    const result = assertionsSchema.safeParse(await readJsonFile(assertionsPath));
    if (!result.success)
      throw new GraderConfigError(
        'invalid-task',
        `${assertionsPath} is not a valid abp-assertions/v1 file:\n${formatIssues(result.error.issues)}`,
      );
    assertions = result.data.assertions;
  }
  const expectedPath = join(dir, 'held-out', 'expected-results.json');
  let expected: ExpectedTests | null = null;
  if (await exists(expectedPath)) {
    const result = expectedResultsSchema.safeParse(await readJsonFile(expectedPath));
    if (!result.success)
      throw new GraderConfigError(
        'invalid-task',
        `${expectedPath} is not a valid abp-expected-results/v1 file:\n${formatIssues(result.error.issues)}`,
      );
    expected = {
      failToPass: [...result.data.failToPass].sort(compareCodeUnits),
      passToPass: [...result.data.passToPass].sort(compareCodeUnits),
      flaky: result.data.flaky.map((test) => test.id).sort(compareCodeUnits),
    };
  } else if (manifest.source.kind === 'github-issue') {
    throw new GraderConfigError(
      'invalid-task',
      `${dir}: a github-issue task needs held-out/expected-results.json (abp-expected-results/v1) naming its FAIL_TO_PASS and PASS_TO_PASS test ids; a bundle carries it, or write the ids a fix turns from failing to passing`,
    );
  }
  const goldenPath = join(dir, 'held-out', 'golden.patch');
  const goldenPatch = (await exists(goldenPath)) ? await readFile(goldenPath, 'utf8') : null;

  const digest = createHash('sha256')
    .update(
      canonicalJson({
        manifest,
        baseCommit: manifest.source.baseCommit ?? null,
        fixture: fixtureFiles,
        heldOut: heldOutFiles,
        assertions,
        expected,
        golden: goldenPatch === null ? null : createHash('sha256').update(goldenPatch).digest('hex'),
      }),
    )
    .digest('hex');

  return {
    dir,
    visibleDir,
    manifest,
    digest: `sha256:${digest}`,
    source,
    heldOutFilesDir: hasHeldOutFiles ? heldOutFilesDir : null,
    heldOutPaths,
    assertions,
    goldenPatch,
    expected,
  };
}
