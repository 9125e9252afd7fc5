// From a merged fix to a published task, in two parts that may run on different machines: build (freeze it with
// FAIL_TO_PASS runs, write the abp-task/v1 manifest, build the deterministic bundle, prove it with the golden and the
// empty patch) and publish (store it by digest with the golden trace the solver gave, sign, log). Re-running for the
// same inputs stores nothing new: the bundle comes out byte-identical, the store keeps the first copy and its first
// signature, and a freeze already published for the same inputs is returned from its record without running again.
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { goldenTracePath, taskSchema, type AbpTask } from '@abp/protocol/schemas/abp-task';
import { cutoffEnd, modelCutoff, registryVersion, seed, utcTimestamp } from '@abp/protocol/schemas/primitives';
import { formatIssues } from '@abp/protocol/schemas/issues';
import { contentDigest } from '@abp/protocol/schemas/registry-digest';
import type { Signer } from '../signing/signer.js';
import { writeFileDurably } from '@abp/protocol/files/durable-files';
import type { Attestor } from '../signing/attestor.js';
import {
  createTaskBundleStatement,
  signedAtOf,
  taskBundleSubjectNames,
  type TaskBundlePredicate,
  unverifiedTaskBundlePredicate,
} from '@abp/protocol/signing/statement';
import { buildBundle } from './bundle/build.js';
import { EXPECTED_RESULTS_SCHEMA_ID, type ExpectedResults } from '@abp/protocol/bundle/expected-results';
import { type BundleStore } from './bundle/store.js';
import { FreezeError } from './errors.js';
import { readGoldenTrace, type GoldenTrace } from './golden-trace.js';
import type { GoldenTraceStore } from './golden-trace-store.js';
import { freezeFix, type FreezeOptions, type RejectedFix } from './freeze.js';
import { proveWithGold } from './gold.js';
import type { FreezeInput } from './inputs.js';
import { installSteps } from '../registry/criteria/schema.js';
import { packageRoot } from '../package-root.js';

/** Which bundle builder made a bundle; an auditor rebuilds with the same one and compares digests. */
export const BUILDER = 'abp/0.2.0';

export interface TaskFreezeInput extends FreezeInput {
  issue: { number: number; title: string; body: string };
  /** The maintainer-merged pull request carrying the fix. */
  mergedPr: string;
  /** When the issue was drawn (spec §4.4), the registry version and the seed of that draw. */
  sourcedAt: string;
  registryVersion: string;
  drawSeed: number;
  /**
   * The abp-trace/v1 file the solving engine printed (spec §4.2), read from this path: checked before anything runs,
   * kept in the trace store and named by the manifest's `golden.trace`. Without it the manifest names no trace.
   */
  goldenTrace?: string;
}

export interface PublishedTask {
  status: 'frozen';
  taskId: string;
  digest: string;
  heldOutDigest: string;
  archivePath: string;
  signaturePath: string;
  /** The golden trace kept beside the bundle and signed with it; null when the freeze was given none. */
  goldenTrace: { digest: string; path: string } | null;
  manifest: AbpTask;
  failToPass: string[];
  passToPass: string[];
  flaky: string[];
  /** Ids named by only some runs of a state (parametrized with the time, say): counted, never published verbatim. */
  volatile: string[];
  /** The grader's trials that proved the task before it was signed: the golden patch resolved in each, the empty in none. */
  gold: { trials: number };
  /** Wall time of the suite runs, of the gold proof, and of building, storing and signing the bundle. */
  timings: { freezeMs: number; goldMs: number; bundleMs: number; signMs: number };
}

export type TaskRejection = RejectedFix & { taskId: string };
export type TaskFreezeOutcome = PublishedTask | TaskRejection;

/**
 * A task frozen and proved but not yet stored or signed: what a freeze worker hands to the machine that publishes
 * (handoff.ts carries it through the run store).
 */
