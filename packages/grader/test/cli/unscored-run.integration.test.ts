// `abp run` on a run that could score nothing: an engine that can never start has every trial excluded, and the command
// says so and exits 4 (`no-trial-scored`) after writing its receipts; beside an engine that was scored, it does not.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verdictSchema } from '@abp/protocol/schemas/abp-verdict';
import { buildRunFixture, GREETING_TASK, SLUG_TASK, type RunFixture } from '../support/run-fixture.js';
import { runAbp } from '../support/cli.js';

const GHOST = ['/nonexistent/abp-ghost-engine', '--input', '{inputFile}'];

describe('abp run when no trial could be scored', () => {
  let ghostOnly: RunFixture;
  let mixed: RunFixture;
  beforeAll(async () => {
    ghostOnly = await buildRunFixture({
      adapters: [{ engine: 'ghost', script: 'noop', command: GHOST }],
      tasks: [SLUG_TASK, GREETING_TASK],
    });
    mixed = await buildRunFixture({
      adapters: [
        { engine: 'fixer', script: 'fix' },
        { engine: 'ghost', script: 'noop', command: GHOST },
      ],
      tasks: [GREETING_TASK],
    });
  }, 60_000);
  afterAll(async () => {
    await ghostOnly.cleanup();
    await mixed.cleanup();
  });

  it('exits 4 with no-trial-scored, naming the engine and why, after writing the verdict and the report', async () => {
    const output = join(ghostOnly.dir, 'results');
    const run = await runAbp(['run', '--config', ghostOnly.config, '-o', output]);
    expect(run.code).toBe(4);
    expect(run.stderr).toMatch(
      /^abp: no trial could be scored: all 2 trials were excluded \(ghost: 2 engine errors, 0 harness errors, 0 unsupported; first engine-error \(failed-preflight\): .*abp-ghost-engine/,
    );
    expect(run.stdout).toContain('ghost: resolved 0/0 scored, rate none (no trial could be scored)');
    // The receipts are there to read why: the run ended, sealed and became run-latest.
    const verdict = verdictSchema.parse(JSON.parse(await readFile(join(output, 'run-latest', 'verdict.json'), 'utf8')));
    expect(verdict.perEngine[0]).toMatchObject({ engine: 'ghost', scoredTrials: 0, excludedEngineErrors: 2 });
    expect(verdict.warnings).toContainEqual(expect.stringMatching(/^ghost: no trial could be scored/));
    expect((await stat(join(output, 'run-latest', 'report.html'))).isFile()).toBe(true);
  });

  it('says so as data with --json: one document holding the run and the error', async () => {
    const run = await runAbp([
      'run',
      '--config',
      ghostOnly.config,
      '-o',
      join(ghostOnly.dir, 'json-results'),
      '--json',
    ]);
    expect(run.code).toBe(4);
    const printed = JSON.parse(run.stdout) as { runId: string; error: { code: string; message: string } };
    expect(printed.runId).toMatch(/^run-[0-9a-f]{12}$/);
    expect(printed.error.code).toBe('no-trial-scored');
    expect(printed.error.message).toMatch(/^no trial could be scored/);
  });

  it('exits 0 when another engine was scored: the unstartable one is excluded and named in the warnings', async () => {
    const output = join(mixed.dir, 'results');
    const run = await runAbp(['run', '--config', mixed.config, '-o', output]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/fixer: resolved 1\/1 scored/);
    expect(run.stdout).toContain('ghost: resolved 0/0 scored, rate none (no trial could be scored)');
    const verdict = verdictSchema.parse(JSON.parse(await readFile(join(output, 'run-latest', 'verdict.json'), 'utf8')));
    expect(verdict.warnings).toContainEqual(expect.stringMatching(/^ghost: no trial could be scored/));
  });
});
