// Owns the baseline file on disk: read and checked for `abp gate`, written atomically with stable bytes for
// `abp baseline`, so committing a regenerated baseline shows only what changed.
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import type { AbpBaseline } from '@abp/protocol/schemas/abp-baseline';
import { parseJsonText } from '@abp/protocol/schemas/json-text';
import { validateBaseline } from './baseline.js';
import { GateError } from './errors.js';

const RECREATE = 'recreate it with `abp baseline <run folder> --engine <name> -o <file>` and commit it';

export async function readBaselineFile(file: string): Promise<AbpBaseline> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw new GateError('missing-baseline', `${file} does not exist: ${RECREATE}`, { cause: error });
  }
  const json = parseJsonText(text);
  if (!json.ok) {
    const { message, line, column } = json.error;
    throw new GateError(
      'invalid-baseline',
      `${file}: is not valid JSON: ${message} (line ${line}, column ${column}); ${RECREATE}`,
    );
  }
  return validateBaseline(json.value, file, RECREATE);
}

/** The file's bytes: keys sorted at every level, two-space indentation, one final newline. */
export function baselineText(baseline: AbpBaseline): string {
  return `${JSON.stringify(sortKeys(baseline), null, 2)}\n`;
}

/** Writes next to the target and renames, so a reader (or a crash) never sees half a baseline. */
export async function writeBaselineFile(file: string, baseline: AbpBaseline): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    await writeFile(temporary, baselineText(baseline), 'utf8');
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(record)
      .sort()
      .map((key) => [key, sortKeys(record[key])]),
  );
}
