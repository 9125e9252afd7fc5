// Names shared by workflows, workers and clients: task queues, signals, queries, updates.
// Constants rather than strings at call sites, so a rename cannot split a sender from its handler.

/** The default task queue every abp workflow and activity runs on in the embedded stack. */
export const taskQueues = {
  main: 'abp-main',
} as const;

export const workflowIds = {
  wiringCheck: (probe: string) => `abp-wiring-check-${probe}`,
  /** One rotation per quarter: `abp-registry/2026Q4` runs as `registry-rotation-2026Q4`, so two rotations of one quarter never run at once. */
  registryRotation: (version: string) => `registry-rotation-${version.replace(/^abp-registry\//, '')}`,
} as const;