export interface BuiltTask {
  status: 'built';
  taskId: string;
  /** The bundle archive, byte for byte what is stored and signed. */
  archive: Buffer;
  heldOutDigest: string;
  /** The golden trace the manifest names, checked; null when none was given. */
  goldenTrace: GoldenTrace | null;
  manifest: AbpTask;
  /** What the signed statement says of the freeze. */
  facts: TaskBundlePredicate['freeze'];
  failToPass: string[];
  passToPass: string[];
  flaky: string[];
  volatile: string[];
  gold: { trials: number };
  /** The environment image (its manifest digest) every suite ran in; null when they ran on the host. */
  environment: string | null;
  timings: { freezeMs: number; goldMs: number; bundleMs: number };
}

/** What building a task takes: the freeze's own options and the manifest's verification budget. */
export interface TaskBuildDependencies extends FreezeOptions {
  /** Held-out verification budget written into the manifest. */
  timeoutSeconds?: number;
  /** Trials of the golden and of the empty patch that prove the task before signing. Default 3. */
  goldTrials?: number;
}

/** What publishing a built task takes: the store, the key and the log. */
export interface TaskPublishDependencies {
  store: BundleStore;
  /** Where golden traces are kept (signing/home.ts signingPaths(home).goldenTraces); needed when the task carries one. */
  goldenTraces?: GoldenTraceStore;
  signer: Signer;
  /** Logs the signed statement in the transparency log (signing/attestor.ts); nothing is logged without it. */
  log?: Pick<Attestor, 'logSignature'>;
  now?: () => Date;
}

export type TaskFreezeDependencies = TaskBuildDependencies & TaskPublishDependencies;

/**
 * What a task frozen on the host's toolchains names as its image: no image exists, and the name says so (abp-host/ is
 * no registry's), so a grader runs it on its own host rather than pulling something nothing ever ran.
 */
export function hostImageReference(ecosystem: string): string {
  return `abp-host/${ecosystem}`;
}

const cutoffsFile = z.strictObject({
  schema: z.literal('abp-model-cutoffs/1'),
  note: z.string(),
  cutoffs: z.array(modelCutoff),
});
const CUTOFFS_PATH = join(packageRoot, 'data', 'model-cutoffs.json');

async function committedCutoffs(): Promise<string[]> {
  const parsed = cutoffsFile.safeParse(JSON.parse(await readFile(CUTOFFS_PATH, 'utf8')));
  if (!parsed.success)
    throw new Error(
      `${CUTOFFS_PATH}: ${parsed.error.issues[0]?.path.join('.') ?? ''}: ${parsed.error.issues[0]?.message ?? 'invalid'}; fix the committed list`,
    );
  return parsed.data.cutoffs;
}

/** The committed model cutoffs that end before `sourcedAt`: the models this task is contamination-free for. */
export async function cutoffsBefore(sourcedAt: string): Promise<string[]> {
  const at = Date.parse(sourcedAt);
  return (await committedCutoffs()).filter((cutoff) => (cutoffEnd(cutoff)?.getTime() ?? Infinity) <= at).sort();
}

/**
 * The task's provenance checked, and the cutoffs it is verified against resolved, before anything is built or run: a
 * task sourced before every committed cutoff ended would be published as contamination-free for no model, so it is
 * refused at once (`no-verified-cutoff`) rather than after its suites ran.
 */
export async function verifiedCutoffs(
  input: Pick<TaskFreezeInput, 'sourcedAt' | 'registryVersion' | 'drawSeed'>,
): Promise<string[]> {
  const provenance = z
    .strictObject({ sourcedAt: utcTimestamp, registryVersion, drawSeed: seed })
    .safeParse({ sourcedAt: input.sourcedAt, registryVersion: input.registryVersion, drawSeed: input.drawSeed });
  if (!provenance.success)
    throw new FreezeError(
      'invalid-input',
      `the task's provenance is not valid:\n${formatIssues(provenance.error.issues)}`,
    );
  const cutoffs = await cutoffsBefore(input.sourcedAt);
  if (cutoffs.length > 0) return cutoffs;
  const ends = (await committedCutoffs()).flatMap((cutoff) => cutoffEnd(cutoff) ?? []).map((end) => end.getTime());
  const earliest = ends.length === 0 ? null : new Date(Math.min(...ends)).toISOString().replace('.000Z', 'Z');
  throw new FreezeError(
    'no-verified-cutoff',
    `sourcedAt ${input.sourcedAt} is before every model cutoff in ${CUTOFFS_PATH}${earliest === null ? ' (it lists none)' : ` (the earliest ends ${earliest})`}, so the task would be verified against no model (spec §4.4): freeze only issues drawn after ${earliest ?? 'a listed cutoff'}, with their true sourcedAt, or list in that file a model whose cutoff this issue postdates`,
  );
}

