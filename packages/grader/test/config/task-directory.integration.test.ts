import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConformanceSuite, GREETING_TASK, SLUG_TASK } from '../../src/conformance/suite.js';
import { GraderConfigError } from '../../src/config/errors.js';
import { loadTaskDirectory } from '../../src/config/task-directory.js';

let dir = '';
let tasks = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'abp-task-dir-'));
  tasks = (await buildConformanceSuite(join(dir, 'suite'))).tasks;
});
afterAll(() => rm(dir, { recursive: true, force: true }));
const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'loaded',
    (error: unknown) => (error instanceof GraderConfigError ? error.code : String(error)),
  );

describe('task folders', () => {
  it('loads a github-issue task with its repository, held-out files and golden patch', async () => {
    const task = await loadTaskDirectory(join(tasks, SLUG_TASK));
    expect(task.source).toMatchObject({ kind: 'repo', baseCommit: task.manifest.source.baseCommit });
    expect(task.heldOutPaths).toEqual(['test/slug-dashes.test.js']);
    expect(task.goldenPatch).toContain('src/slug.js');
    expect(task.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('loads a fixture task with its assertions', async () => {
    const task = await loadTaskDirectory(join(tasks, GREETING_TASK));
    expect(task.source.kind).toBe('fixture');
    expect(task.assertions.map((assertion) => assertion.kind)).toEqual([
      'file-present',
      'file-absent',
      'file-content',
      'file-hash',
      'command',
    ]);
  });

  it('gives the same digest for the same folder and another when a held-out file changes', async () => {
    const before = (await loadTaskDirectory(join(tasks, GREETING_TASK))).digest;
    expect((await loadTaskDirectory(join(tasks, GREETING_TASK))).digest).toBe(before);
    await writeFile(join(tasks, GREETING_TASK, 'held-out', 'files', 'test', 'greet.test.js'), '// weakened\n');
    expect((await loadTaskDirectory(join(tasks, GREETING_TASK))).digest).not.toBe(before);
  });

  it('names the file and the field when the manifest is invalid', async () => {
    await writeFile(join(tasks, SLUG_TASK, 'task.json'), JSON.stringify({ schema: 'abp-task/v1', id: SLUG_TASK }));
    const error = await loadTaskDirectory(join(tasks, SLUG_TASK)).catch((caught: unknown) => caught);
    expect((error as GraderConfigError).code).toBe('invalid-task');
    expect((error as Error).message).toContain(join(tasks, SLUG_TASK, 'task.json'));
    expect((error as Error).message).toMatch(/verification/);
  });

  it('refuses, before any engine runs, a verification command it cannot run without a shell', async () => {
    const manifestPath = join(tasks, GREETING_TASK, 'task.json');
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as { verification: { failToPass: string[] } };
    manifest.verification.failToPass = ['node --test test/*.test.js'];
    await writeFile(manifestPath, JSON.stringify(manifest));
    const error = await loadTaskDirectory(join(tasks, GREETING_TASK)).catch((caught: unknown) => caught);
    expect((error as GraderConfigError).code).toBe('invalid-task');
    expect((error as Error).message).toContain(`${manifestPath}: verification.failToPass[0]`);
  });

  it('refuses a folder without task.json', async () => {
    expect(await codeOf(loadTaskDirectory(join(tasks, 'nope')))).toBe('missing-file');
  });
});
