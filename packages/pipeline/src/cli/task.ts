// `abp task list|show|submit-fix|open-pr|attach-trace` and `abp tasks [--scored]`: operators' view of tasks, the two
// ways a fix enters the pipeline, and the golden trace its solver printed. Reads take the read path
// (task-reads/reader.ts: the database, or the worker that holds the embedded one), never a workflow; fixes are signals to
// the task's workflow (workflow id = task id); a golden trace goes into the data directory, where the freeze takes it.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { openTaskReads } from '../task-reads/reader.js';
import type { TaskQuery, TaskRecord } from '../task-reads/records.js';
import { createGithubClient } from '../github/client.js';
import { disclosureText, fixPullRequestBody } from '../github/disclosure.js';
import { openFixPullRequest } from '../github/pulls.js';
import { taskStates, type TaskState, type TaskStatus } from '../contracts/task-workflow.js';
import { withTemporalClient } from '../worker/temporal-client.js';
import { resolveStackConfig } from '../worker/config.js';
import { taskQueries, taskSignals } from '../workflows/task.js';
import { readGoldenTrace } from '../freeze/golden-trace.js';
import { GoldenTraceStore } from '../freeze/golden-trace-store.js';
import { signingPaths } from '../signing/home.js';
import { CommandFailed, createOutput, type OutputOptions } from '@abp/grader/cli';

async function read(query: TaskQuery): Promise<TaskRecord[]> {
  const reads = await openTaskReads({ home: resolveStackConfig().home });
  try {
    return await reads.read(query);
  } finally {
    await reads.close();
  }
}

async function one(taskId: string): Promise<TaskRecord> {
  const [task] = await read({ taskId });
  if (task === undefined)
    throw new CommandFailed('invalid-documents', `no task ${taskId}: \`abp task list\` shows the tasks there are`);
  return task;
}

const since = (iso: string) => `${Math.round((Date.now() - Date.parse(iso)) / 60_000)} min ago`;

export async function taskListCommand(options: OutputOptions & { state?: string; limit: number }): Promise<void> {
  const out = createOutput(options);
  if (options.state !== undefined && !(taskStates as readonly string[]).includes(options.state)) {
    throw new CommandFailed('invalid-documents', `--state ${options.state}: use one of ${taskStates.join(', ')}`);
  }
  const tasks = await read({
    ...(options.state === undefined ? {} : { state: options.state as TaskState }),
    limit: options.limit,
  });
  const counts = new Map<string, number>();
  for (const task of tasks) counts.set(task.state, (counts.get(task.state) ?? 0) + 1);
  out.line(`${tasks.length} tasks: ${[...counts].map(([state, n]) => `${n} ${state}`).join(', ') || 'none'}`);
  for (const task of tasks)
    out.line(
      `  ${task.taskId.padEnd(44)} ${task.state.padEnd(10)} ${(task.prUrl ?? '').padEnd(50)} updated ${since(task.updatedAt)}`,
    );
  out.data(tasks);
}

export interface TasksCommandOptions extends OutputOptions {
  /** Only the scored set (spec §4.4) as of `asOf`. */
  scored?: boolean;
  /** RFC 3339, or a day (YYYY-MM-DD, its start in UTC); default now. */
  asOf?: string;
  limit: number;
}

/** The instant `--as-of` names, as RFC 3339 UTC. */
function asOfInstant(raw: string | undefined): string {
  if (raw === undefined) return new Date().toISOString();
  const day = /^\d{4}-\d{2}-\d{2}$/.test(raw);
  const at =
    day || /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(raw)
      ? Date.parse(day ? `${raw}T00:00:00Z` : raw)
      : Number.NaN;
  if (Number.isNaN(at))
    throw new CommandFailed(
      'invalid-documents',
      `--as-of ${raw}: use a day (2026-07-02, its start in UTC) or an RFC 3339 time (2026-07-02T14:11:09Z)`,
    );
  return new Date(at).toISOString();
}

/**
 * `abp tasks`: every task, or with --scored the scored set as of a date: tasks frozen (their `scored` event) at or before
 * it whose scoredUntil (mergedAt + 180 days) is after it, with when each was sourced and the cutoffs it was verified against.
 */
export async function tasksCommand(options: TasksCommandOptions): Promise<void> {
  if (options.scored !== true) return taskListCommand(options);
  const out = createOutput(options);
  const asOf = asOfInstant(options.asOf);
  const tasks = await read({ scoredAsOf: asOf, limit: options.limit });
  out.line(`${tasks.length} task${tasks.length === 1 ? '' : 's'} in the scored set as of ${asOf}`);
  for (const task of tasks) {
    out.line(`  ${task.taskId.padEnd(44)} ${task.bundleDigest ?? ''}`);
    out.line(
      `  ${''.padEnd(44)} sourced ${task.sourcedAt ?? 'unknown'}, scored ${task.scoredAt ?? ''} until ${task.scoredUntil ?? ''}, verified against ${(task.cutoffsVerified ?? []).join(', ') || 'no recorded cutoffs'}`,
    );
  }
  out.data({ asOf, tasks });
}

