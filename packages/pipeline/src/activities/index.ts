// All activities the abp worker registers, built from their dependencies in one place.
import { createAgingActivities, type AgingDependencies } from './aging.js';
import { createDrawActivities, type DrawDependencies } from './draws.js';
import { createFreezeActivities, type FreezeDependencies } from './freeze.js';
import { createOptOutActivities, type OptOutDependencies } from './opt-outs.js';
import { createRotationActivities, type RotationDependencies } from './rotation.js';
import { createTaskActivities, type TaskDependencies } from './tasks.js';
import { createTrackingActivities, type TrackingDependencies } from './tracking.js';
import { createWiringActivities, type WiringDependencies } from './wiring.js';

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
  tracking?: TrackingDependencies;
  aging?: AgingDependencies;
};

export function createActivities(deps: ActivityDependencies) {
  return {
    ...createWiringActivities(deps),
    ...(deps.rotation === undefined ? {} : createRotationActivities(deps.rotation)),
    ...(deps.optOuts === undefined ? {} : createOptOutActivities(deps.optOuts)),
    ...(deps.draws === undefined ? {} : createDrawActivities(deps.draws)),
    ...(deps.tasks === undefined ? {} : createTaskActivities(deps.tasks)),
    ...(deps.freeze === undefined ? {} : createFreezeActivities(deps.freeze)),
    ...(deps.tracking === undefined ? {} : createTrackingActivities(deps.tracking)),
    ...(deps.aging === undefined ? {} : createAgingActivities(deps.aging)),
  };
}
export type Activities = ReturnType<typeof createActivities>;
