// Runs the wiring check workflow against a running stack: the health check of `abp dev check`.
import { randomUUID } from 'node:crypto';
import { wiringCheckInput, wiringCheckResult, type WiringCheckResult } from '../contracts/wiring.js';
import { taskQueues, workflowIds } from '../workflows/shared.js';
import type { wiringCheck } from '../workflows/wiring.js';
import { withTemporalClient } from './temporal-client.js';
import type { StackConfig } from './config.js';

export async function runWiringCheck(
  config: StackConfig,
  options: { sleepDays?: number; timeoutMs?: number } = {},
): Promise<WiringCheckResult & { workflowId: string; roundTripMs: number }> {
  const input = wiringCheckInput.parse({ probe: randomUUID(), sleepDays: options.sleepDays ?? 0 });
  return withTemporalClient(config, async (client) => {
    const workflowId = workflowIds.wiringCheck(input.probe);
    const started = performance.now();
    const result = await client.workflow.execute<typeof wiringCheck>('wiringCheck', {
      taskQueue: taskQueues.main,
      workflowId,
      args: [input],
      workflowExecutionTimeout: options.timeoutMs ?? 60_000,
    });
    return { ...wiringCheckResult.parse(result), workflowId, roundTripMs: Math.round(performance.now() - started) };
  });
}
