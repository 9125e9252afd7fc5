// Money: the committed price table, the cost computed from it, and the budget check.
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
export { checkBudget, type BudgetCheck, type BudgetUncheckedReason } from './budget.js';
