// Which task workflows a GitHub delivery concerns, without a database: a task's id is derived from its repository and
// issue number, and a pull request names the issues it fixes with GitHub's closing keywords. Pure functions over the
// payload; the receiver does the signalling.
import { z } from 'zod';
import { githubTaskId } from '@abp/protocol/schemas/abp-task';
import { TASK_SIGNAL_NAMES } from '../contracts/task-workflow.js';
import type { TaskSignalName, TaskSignalPayloads } from './signaller.js';

export type PlannedSignal = {
  [N in TaskSignalName]: { taskId: string; name: N; payload: TaskSignalPayloads[N] };
}[TaskSignalName];

export type DeliveryPlan =
  | { $case: 'signal'; action: string; signals: PlannedSignal[] }
  | { $case: 'ignore'; action: string | null; reason: 'event' | 'action' | 'no-task' }
  | { $case: 'invalid'; problem: string };

/** Pull request actions that can change whether a task's fix is merged, or which tasks it fixes. */
export const trackedPullRequestActions = ['opened', 'closed', 'reopened', 'synchronize', 'edited'] as const;
export const trackedIssueActions = ['closed', 'reopened'] as const;

// Webhook payloads carry far more than this; only the fields read here are checked, and extra keys are fine.
const repository = z.object({ full_name: z.string().regex(/^[\w.-]+\/[\w.-]+$/) });
const actionOnly = z.object({ action: z.string().min(1) });
const pullRequestPayload = z.object({
  action: z.enum(trackedPullRequestActions),
  pull_request: z.object({ html_url: z.string().min(1), body: z.string().nullish() }),
  repository,
  // On `edited`, the body before the edit: a reference removed from the body still concerns its task.
  changes: z.object({ body: z.object({ from: z.string().nullish() }).optional() }).optional(),
});
const issuesPayload = z.object({
  action: z.enum(trackedIssueActions),
  issue: z.object({ number: z.number().int().positive() }),
  repository,
  sender: z.object({ login: z.string() }).nullish(),
});

// GitHub's closing keywords (close, closes, closed, fix, fixes, fixed, resolve, resolves, resolved), then `#N` or
// `owner/name#N`. The keyword must stand as a word of its own, and the number must end there.
const closingReference =
  /(?<![\w-])(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)(?::\s*|\s+)(?:([\w.-]+\/[\w.-]+))?#(\d+)(?![\w-])/gi;

/** Issue numbers of `repository` (`owner/name`) that a pull request body closes, in order of first mention. */
export function closingReferences(body: string, repository: string): number[] {
  const numbers = new Set<number>();
  for (const [, repo, number] of body.matchAll(closingReference)) {
    // A reference into another repository names another repository's issue, never one of this repository's tasks.
    if (repo !== undefined && repo.toLowerCase() !== repository.toLowerCase()) continue;
    numbers.add(Number(number));
  }
  return [...numbers];
}

/** The signals one delivery calls for. `payload` is the parsed JSON body of a verified delivery. */
export function planDelivery(event: string, deliveryId: string, payload: unknown): DeliveryPlan {
  if (event === 'pull_request') {
    const parsed = pullRequestPayload.safeParse(payload);
    return parsed.success
      ? planPullRequest(parsed.data, deliveryId)
      : unparsed(event, trackedPullRequestActions, payload, parsed.error);
  }
  if (event === 'issues') {
    const parsed = issuesPayload.safeParse(payload);
    return parsed.success
      ? planIssue(parsed.data, deliveryId)
      : unparsed(event, trackedIssueActions, payload, parsed.error);
  }
  return { $case: 'ignore', action: actionOf(payload), reason: 'event' };
}

function unparsed(event: string, tracked: readonly string[], payload: unknown, error: z.ZodError): DeliveryPlan {
  const action = actionOf(payload);
  // An action the lifecycle does not follow (labeled, assigned, …) is ignored whatever else its payload holds.
  if (action !== null && !tracked.includes(action)) return { $case: 'ignore', action, reason: 'action' };
  const issue = error.issues[0];
  const where = issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : error.message;
  return { $case: 'invalid', problem: `the ${event} payload lacks what GitHub sends: ${where}` };
}

function actionOf(payload: unknown): string | null {
  const parsed = actionOnly.safeParse(payload);
  return parsed.success ? parsed.data.action : null;
}

function planPullRequest(payload: z.infer<typeof pullRequestPayload>, deliveryId: string): DeliveryPlan {
  const repo = payload.repository.full_name;
  const bodies = [payload.pull_request.body ?? '', payload.changes?.body?.from ?? ''];
  const issues = new Set(bodies.flatMap((body) => closingReferences(body, repo)));
  if (issues.size === 0) return { $case: 'ignore', action: payload.action, reason: 'no-task' };
  const signal = { prUrl: payload.pull_request.html_url, action: payload.action, deliveryId };
  return {
    $case: 'signal',
    action: payload.action,
    signals: [...issues].map((issue) => ({
      taskId: githubTaskId(repo, issue),
      name: TASK_SIGNAL_NAMES.pullRequestChanged,
      payload: signal,
    })),
  };
}

function planIssue(payload: z.infer<typeof issuesPayload>, deliveryId: string): DeliveryPlan {
  return {
    $case: 'signal',
    action: payload.action,
    signals: [
      {
        taskId: githubTaskId(payload.repository.full_name, payload.issue.number),
        name: TASK_SIGNAL_NAMES.issueChanged,
        payload: { action: payload.action, by: payload.sender?.login ?? null, deliveryId },
      },
    ],
  };
}
