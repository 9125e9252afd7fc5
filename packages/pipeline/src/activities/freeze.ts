// The freeze as an activity: freeze the merged fix (with the golden trace attached to the task, if any), publish the
// signed bundle to the store, then record the bundle, its signature and the task's base commit and bundle digest in one
// transaction. Idempotent: a freeze published for the same inputs is returned from its record, and rows that exist are
// left as they are.
import { ApplicationFailure } from '@temporalio/activity';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../db/connection.js';
import { bundles, draws, registryEntries, signatures, tasks } from '../db/schema/index.js';
import type { GithubClient } from '../github/client.js';
import type { JsonObject } from '../db/json.js';
import { BundleStore } from '../freeze/bundle/store.js';
import { GoldenTraceStore } from '../freeze/golden-trace-store.js';
import {
  FreezeError,
  type FreezeErrorCode,
  freezeInputOf,
  freezeTask,
  parseFreezeInput,
  recipeFor,
  type PublishedTask,
  type TaskFreezeInput,
  type TaskFreezeOutcome,
  verifiedCutoffs,
} from '../freeze/index.js';
import { registryEntrySchema } from '@abp/protocol/schemas/abp-registry';
import type { Attestor } from '../signing/attestor.js';
import { permanent } from './arguments.js';
import { createTaskActivities } from './tasks.js';
import { diskFullAt, faultOfError, faultOfText, type MachineFault } from '../freeze/machine-faults.js';
import { heartbeating } from './heartbeat.js';
import { git } from '@abp/grader/execution';
import type { EnvironmentStore } from '@abp/grader/environments';

export interface FreezeDependencies {
  db: Database;
  /** Reads the issue's text; clones come from the pull request's host. */
  github?: GithubClient;
  /** The content-addressed bundle store (signing/home.ts signingPaths(home).bundles). */
  bundleDir: string;
  /** The golden trace store (signingPaths(home).goldenTraces): traces attached to tasks (`abp task attach-trace`). */
  goldenTraceDir: string;
  /** Signs each bundle's statement and logs it in the transparency log. */
  attestor: Attestor;
  /** Where checkouts and toolchain caches go; kept between freezes (Go's build cache). */
  workDir: string;
  /** Builds each task's environment here and runs every suite in it; without it the suites run on the host. */
  environments?: EnvironmentStore;
}

/** A valid merge, as the task workflow hands it over. */
export interface MergedFix {
  taskId: string;
  prUrl: string;
  mergeCommit: string;
}

/**
 * What the task workflow's history keeps of a freeze: the verdict and the digests, not the test lists; for a frozen task
 * also when it was sourced and the model cutoffs it was verified against (spec §4.4), as its manifest says.
 */
export type FreezeSummary =
  | {
      status: 'frozen';
      taskId: string;
      digest: string;
      heldOutDigest: string;
      failToPass: number;
      passToPass: number;
      flaky: number;
      sourcedAt: string;
      cutoffsVerified: string[];
      /** The golden trace signed with the bundle; null when none was attached. */
      goldenTraceDigest: string | null;
    }
  | { status: 'rejected'; taskId: string; reason: string; detail: string };

/** The runner an entry was stored with (registry_entries.runner_recipe), checked on the way out of the database. */
const registryRunner = registryEntrySchema.shape.runner;

/** The key a stored signature names (its hint), not the signer's current key: a rotation may have come in between. */
function signingKeyOf(bundle: JsonObject): string | null {
  const material = bundle.verificationMaterial as { publicKey?: { hint?: unknown } } | undefined;
  return typeof material?.publicKey?.hint === 'string' ? material.publicKey.hint : null;
}

