// Names shared by workflows, workers and clients: task queues, signals, queries, updates.
// Constants rather than strings at call sites, so a rename cannot split a sender from its handler.

/**
 * The task queues, one per kind of work, so heavy work goes to machines sized for it and never delays the light:
 * `main` carries every workflow and the short activities (webhooks, polling, draws, rotation, aging); `freeze` the
 * freezes (environment builds, suite runs); `trials` the graded trials of `abp run --on temporal`. `abp worker`
 * serves all three unless told otherwise (`--queues`).
 */
export const taskQueues = {
  main: 'abp-main',
  freeze: 'abp-freeze',
  trials: 'abp-trials',
} as const;

export type QueueKind = keyof typeof taskQueues;
export const QUEUE_KINDS = Object.keys(taskQueues) as QueueKind[];

export const workflowIds = {
  wiringCheck: (probe: string) => `abp-wiring-check-${probe}`,
  /** One rotation per quarter: `abp-registry/2026Q4` runs as `registry-rotation-2026Q4`, so two rotations of one quarter never run at once. */
  registryRotation: (version: string) => `registry-rotation-${version.replace(/^abp-registry\//, '')}`,
  /** One workflow per graded run: the same inputs name the same run, so a restarted `abp run` finds its workflow. */
  gradeRun: (runId: string) => `abp-grade-${runId}`,
} as const;

/** The failure of publishing a freeze whose hand-off the run store no longer holds whole: the workflow builds again. */
export const FREEZE_HANDOFF_LOST = 'FreezeHandoffLost';
