// The committed price table (price-table.json beside this file): its schema, its loader, and the one error type of the
// prices folder. Costs are computed from it, never taken from an engine's own claim (spec §7-8 medianComputedUsd).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { locateIssues, plainWordsParseOptions } from '@abp/protocol/schemas/issues';
import { formatJsonPath, parseJsonText } from '@abp/protocol/schemas/json-text';
import { describeValue, modelId } from '@abp/protocol/schemas/primitives';
import { packageRoot } from '../package-root.js';
import { AbpError } from '@abp/protocol/errors';

export type PriceErrorCode = 'unreadable-table' | 'invalid-table' | 'invalid-tokens';

export class PriceError extends AbpError<PriceErrorCode> {}

// Whole micro-dollars per million tokens keep cost arithmetic exact (see cost.ts), so finer prices are refused, not rounded.
const pricePerMTok = z
  .number()
  .nonnegative()
  .refine((value) => Number.isFinite(value) && Math.abs(value * 1e6 - Math.round(value * 1e6)) < 1e-6, {
    error: (issue) =>
      `must be a finite price in USD per million tokens with at most 6 decimal places, got ${describeValue(issue.input)}`,
  });

export const modelPriceSchema = z.strictObject({
  inputPerMTok: pricePerMTok,
  outputPerMTok: pricePerMTok,
  cacheReadPerMTok: pricePerMTok,
  cacheWritePerMTok: pricePerMTok,
  note: z.string().optional(),
});
export type ModelPrice = z.infer<typeof modelPriceSchema>;

export const priceTableSchema = z.strictObject({
  version: z
    .string()
    .regex(/^abp-prices\/\d{4}-(0[1-9]|1[0-2])$/, 'must be "abp-prices/YYYY-MM", e.g. "abp-prices/2026-11"'),
  currency: z.literal('USD'),
  asOf: z.iso.date({ error: (issue) => `must be a date "YYYY-MM-DD", got ${describeValue(issue.input)}` }),
  description: z.string().optional(),
  models: z.record(z.string(), modelPriceSchema).superRefine((models, ctx) => {
    const ids = Object.keys(models);
    if (ids.length === 0) ctx.addIssue({ code: 'custom', message: 'must price at least one model' });
    // Checked here rather than as the record's key schema, whose failure zod reports without the key's own message.
    for (const id of ids)
      if (!modelId.safeParse(id).success)
        ctx.addIssue({
          code: 'custom',
          path: [id],
          message: 'is not a model id: at most 200 characters and no spaces, e.g. "anthropic/claude-sonnet-4-5"',
        });
  }),
});
export type PriceTable = z.infer<typeof priceTableSchema>;

export const priceTablePath = join(packageRoot, 'data', 'price-table.json');

/** Parses and validates price table text; `source` names the file in every error. */
export function parsePriceTable(text: string, source: string): PriceTable {
  const parsed = parseJsonText(text);
  if (!parsed.ok) {
    throw new PriceError(
      'invalid-table',
      `${source} is not valid JSON: ${parsed.error.message} (line ${parsed.error.line}, column ${parsed.error.column})`,
    );
  }
  const result = priceTableSchema.safeParse(parsed.value, plainWordsParseOptions);
  if (!result.success) {
    const problems = locateIssues(result.error.issues).map((issue) => `${formatJsonPath(issue.path)} ${issue.message}`);
    throw new PriceError('invalid-table', `${source} is not a valid price table: ${problems.join('; ')}`);
  }
  return result.data;
}

export function loadPriceTable(file: string = priceTablePath): PriceTable {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new PriceError(
      'unreadable-table',
      `cannot read the price table ${file}: ${(error as Error).message}; restore it from git`,
      { cause: error },
    );
  }
  return parsePriceTable(text, file);
}
