// All activities the abp worker registers, built from their dependencies in one place.
import { createRotationActivities, type RotationDependencies } from './rotation.js';
import { createWiringActivities, type WiringDependencies } from './wiring.js';

/**
 * What every activity factory needs, together; grows as stages add activities. The rotation's database and GitHub
 * client are optional until every worker entry point opens them: without them the rotation activities are absent.
 */
export type ActivityDependencies = WiringDependencies & { rotation?: RotationDependencies };

export function createActivities(deps: ActivityDependencies) {
  return {
    ...createWiringActivities(deps),
    ...(deps.rotation === undefined ? {} : createRotationActivities(deps.rotation)),
  };
}
export type Activities = ReturnType<typeof createActivities>;
