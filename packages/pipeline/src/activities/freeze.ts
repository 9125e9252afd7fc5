// The freeze worker's side of a freeze (the `abp-freeze` queue): gather a merged fix's inputs, then build the task
// (suite runs, bundle, gold proof) and hand it over through the run store to the publisher on the main queue
// (publish.ts), which alone signs, logs and stores. No signing key and no registry store live on a freeze worker.
import { ApplicationFailure } from '@temporalio/activity';
import { mkdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../db/connection.js';
import { draws, registryEntries, tasks } from '../db/schema/index.js';
import type { GithubClient } from '../github/client.js';
import {
  buildTask,
  FreezeError,
  freezeInputOf,
  parseFreezeInput,
  planFreeze,
  recipeFor,
  type TaskBuildDependencies,
  type TaskFreezeInput,
  verifiedCutoffs,
} from '../freeze/index.js';
import { handoffKept, handOver } from '../freeze/handoff.js';
import { sweepAbandonedScratch } from '../freeze/scratch.js';
import { writeWhole } from '../freeze/content-store.js';
import { registryEntrySchema } from '@abp/protocol/schemas/abp-registry';
import { sha256Digest } from '@abp/protocol/schemas/primitives';
import { permanent } from './arguments.js';
import { diskFullAt, faultOfError, faultOfText } from '../freeze/machine-faults.js';
import { freezeStalls, refusesGoldenTrace } from './freeze-stalls.js';
import { heartbeating } from './heartbeat.js';
import { FREEZE_HANDOFF_LOST } from '../workflows/shared.js';
import { BundleError } from '@abp/protocol/bundle/errors';
import { git } from '@abp/grader/execution';
import type { EnvironmentStore } from '@abp/grader/environments';
import type { RunStore } from '../run-store/store.js';

export interface FreezeDependencies {
  db: Database;
  /** Reads the issue's text; clones come from the pull request's host. */
  github?: GithubClient;
  /** Where checkouts and toolchain caches go; kept between freezes (Go's build cache). */
  workDir: string;
  /** Builds each task's environment here and runs every suite in it; without it the suites run on the host. */
  environments?: EnvironmentStore;
  /** Where built tasks go to the publisher, and golden traces come from it. */
  runStore: RunStore;
}

/** A valid merge, as the task workflow hands it over. */
export interface MergedFix {
  taskId: string;
  prUrl: string;
  mergeCommit: string;
}

/** What the freeze workflow gives the build: the gathered input and the golden trace staged for it, by digest. */
export interface BuildRequest {
  input: TaskFreezeInput;
  /** The run store's copy of the trace attached to the task (stageGoldenTrace); null when none is. */
  goldenTrace: string | null;
  /** A hand-off of this task the publisher could not take: never handed over again, whatever this worker noted. */
  lost?: string;
}

/** A build's verdict: the hand-off document for the publisher, or the task's rejection with its reason. */
export type BuildOutcome =
  | { status: 'built'; taskId: string; handoff: string }
  | { status: 'rejected'; taskId: string; reason: string; detail: string };

/** The registry entry's runner (registry_entries.runner_recipe), checked on the way out of the database. */
const registryRunner = registryEntrySchema.shape.runner;

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

export function createFreezeActivities({ db, github, workDir, environments, runStore }: FreezeDependencies) {
  const stalled = freezeStalls(db);
  const buildDeps: TaskBuildDependencies = { workDir, ...(environments === undefined ? {} : { environments }) };
  /** Where this worker notes the hand-off of each freeze it built, by freeze key: the same inputs are not built twice. */
  const builtDir = join(workDir, 'built');
  // As the worker starts: the scratch of freezes whose process was killed mid-way. A build waits for it.
  const swept = sweepAbandonedScratch(workDir).catch(() => undefined);

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

  /**
   * The staged golden trace, copied from the run store to a file of this worker's, checked against its digest on the
   * way. One the store no longer holds whole is staged again: FREEZE_HANDOFF_LOST sends the workflow back to staging.
   */
  async function traceFile(digest: string): Promise<string> {
    const path = join(workDir, 'golden-traces', `${digest.slice('sha256:'.length)}.abp-trace.jsonl`);
    try {
      await runStore.getFile(digest, path);
    } catch (error) {
      if (!(error instanceof BundleError && (error.code === 'not-found' || error.code === 'corrupt-store')))
        throw error;
      throw ApplicationFailure.create({
        type: FREEZE_HANDOFF_LOST,
        message: `the golden trace ${digest} staged for the freeze is not whole in the run store ${runStore.location} (${error.message}); it is staged again`,
        nonRetryable: true,
        cause: error,
      });
    }
    return path;
  }

  /** The hand-off this worker made for freeze key `key`, while it and its parts are still in the run store. */
  async function builtBefore(key: string, lost: string | undefined): Promise<string | null> {
    const noted = await readFile(join(builtDir, `${key.slice('sha256:'.length)}.txt`), 'utf8').catch(() => null);
    const digest = noted?.trim() ?? '';
    if (!sha256Digest.safeParse(digest).success || digest === lost) return null;
    return (await handoffKept(runStore, digest)) ? digest : null;
  }

  async function build({ input, goldenTrace, lost }: BuildRequest): Promise<BuildOutcome> {
    await swept;
    // The cutoffs first: a task verified against no model is rejected before anything is fetched, cloned or run.
    await verifiedCutoffs(input);
    const traced = goldenTrace === null ? input : { ...input, goldenTrace: await traceFile(goldenTrace) };
    const plan = await planFreeze(traced, buildDeps);
    if ((plan.goldenTrace?.digest ?? null) !== goldenTrace)
      throw new Error(
        `the golden trace read for ${input.taskId} is ${plan.goldenTrace?.digest ?? 'none'}, not the ${goldenTrace ?? 'none'} staged`,
      );
    const before = await builtBefore(plan.key, lost);
    if (before !== null) return { status: 'built', taskId: input.taskId, handoff: before };
    // prepareFreeze may have run on another freeze worker, whose mirror is on its own machine: where that clone is not
    // here, this worker's own mirror is read, fetched first (where the clone lives is not a freeze input).
    const commits = [input.baseCommit, ...(input.fix.kind === 'commit' ? [input.fix.commit] : [])];
    const gitDir = (await holdsCommits(input.gitDir, commits))
      ? input.gitDir
      : await mirrorOf(input.repo, input.mergedPr, commits);
    const built = await buildTask({ ...traced, gitDir }, plan, buildDeps);
    if (built.status === 'rejected') {
      // A verdict reached on a machine that was failing says nothing about the fix: retried, never a rejection.
      const fault = faultOfText(built.detail) ?? (await diskFullAt(workDir));
      if (fault !== null) throw await stalled(input.taskId, fault, null);
      return { status: 'rejected', taskId: built.taskId, reason: built.reason, detail: built.detail };
    }
    const handoff = await handOver(built, runStore, environments ?? null);
    await writeWhole(join(builtDir, `${plan.key.slice('sha256:'.length)}.txt`), `${handoff}\n`, 0o644);
    return { status: 'built', taskId: input.taskId, handoff };
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

    /**
     * Builds the task (suite runs in its environment, the bundle, the gold proof) and hands it over through the run
     * store; returns the hand-off's digest, or the task's rejection.
     */
    async buildFrozenTask(request: BuildRequest): Promise<BuildOutcome> {
      try {
        parseFreezeInput(freezeInputOf(request.input));
      } catch (error) {
        if (error instanceof FreezeError) throw permanent(error);
        throw error;
      }
      try {
        return await heartbeating(() => build(request));
      } catch (error) {
        if (error instanceof ApplicationFailure) throw error;
        // A draw older than every model cutoff is the task's own fault, found before anything ran: the task is rejected
        // with the reason, as a suite's verdict would reject it, rather than failing the workflow.
        if (error instanceof FreezeError && error.code === 'no-verified-cutoff')
          return { status: 'rejected', taskId: request.input.taskId, reason: error.code, detail: error.message };
        if (refusesGoldenTrace(error)) throw await stalled(request.input.taskId, null, error);
        if (error instanceof FreezeError) throw permanent(error);
        throw await stalled(request.input.taskId, faultOfError(error) ?? (await diskFullAt(workDir)), error);
      }
    },
  };
}
