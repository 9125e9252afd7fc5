// All activities the abp worker registers, built from their dependencies in one place.
import { createWiringActivities, type WiringDependencies } from './wiring.js';

/** What every activity factory needs, together; grows as stages add activities. */
export type ActivityDependencies = WiringDependencies;

export function createActivities(deps: ActivityDependencies) {
  return {
    ...createWiringActivities(deps),
  };
}
export type Activities = ReturnType<typeof createActivities>;
