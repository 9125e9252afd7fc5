// Turns per-model token counts into a computed USD cost with the price table. A model without a price makes the whole
// cost unknown: a silent 0 would rank an engine on an unpriced model as the cheapest.
import { tokenCounts, type TokenCounts } from '@abp/protocol/schemas/abp-trace';
import { compareCodeUnits } from '@abp/protocol/schemas/primitives';
import { PriceError, type ModelPrice, type PriceTable } from './price-table.js';

const priceFields = [
  ['input', 'inputPerMTok'],
  ['output', 'outputPerMTok'],
  ['cacheRead', 'cacheReadPerMTok'],
  ['cacheWrite', 'cacheWritePerMTok'],
] as const satisfies ReadonlyArray<readonly [keyof TokenCounts, keyof ModelPrice]>;

export interface ComputedCost {
  /** Rounded half up to 1e-6 USD; null when any model with tokens has no price. */
  usd: number | null;
  /** The cost of the priced models alone, rounded the same way: usd when every model is priced, else a lower bound. */
  pricedUsd: number;
  /** Models with tokens but no price, sorted. */
  unpricedModels: string[];
}

export function computeCostUsd(perModel: Readonly<Record<string, TokenCounts>>, table: PriceTable): ComputedCost {
  // Integer arithmetic: tokens times micro-dollars per million tokens is picodollars, exact at any size, so the result
  // never depends on summation order or float rounding.
  let picoUsd = 0n;
  const unpricedModels: string[] = [];
  for (const model of Object.keys(perModel).sort(compareCodeUnits)) {
    const parsed = tokenCounts.safeParse(perModel[model]);
    if (!parsed.success) {
      throw new PriceError(
        'invalid-tokens',
        `the token counts of model ${JSON.stringify(model)} must be non-negative integers input, output, cacheRead and cacheWrite`,
      );
    }
    const tokens = parsed.data;
    if (priceFields.every(([field]) => tokens[field] === 0)) continue;
    const price = Object.hasOwn(table.models, model) ? table.models[model] : undefined;
    if (price === undefined) {
      unpricedModels.push(model);
      continue;
    }
    for (const [field, priceField] of priceFields)
      picoUsd += BigInt(tokens[field]) * BigInt(Math.round(price[priceField] * 1e6));
  }
  const pricedUsd = Number((picoUsd + 500_000n) / 1_000_000n) / 1e6;
  return { usd: unpricedModels.length > 0 ? null : pricedUsd, pricedUsd, unpricedModels };
}
