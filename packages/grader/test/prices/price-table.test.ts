import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPriceTable, PriceError, priceTablePath } from '../../src/prices/index.js';

let dir: string;
let files = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'abp-price-table-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function tableFile(content: unknown): Promise<string> {
  files += 1;
  const file = join(dir, `table-${files}.json`);
  await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return file;
}

function failure(run: () => unknown): PriceError {
  try {
    run();
  } catch (error) {
    if (error instanceof PriceError) return error;
    throw error;
  }
  throw new Error('expected a PriceError');
}

const price = { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75 };
const table = (overrides: Record<string, unknown> = {}) => ({
  version: 'abp-prices/2026-11',
  currency: 'USD',
  asOf: '2026-11-01',
  models: { 'anthropic/claude-sonnet-4-5': price },
  ...overrides,
});

describe('the committed price table', () => {
  const committed = loadPriceTable(priceTablePath);

  it('is the 2026-11 USD table with list prices of common models', () => {
    expect(committed).toMatchObject({ version: 'abp-prices/2026-11', currency: 'USD', asOf: '2026-11-01' });
    expect(committed.models['anthropic/claude-sonnet-4-5']).toEqual(price);
    expect(Object.keys(committed.models).length).toBeGreaterThanOrEqual(5);
  });

  it("prices the demo engines' model like the mid-tier model it stands in for, and says so", () => {
    const { note, ...demo } = committed.models['abp/demo-model'] ?? {};
    expect(demo).toEqual(price);
    expect(note).toContain('anthropic/claude-sonnet-4-5');
  });

  it('tells readers the prices are list prices to review', () => {
    expect(committed.description).toMatch(/list prices/);
    expect(committed.description).toMatch(/review/);
  });
});

describe('loadPriceTable', () => {
  it('reports a missing file as unreadable', () => {
    expect(failure(() => loadPriceTable(join(dir, 'absent.json'))).code).toBe('unreadable-table');
  });

  it('reports invalid JSON, naming the file', async () => {
    const file = await tableFile('{"version": "abp-prices/2026-11",}');
    const error = failure(() => loadPriceTable(file));
    expect(error.code).toBe('invalid-table');
    expect(error.message).toContain(file);
  });

  it.each([
    [
      'a price given as text',
      table({ models: { 'openai/gpt-5': { ...price, inputPerMTok: '1.25' } } }),
      'models["openai/gpt-5"].inputPerMTok',
    ],
    [
      'a negative price',
      table({ models: { 'openai/gpt-5': { ...price, outputPerMTok: -1 } } }),
      'models["openai/gpt-5"].outputPerMTok',
    ],
    [
      'a price finer than a micro-dollar',
      table({ models: { 'openai/gpt-5': { ...price, cacheReadPerMTok: 0.0000001 } } }),
      'models["openai/gpt-5"].cacheReadPerMTok',
    ],
    [
      'a missing price',
      table({ models: { 'openai/gpt-5': { inputPerMTok: 1, outputPerMTok: 2, cacheReadPerMTok: 0.1 } } }),
      'models["openai/gpt-5"].cacheWritePerMTok',
    ],
    [
      'an unknown price field',
      table({ models: { 'openai/gpt-5': { ...price, batchPerMTok: 1 } } }),
      'models["openai/gpt-5"].batchPerMTok',
    ],
    ['a model id with a space', table({ models: { 'openai gpt-5': price } }), 'models["openai gpt-5"]'],
    ['no models', table({ models: {} }), 'models'],
    ['another currency', table({ currency: 'EUR' }), 'currency'],
    ['a malformed version', table({ version: 'prices-2026' }), 'version'],
    ['a malformed asOf date', table({ asOf: '2026-11' }), 'asOf'],
  ])('refuses %s, naming the file and field', async (_case, content, field) => {
    const file = await tableFile(content);
    const error = failure(() => loadPriceTable(file));
    expect(error.code).toBe('invalid-table');
    expect(error.message).toContain(file);
    expect(error.message).toContain(`${field} `);
  });
});
