// The registry's default rotation, free of zod: the command line shows it in `abp --help`, which should not pay for
// loading every schema.
import type { ScheduledRotationInput } from './rotation.js';

/** The registry's defaults: the 3,000 most starred repositories judged, the best 500 kept. */
export const DEFAULT_SCHEDULED_ROTATION: ScheduledRotationInput = { top: 3_000, size: 500 };
