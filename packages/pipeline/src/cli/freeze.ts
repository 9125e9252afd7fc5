// `abp freeze`: freeze one merged fix into a signed, content-addressed task bundle in the data directory's store, with
// the solving engine's golden trace when given, and publish it (freeze/published-tasks.ts) so `abp serve` lists it and
// `abp pull` fetches it. For operators and tests; the pipeline runs the same freezeTask from the task workflow. The
// draw's facts are the operator's to give (cli/commands.ts refuses a freeze without them); the cutoffs they imply are
// resolved before anything is built or run.
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { BundleStore } from '../freeze/bundle/store.js';
import { GoldenTraceStore } from '../freeze/golden-trace-store.js';
import { freezeTask, recipeFor, verifiedCutoffs, type TaskFreezeInput } from '../freeze/index.js';
import { publishFrozenTask } from '../freeze/published-tasks.js';
import { runnerRecipeSchema, type RunnerRecipe } from '../registry/criteria/schema.js';
import { githubTaskId } from '@abp/protocol/schemas/abp-task';
import { signingPaths } from '../signing/home.js';
import { loadOperatorAttestor } from '../signing/operator.js';
import { resolveStackConfig } from '../worker/config.js';
import { CommandFailed, createOutput, type OutputOptions } from '@abp/grader/cli';
import { EnvironmentStore } from '@abp/grader/environments';
import { homePaths } from '@abp/grader/home';
import { MiB, readBoundedFile } from '@abp/protocol/files/bounded-read';

/** An issue file, a recipe or a fix patch: KiB, a large patch a few MiB; far larger is not one, and is not read. */
const MAX_FREEZE_INPUT_BYTES = 16 * MiB;

/** The text of an operator's input file: a regular file, at most MAX_FREEZE_INPUT_BYTES (bounded-read's codes). */
async function readInput(path: string, what: string): Promise<string> {
  return (await readBoundedFile(path, { maxBytes: MAX_FREEZE_INPUT_BYTES, what })).toString('utf8');
}

export interface FreezeCommandOptions extends OutputOptions {
  repo: string;
  base: string;
  fix: string;
  issue: string;
  pr: string;
  gitDir: string;
  recipe?: string;
  /** The draw's facts (spec §4.1, §4.4): required, never defaulted. */
  registryVersion: string;
  drawSeed: number;
  sourcedAt: string;
  runs: number;
  host?: boolean;
  /** The abp-trace/v1 file the solving engine printed (spec §4.2), published beside the bundle. */
  goldenTrace?: string;
}

/** The recipe file, when given; else the criteria override or detection (freeze/recipe.ts). */
export async function recipeOf(
  options: { repo: string; base: string; recipe?: string },
  gitDir: string,
): Promise<RunnerRecipe> {
  if (options.recipe === undefined) return recipeFor({ repo: options.repo, gitDir, base: options.base, entry: null });
  let value: unknown;
  try {
    value = JSON.parse(await readInput(options.recipe, 'a runner recipe'));
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    throw new CommandFailed('invalid-documents', `${options.recipe}: not JSON (${error.message})`);
  }
  const parsed = runnerRecipeSchema.safeParse(value);
  if (!parsed.success)
    throw new CommandFailed(
      'invalid-documents',
      `${options.recipe}: ${parsed.error.issues[0]?.path.join('.') ?? ''}: ${parsed.error.issues[0]?.message ?? 'invalid'}; a recipe is {runner, ecosystem, install, test, report}`,
    );
  return parsed.data;
}

const issueFile = z.object({ number: z.int().positive(), title: z.string().trim().min(1), body: z.string() });

/** The issue as GitHub gives it (`gh issue view N --json number,title,body`): the text captured into the bundle. */
async function readIssue(path: string): Promise<TaskFreezeInput['issue']> {
  const text = await readInput(path, 'an issue file');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CommandFailed(
      'invalid-documents',
      `${path}: cannot read the issue as JSON (${(error as Error).message})`,
    );
  }
  const parsed = issueFile.safeParse(value);
  if (!parsed.success)
    throw new CommandFailed(
      'invalid-documents',
      `${path}: ${parsed.error.issues[0]?.path.join('.') ?? ''}: ${parsed.error.issues[0]?.message ?? 'invalid'}; the issue file is {"number", "title", "body"}, as \`gh issue view N --json number,title,body\` writes it`,
    );
  return { number: parsed.data.number, title: parsed.data.title, body: parsed.data.body };
}

