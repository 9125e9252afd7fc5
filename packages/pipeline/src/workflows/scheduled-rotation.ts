// What the quarterly Schedule starts: the rotation of the quarter the Schedule fired for. The quarter comes from the
// scheduled time, not the clock, so a backfilled or late-running action still publishes the version it was due for.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { executeChild, workflowInfo } from '@temporalio/workflow';
import { quarterVersion } from '@abp/protocol/schemas/quarter';
import type { RotationResult, ScheduledRotationInput } from '../contracts/rotation.js';
import { rotateRegistry } from './rotation.js';
import { workflowIds } from './shared.js';

/** Set by the server on every workflow a Schedule starts: the action's nominal time. */
const SCHEDULED_START = defineSearchAttributeKey('TemporalScheduledStartTime', SearchAttributeType.DATETIME);

export async function scheduledRotation(input: ScheduledRotationInput): Promise<RotationResult> {
  const info = workflowInfo();
  // Started by hand (not by the Schedule) the attribute is absent: the quarter is the one the workflow started in.
  const scheduledAt = info.typedSearchAttributes.get(SCHEDULED_START) ?? info.startTime;
  const version = quarterVersion(scheduledAt);
  const sourcedAt = `${scheduledAt.toISOString().slice(0, 19)}Z`;
  // Keyed by the version like a manual rotation, so the Schedule and `abp registry rotate` never run one quarter twice at once.
  return executeChild(rotateRegistry, {
    workflowId: workflowIds.registryRotation(version),
    args: [{ ...input, version, sourcedAt }],
  });
}