/** The image reference a task names: a name for `docker load` and the environment's digest, which is its identity. */
export function environmentReference(repo: string, digest: string): string {
  return `abp-env/${repo.toLowerCase().replace(/[^a-z0-9._-]+/g, '-')}@${digest}`;
}

function prompt(input: TaskFreezeInput): string {
  return `Resolve issue #${input.issue.number} of ${input.repo}: ${input.issue.title}\n\n${input.issue.body.trim()}\n`;
}

/** The part of a task's freeze input the suite runs read. */
export function freezeInputOf(input: TaskFreezeInput): FreezeInput {
  const { taskId, repo, gitDir, baseCommit, fix, recipe, pathRules } = input;
  return { taskId, repo, gitDir, baseCommit, fix, recipe, ...(pathRules === undefined ? {} : { pathRules }) };
}

const GOLD_TRIALS = 3;

/**
 * Everything a published task follows from; the same digest means the same bundle and golden trace, so the freeze need
 * not run again.
 */
function freezeKey(
  input: TaskFreezeInput,
  deps: TaskBuildDependencies,
  cutoffsVerified: string[],
  goldenTrace: GoldenTrace | null,
): string {
  // Where the clone and the trace file live are not inputs: the same repository and the same trace bytes freeze alike.
  const inputs: Partial<TaskFreezeInput> = { ...input };
  delete inputs.gitDir;
  delete inputs.goldenTrace;
  return contentDigest({
    builder: BUILDER,
    inputs,
    ...(goldenTrace === null ? {} : { goldenTrace: goldenTrace.digest }),
    cutoffsVerified,
    runs: deps.runs ?? 3,
    goldTrials: deps.goldTrials ?? GOLD_TRIALS,
    timeoutSeconds: deps.timeoutSeconds ?? 900,
    ...(deps.environments === undefined ? {} : { environment: true }),
  });
}

async function readFreezeRecord(
  path: string,
  store: BundleStore,
  goldenTraces: GoldenTraceStore | null,
): Promise<PublishedTask | null> {
  const text = await readFile(path, 'utf8').catch(() => null);
  if (text === null) return null;
  const record = JSON.parse(text) as PublishedTask;
  // A record whose bundle, signature or golden trace left the store is stale: freeze again. So is one whose bundle was
  // signed since with another golden trace (a later freeze of the same fix gave another): the signature is the truth.
  const traceKept = record.goldenTrace === null || ((await goldenTraces?.has(record.goldenTrace.digest)) ?? false);
  const signature = (await store.has(record.digest)) ? await store.getSignature(record.digest) : null;
  const signed = signature === null ? null : unverifiedTaskBundlePredicate(signature);
  const sameTrace = signed !== null && (signed.goldenTraceDigest ?? null) === (record.goldenTrace?.digest ?? null);
  return traceKept && sameTrace ? record : null;
}

/**
 * What a freeze settles before anything is built or run: the cutoffs the task is verified against, the golden trace
 * the input gives (checked), and the key of everything the task follows from.
 */
export interface FreezePlan {
  cutoffsVerified: string[];
  goldenTrace: GoldenTrace | null;
  /** The digest of every input the task follows from: the same key, the same bundle. */
  key: string;
}

/**
 * The provenance first (a task with no cutoff is never worth running), then the golden trace, as early: one that is
 * not a clean abp-trace/v1 file of this task refuses the freeze before any suite runs, and nothing is stored for it.
 */
export async function planFreeze(input: TaskFreezeInput, deps: TaskBuildDependencies): Promise<FreezePlan> {
  const cutoffsVerified = await verifiedCutoffs(input);
  const goldenTrace = input.goldenTrace === undefined ? null : await readGoldenTrace(input.goldenTrace, input.taskId);
  return { cutoffsVerified, goldenTrace, key: freezeKey(input, deps, cutoffsVerified, goldenTrace) };
}