export async function freezeCommand(options: FreezeCommandOptions): Promise<void> {
  const out = createOutput(options);
  // First: a task sourced before every model cutoff is refused before the issue, the repository or the key is read.
  const cutoffs = await verifiedCutoffs(options);
  const gitDir = resolve(options.gitDir);
  const issue = await readIssue(options.issue);
  const fix: TaskFreezeInput['fix'] = /^[0-9a-f]{40}$/.test(options.fix)
    ? { kind: 'commit', commit: options.fix }
    : { kind: 'patch', patch: await readInput(options.fix, 'a fix patch') };
  const home = resolveStackConfig().home;
  const paths = signingPaths(home);
  const attestor = await loadOperatorAttestor(home).catch((error: Error) => {
    throw new CommandFailed('invalid-documents', `${error.message}; run \`abp init\` to create the signing key`);
  });
  // Scratch in the data directory, as the worker's: each freeze makes and removes its own subfolder there, and Go's build
  // cache stays between freezes. The system temp folder may be small, and is not the operator's to fill.
  const workDir = join(home, 'freeze-work');
  const outcome = await freezeTask(
    {
      taskId: githubTaskId(options.repo, issue.number),
      repo: options.repo,
      gitDir,
      baseCommit: options.base,
      fix,
      recipe: await recipeOf(options, gitDir),
      issue,
      mergedPr: options.pr,
      sourcedAt: options.sourcedAt,
      registryVersion: options.registryVersion,
      drawSeed: options.drawSeed,
      ...(options.goldenTrace === undefined ? {} : { goldenTrace: resolve(options.goldenTrace) }),
    },
    {
      workDir,
      runs: options.runs,
      store: new BundleStore(paths.bundles),
      goldenTraces: new GoldenTraceStore(paths.goldenTraces),
      signer: attestor.signer,
      log: attestor,
      ...(options.host === true ? {} : { environments: new EnvironmentStore(homePaths(home).environments) }),
    },
  );
  if (outcome.status === 'rejected') {
    out.data(outcome);
    throw new CommandFailed(
      'invalid-documents',
      `freeze of ${outcome.taskId} rejected (${outcome.reason}): ${outcome.detail}`,
      options.json === true,
    );
  }
  out.line(
    `frozen ${outcome.taskId}: ${outcome.failToPass.length} FAIL_TO_PASS, ${outcome.passToPass.length} PASS_TO_PASS, ${outcome.flaky.length} flaky (quarantined), ${outcome.volatile.length} with run-specific ids (not published)`,
  );
  out.line(`bundle ${outcome.digest}  ${outcome.archivePath}`);
  out.line(`held-out part ${outcome.heldOutDigest}; signature ${outcome.signaturePath}`);
  out.line(
    outcome.goldenTrace === null
      ? 'golden trace: none given (--golden-trace), so the manifest names none'
      : `golden trace ${outcome.goldenTrace.digest}  ${outcome.goldenTrace.path}, signed with the bundle`,
  );
  out.line(
    `proved: the golden patch resolved ${outcome.gold.trials} of ${outcome.gold.trials} trials, the empty patch none`,
  );
  out.line(
    `time: runs ${outcome.timings.freezeMs} ms, gold proof ${outcome.timings.goldMs} ms, bundle ${outcome.timings.bundleMs} ms, signing ${outcome.timings.signMs} ms`,
  );
  out.line(`logged in ${paths.log}; audit: abp audit log`);
  out.line(`verified against the cutoffs ${cutoffs.join(', ')} (sourced ${options.sourcedAt})`);
  const published = await publishFrozenTask(join(home, 'published'), outcome);
  out.line(
    `published in ${published.path}: \`abp serve\` lists it, \`abp pull ${outcome.taskId} --from <serve url>\` fetches it`,
  );
  out.line(`verify: abp verify ${outcome.archivePath}; unpack for abp run: abp unpack ${outcome.archivePath} -o tasks`);
  out.data({ ...outcome, published: published.path });
}