function frozenSummary(task: PublishedTask): Extract<FreezeSummary, { status: 'frozen' }> {
  const { source, cutoffsVerified } = task.manifest;
  // The freeze writes github-issue manifests only; a fixture source carries no sourcedAt to record.
  if (source.kind !== 'github-issue')
    throw ApplicationFailure.create({
      type: 'FreezeManifest',
      message: `${task.digest}: the manifest's source is ${source.kind}, not github-issue; freeze again`,
      nonRetryable: true,
    });
  return {
    status: 'frozen',
    taskId: task.taskId,
    digest: task.digest,
    heldOutDigest: task.heldOutDigest,
    failToPass: task.failToPass.length,
    passToPass: task.passToPass.length,
    flaky: task.flaky.length,
    sourcedAt: source.sourcedAt,
    cutoffsVerified,
    goldenTraceDigest: task.goldenTrace?.digest ?? null,
  };
}

/** Whether the repository at `gitDir` exists here and holds every one of `commits`. */
async function holdsCommits(gitDir: string, commits: readonly string[]): Promise<boolean> {
  for (const commit of commits) {
    const found = await git(['--git-dir', gitDir, 'cat-file', '-e', `${commit}^{commit}`], {
      cwd: '/',
      allowExit: [1, 128],
    });
    if (found.exitCode !== 0) return false;
  }
  return true;
}

/** The freeze's refusals of a golden trace: checked when it was attached, so one here means the stored file changed. */
const GOLDEN_TRACE_REFUSALS: ReadonlySet<string> = new Set([
  'golden-trace-unreadable',
  'golden-trace-too-large',
  'invalid-golden-trace',
  'golden-trace-unredacted',
] satisfies FreezeErrorCode[]);

