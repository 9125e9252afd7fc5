import { describe, expect, it } from 'vitest';
import { checkBudget, computeCostUsd, loadPriceTable, PriceError, type PriceTable } from '../../src/prices/index.js';
import type { TokenCounts } from '@abp/protocol/schemas/abp-trace';

const committed = loadPriceTable();
const tokens = (input: number, output = 0, cacheRead = 0, cacheWrite = 0): TokenCounts => ({
  input,
  output,
  cacheRead,
  cacheWrite,
});
const tableWith = (models: PriceTable['models']): PriceTable => ({
  version: 'abp-prices/2026-11',
  currency: 'USD',
  asOf: '2026-11-01',
  models,
});

describe('computeCostUsd', () => {
  it('prices each token kind at its own rate', () => {
    // 12345 x 3 + 1000 x 15 + 100000 x 0.3 + 2000 x 3.75 micro-dollars
    expect(computeCostUsd({ 'anthropic/claude-sonnet-4-5': tokens(12345, 1000, 100000, 2000) }, committed)).toEqual({
      usd: 0.089535,
      pricedUsd: 0.089535,
      unpricedModels: [],
    });
  });

  it('sums models, whatever the order they are given in', () => {
    const sonnet = tokens(18, 501, 18530, 6980);
    const haiku = tokens(3900, 122);
    const expected = { usd: 0.043813, pricedUsd: 0.043813, unpricedModels: [] };
    expect(
      computeCostUsd({ 'anthropic/claude-sonnet-4-5': sonnet, 'anthropic/claude-haiku-4-5': haiku }, committed),
    ).toEqual(expected);
    expect(
      computeCostUsd({ 'anthropic/claude-haiku-4-5': haiku, 'anthropic/claude-sonnet-4-5': sonnet }, committed),
    ).toEqual(expected);
  });

  it('is null, never 0, when a model with tokens has no price, and lists every such model', () => {
    const result = computeCostUsd(
      { 'zeta/unknown': tokens(1), 'anthropic/claude-sonnet-4-5': tokens(1_000_000), 'acme/mystery': tokens(0, 1) },
      committed,
    );
    // The priced part alone is a lower bound of what was spent, kept for the budget check.
    expect(result).toEqual({ usd: null, pricedUsd: 3, unpricedModels: ['acme/mystery', 'zeta/unknown'] });
  });

  it('ignores an unpriced model that used no tokens, and costs nothing for no tokens', () => {
    expect(
      computeCostUsd({ 'acme/idle': tokens(0), 'anthropic/claude-haiku-4-5': tokens(1_000_000) }, committed),
    ).toEqual({ usd: 1, pricedUsd: 1, unpricedModels: [] });
    expect(computeCostUsd({}, committed)).toEqual({ usd: 0, pricedUsd: 0, unpricedModels: [] });
  });

  it('does not look prices up through the object prototype', () => {
    expect(computeCostUsd({ constructor: tokens(5) }, committed)).toEqual({
      usd: null,
      pricedUsd: 0,
      unpricedModels: ['constructor'],
    });
  });

  it('rounds half up to a micro-dollar, exactly', () => {
    const table = tableWith({
      'x/tiny': { inputPerMTok: 0.000001, outputPerMTok: 0, cacheReadPerMTok: 0, cacheWritePerMTok: 0 },
    });
    expect(computeCostUsd({ 'x/tiny': tokens(500_000) }, table).usd).toBe(0.000001);
    expect(computeCostUsd({ 'x/tiny': tokens(499_999) }, table).usd).toBe(0);
  });

  it('stays exact where floating point would drift', () => {
    const table = tableWith({
      'x/a': { inputPerMTok: 0.1, outputPerMTok: 0, cacheReadPerMTok: 0, cacheWritePerMTok: 0 },
      'x/b': { inputPerMTok: 0.2, outputPerMTok: 0, cacheReadPerMTok: 0, cacheWritePerMTok: 0 },
      'x/big': { inputPerMTok: 75, outputPerMTok: 0, cacheReadPerMTok: 0, cacheWritePerMTok: 0 },
    });
    expect(computeCostUsd({ 'x/a': tokens(1_000_000), 'x/b': tokens(1_000_000) }, table).usd).toBe(0.3);
    expect(computeCostUsd({ 'x/big': tokens(4_000_000_000) }, table).usd).toBe(300_000);
  });

  it('refuses token counts that are not non-negative integers', () => {
    const run = () => computeCostUsd({ 'anthropic/claude-sonnet-4-5': tokens(1.5) }, committed);
    expect(run).toThrow(PriceError);
    expect(run).toThrow(expect.objectContaining({ code: 'invalid-tokens' }));
  });
});

describe('checkBudget', () => {
  const priced = (usd: number) => ({ usd, pricedUsd: usd, unpricedModels: [] });
  const unpriced = (pricedUsd: number) => ({ usd: null, pricedUsd, unpricedModels: ['acme/mystery'] });
  const check = (cost: Parameters<typeof checkBudget>[0]['cost'], tokensKnown = true, modelCalls = 3) =>
    checkBudget({ cost, tokensKnown, modelCalls, budgetUsd: 5 });

  it('passes or fails a measured cost against the budget', () => {
    expect(check(priced(4.99))).toEqual({ $case: 'within', usd: 4.99 });
    expect(check(priced(5.01))).toEqual({ $case: 'exceeded', usd: 5.01, atLeast: false });
  });

  it('is unchecked, with its reasons, when the cost was not measured', () => {
    expect(check(unpriced(1))).toEqual({ $case: 'unchecked', reasons: ['unpriced-model'] });
    expect(check(priced(1), false)).toEqual({ $case: 'unchecked', reasons: ['tokens-unknown'] });
    expect(check(priced(0), true, 0)).toEqual({ $case: 'unchecked', reasons: ['no-model-calls'] });
    expect(check(null)).toEqual({ $case: 'unchecked', reasons: ['no-trace'] });
  });

  it('fails a trial whose priced part alone passes the budget, whatever it hid', () => {
    expect(check(unpriced(6))).toEqual({ $case: 'exceeded', usd: 6, atLeast: true });
    expect(check(priced(7), false)).toEqual({ $case: 'exceeded', usd: 7, atLeast: true });
  });
});