/**
 * Freezes the fix, writes the manifest, builds the bundle and proves it with the golden and the empty patch, storing
 * and signing nothing: the part of a freeze that runs suites, on a freeze worker.
 */
export async function buildTask(
  input: TaskFreezeInput,
  plan: FreezePlan,
  deps: TaskBuildDependencies,
): Promise<BuiltTask | TaskRejection> {
  const { cutoffsVerified, goldenTrace } = plan;
  const started = performance.now();
  const outcome = await freezeFix(freezeInputOf(input), deps);
  if (outcome.status === 'rejected') return { ...outcome, taskId: input.taskId };
  const freezeMs = performance.now() - started;

  const manifest = taskSchema.parse({
    schema: 'abp-task/v1',
    id: input.taskId,
    source: {
      kind: 'github-issue',
      repo: input.repo,
      issue: input.issue.number,
      baseCommit: input.baseCommit,
      sourcedAt: input.sourcedAt,
      registryVersion: input.registryVersion,
      drawSeed: input.drawSeed,
    },
    prompt: prompt(input),
    // With an environment the install is in the image and the reference is its digest; without one the suites ran on
    // the host, and the install is a step the grader's host repeats.
    environment:
      outcome.environment === null
        ? { image: hostImageReference(input.recipe.ecosystem), setup: installSteps(input.recipe) }
        : { image: environmentReference(input.repo, outcome.environment.digest), setup: [] },
    verification: {
      kind: 'commands',
      failToPass: outcome.commands.failToPass,
      passToPass: outcome.commands.passToPass,
      timeoutSeconds: deps.timeoutSeconds ?? 900,
      heldOut: true,
    },
    golden: {
      diffBytesNormalized: Math.max(1, outcome.golden.diffBytesNormalized),
      filesTouched: Math.max(1, outcome.golden.filesTouched),
      // Named only when the solving engine's trace was given (spec §4.2): it is published beside the bundle.
      ...(goldenTrace === null ? {} : { trace: goldenTracePath(input.taskId) }),
      mergedPr: input.mergedPr,
    },
    cutoffsVerified,
  });
  const expected: ExpectedResults = {
    schema: EXPECTED_RESULTS_SCHEMA_ID,
    runner: input.recipe.runner,
    reportFormat: input.recipe.report,
    failToPass: outcome.failToPass,
    passToPass: outcome.passToPass,
    flaky: outcome.flaky,
    commands: outcome.commands,
  };
  const bundleStarted = performance.now();
  const bundle = await buildBundle({
    manifest,
    issueText: `# ${input.issue.title}\n\n${input.issue.body.trim()}\n`,
    gitDir: input.gitDir,
    baseCommit: input.baseCommit,
    heldOut: { files: outcome.heldOutFiles, expected, goldenPatch: outcome.golden.patch },
  });
  const bundleMs = performance.now() - bundleStarted;

  // Proved before it is stored or signed: nothing of a task its own fix cannot resolve is ever published.
  const goldTrials = deps.goldTrials ?? GOLD_TRIALS;
  if (!(Number.isSafeInteger(goldTrials) && goldTrials >= 1))
    throw new FreezeError('invalid-options', `goldTrials must be a positive integer; got ${goldTrials}`);
  const proof = await proveWithGold({
    archive: bundle.archive,
    taskId: input.taskId,
    workDir: deps.workDir,
    trials: goldTrials,
    timeoutSeconds: deps.timeoutSeconds ?? 900,
    ...(deps.environments === undefined ? {} : { environments: deps.environments }),
  });
  if (!proof.proven)
    return {
      status: 'rejected',
      reason: proof.reason,
      detail: proof.detail,
      regressions: [],
      runs: outcome.runs,
      taskId: input.taskId,
    };
  return {
    status: 'built',
    taskId: input.taskId,
    archive: bundle.archive,
    heldOutDigest: bundle.heldOutDigest,
    goldenTrace,
    manifest,
    facts: {
      repo: input.repo,
      baseCommit: input.baseCommit,
      mergedPr: input.mergedPr,
      failToPass: outcome.failToPass.length,
      passToPass: outcome.passToPass.length,
      flaky: outcome.flaky.length,
      builder: BUILDER,
    },
    failToPass: outcome.failToPass,
    passToPass: outcome.passToPass,
    flaky: outcome.flaky.map((test) => test.id),
    volatile: outcome.volatile,
    gold: { trials: proof.trials },
    environment: outcome.environment?.digest ?? null,
    timings: { freezeMs: Math.round(freezeMs), goldMs: proof.ms, bundleMs: Math.round(bundleMs) },
  };
}

