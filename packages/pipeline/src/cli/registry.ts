// `abp registry rotate|schedule|show|diff|opt-out` and `abp draw`. Commands that change state run as workflows on the
// worker, which owns the database; `show` and `diff` read the published documents in the data directory.
import { join } from 'node:path';
import { WorkflowExecutionAlreadyStartedError, WorkflowFailedError, type Client } from '@temporalio/client';
import { compareRegistries, PublicationError, readPublishedRegistry } from '../registry/publication.js';
import { drawTasksInput, type DrawTasksResult } from '../contracts/draw-workflow.js';
import {
  optOutInput,
  quarterVersion,
  rotateRegistryInput,
  type OptOutResult,
  type RotationResult,
} from '../contracts/rotation.js';
import { withTemporalClient } from '../worker/temporal-client.js';
import { resolveStackConfig } from '../worker/config.js';
import { ensureRotationSchedule } from '../worker/rotation-schedule.js';
import type { drawTasks } from '../workflows/draw.js';
import type { recordOptOut } from '../workflows/opt-out.js';
import type { rotateRegistry } from '../workflows/rotation.js';
import { taskQueues, workflowIds } from '../workflows/shared.js';
import { CommandFailed, createOutput, type OutputOptions } from '@abp/grader/cli';

const publishDir = () => join(resolveStackConfig().home, 'published');

/** Parses with the workflow's own schema, so the CLI refuses what the worker would, naming the option. */
function checked<T>(
  schema: {
    safeParse(
      value: unknown,
    ): { success: true; data: T } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
  },
  value: unknown,
): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new CommandFailed(
    'invalid-documents',
    `--${String(issue?.path[0] ?? 'input').replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: ${issue?.message ?? 'invalid'}`,
  );
}

/** Starts the workflow, or waits on the run of it that is going on already (same id): one rotation or draw at a time. */
async function startOrJoin<R>(
  client: Client,
  start: () => Promise<{ result(): Promise<R> }>,
  workflowId: string,
): Promise<R> {
  try {
    try {
      return await (await start()).result();
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      return (await client.workflow.getHandle(workflowId).result()) as R;
    }
  } catch (error) {
    if (!(error instanceof WorkflowFailedError)) throw error;
    // The workflow's own failure says little; the activity's (innermost) says what to do.
    let cause: unknown = error;
    while (cause instanceof Error && cause.cause instanceof Error) cause = cause.cause;
    throw new CommandFailed('workflow-failed', `workflow ${workflowId} failed: ${(cause as Error).message}`);
  }
}

export interface RotateOptions extends OutputOptions {
  version?: string;
  top: number;
  size: number;
  batchSize?: number;
}

