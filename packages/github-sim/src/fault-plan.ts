// The fault plan file `abp sim up --faults <file>` reads: which failures the simulator injects,
// how often, from which seed. Rates are chances in [0, 1].
import { z } from 'zod';

const rate = z.number().min(0).max(1);
const count = z.number().int().min(1).max(1_000);

export const simFaultsFile = z.strictObject({
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 32 - 1),
  serverErrorRate: rate.default(0),
  serverErrorBurst: count.default(1),
  slowRate: rate.default(0),
  slowMs: z.number().int().min(0).max(600_000).default(0),
  secondaryLimitRate: rate.default(0),
  secondaryLimitBurst: count.default(1),
  retryAfterSeconds: z.number().int().min(0).max(3_600).default(60),
  shiftingSearchRate: rate.default(0),
  /** Share of webhook deliveries dropped on purpose (small worlds). */
  webhookDropRate: rate.default(0),
});
export type SimFaultsFile = z.infer<typeof simFaultsFile>;
