// Loads the document fixtures under test/fixtures/documents and the manifest of why each invalid one fails.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

export const fixturesDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'documents');
export const validDir = join(fixturesDir, 'valid');
export const invalidDir = join(fixturesDir, 'invalid');

export interface InvalidCase {
  file: string;
  /** The kind validateDocumentText reports; null when the text names none it knows. */
  schema: string | null;
  reason: string;
  path: string;
  message: string;
  line?: number;
  /** The exported JSON Schema alone rejects it too (a structural rule, not a cross-field one). */
  jsonSchemaRejects?: boolean;
}

export function readFixture(dir: string, file: string): string {
  return readFileSync(join(dir, file), 'utf8');
}

export function fixtureFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((file) => file !== 'expected.json')
    .sort();
}

export function invalidCases(): InvalidCase[] {
  return (JSON.parse(readFixture(invalidDir, 'expected.json')) as { cases: InvalidCase[] }).cases;
}

/** The kind a valid fixture must report, from its file name prefix. */
export function expectedKind(file: string): string {
  const kind = /^(task|trace|run|verdict|registry|draw)-/.exec(file)?.[1];
  if (!kind) throw new Error(`valid fixture ${file} does not start with a document kind`);
  return `abp-${kind}/v1`;
}

/** expect.stringContaining typed as unknown, so asymmetric matchers can sit in typed object literals. */
export function containing(text: string): unknown {
  return expect.stringContaining(text);
}

/**
 * A deep copy of a JSON value with changes applied at dotted paths (`verification.failToPass`, `entries.1.repo`);
 * a change to undefined deletes the key.
 */
export function edit(value: unknown, changes: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(value) as Record<string, unknown>;
  for (const [path, change] of Object.entries(changes)) {
    const keys = path.split('.');
    const last = keys.pop() ?? '';
    let node: Record<string, unknown> = copy;
    for (const key of keys) node = node[key] as Record<string, unknown>;
    if (change === undefined) delete node[last];
    else node[last] = change;
  }
  return copy;
}

export function readJsonFixture(dir: string, file: string): unknown {
  return JSON.parse(readFixture(dir, file));
}
