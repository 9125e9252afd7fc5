// Whether a trial kept within the run's budgetUsd. A cost the grader did not measure is not a cost within budget: the
// check is then "unchecked", and the trial says so, unless what could be priced already passes the budget.
import type { ComputedCost } from './cost.js';

export type BudgetUncheckedReason = 'no-trace' | 'no-model-calls' | 'tokens-unknown' | 'unpriced-model';

export type BudgetCheck =
  | { $case: 'within'; usd: number }
  /** atLeast: the cost is unknown, but what was read and priced already passes the budget. */
  | { $case: 'exceeded'; usd: number; atLeast: boolean }
  | { $case: 'unchecked'; reasons: BudgetUncheckedReason[] };

export interface BudgetInput {
  /** The cost of the trace's model calls, or null when the adapter records no trace. */
  cost: ComputedCost | null;
  /** Whether the trace was read whole with plausible counts (TraceSummary.tokensKnown). */
  tokensKnown: boolean;
  modelCalls: number;
  budgetUsd: number;
}

export function checkBudget(input: BudgetInput): BudgetCheck {
  const { cost, tokensKnown, modelCalls, budgetUsd } = input;
  if (cost === null) return { $case: 'unchecked', reasons: ['no-trace'] };
  if (tokensKnown && modelCalls > 0 && cost.usd !== null)
    return cost.usd > budgetUsd
      ? { $case: 'exceeded', usd: cost.usd, atLeast: false }
      : { $case: 'within', usd: cost.usd };
  // What was read and priced is a lower bound of what was spent: hiding the rest cannot bring a trial back under budget.
  if (cost.pricedUsd > budgetUsd) return { $case: 'exceeded', usd: cost.pricedUsd, atLeast: true };
  const reasons: BudgetUncheckedReason[] = [];
  if (modelCalls === 0) reasons.push('no-model-calls');
  if (!tokensKnown) reasons.push('tokens-unknown');
  if (cost.unpricedModels.length > 0) reasons.push('unpriced-model');
  return { $case: 'unchecked', reasons };
}