export function createFreezeActivities({
  db,
  github,
  bundleDir,
  goldenTraceDir,
  attestor,
  workDir,
  environments,
}: FreezeDependencies) {
  const { signer } = attestor;
  const store = new BundleStore(bundleDir);
  const goldenTraces = new GoldenTraceStore(goldenTraceDir);
  const taskRecords = createTaskActivities({ db });

  /**
   * The failure that has Temporal retry the freeze with backoff, after noting on the task why it is stalled: a machine
   * fault (full disk, memory, a killed process, a service that did not answer) or an error nobody expected. The note is
   * an event (`freeze-stalled`, once per distinct cause) that `abp task show`, `abp status` and the main job read.
   */
  async function stalled(taskId: string, fault: MachineFault | null, error: unknown): Promise<ApplicationFailure> {
    const message = fault?.message ?? (error instanceof Error ? error.message : JSON.stringify(error));
    const kind = fault?.code ?? 'unexpected';
    await taskRecords
      .recordTaskTransition({
        taskId,
        from: 'freezing',
        to: 'freezing',
        cause: 'freeze-stalled',
        detail: { fault: kind, message: message.slice(0, 1000) },
      })
      .catch(() => undefined); // a database that does not answer is itself the stall: the retry will note it
    return ApplicationFailure.create({
      type: fault === null ? 'FreezeStalled:unexpected' : `MachineFault:${fault.code}`,
      message: `the freeze of ${taskId} stalled (${kind}): ${message}; it is retried with backoff`,
      nonRetryable: false,
      ...(error instanceof Error ? { cause: error } : {}),
    });
  }

  /**
   * This worker's mirror of `repo` (`<workDir>/mirrors/<owner>--<name>.git`), cloned from the pull request's host or
   * fetched; one that holds every commit of `needed` already is used as it is.
   */
  async function mirrorOf(repo: string, prUrl: string, needed: readonly string[] = []): Promise<string> {
    const [owner = '', name = ''] = repo.split('/');
    const mirror = join(workDir, 'mirrors', `${owner}--${name}.git`);
    await mkdir(dirname(mirror), { recursive: true });
    const remote = prUrl.replace(/\/pull\/\d+$/, '.git');
    if (
      await stat(mirror).then(
        () => true,
        () => false,
      )
    ) {
      if (needed.length > 0 && (await holdsCommits(mirror, needed))) return mirror;
      await git(['-C', mirror, 'fetch', '--quiet', 'origin', '+refs/heads/*:refs/heads/*'], {
        cwd: workDir,
        transport: 'network',
      });
    } else {
      // Cloned beside it and renamed into place: a worker killed mid-clone leaves no half mirror for the retry to trip on.
      const partial = `${mirror}.${process.pid}-${Date.now()}.partial`;
      try {
        await git(['clone', '--quiet', '--bare', remote, partial], { cwd: workDir, transport: 'network' });
        await rename(partial, mirror);
      } finally {
        await rm(partial, { recursive: true, force: true });
      }
    }
    return mirror;
  }

  async function prepare(fix: MergedFix): Promise<TaskFreezeInput> {
    const [task] = await db
      .select({
        repo: tasks.repo,
        issue: tasks.issueNumber,
        seed: draws.seed,
        registryVersion: draws.registryVersion,
        drawnAt: draws.drawnAt,
      })
      .from(tasks)
      .innerJoin(draws, eq(draws.id, tasks.drawId))
      .where(eq(tasks.id, fix.taskId));
    if (task === undefined)
      throw ApplicationFailure.create({
        type: 'UnknownTask',
        message: `task ${fix.taskId} is not stored`,
        nonRetryable: true,
      });
    const [owner = '', name = ''] = task.repo.split('/');
    const mirror = await mirrorOf(task.repo, fix.prUrl);
    const base = (await git(['-C', mirror, 'rev-parse', `${fix.mergeCommit}^1`], { cwd: workDir })).stdout
      .toString('utf8')
      .trim();
    // An issue transferred or deleted since the draw answers 404: the task keeps its number, without the text.
    const issue =
      github === undefined
        ? null
        : await github.rest.issues.get({ owner, repo: name, issue_number: task.issue }).then(
            (answer) => answer.data,
            (error: { status?: number }) => {
              if (error.status === 404) return null;
              throw error;
            },
          );
    const [entry] = await db
      .select({ runner: registryEntries.runnerRecipe })
      .from(registryEntries)
      .where(
        and(
          eq(registryEntries.registryVersion, task.registryVersion),
          sql`lower(${registryEntries.repo}) = ${task.repo.toLowerCase()}`,
        ),
      );
    return {
      taskId: fix.taskId,
      repo: task.repo,
      gitDir: mirror,
      baseCommit: base,
      fix: { kind: 'commit', commit: fix.mergeCommit },
      recipe: await recipeFor({
        repo: task.repo,
        gitDir: mirror,
        base,
        entry: entry === undefined ? null : registryRunner.parse(entry.runner),
      }),
      issue: { number: task.issue, title: issue?.title ?? `Issue #${task.issue}`, body: issue?.body ?? '' },
      mergedPr: fix.prUrl,
      sourcedAt: `${task.drawnAt.toISOString().slice(0, 19)}Z`,
      registryVersion: task.registryVersion,
      drawSeed: Number(task.seed),
    };
  }

  return {
    /**
     * Gathers a merged fix's freeze input: a local mirror of the repository fetched up to the merge (base = the merge's
     * first parent), the issue's title and body, the registry's runner recipe for the repository, and the draw's facts.
     */
    async prepareFreeze(fix: MergedFix): Promise<TaskFreezeInput> {
      try {
        return await heartbeating(() => prepare(fix));
      } catch (error) {
        // What the task gets wrong is refused for good; a clone that met a full disk or GitHub not answering waits.
        if (error instanceof ApplicationFailure && error.nonRetryable) throw error;
        throw await stalled(fix.taskId, faultOfError(error) ?? (await diskFullAt(workDir)), error);
      }
    },

    async freezeMergedFix(input: TaskFreezeInput): Promise<FreezeSummary> {
      try {
        parseFreezeInput(freezeInputOf(input));
      } catch (error) {
        if (error instanceof FreezeError) throw permanent(error);
        throw error;
      }
      let outcome: TaskFreezeOutcome;
      try {
        // Read as the freeze runs, not when its inputs were gathered: the retry of a stalled freeze takes what is
        // attached by then, and the freeze record is keyed by the trace's digest either way.
        const attached = input.goldenTrace === undefined ? await goldenTraces.attached(input.taskId) : null;
        // The attached trace is the one stored under its digest, or the freeze stalls (corrupt-store, not-found): a
        // file changed since it was attached is never signed under another digest.
        if (attached !== null) await goldenTraces.get(attached);
        // prepareFreeze may have run on another freeze worker, whose mirror is on its own machine: where that clone is
        // not here, the freeze reads this worker's own mirror, fetched first (where the clone lives is not a freeze
        // input). After the cutoffs, so that a task verified against no model is rejected before anything is cloned.
        await verifiedCutoffs(input);
        const commits = [input.baseCommit, ...(input.fix.kind === 'commit' ? [input.fix.commit] : [])];
        const gitDir = (await holdsCommits(input.gitDir, commits))
          ? input.gitDir
          : await heartbeating(() => mirrorOf(input.repo, input.mergedPr, commits));
        const local = { ...input, gitDir };
        const withTrace = attached === null ? local : { ...local, goldenTrace: goldenTraces.path(attached) };
        outcome = await heartbeating(() =>
          freezeTask(withTrace, {
            workDir,
            store,
            goldenTraces,
            signer,
            log: attestor,
            ...(environments === undefined ? {} : { environments }),
          }),
        );
      } catch (error) {
        // A draw older than every model cutoff is the task's own fault, found before anything ran: the task is rejected
        // with the reason, as a suite's verdict would reject it, rather than failing the workflow.
        if (error instanceof FreezeError && error.code === 'no-verified-cutoff')
          return { status: 'rejected', taskId: input.taskId, reason: error.code, detail: error.message };
        // A trace is evidence, not the fix: a refused one never rejects the task. The freeze waits, noted on the task with
        // the file and line, until the stored trace is restored or its attachment removed.
        if (error instanceof FreezeError && GOLDEN_TRACE_REFUSALS.has(error.code))
          throw await stalled(input.taskId, null, error);
        if (error instanceof FreezeError) throw permanent(error);
        throw await stalled(input.taskId, faultOfError(error) ?? (await diskFullAt(workDir)), error);
      }
      if (outcome.status === 'rejected') {
        // A verdict reached on a machine that was failing says nothing about the fix: retried, never a rejection.
        const fault = faultOfText(outcome.detail) ?? (await diskFullAt(workDir));
        if (fault !== null) throw await stalled(input.taskId, fault, null);
        return { status: 'rejected', taskId: outcome.taskId, reason: outcome.reason, detail: outcome.detail };
      }
      const signature = await store.getSignature(outcome.digest);
      if (signature === null)
        throw ApplicationFailure.create({
          type: 'FreezeStore',
          message: `${outcome.digest} was stored without its signature; freeze again`,
        });
      const size = (await store.get(outcome.digest)).length;
      const signed = JSON.parse(signature) as JsonObject;
      const frozen = frozenSummary(outcome);
      await db.transaction(async (tx) => {
        await tx
          .insert(bundles)
          .values({
            digest: outcome.digest,
            taskId: outcome.taskId,
            mediaType: 'application/x-tar',
            sizeBytes: size,
            path: outcome.archivePath,
          })
          .onConflictDoNothing({ target: bundles.digest });
        await tx
          .insert(signatures)
          .values({
            bundleDigest: outcome.digest,
            signerKind: signer.kind,
            keyId: signingKeyOf(signed),
            sigstoreBundle: signed,
          })
          .onConflictDoNothing();
        await tx
          .update(tasks)
          .set({
            baseCommit: input.baseCommit,
            bundleDigest: outcome.digest,
            sourcedAt: new Date(frozen.sourcedAt),
            cutoffsVerified: frozen.cutoffsVerified,
          })
          .where(eq(tasks.id, outcome.taskId));
      });
      return frozen;
    },
  };
}
