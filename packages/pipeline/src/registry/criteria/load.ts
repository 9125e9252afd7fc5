// Reads the committed criteria file and overrides file (or others a caller names) and validates them, failing with
// the file and the field at fault. Both files ship beside this module; a criteria change is a new `version`.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { z } from 'zod';
import { CriteriaError } from './errors.js';
import type { Criteria, CriteriaDocument, OverridesDocument } from './schema.js';
import { criteriaDocumentSchema, overridesDocumentSchema } from './schema.js';
import { packageRoot } from '../../package-root.js';

export const DEFAULT_CRITERIA_FILE = join(packageRoot, 'data', 'criteria.json');
export const DEFAULT_OVERRIDES_FILE = join(packageRoot, 'data', 'criteria-overrides.json');

function fieldOf(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

function parse<T>(
  schema: z.ZodType<T>,
  text: string,
  file: string,
  code: 'invalid-criteria' | 'invalid-overrides',
  fix: string,
): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CriteriaError('invalid-json', `${file} is not JSON (${(error as Error).message}); fix the syntax`, {
      file,
      cause: error,
    });
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${fieldOf(issue.path) || '(root)'}: ${issue.message}`);
  const field = fieldOf(result.error.issues[0]?.path ?? []);
  throw new CriteriaError(code, `${file} is invalid: ${problems.join('; ')}. ${fix}`, {
    file,
    ...(field === '' ? {} : { field }),
  });
}

export function parseCriteria(text: string, file: string): CriteriaDocument {
  return parse(
    criteriaDocumentSchema,
    text,
    file,
    'invalid-criteria',
    'Fix the field and raise "version" if the rules changed (docs/registry.md).',
  );
}

export function parseOverrides(text: string, file: string): OverridesDocument {
  return parse(
    overridesDocumentSchema,
    text,
    file,
    'invalid-overrides',
    'Fix the override (docs/registry.md shows one).',
  );
}

async function read(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new CriteriaError(
      'file-unreadable',
      `cannot read ${file} (${(error as Error).message}); pass the path of an existing file`,
      { file, cause: error },
    );
  }
}

/** The criteria a rotation judges by; defaults to the committed files. */
export async function loadCriteria(files: { criteria?: string; overrides?: string } = {}): Promise<Criteria> {
  const criteriaFile = files.criteria ?? DEFAULT_CRITERIA_FILE;
  const overridesFile = files.overrides ?? DEFAULT_OVERRIDES_FILE;
  const document = parseCriteria(await read(criteriaFile), criteriaFile);
  const { overrides } = parseOverrides(await read(overridesFile), overridesFile);
  return { ...document, overrides };
}
