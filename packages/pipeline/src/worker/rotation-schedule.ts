// The quarterly registry rotation as a Temporal Schedule (spec §4.1): created once per namespace, brought to the wanted
// spec and arguments when it already exists, so `abp dev up` and `abp registry schedule` can both call it every time.
import {
  ScheduleAlreadyRunning,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleOptionsStartWorkflowAction,
  type ScheduleSpec,
} from '@temporalio/client';
import { DEFAULT_SCHEDULED_ROTATION } from '../contracts/rotation-defaults.js';
import { ROTATION_SCHEDULE_ID, scheduledRotationInput, type ScheduledRotationInput } from '../contracts/rotation.js';
import type { scheduledRotation } from '../workflows/scheduled-rotation.js';
import { taskQueues } from '../workflows/shared.js';

/** 00:00 UTC on the first day of each quarter. */
export const ROTATION_SPEC: ScheduleSpec = {
  calendars: [
    {
      comment: 'first day of each quarter, 00:00 UTC',
      month: ['JANUARY', 'APRIL', 'JULY', 'OCTOBER'],
      dayOfMonth: 1,
      hour: 0,
      minute: 0,
    },
  ],
  timezone: 'UTC',
};

export interface RotationSchedule {
  outcome: 'created' | 'updated';
  /** The next times the Schedule will start a rotation, earliest first. */
  nextRuns: Date[];
}

function action(input: ScheduledRotationInput): ScheduleOptionsStartWorkflowAction<typeof scheduledRotation> {
  // The server appends the scheduled time to this id, so each quarter's run has its own.
  return {
    type: 'startWorkflow',
    workflowType: 'scheduledRotation',
    workflowId: 'registry-rotation-scheduled',
    taskQueue: taskQueues.main,
    args: [input],
  };
}

// A rotation that is still running when the next quarter comes is let finish; a server down at the quarter's start
// catches up within a week, later than that the quarter is skipped and an operator rotates it by hand.
const policies = { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '7 days' } as const;

export async function ensureRotationSchedule(
  client: Client,
  input: ScheduledRotationInput = DEFAULT_SCHEDULED_ROTATION,
): Promise<RotationSchedule> {
  const args = scheduledRotationInput.parse(input);
  let outcome: RotationSchedule['outcome'] = 'created';
  try {
    await client.schedule.create({
      scheduleId: ROTATION_SCHEDULE_ID,
      spec: ROTATION_SPEC,
      action: action(args),
      policies,
    });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    outcome = 'updated';
    // Paused state and notes an operator set are kept; spec, action and policies are brought to what this build wants.
    await client.schedule.getHandle(ROTATION_SCHEDULE_ID).update((previous) => ({
      spec: ROTATION_SPEC,
      action: action(args),
      policies,
      state: {
        paused: previous.state.paused,
        ...(previous.state.note === undefined ? {} : { note: previous.state.note }),
      },
    }));
  }
  const description = await client.schedule.getHandle(ROTATION_SCHEDULE_ID).describe();
  return { outcome, nextRuns: description.info.nextActionTimes };
}
