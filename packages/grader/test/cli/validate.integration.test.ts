// `abp validate` as a user runs it: exit codes, the errors it prints, and its --json result.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAbp } from '../support/cli.js';
import { fixtureFiles, invalidCases, invalidDir, validDir } from '../../../protocol/test/schemas/fixtures.js';

describe('abp validate', () => {
  it('accepts every valid example, the spec examples among them, with exit 0', async () => {
    const files = fixtureFiles(validDir).map((file) => join(validDir, file));
    const result = await runAbp(['validate', ...files]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    for (const file of files) expect(result.stdout).toContain(`${file}: valid abp-`);
  });

  it('rejects each invalid fixture with exit 1 and a message naming the field', async () => {
    // One process for all: --all reports every file; --json gives the per-file errors as data.
    const cases = invalidCases();
    const result = await runAbp(['validate', '--all', '--json', ...cases.map((entry) => join(invalidDir, entry.file))]);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as {
      valid: boolean;
      files: Array<{ file: string; errors: Array<{ path: string; message: string }> }>;
    };
    expect(report.valid).toBe(false);
    expect(report.files).toHaveLength(cases.length);
    cases.forEach((entry, index) => {
      const [error] = report.files[index]?.errors ?? [];
      expect(error?.path, entry.file).toBe(entry.path);
      expect(error?.message, entry.file).toContain(entry.message);
      expect(result.stderr).toContain(`${entry.path}: ${error?.message}`);
    });
  });

  it('stops at the first invalid file and prints every error in it', async () => {
    const valid = join(validDir, 'task-spec-example.json');
    const invalid = join(invalidDir, 'task-held-out-false.json');
    const result = await runAbp(['validate', valid, invalid, join(validDir, 'run-spec-example.json')]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`${valid}: valid abp-task/v1`);
    expect(result.stderr).toContain(`${invalid}: invalid abp-task/v1 (1 error)`);
    expect(result.stderr).toContain('verification.heldOut: must be true');
    expect(result.stdout).not.toContain('run-spec-example.json');
  });

  it('names a missing file, and exits 2 when no file is given', async () => {
    const missing = await runAbp(['validate', '/nonexistent/task.json']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(
      'unreadable: /nonexistent/task.json: cannot read an ABP document or trace (no such file)',
    );
    const usage = await runAbp(['validate']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("missing required argument 'files'");
  });
});
