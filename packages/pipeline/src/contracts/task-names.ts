// The task workflow's signal names and default policy, free of zod: the workflow bundle imports them, and every
// worker keeps that bundle in memory.
import type { TaskPolicy } from './task-workflow.js';

/** Signal names the webhook receiver and the poller send; the task workflow defines handlers for exactly these. */
export const TASK_SIGNAL_NAMES = {
  fixSubmitted: 'fixSubmitted',
  pullRequestChanged: 'pullRequestChanged',
  issueChanged: 'issueChanged',
  withdraw: 'withdraw',
} as const;

export const DEFAULT_TASK_POLICY: TaskPolicy = { maxFailedAttempts: 3, abandonAfterDays: 60, scoredDays: 180 };
