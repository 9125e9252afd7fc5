// Names shared by workflows, workers and clients: task queues, signals, queries, updates.
// Constants rather than strings at call sites, so a rename cannot split a sender from its handler.

/** The default task queue every abp workflow and activity runs on in the embedded stack. */
export const taskQueues = {
  main: 'abp-main',
} as const;

export const workflowIds = {
  wiringCheck: (probe: string) => `abp-wiring-check-${probe}`,
} as const;
