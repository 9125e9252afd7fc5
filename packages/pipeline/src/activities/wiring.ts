// Activities of the wiring check: report which worker process ran them, so a caller sees a real worker did.
import { hostname } from 'node:os';
import type { ReportWorkerInput, WorkerReport } from '../contracts/wiring.js';

export interface WiringDependencies {
  now: () => Date;
}

export function createWiringActivities({ now }: WiringDependencies) {
  return {
    // eslint-disable-next-line @typescript-eslint/require-await -- activities are async by contract
    async reportWorker({ probe }: ReportWorkerInput): Promise<WorkerReport> {
      return {
        probe,
        workerIdentity: `${process.pid}@${hostname()}`,
        nodeVersion: process.version,
        reportedAt: now().toISOString(),
      };
    },
  };
}
