// Arguments and results of the wiring check: the workflow that proves client, server, worker and
// activities are connected, and that durable timers survive (sleepDays under the time-skipping server).
import { z } from 'zod';

export const wiringCheckInput = z.object({
  /** Echoed back so the caller can tell its own run from another's. */
  probe: z.string().min(1).max(200),
  /** Days of durable timer between the two activity calls; 0 for a plain health check. */
  sleepDays: z.number().int().min(0).max(3_650),
});
export type WiringCheckInput = z.infer<typeof wiringCheckInput>;

export const reportWorkerInput = z.object({ probe: z.string().min(1) });
export type ReportWorkerInput = z.infer<typeof reportWorkerInput>;

export const workerReport = z.object({
  probe: z.string(),
  workerIdentity: z.string(),
  nodeVersion: z.string(),
  reportedAt: z.string(),
});
export type WorkerReport = z.infer<typeof workerReport>;

export const wiringCheckResult = z.object({
  probe: z.string(),
  before: workerReport,
  after: workerReport,
  /** Workflow time (server time, skipped under the test server) at start and after the timer. */
  workflowStartedAt: z.string(),
  workflowFinishedAt: z.string(),
  sleptMs: z.number().int().min(0),
});
export type WiringCheckResult = z.infer<typeof wiringCheckResult>;
