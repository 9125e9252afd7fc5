// All activities the abp worker registers, built from their dependencies in one place.
import { createWiringActivities } from './wiring.js';

export interface ActivityDependencies {
  now: () => Date;
}

export function createActivities(deps: ActivityDependencies) {
  return {
    ...createWiringActivities({ now: deps.now }),
  };
}
export type Activities = ReturnType<typeof createActivities>;