/**
 * Stores a built task's bundle and golden trace, signs the bundle and logs the signature: the part of a freeze that
 * holds the key and writes the registry's one store and log. Idempotent: the bundle and trace are content-addressed, a
 * kept signature of the same trace is kept, and logging finds its entry.
 */
export async function publishTask(built: BuiltTask, deps: TaskPublishDependencies): Promise<PublishedTask> {
  const traces = deps.goldenTraces;
  if (built.goldenTrace !== null && traces === undefined)
    throw new FreezeError(
      'invalid-options',
      `${built.taskId} carries a golden trace (${built.goldenTrace.digest}) but no trace store was given to keep it in: pass goldenTraces`,
    );
  const digest = await deps.store.put(built.archive);
  // Kept before the signature that names it, so a signed trace is always there to serve.
  const goldenTrace =
    built.goldenTrace === null || traces === undefined
      ? null
      : { digest: await traces.put(built.goldenTrace.bytes), path: traces.path(built.goldenTrace.digest) };

  const signStarted = performance.now();
  // ECDSA signatures are randomized: the first signature of a bundle is kept, so a re-run changes no byte. The bundle
  // names its golden trace by path only, so a kept signature that signs another trace, or none, is replaced.
  const kept = await deps.store.getSignature(digest);
  if (kept === null || unverifiedTaskBundlePredicate(kept)?.goldenTraceDigest !== goldenTrace?.digest) {
    const statement = createTaskBundleStatement({
      taskId: built.taskId,
      bundleDigest: digest,
      heldOutDigest: built.heldOutDigest,
      ...(goldenTrace === null ? {} : { goldenTraceDigest: goldenTrace.digest }),
      signedAt: signedAtOf(deps.now?.() ?? new Date()),
      freeze: built.facts,
    });
    await deps.store.putSignature(digest, JSON.stringify(await deps.signer.sign(statement), null, 2));
  }
  // Appending is idempotent: a re-run finds the entry and checkpoints the same head again.
  await deps.log?.logSignature(
    'task-bundle',
    taskBundleSubjectNames(built.taskId).bundle,
    (await deps.store.getSignature(digest)) ?? '',
  );
  const signMs = performance.now() - signStarted;
  return {
    status: 'frozen',
    taskId: built.taskId,
    digest,
    heldOutDigest: built.heldOutDigest,
    archivePath: deps.store.path(digest),
    signaturePath: deps.store.signaturePath(digest),
    goldenTrace,
    manifest: built.manifest,
    failToPass: built.failToPass,
    passToPass: built.passToPass,
    flaky: built.flaky,
    volatile: built.volatile,
    gold: built.gold,
    timings: { ...built.timings, signMs: Math.round(signMs) },
  };
}

/** A whole freeze in one process: plan, build and publish, with a record so that the same inputs never run twice. */
export async function freezeTask(input: TaskFreezeInput, deps: TaskFreezeDependencies): Promise<TaskFreezeOutcome> {
  const plan = await planFreeze(input, deps);
  if (plan.goldenTrace !== null && deps.goldenTraces === undefined)
    throw new FreezeError(
      'invalid-options',
      `a golden trace (${input.goldenTrace ?? ''}) was given without a trace store to keep it in: pass goldenTraces`,
    );
  const recordPath = join(deps.store.root, 'freezes', `${plan.key.slice('sha256:'.length)}.json`);
  const traces = plan.goldenTrace === null ? null : (deps.goldenTraces ?? null);
  const recorded = await readFreezeRecord(recordPath, deps.store, traces);
  if (recorded !== null) return recorded;
  const built = await buildTask(input, plan, deps);
  if (built.status === 'rejected') return built;
  const published = await publishTask(built, deps);
  await mkdir(dirname(recordPath), { recursive: true });
  await writeFileDurably(recordPath, `${JSON.stringify(published, null, 2)}\n`);
  return published;
}
