// The spec's own examples and our fixtures validate; each invalid fixture fails for exactly the one reason its manifest states.
import { describe, expect, it } from 'vitest';
import { validateDocumentText } from '../../src/schemas/documents.js';
import { expectedKind, fixtureFiles, invalidCases, invalidDir, readFixture, validDir } from './fixtures.js';

describe('valid documents', () => {
  const files = fixtureFiles(validDir);

  it('cover every document kind', () => {
    expect(new Set(files.map(expectedKind))).toEqual(
      new Set(['abp-task/v1', 'abp-trace/v1', 'abp-run/v1', 'abp-verdict/v1', 'abp-registry/v1', 'abp-draw/v1']),
    );
  });

  it.each(files)('%s validates', (file) => {
    const result = validateDocumentText(readFixture(validDir, file), file);
    expect(result.errors).toEqual([]);
    expect(result).toEqual({ schema: expectedKind(file), valid: true, errors: [] });
  });
});

describe('invalid documents', () => {
  const cases = invalidCases();

  it('has a manifest entry for every fixture and a fixture for every entry', () => {
    expect(cases.map((entry) => entry.file).sort()).toEqual(fixtureFiles(invalidDir));
  });

  it('has at least 15 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(15);
  });

  it.each(cases)('$file fails: $reason', (entry) => {
    const result = validateDocumentText(readFixture(invalidDir, entry.file), entry.file);
    expect(result.valid).toBe(false);
    expect(result.schema).toBe(entry.schema);
    // Exactly one error: each fixture breaks one rule, and a second error would mean a rule cascades.
    expect(result.errors).toHaveLength(1);
    const [error] = result.errors;
    expect(error?.path).toBe(entry.path);
    expect(error?.message).toContain(entry.message);
    if (entry.line !== undefined) expect(error?.line).toBe(entry.line);
  });
});
