// All activities the abp worker registers, built from their dependencies in one place.
import { createAgingActivities, type AgingDependencies } from './aging.js';
import { createDrawActivities, type DrawDependencies } from './draws.js';
import { createFreezeActivities, type FreezeDependencies } from './freeze.js';
import { createPublishActivities, type PublishDependencies } from './publish.js';
import { createOptOutActivities, type OptOutDependencies } from './opt-outs.js';
import { createRotationActivities, type RotationDependencies } from './rotation.js';
import { createTaskActivities, type TaskDependencies } from './tasks.js';
import { createTrackingActivities, type TrackingDependencies } from './tracking.js';
import { createWiringActivities, type WiringDependencies } from './wiring.js';
import { createGradingActivities, type GradingDependencies } from '../grading/activities.js';
import type { QueueKind } from '../workflows/shared.js';

/**
 * What every activity factory needs, together; grows as stages add activities. A stage whose dependencies are absent
 * (no database opened, no GitHub client configured) registers no activities: its workflows wait for a worker that has them.
 */
export type ActivityDependencies = WiringDependencies & {
  rotation?: RotationDependencies;
  optOuts?: OptOutDependencies;
  draws?: DrawDependencies;
  tasks?: TaskDependencies;
  freeze?: FreezeDependencies;
  publish?: PublishDependencies;
  tracking?: TrackingDependencies;
  aging?: AgingDependencies;
  grading?: GradingDependencies;
};

export function createActivities(deps: ActivityDependencies) {
  return {
    ...createWiringActivities(deps),
    ...(deps.rotation === undefined ? {} : createRotationActivities(deps.rotation)),
    ...(deps.optOuts === undefined ? {} : createOptOutActivities(deps.optOuts)),
    ...(deps.draws === undefined ? {} : createDrawActivities(deps.draws)),
    ...(deps.tasks === undefined ? {} : createTaskActivities(deps.tasks)),
    ...(deps.freeze === undefined ? {} : createFreezeActivities(deps.freeze)),
    ...(deps.publish === undefined ? {} : createPublishActivities(deps.publish)),
    ...(deps.tracking === undefined ? {} : createTrackingActivities(deps.tracking)),
    ...(deps.aging === undefined ? {} : createAgingActivities(deps.aging)),
    ...(deps.grading === undefined ? {} : createGradingActivities(deps.grading)),
  };
}
export type Activities = ReturnType<typeof createActivities>;

/**
 * The activities that run on a queue other than `main`, by name: the workflows that call them name the same queue
 * (workflows/freeze.ts, workflows/grade-run.ts), and a worker registers each only on its own queue.
 */
export const ACTIVITY_QUEUES: Readonly<Record<string, Exclude<QueueKind, 'main'>>> = {
  prepareFreeze: 'freeze',
  buildFrozenTask: 'freeze',
  preflightEngine: 'trials',
  gradeTrial: 'trials',
};

/** The activities of `all` that run on queue `kind`. */
export function activitiesOn(kind: QueueKind, all: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(all).filter(([name]) => (ACTIVITY_QUEUES[name] ?? 'main') === kind));
}