export async function registryRotateCommand(options: RotateOptions): Promise<void> {
  const out = createOutput(options);
  const now = new Date();
  const input = checked(rotateRegistryInput, {
    version: options.version ?? quarterVersion(now),
    top: options.top,
    size: options.size,
    sourcedAt: `${now.toISOString().slice(0, 19)}Z`,
    ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
  });
  const workflowId = workflowIds.registryRotation(input.version);
  out.line(
    `rotating ${input.version}: the ${input.top} most starred repositories judged, up to ${input.size} kept (workflow ${workflowId})`,
  );
  const result = await withTemporalClient(resolveStackConfig(), (client) =>
    startOrJoin<RotationResult>(
      client,
      () =>
        client.workflow.start<typeof rotateRegistry>('rotateRegistry', {
          taskQueue: taskQueues.main,
          workflowId,
          args: [input],
        }),
      workflowId,
    ),
  );
  out.line(
    `${result.version} ${result.fromStore ? 'was published already' : 'published'}: ${result.entries} entries (${result.added} added, ${result.removed} removed, ${result.kept} kept), digest ${result.digest}`,
  );
  out.line(
    `API cost: ${result.cost.points} GraphQL points in ${result.cost.requests} requests; ${result.batchesFromStore} of ${result.batches} batches read from the store`,
  );
  out.line(`document: ${join(publishDir(), 'registry', `${result.version.replace(/^abp-registry\//, '')}.json`)}`);
  out.data(result);
}

export async function registryScheduleCommand(
  options: OutputOptions & { top: number; size: number; batchSize?: number },
): Promise<void> {
  const out = createOutput(options);
  const schedule = await withTemporalClient(resolveStackConfig(), (client) =>
    ensureRotationSchedule(client, {
      top: options.top,
      size: options.size,
      ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
    }),
  );
  out.line(
    `quarterly rotation schedule ${schedule.outcome}; next runs: ${schedule.nextRuns.map((run) => run.toISOString()).join(', ')}`,
  );
  out.data(schedule);
}

export async function registryShowCommand(version: string | undefined, options: OutputOptions): Promise<void> {
  const out = createOutput(options);
  const { document, path } = await readPublishedRegistry(publishDir(), version ?? null).catch(failed);
  out.line(
    `${document.version}  ${document.entries.length} entries, criteria ${document.criteriaVersion}, sourced ${document.sourcedAt}`,
  );
  out.line(`digest ${document.digest} (checked)  file ${path}`);
  out.line(
    `against ${document.previous ?? 'nothing (first version)'}: ${document.diff.added.length} added, ${document.diff.removed.length} removed, ${document.diff.kept.length} kept`,
  );
  for (const entry of document.entries)
    out.line(
      `  ${entry.repo.padEnd(40)} ${String(entry.stars).padStart(7)}★  ${(entry.license ?? '').padEnd(12)} ${entry.runner.language}`,
    );
  out.data(document);
}

export async function registryDiffCommand(from: string, to: string, options: OutputOptions): Promise<void> {
  const out = createOutput(options);
  const root = publishDir();
  const [older, newer] = await Promise.all([readPublishedRegistry(root, from), readPublishedRegistry(root, to)]).catch(
    failed,
  );
  const comparison = compareRegistries(older.document, newer.document);
  out.line(
    `${comparison.from} → ${comparison.to}: ${comparison.added.length} added, ${comparison.removed.length} removed, ${comparison.kept.length} kept`,
  );
  for (const repo of comparison.added) out.line(`  + ${repo}`);
  for (const { repo, reason } of comparison.removed) out.line(`  - ${repo}${reason === null ? '' : ` (${reason})`}`);
  out.data(comparison);
}

export async function registryOptOutCommand(
  repo: string,
  options: OutputOptions & { reason: string; by: string },
): Promise<void> {
  const out = createOutput(options);
  const input = checked(optOutInput, { repo, reason: options.reason, requestedBy: options.by });
  const workflowId = `registry-opt-out-${input.repo.toLowerCase().replace('/', '-')}`;
  const result = await withTemporalClient(resolveStackConfig(), (client) =>
    startOrJoin<OptOutResult & { tasksWithdrawn: number }>(
      client,
      () =>
        client.workflow.start<typeof recordOptOut>('recordOptOut', {
          taskQueue: taskQueues.main,
          workflowId,
          args: [input],
        }),
      workflowId,
    ),
  );
  out.line(
    result.added
      ? `${result.repo} opted out: no new draw picks its issues; the next rotation leaves it out`
      : `${result.repo} had opted out already; the first request stands`,
  );
  out.line(
    `${result.optOuts.length} repositories opted out; ${result.tasksWithdrawn} of its live tasks told to withdraw`,
  );
  out.data(result);
}

export async function drawCommand(
  options: OutputOptions & { seed: number; count: number; registryVersion?: string },
): Promise<void> {
  const out = createOutput(options);
  const input = checked(drawTasksInput, {
    seed: options.seed,
    count: options.count,
    registryVersion: options.registryVersion ?? null,
  });
  const workflowId = `draw-${input.registryVersion?.replace(/^abp-registry\//, '') ?? 'latest'}-${input.seed}-${input.count}`;
  out.line(
    `drawing ${input.count} tasks with seed ${input.seed} from ${input.registryVersion ?? 'the latest registry version'} (workflow ${workflowId})`,
  );
  const result = await withTemporalClient(resolveStackConfig(), (client) =>
    startOrJoin<DrawTasksResult>(
      client,
      () =>
        client.workflow.start<typeof drawTasks>('drawTasks', { taskQueue: taskQueues.main, workflowId, args: [input] }),
      workflowId,
    ),
  );
  const { snapshot, draw } = result;
  if (snapshot === null) out.line(`this draw was made before: its record stands, no snapshot taken`);
  else
    out.line(
      `backlog snapshot ${snapshot.digest} (${snapshot.mode}): ${snapshot.issues} open issues in ${snapshot.repos} repositories, ${snapshot.eligible} eligible; ${snapshot.cost.points} points in ${snapshot.cost.requests} requests`,
    );
  out.line(
    `draw ${draw.drawId} ${draw.created ? 'recorded' : 'was recorded before'}: ${draw.picks.length} picks, digest ${draw.digest}`,
  );
  for (const pick of draw.picks) out.line(`  ${pick.taskId}`);
  // Fewer picks than asked is the backlog running out; say so, and what left the rest out, before anything is believed.
  if (draw.picks.length < input.count) {
    const excluded = Object.entries(snapshot?.excluded ?? {})
      .filter(([, count]) => count > 0)
      .map(([reason, count]) => `${count} ${reason}`);
    out.line(
      `${draw.picks.length === 0 ? 'no picks' : `only ${draw.picks.length} of ${input.count} picks`}: the eligible backlog ${snapshot === null ? 'of this draw' : `held ${snapshot.eligible} of ${snapshot.issues} open issues`} ran out${excluded.length === 0 ? '' : `; left out by the eligibility rules: ${excluded.join(', ')}`} (the record is published and signed all the same: the seed's outcome is what it is)`,
    );
  }
  out.line(`task workflows: ${result.tasksStarted} started, ${result.tasksExisting} existed already`);
  out.line(
    `record ${draw.recordPath}${draw.statementPath === null ? ' (unsigned: the worker has no signing key; run `abp init`)' : `, signed: ${draw.statementPath}`}`,
  );
  out.line(`audit: abp audit draw ${draw.recordPath} --snapshot ${draw.snapshotPath} --opt-outs ${draw.optOutsPath}`);
  out.data(result);
}

function failed(error: unknown): never {
  if (error instanceof PublicationError) throw new CommandFailed('invalid-documents', error.message);
  throw error;
}
