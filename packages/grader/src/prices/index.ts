// Money: the committed price table and the cost computed from it.
export {
  loadPriceTable,
  modelPriceSchema,
  parsePriceTable,
  PriceError,
  priceTablePath,
  priceTableSchema,
  type ModelPrice,
  type PriceErrorCode,
  type PriceTable,
} from './price-table.js';
export { computeCostUsd, type ComputedCost } from './cost.js';