export async function taskShowCommand(taskId: string, options: OutputOptions): Promise<void> {
  const out = createOutput(options);
  const task = await one(taskId);
  // What the workflow holds beyond the record (failed fixes): a query, answered from the workflow's state.
  const live = await withTemporalClient(resolveStackConfig(), (client) =>
    client.workflow
      .getHandle(taskId)
      .query(taskQueries.status)
      .catch((error: unknown) => {
        if (error instanceof WorkflowNotFoundError) return null;
        throw error;
      }),
  );
  out.line(
    `${task.taskId}  ${task.repo}#${task.issue}  ${task.state}${live?.failedAttempts ? ` (${live.failedAttempts} failed fixes)` : ''}`,
  );
  out.line(`drawn from ${task.registryVersion} with seed ${task.drawSeed}, ${since(task.createdAt)}`);
  if (task.prUrl) out.line(`pull request ${task.prUrl}`);
  if (task.mergeCommit) out.line(`merged ${task.mergedAt ?? ''} as ${task.mergeCommit}`);
  if (task.bundleDigest)
    out.line(`bundle ${task.bundleDigest}; scored from ${task.scoredAt ?? ''} until ${task.scoredUntil ?? ''}`);
  if (task.sourcedAt)
    out.line(`sourced ${task.sourcedAt}, verified against ${(task.cutoffsVerified ?? []).join(', ')}`);
  out.line('events:');
  for (const event of task.events)
    out.line(
      `  ${String(event.seq).padStart(3)}  ${event.at}  ${(event.from ?? '—').padEnd(9)} → ${event.to.padEnd(9)}  ${event.cause}  ${JSON.stringify(event.detail)}`,
    );
  out.data({ ...task, workflow: live });
}

/** Signals the fix and waits (briefly) for the task to take it, so the command says what happened. */
async function submitted(client: Client, taskId: string, prUrl: string): Promise<TaskStatus> {
  const handle = client.workflow.getHandle(taskId);
  await handle.signal(taskSignals.fixSubmitted, { prUrl }).catch((error: unknown) => {
    if (error instanceof WorkflowNotFoundError)
      throw new CommandFailed(
        'invalid-documents',
        `no running task ${taskId}: it was never drawn, or it has finished (\`abp task show ${taskId}\`)`,
      );
    throw error;
  });
  const deadline = Date.now() + 15_000;
  for (;;) {
    const status = await handle.query(taskQueries.status);
    if (status.prUrl === prUrl || Date.now() > deadline) return status;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function taskSubmitFixCommand(taskId: string, options: OutputOptions & { pr: string }): Promise<void> {
  const out = createOutput(options);
  const status = await withTemporalClient(resolveStackConfig(), (client) => submitted(client, taskId, options.pr));
  out.line(
    status.prUrl === options.pr
      ? `${taskId} is ${status.state}, following ${options.pr}`
      : `${taskId} is ${status.state}; the fix was not taken (a task takes a fix when drawn or solving)`,
  );
  out.data(status);
}

export interface OpenPrOptions extends OutputOptions {
  branch: string;
  title?: string;
  summary: string;
  engine: string;
  base: string;
  contributing?: string;
}

export async function taskOpenPrCommand(taskId: string, options: OpenPrOptions): Promise<void> {
  const out = createOutput(options);
  const github = createGithubClient();
  const contributing =
    options.contributing === undefined
      ? null
      : /^https?:\/\//.test(options.contributing)
        ? options.contributing
        : await readFile(options.contributing, 'utf8');
  const result = await withTemporalClient(resolveStackConfig(), async (client) => {
    const task = await one(taskId);
    const body = fixPullRequestBody({
      issue: task.issue,
      summary: options.summary,
      disclosure: disclosureText({
        taskId,
        engine: options.engine,
        registryVersion: task.registryVersion.replace(/^abp-registry\//, ''),
        drawSeed: task.drawSeed,
      }),
      contributing,
    });
    const pull = await openFixPullRequest(github, {
      repo: task.repo,
      head: options.branch,
      base: options.base,
      title: options.title ?? `Fix #${task.issue}`,
      body,
    });
    return { pull, status: await submitted(client, taskId, pull.url) };
  });
  out.line(`opened ${result.pull.url} with the disclosure; ${taskId} is ${result.status.state}`);
  out.data(result);
}

/** The states a golden trace may be attached in: before the fix merged, so the freeze that follows takes it. */
const ATTACHABLE_STATES: readonly TaskState[] = ['drawn', 'solving', 'tracking'];

/**
 * `abp task attach-trace`: the golden trace of a task the pipeline tracks (spec §4.2), checked as the freeze checks it
 * and kept in the data directory under its digest, attached to the task by id; the task's freeze names, signs and
 * publishes it. Attaching again replaces it until the freeze begins.
 */
export async function taskAttachTraceCommand(taskId: string, file: string, options: OutputOptions): Promise<void> {
  const out = createOutput(options);
  const task = await one(taskId);
  if (!ATTACHABLE_STATES.includes(task.state))
    throw new CommandFailed(
      'invalid-documents',
      `${taskId} is ${task.state}: a golden trace is attached before the fix merges (while ${ATTACHABLE_STATES.join(', ')}), so the freeze signs it with the bundle; a task frozen by hand takes one with \`abp freeze --golden-trace\``,
    );
  const trace = await readGoldenTrace(resolve(file), taskId);
  const store = new GoldenTraceStore(signingPaths(resolveStackConfig().home).goldenTraces);
  const digest = await store.put(trace.bytes);
  const attachment = await store.attach(taskId, digest);
  out.line(
    `${taskId} (${task.state}): golden trace ${digest} kept in ${store.path(digest)}; its freeze will publish it`,
  );
  out.data({ taskId, state: task.state, goldenTrace: digest, path: store.path(digest), attachment });
}
